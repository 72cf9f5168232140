/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test-only driver for the swap file modules (never installed): execute/swapfile.c,
 * probe/swapfile.c, probe/mounts.c with plan/placement.c; one command per call, for
 * test-swapfile-kernel.sh. Exit status: 0 success, 1 failure (the errno name and the reason on
 * stderr), 2 created but swapon skipped (foreign root), 64 usage. Whether an existing file
 * is reused is the product's decision: the test asks `nodeswap plan` (probe() and plan()). */
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "execute/swapfile.h"
#include "plan/placement.h"
#include "probe/mounts.h"
#include "probe/swap.h"
#include "probe/swapfile.h"
#include "execute/swapon.h"

static int usage(void) {
        fprintf(stderr,
                "usage: swapfile-driver create ROOT PATH SIZE PAGESIZE PRIORITY STORAGE\n"
                "       swapfile-driver probe ROOT PATH PAGESIZE  (what probe finds wrong with the file)\n"
                "       swapfile-driver rewrite ROOT PATH PAGESIZE\n"
                "       swapfile-driver remove ROOT PATH\n"
                "       swapfile-driver inspect ROOT PATH\n"
                "       swapfile-driver header FILE PAGESIZE    (write a header, any page size)\n"
                "       swapfile-driver loop-detach ROOT FILE   (detach the loop devices on FILE)\n"
                "STORAGE: comma-separated nvme,ssd,virtual,rotational,mmc\n");
        return 64;
}

static int parse_u64(const char *s, uint64_t *ret) {
        if (safe_atou64(s, ret) < 0) {
                fprintf(stderr, "not a number: %s\n", s);
                return -EINVAL;
        }
        return 0;
}

static int parse_storage(const char *s, unsigned *ret) {
        static const struct { const char *name; unsigned bit; } map[] = {
                { "nvme", STORAGE_NVME }, { "ssd", STORAGE_SSD }, { "virtual", STORAGE_VIRTUAL },
                { "rotational", STORAGE_ROTATIONAL }, { "mmc", STORAGE_MMC },
        };
        unsigned bits = 0;
        _cleanup_free_ char *copy = strdup(s);
        if (!copy)
                return -ENOMEM;
        for (char *save = NULL, *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
                size_t i;
                for (i = 0; i < ELEMENTSOF(map); i++)
                        if (streq(w, map[i].name))
                                break;
                if (i == ELEMENTSOF(map)) {
                        fprintf(stderr, "unknown storage kind: %s\n", w);
                        return -EINVAL;
                }
                bits |= map[i].bit;
        }
        *ret = bits;
        return 0;
}

static int failed(int r, const char *what, const char *reason) {
        const char *name = strerrorname_np(-r);
        fprintf(stderr, "%s: %s: %s\n", name ? name : "?", what, reason ? reason : strerror(-r));
        return 1;
}

int main(int argc, char **argv) {
        _cleanup_free_ char *reason = NULL;
        uint64_t size, page_size;
        unsigned storage;
        int priority, r;

        if (argc < 2)
                return usage();
        const char *cmd = argv[1];

        if (streq(cmd, "create") && argc == 8) {
                if (parse_u64(argv[4], &size) < 0 || parse_u64(argv[5], &page_size) < 0 ||
                    safe_atoi(argv[6], &priority) < 0 || parse_storage(argv[7], &storage) < 0)
                        return usage();
                r = swapfile_create(argv[2], argv[3], size, page_size, priority, 0, storage, &reason);
                if (r < 0)
                        return failed(r, argv[3], reason);
                if (r == SWAPFILE_SWAPON_SKIPPED) {
                        printf("%s: created, swapon skipped\n", argv[3]);
                        return 2;
                }
                printf("%s: created and on\n", argv[3]);
                return 0;
        }
        if (streq(cmd, "probe") && argc == 5) {
                /* probe's reading of the file, which plan() judges: for an active file too,
                 * which plan keeps as it is */
                SwapFileState f = {};
                if (parse_u64(argv[4], &page_size) < 0)
                        return usage();
                r = swapfile_probe(argv[2], argv[3], page_size, &f);
                if (r < 0)
                        return failed(r, argv[3], NULL);
                const char *problems[] = { f.path_problem, f.header_problem, f.allocation_problem, f.nocow_problem };
                bool any = false;
                for (size_t i = 0; i < ELEMENTSOF(problems); i++)
                        if (problems[i]) {
                                printf("%s\n", problems[i]);
                                any = true;
                        }
                if (!any)
                        printf("%s\n", f.checked ? "none" : "not checked");
                for (size_t i = 0; i < ELEMENTSOF(problems); i++)
                        free((char *) problems[i]);
                free(f.label);
                free(f.fstype);
                free(f.fs_mount_point);
                free(f.storage_device);
                return 0;
        }
        if (streq(cmd, "rewrite") && argc == 5) {
                if (parse_u64(argv[4], &page_size) < 0)
                        return usage();
                r = swapfile_rewrite_header(argv[2], argv[3], page_size);
                if (r < 0)
                        return failed(r, argv[3], NULL);
                printf("%s\n", r > 0 ? "rewritten" : "unchanged");
                return 0;
        }
        if (streq(cmd, "remove") && argc == 4) {
                r = swapfile_remove(argv[2], argv[3], false);
                if (r < 0)
                        return failed(r, argv[3], NULL);
                printf("%s\n", r > 0 ? "removed" : "nothing there");
                return 0;
        }
        if (streq(cmd, "inspect") && argc == 4) {
                FsInfo fs = {};
                r = mounts_inspect_path(argv[2], argv[3], &fs);
                if (r < 0)
                        return failed(r, argv[3], NULL);
                printf("mount_point=%s\nfstype=%s\nsource=%s\ndevice=%s\nkind=%s\nfree=%" PRIu64 "\n"
                       "read_only=%d\nbtrfs_multi_device=%d\ncompressed=%d\n",
                       fs.mount_point, fs.fstype, fs.source, strempty(fs.device), fs.kind ? storage_kind_to_string(fs.kind) : "unknown", fs.free,
                       fs.read_only, fs.btrfs_multi_device, fs.compressed);
                r = placement_check_fs(&fs, STORAGE_NVME | STORAGE_SSD | STORAGE_VIRTUAL, &reason);
                printf("check=%s\n", r > 0 ? "allowed" : r == 0 ? reason : "error");
                fs_info_done(&fs);
                return 0;
        }
        if (streq(cmd, "loop-detach") && argc == 4) {
                r = loop_detach_file(argv[2], argv[3]);
                if (r < 0)
                        return failed(r, argv[3], NULL);
                printf("%d\n", r);
                return 0;
        }
        if (streq(cmd, "header") && argc == 4) {
                if (parse_u64(argv[3], &page_size) < 0)
                        return usage();
                _cleanup_close_ int fd = open(argv[2], O_RDWR | O_CLOEXEC | O_NOFOLLOW);
                if (fd < 0)
                        return failed(-errno, argv[2], NULL);
                struct stat st;
                if (fstat(fd, &st) < 0)
                        return failed(-errno, argv[2], NULL);
                r = swap_header_write(fd, (uint64_t) st.st_size, page_size, SWAP_LABEL);
                if (r < 0)
                        return failed(r, argv[2], NULL);
                return 0;
        }
        return usage();
}
