/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz policy_load(): the input is a main nodeswap.conf followed by drop-ins, each started by a
 * line "#--- dropin" (a comment, so the same input also reads as one file). The parts are written
 * into a private root's etc/nodeswap/nodeswap.conf and nodeswap.conf.d/NN.conf (mode 0644) and
 * loaded from there; then the whole input is loaded again as one --config file. Whatever comes
 * back must be consistent: a valid policy has page-aligned sizes and priorities in range, an
 * invalid one has at least one error, and every error formats to a single printable line. */
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "policy/policy.h"
#include "fuzz.h"

#define SEPARATOR "#--- dropin"
#define MAX_DROPINS 8

static char root[64];
static char etc[96], confd[128], single[96];

static int rm_cb(const char *p, const struct stat *s, int type, struct FTW *f) {
        return remove(p);
}

static void cleanup(void) {
        if (root[0])
                nftw(root, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

static void setup(void) {
        if (root[0])
                return;
        snprintf(root, sizeof root, "%s", "/tmp/nodeswap-fuzz-policy.XXXXXX");
        FUZZ_ASSERT(mkdtemp(root));
        atexit(cleanup);
        char d[96];
        snprintf(d, sizeof d, "%s/etc", root);
        FUZZ_ASSERT(mkdir(d, 0755) == 0);
        snprintf(etc, sizeof etc, "%s/etc/nodeswap", root);
        FUZZ_ASSERT(mkdir(etc, 0755) == 0);
        snprintf(confd, sizeof confd, "%s/nodeswap.conf.d", etc);
        FUZZ_ASSERT(mkdir(confd, 0755) == 0);
        snprintf(single, sizeof single, "%s/single.conf", root);
}

static void write_file(const char *path, const uint8_t *data, size_t size) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        FUZZ_ASSERT(fd >= 0);
        FUZZ_ASSERT(fchmod(fd, 0644) == 0);     /* whatever the umask */
        while (size > 0) {
                ssize_t k = write(fd, data, size);
                FUZZ_ASSERT(k > 0);
                data += k;
                size -= (size_t) k;
        }
        close(fd);
}

/* The start of the next separator line at or after p, or NULL. */
static const uint8_t *find_separator(const uint8_t *p, const uint8_t *end) {
        size_t l = strlen(SEPARATOR);
        for (const uint8_t *q = p; q + l <= end; q++)
                if ((q == p || q[-1] == '\n') && memcmp(q, SEPARATOR, l) == 0 &&
                    (q + l == end || q[l] == '\n'))
                        return q;
        return NULL;
}

static void check_result(int r, const Policy *p, const PolicyErrors *e, uint64_t page_size) {
        FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ENOMEM || r < 0);
        if (r == 0) {
                FUZZ_ASSERT(e->n == 0);
                FUZZ_ASSERT(p->zram.size > 0 && p->zram.size % page_size == 0);
                FUZZ_ASSERT(p->file.size > 0 && p->file.size % page_size == 0);
                FUZZ_ASSERT(p->zram.mem_limit % page_size == 0 && p->zram.mem_limit <= p->zram.size);
                FUZZ_ASSERT(p->zram.priority >= 0 && p->zram.priority <= 32767);
                FUZZ_ASSERT(p->file.priority >= 0 && p->file.priority <= 32767);
                FUZZ_ASSERT(p->swappiness >= -1 && p->swappiness <= 200);
                FUZZ_ASSERT(p->page_cluster >= -1 && p->page_cluster <= 10);
                FUZZ_ASSERT(p->file.path && p->file.path[0] == '/' && !strstr(p->file.path, "/../"));
                FUZZ_ASSERT(p->dropin && p->dropin[0] == '/');
                FUZZ_ASSERT(p->zram.algorithms && p->zram.algorithms[0]);
                if (p->backend_set && p->backends == (BACKEND_ZRAM | BACKEND_FILE))
                        FUZZ_ASSERT(p->zram.priority != p->file.priority);
        } else if (r == -EINVAL) {
                FUZZ_ASSERT(e->n > 0);
        }
        for (size_t i = 0; i < e->n; i++) {
                char *s = policy_error_format(&e->errors[i]);
                FUZZ_ASSERT(s);
                for (const char *c = s; *c; c++)
                        FUZZ_ASSERT((unsigned char) *c >= 0x20 && *c != 0x7f);
                free(s);
        }
}

int fuzz_policy_one(const uint8_t *data, size_t size) {
        static const PolicyContext ctx = { .ram = 16 * GiB, .page_size = 4096 };
        const uint8_t *end = data + size;
        char path[160];

        if (size > 64 * 1024)   /* policy files are small; larger inputs only slow the search */
                return 0;
        setup();

        /* Clear what the previous input left. */
        for (int i = 0; i < MAX_DROPINS; i++) {
                snprintf(path, sizeof path, "%s/%02d.conf", confd, i);
                unlink(path);
        }
        snprintf(path, sizeof path, "%s/nodeswap.conf", etc);
        const uint8_t *sep = find_separator(data, end);
        write_file(path, data, (size_t) ((sep ?: end) - data));
        for (int i = 0; sep && i < MAX_DROPINS; i++) {
                const uint8_t *start = sep + strlen(SEPARATOR);
                if (start < end)
                        start++;        /* its newline */
                sep = find_separator(start, end);
                snprintf(path, sizeof path, "%s/%02d.conf", confd, i);
                write_file(path, start, (size_t) ((sep ?: end) - start));
        }

        Policy p = {};
        PolicyErrors e = {};
        int r = policy_load(root, NULL, &ctx, &p, &e);
        check_result(r, &p, &e, ctx.page_size);
        policy_done(&p);
        policy_errors_clear(&e);

        /* The same bytes as one file given with --config. */
        write_file(single, data, size);
        r = policy_load("/", single, &ctx, &p, &e);
        check_result(r, &p, &e, ctx.page_size);
        policy_done(&p);
        policy_errors_clear(&e);
        return 0;
}

#ifndef NODESWAP_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        return fuzz_policy_one(data, size);
}
#endif
