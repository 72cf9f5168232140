/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Runs every fuzz harness over every file of the directories (or files) given: the seed corpus
 * and tests/fuzz/regressions/, so every input a fuzzer ever crashed on stays a unit test. A
 * harness that finds a broken invariant aborts, which fails the test. */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "shared/util.h"
#include "fuzz.h"

static int replay_file(const char *path, unsigned *count) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "Failed to open '%s': %m\n", path);
                return -errno;
        }
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return 0;
        size_t size = (size_t) st.st_size;
        _cleanup_free_ uint8_t *buf = malloc(size + 1);
        if (!buf)
                return -ENOMEM;
        size_t got = 0;
        while (got < size) {
                ssize_t k = read(fd, buf + got, size - got);
                if (k < 0)
                        return -errno;
                if (k == 0)
                        break;
                got += (size_t) k;
        }
        fprintf(stderr, "replay %s (%zu bytes)\n", path, got);
        fuzz_policy_one(buf, got);
        fuzz_size_one(buf, got);
        fuzz_kubelet_one(buf, got);
        (*count)++;
        return 0;
}

int main(int argc, char *argv[]) {
        unsigned count = 0;
        for (int i = 1; i < argc; i++) {
                struct stat st;
                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "Failed to stat '%s': %m\n", argv[i]);
                        return 1;
                }
                if (!S_ISDIR(st.st_mode)) {
                        if (replay_file(argv[i], &count) < 0)
                                return 1;
                        continue;
                }
                struct dirent **names;
                int n = scandir(argv[i], &names, NULL, alphasort);
                if (n < 0) {
                        fprintf(stderr, "Failed to list '%s': %m\n", argv[i]);
                        return 1;
                }
                int r = 0;
                for (int k = 0; k < n; k++) {
                        if (names[k]->d_name[0] != '.' && r >= 0) {
                                _cleanup_free_ char *p = strdup_printf("%s/%s", argv[i], names[k]->d_name);
                                r = p ? replay_file(p, &count) : -ENOMEM;
                        }
                        free(names[k]);
                }
                free(names);
                if (r < 0)
                        return 1;
        }
        printf("%u inputs replayed through fuzz-policy, fuzz-size and fuzz-kubelet, no crash\n", count);
        return count > 0 ? 0 : 1;
}
