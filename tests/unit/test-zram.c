/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "probe/swap.h"
#include "probe/zram.h"
#include "execute/zram.h"

/* ---- algorithm choice ---------------------------------------------------------------------- */

#define STRV(...) ((char *[]) { __VA_ARGS__, NULL })
#define STRV_EMPTY ((char *[]) { NULL })

typedef struct PickCase {
        char **offered;
        char **preference;
        int want_r;
        const char *want_algorithm;
        const char *want_reason;
} PickCase;

static void test_pick_algorithm(void **state) {
        const PickCase cases[] = {
                /* this kernel: no zstd */
                { STRV("lzo-rle", "lzo", "lz4"), STRV("zstd", "lz4"), 0, "lz4",
                  "zstd not offered by this kernel, using lz4" },
                /* a Pi 5 kernel */
                { STRV("lzo-rle", "lzo", "lz4", "lz4hc", "zstd", "deflate"), STRV("zstd", "lz4"), 0, "zstd",
                  "using zstd, the first preference" },
                { STRV("lzo-rle", "lzo", "lz4"), STRV("zstd", "lz4hc", "lzo"), 0, "lzo",
                  "zstd, lz4hc not offered by this kernel, using lzo" },
                { STRV("lzo-rle", "lzo", "lz4"), STRV("lz4"), 0, "lz4", "using lz4, the first preference" },
                { STRV("lzo-rle", "lzo", "lz4"), STRV("zstd", "deflate"), -ENOENT, NULL, NULL },
                { STRV("lzo-rle", "lzo", "lz4"), STRV("LZ4"), -ENOENT, NULL, NULL },      /* names are exact */
                { STRV_EMPTY, STRV("lz4"), -ENOENT, NULL, NULL },
                { NULL, STRV("lz4"), -ENOENT, NULL, NULL },
                { STRV("lz4"), STRV_EMPTY, -EINVAL, NULL, NULL },
                { STRV("lz4"), NULL, -EINVAL, NULL, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const PickCase *c = &cases[i];
                const char *algorithm = "untouched";
                char *reason = (char *) "untouched";

                int r = zram_pick_algorithm(c->offered, c->preference, &algorithm, &reason);
                assert_int_equal(r, c->want_r);
                if (r < 0) {
                        assert_string_equal(algorithm, "untouched");
                        assert_string_equal(reason, "untouched");
                        continue;
                }
                assert_string_equal(algorithm, c->want_algorithm);
                assert_string_equal(reason, c->want_reason);
                free(reason);

                /* the reason is optional */
                assert_int_equal(zram_pick_algorithm(c->offered, c->preference, &algorithm, NULL), 0);
                assert_string_equal(algorithm, c->want_algorithm);
        }
}

typedef struct ParseCase {
        const char *text;
        int want_r;
        char **want_offered;
        const char *want_active;
} ParseCase;

static void test_parse_comp_algorithm(void **state) {
        const ParseCase cases[] = {
                { "lzo-rle lzo [lz4]\n", 0, STRV("lzo-rle", "lzo", "lz4"), "lz4" },
                { "[lzo-rle] lzo lz4 \n", 0, STRV("lzo-rle", "lzo", "lz4"), "lzo-rle" },
                { "lzo lz4", 0, STRV("lzo", "lz4"), NULL },
                { "", 0, STRV_EMPTY, NULL },
                { "[lzo] [lz4]\n", -EINVAL, NULL, NULL },
                { "lzo []\n", -EINVAL, NULL, NULL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char **offered = NULL, *active = NULL;
                int r = zram_parse_comp_algorithm(cases[i].text, &offered, &active);
                assert_int_equal(r, cases[i].want_r);
                if (r < 0) {
                        assert_null(offered);
                        continue;
                }
                assert_int_equal(strv_length(offered), strv_length(cases[i].want_offered));
                for (size_t j = 0; cases[i].want_offered[j]; j++)
                        assert_string_equal(offered[j], cases[i].want_offered[j]);
                if (cases[i].want_active)
                        assert_string_equal(active, cases[i].want_active);
                else
                        assert_null(active);
                strv_free(offered);
                free(active);
        }
}

/* ---- a fixture sysfs tree ------------------------------------------------------------------ */

static void put(const char *root, const char *rel, const char *content) {
        _cleanup_free_ char *p = path_join_root(root, rel);
        assert_non_null(p);
        /* parents */
        for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                (void) mkdir(p, 0755);
                *s = '/';
        }
        _cleanup_close_ int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        size_t len = strlen(content);
        assert_int_equal(write(fd, content, len), (ssize_t) len);
}

static void put_dir(const char *root, const char *rel) {
        _cleanup_free_ char *placeholder = strdup_printf("%s/.placeholder", rel);
        put(root, placeholder, "");     /* creates the parents */
        _cleanup_free_ char *p = path_join_root(root, placeholder);
        assert_int_equal(unlink(p), 0);
}

static char *get(const char *root, const char *rel) {
        _cleanup_free_ char *p = path_join_root(root, rel);
        char *s = NULL;
        int r = read_full_file(p, 64 * 1024, &s);
        assert_true(r >= 0);
        return s;
}

static bool exists(const char *root, const char *rel) {
        _cleanup_free_ char *p = path_join_root(root, rel);
        return access(p, F_OK) == 0;
}

typedef struct FixtureDevice {
        int id;
        const char *disksize;
        const char *initstate;
        bool in_swaps;
        bool held;                      /* a holders/ entry (device mapper on top) */
        const char *backing_dev;        /* NULL: no such attribute (CONFIG_ZRAM_WRITEBACK=n) */
        bool no_comp_algorithm;
} FixtureDevice;

#define FIXTURE_END { .id = -1 }

static void fixture_add_device(const char *root, const FixtureDevice *d) {
        char rel[128];
#define ATTR(name, value) do { snprintf(rel, sizeof(rel), "/sys/block/zram%d/%s", d->id, name); put(root, rel, value); } while (0)
        ATTR("disksize", d->disksize ? d->disksize : "0\n");
        ATTR("initstate", d->initstate ? d->initstate : "0\n");
        if (!d->no_comp_algorithm)
                ATTR("comp_algorithm", "[lzo-rle] lzo lz4 \n");
        ATTR("algorithm_params", "");
        ATTR("mem_limit", "");
        ATTR("reset", "");
        ATTR("mm_stat", "       0        0        0        0        0        0        0        0        0\n");
        if (d->backing_dev)
                ATTR("backing_dev", d->backing_dev);
#undef ATTR
        snprintf(rel, sizeof(rel), "/sys/block/zram%d/holders", d->id);
        put_dir(root, rel);
        if (d->held) {
                snprintf(rel, sizeof(rel), "/sys/block/zram%d/holders/dm-0", d->id);
                put(root, rel, "");
        }
}

/* A root with the given devices, zram-control answering hot_add with hot_add_id (or no
 * zram-control at all when hot_add_id < 0), and /proc/swaps. */
static char *fixture_new(const FixtureDevice *devices, int hot_add_id) {
        char *root = strdup("/tmp/test-zram-XXXXXX");
        assert_non_null(root);
        assert_non_null(mkdtemp(root));

        char swaps[4096] = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
        for (const FixtureDevice *d = devices; d && d->id >= 0; d++) {
                fixture_add_device(root, d);
                if (d->in_swaps)
                        snprintf(swaps + strlen(swaps), sizeof(swaps) - strlen(swaps),
                                 "/dev/zram%d                              partition\t2097136\t\t0\t\t100\n", d->id);
        }
        put(root, "/proc/swaps", swaps);
        put_dir(root, "/sys/block");
        if (hot_add_id >= 0) {
                char buf[16];
                snprintf(buf, sizeof(buf), "%d\n", hot_add_id);
                put(root, "/sys/class/zram-control/hot_add", buf);
                put(root, "/sys/class/zram-control/hot_remove", "");
        }
        return root;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static void fixture_free(char *root) {
        assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
        free(root);
}

/* ---- zram_find_free ------------------------------------------------------------------------ */

typedef struct FindCase {
        const char *name;
        FixtureDevice devices[8];
        int hot_add_id;
        int want_r;
        int want_id;
} FindCase;

static void test_find_free(void **state) {
        const FindCase cases[] = {
                { "zram0 swapped on, zram1 free: zram1 is taken",
                  { { .id = 0, .disksize = "2147483648\n", .initstate = "1\n", .in_swaps = true }, { .id = 1 }, FIXTURE_END },
                  9, 0, 1 },
                { "the lowest free id, whatever the directory order",
                  { { .id = 10 }, { .id = 2 }, { .id = 0, .disksize = "4096\n", .initstate = "1\n" }, FIXTURE_END },
                  9, 0, 2 },
                { "none free: hot_add",
                  { { .id = 0, .disksize = "2147483648\n", .initstate = "1\n" },
                    { .id = 1, .in_swaps = true },                       /* listed in /proc/swaps */
                    { .id = 2, .held = true },                           /* something stacked on it */
                    { .id = 3, .initstate = "1\n" },                      /* initialised */
                    { .id = 4, .backing_dev = "/dev/nvme0n1p3\n" },       /* being set up for writeback */
                    { .id = 5, .disksize = "garbage\n" },                 /* unreadable counts as used */
                    FIXTURE_END },
                  6, 1, 6 },
                { "backing_dev none is free",
                  { { .id = 0, .backing_dev = "none\n" }, FIXTURE_END }, 9, 0, 0 },
                { "no device at all: hot_add",
                  { FIXTURE_END }, 0, 1, 0 },
                { "zram not loaded",
                  { FIXTURE_END }, -1, -ENOENT, 0 },
                { "all used and no zram-control",
                  { { .id = 0, .initstate = "1\n", .disksize = "4096\n" }, FIXTURE_END }, -1, -ENOENT, 0 },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const FindCase *c = &cases[i];
                print_message("%s\n", c->name);
                char *root = fixture_new(c->devices, c->hot_add_id);
                int id = -42;
                assert_int_equal(zram_find_free(root, &id), c->want_r);
                assert_int_equal(id, c->want_r < 0 ? -42 : c->want_id);
                fixture_free(root);
        }
}

/* ---- zram_setup ---------------------------------------------------------------------------- */

/* The attribute files of zram<id> closed after writing, in order, as "a b c". */
typedef struct WriteRecorder {
        int fd;
} WriteRecorder;

static WriteRecorder recorder_start(const char *root, int id) {
        WriteRecorder w = { .fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK) };
        assert_true(w.fd >= 0);
        _cleanup_free_ char *rel = strdup_printf("/sys/block/zram%d", id);
        _cleanup_free_ char *p = path_join_root(root, rel);
        assert_true(inotify_add_watch(w.fd, p, IN_CLOSE_WRITE) >= 0);
        return w;
}

static char *recorder_stop(WriteRecorder *w) {
        char buf[16 * (sizeof(struct inotify_event) + NAME_MAX + 1)] __attribute__((aligned(__alignof__(struct inotify_event))));
        _cleanup_strv_free_ char **names = calloc(1, sizeof(char *));
        for (;;) {
                ssize_t k = read(w->fd, buf, sizeof(buf));
                if (k < 0) {
                        assert_int_equal(errno, EAGAIN);
                        break;
                }
                for (char *p = buf; p < buf + k;) {
                        struct inotify_event *e = (struct inotify_event *) p;
                        assert_int_equal(strv_extend(&names, e->name), 0);
                        p += sizeof(*e) + e->len;
                }
        }
        close(w->fd);
        return strv_join(names, " ");
}

static void test_setup_writes_in_the_kernels_order(void **state) {
        const FixtureDevice devices[] = { { .id = 1 }, FIXTURE_END };
        char *root = fixture_new(devices, 9);

        WriteRecorder w = recorder_start(root, 1);
        assert_int_equal(zram_setup(root, 1, "zstd", "algo=zstd level=3", 1 * GiB, 4 * GiB), 0);
        _cleanup_free_ char *order = recorder_stop(&w);

        assert_string_equal(order, "comp_algorithm algorithm_params mem_limit disksize");
        _cleanup_free_ char *alg = get(root, "/sys/block/zram1/comp_algorithm"),
                            *params = get(root, "/sys/block/zram1/algorithm_params"),
                            *limit = get(root, "/sys/block/zram1/mem_limit"),
                            *size = get(root, "/sys/block/zram1/disksize");
        assert_string_equal(alg, "zstd");
        assert_string_equal(params, "algo=zstd level=3");
        assert_string_equal(limit, "1073741824");
        assert_string_equal(size, "4294967296");
        fixture_free(root);
}

/* Recompression and the backing device go before disksize too (the kernel refuses them after), and
 * the parameters are those of the algorithm chosen from the device's own offer. */
static void test_provision_extra_in_the_kernels_order(void **state) {
        const FixtureDevice devices[] = { { .id = 0, .backing_dev = "none\n" }, FIXTURE_END };
        char *root = fixture_new(devices, -1);
        put(root, "/sys/block/zram0/recomp_algorithm", "");

        char *preference[] = { (char *) "zstd", (char *) "lz4", NULL };
        char *params_of[] = { (char *) "level=3", (char *) "level=2", NULL };
        char *recompress[] = { (char *) "lzo", NULL };
        char *recompress_params[] = { (char *) "level=9", NULL };
        ZramSetupExtra extra = {
                .recompress = recompress,
                .recompress_params = recompress_params,
                .backing_dev = "/dev/loop7",
                .params_of = params_of,
        };
        _cleanup_free_ char *chosen = NULL;
        int id = -1;
        WriteRecorder w = recorder_start(root, 0);
        assert_int_equal(zram_provision(root, NULL, preference, NULL, &extra, 0, 64 * MiB, 100, 4096, &id, &chosen), 1);
        _cleanup_free_ char *order = recorder_stop(&w);
        assert_int_equal(id, 0);
        assert_string_equal(chosen, "lz4");     /* the fixture offers lzo-rle lzo lz4 */
        assert_string_equal(order, "comp_algorithm algorithm_params recomp_algorithm algorithm_params backing_dev disksize");
        _cleanup_free_ char *rec = get(root, "/sys/block/zram0/recomp_algorithm"),
                            *params = get(root, "/sys/block/zram0/algorithm_params"),
                            *backing = get(root, "/sys/block/zram0/backing_dev");
        assert_string_equal(rec, "algo=lzo priority=1");
        assert_string_equal(params, "priority=1 level=9");     /* the last of the two writes */
        assert_string_equal(backing, "/dev/loop7");
        fixture_free(root);
}

static void test_setup_leaves_out_what_is_not_asked_or_not_there(void **state) {
        const FixtureDevice devices[] = { { .id = 0 }, FIXTURE_END };
        char *root = fixture_new(devices, 9);

        /* no params, no mem_limit */
        WriteRecorder w = recorder_start(root, 0);
        assert_int_equal(zram_setup(root, 0, "lz4", NULL, 0, 64 * MiB), 0);
        _cleanup_free_ char *order = recorder_stop(&w);
        assert_string_equal(order, "comp_algorithm disksize");

        /* a kernel before 6.12 has no algorithm_params: the params are left out */
        _cleanup_free_ char *p = path_join_root(root, "/sys/block/zram0/algorithm_params");
        assert_int_equal(unlink(p), 0);
        w = recorder_start(root, 0);
        assert_int_equal(zram_setup(root, 0, "lz4", "level=3", 0, 64 * MiB), 0);
        _cleanup_free_ char *order2 = recorder_stop(&w);
        assert_string_equal(order2, "comp_algorithm disksize");
        fixture_free(root);
}

static void test_setup_refuses_bad_arguments(void **state) {
        const FixtureDevice devices[] = { { .id = 0 }, FIXTURE_END };
        char *root = fixture_new(devices, 9);

        WriteRecorder w = recorder_start(root, 0);
        assert_int_equal(zram_setup(root, -1, "lz4", NULL, 0, 64 * MiB), -EINVAL);
        assert_int_equal(zram_setup(root, 0, "", NULL, 0, 64 * MiB), -EINVAL);
        assert_int_equal(zram_setup(root, 0, NULL, NULL, 0, 64 * MiB), -EINVAL);
        assert_int_equal(zram_setup(root, 0, "lz4 zstd", NULL, 0, 64 * MiB), -EINVAL);
        assert_int_equal(zram_setup(root, 0, "[lz4]", NULL, 0, 64 * MiB), -EINVAL);
        assert_int_equal(zram_setup(root, 0, "lz4", "", 0, 64 * MiB), -EINVAL);
        assert_int_equal(zram_setup(root, 0, "lz4", NULL, 0, 0), -EINVAL);
        _cleanup_free_ char *order = recorder_stop(&w);
        assert_string_equal(order, "");         /* nothing written */

        /* a missing device */
        assert_int_equal(zram_setup(root, 3, "lz4", NULL, 0, 64 * MiB), -ENOENT);
        fixture_free(root);
}

/* ---- zram_provision and zram_teardown under a fixture root ------------------------------- */

static void test_provision_under_a_fixture_root(void **state) {
        /* zram1 is free, but nodeswap takes a device of its own: hot_add answers 9 (the kernel
         * would create zram9 on that read; the fixture has it ready). */
        const FixtureDevice devices[] = {
                { .id = 0, .disksize = "2147483648\n", .initstate = "1\n", .in_swaps = true }, { .id = 1 }, { .id = 9 },
                FIXTURE_END
        };
        char *root = fixture_new(devices, 9);
        /* Stands in for the block device: as big as the disksize nodeswap writes, and, like a
         * device that was just initialised, zeros throughout (provision writes only the header page). */
        put(root, "/dev/zram9", "");
        {
                _cleanup_free_ char *d = path_join_root(root, "/dev/zram9");
                assert_int_equal(truncate(d, 64 * MiB), 0);
        }

        int id = -1;
        assert_int_equal(zram_provision(root, "lz4", NULL, NULL, NULL, 0, 64 * MiB, 100, 4096, &id, NULL), 1);
        assert_int_equal(id, 9);                /* hot_add's: the free zram1 is not taken */

        _cleanup_free_ char *alg = get(root, "/sys/block/zram9/comp_algorithm"),
                            *size = get(root, "/sys/block/zram9/disksize"),
                            *reset = get(root, "/sys/block/zram9/reset"),
                            *removed = get(root, "/sys/class/zram-control/hot_remove"),
                            *free_one = get(root, "/sys/block/zram1/disksize"),
                            *busy = get(root, "/sys/block/zram0/disksize");
        assert_string_equal(alg, "lz4");
        assert_string_equal(size, "67108864");
        assert_string_equal(reset, "");
        assert_string_equal(removed, "");
        assert_string_equal(free_one, "0\n");          /* a free device nodeswap did not create: untouched */
        assert_string_equal(busy, "2147483648\n");     /* the used device is left alone */

        _cleanup_free_ char *dev = path_join_root(root, "/dev/zram9");
        _cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        SwapHeaderInfo info;
        assert_int_equal(swap_header_probe(fd, &info), 1);
        assert_int_equal(info.page_size, 4096);
        assert_int_equal(info.last_page, 64 * MiB / 4096 - 1);
        assert_string_equal(info.label, "nodeswap");

        /* A kernel without zram-control: a free existing device is taken (not added); without a
         * device node in the fixture the header is skipped too. */
        const FixtureDevice devices2[] = { { .id = 0 }, FIXTURE_END };
        char *root2 = fixture_new(devices2, -1);
        assert_int_equal(zram_provision(root2, "lz4", NULL, "algo=lz4 level=1", NULL, 0, 64 * MiB, 100, 16384, &id, NULL), 1);
        assert_int_equal(id, 0);
        fixture_free(root2);
        fixture_free(root);
}

typedef struct ProvisionFailure {
        const char *name;
        FixtureDevice devices[4];
        int hot_add_id;
        bool dev_is_directory;
        int want_r;
        int id;                 /* the device it tried */
        const char *want_disksize;
        const char *want_reset;
        const char *want_hot_remove;
} ProvisionFailure;

static void test_provision_undoes_what_it_did(void **state) {
        const ProvisionFailure cases[] = {
                { "a hot_add'ed device whose setup fails is reset and removed",
                  { { .id = 1 }, { .id = 9, .no_comp_algorithm = true }, FIXTURE_END }, 9, false,
                  -ENOENT, 9, "0\n", "1", "9" },
                { "a hot_add'ed device whose setup fails is removed",
                  { { .id = 0, .disksize = "4096\n", .initstate = "1\n" }, FIXTURE_END }, 7, false,
                  -ENOENT, 7, NULL, NULL, "7" },
                { "a header that cannot be written: reset after disksize, and removed",
                  { { .id = 2 }, { .id = 9 }, FIXTURE_END }, 9, true,
                  -EISDIR, 9, "67108864", "1", "9" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                const ProvisionFailure *c = &cases[i];
                print_message("%s\n", c->name);
                char *root = fixture_new(c->devices, c->hot_add_id);
                if (c->dev_is_directory) {
                        _cleanup_free_ char *d = strdup_printf("/dev/zram%d", c->id);
                        put_dir(root, d);
                }

                int id = -42;
                assert_int_equal(zram_provision(root, "lz4", NULL, NULL, NULL, 0, 64 * MiB, 100, 4096, &id, NULL), c->want_r);
                assert_int_equal(id, -42);

                char rel[64];
                if (c->want_disksize) {
                        snprintf(rel, sizeof(rel), "/sys/block/zram%d/disksize", c->id);
                        _cleanup_free_ char *s = get(root, rel);
                        assert_string_equal(s, c->want_disksize);
                }
                if (c->want_reset) {
                        snprintf(rel, sizeof(rel), "/sys/block/zram%d/reset", c->id);
                        _cleanup_free_ char *s = get(root, rel);
                        assert_string_equal(s, c->want_reset);
                }
                _cleanup_free_ char *removed = get(root, "/sys/class/zram-control/hot_remove");
                assert_string_equal(removed, c->want_hot_remove);
                fixture_free(root);
        }
}

static void test_provision_refuses_bad_arguments_before_touching_anything(void **state) {
        const FixtureDevice devices[] = { { .id = 0 }, FIXTURE_END };
        char *root = fixture_new(devices, 9);
        static const struct {
                const char *algorithm;
                uint64_t disksize;
                int priority;
                uint64_t page_size;
        } bad[] = {
                { NULL, 64 * MiB, 100, 4096 },
                { "", 64 * MiB, 100, 4096 },
                { "lz4", 64 * MiB, -1, 4096 },
                { "lz4", 64 * MiB, SWAP_PRIORITY_MAX + 1, 4096 },
                { "lz4", 64 * MiB, 100, 0 },
                { "lz4", 64 * MiB, 100, 5000 },
                { "lz4", 9 * 4096, 100, 4096 },          /* fewer than 10 pages */
                { "lz4", 0, 100, 4096 },
        };

        WriteRecorder w = recorder_start(root, 0);
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                int id = -42;
                assert_int_equal(zram_provision(root, bad[i].algorithm, NULL, NULL, NULL, 0, bad[i].disksize, bad[i].priority,
                                                bad[i].page_size, &id, NULL), -EINVAL);
                assert_int_equal(id, -42);
        }
        assert_int_equal(zram_provision(root, "lz4", NULL, NULL, NULL, 0, 64 * MiB, 100, 4096, NULL, NULL), -EINVAL);
        _cleanup_free_ char *order = recorder_stop(&w);
        assert_string_equal(order, "");
        fixture_free(root);
}

static void test_teardown_under_a_fixture_root(void **state) {
        const FixtureDevice devices[] = {
                { .id = 0, .disksize = "67108864\n", .initstate = "1\n", .in_swaps = true },
                { .id = 1, .disksize = "67108864\n", .initstate = "1\n" },
                FIXTURE_END
        };
        char *root = fixture_new(devices, 9);

        /* swapped on: the swapoff is skipped under --root, and said so */
        assert_int_equal(zram_teardown(root, 0), 1);
        _cleanup_free_ char *reset0 = get(root, "/sys/block/zram0/reset"),
                            *removed0 = get(root, "/sys/class/zram-control/hot_remove");
        assert_string_equal(reset0, "1");
        assert_string_equal(removed0, "0");

        /* not swapped on */
        assert_int_equal(zram_teardown(root, 1), 0);
        _cleanup_free_ char *reset1 = get(root, "/sys/block/zram1/reset"),
                            *removed1 = get(root, "/sys/class/zram-control/hot_remove");
        assert_string_equal(reset1, "1");
        assert_string_equal(removed1, "1");

        assert_int_equal(zram_teardown(root, 5), -ENODEV);
        assert_int_equal(zram_teardown(root, -1), -EINVAL);
        fixture_free(root);
}

static void test_reset_keeps_the_device(void **state) {
        const FixtureDevice devices[] = { { .id = 2, .disksize = "67108864\n", .initstate = "1\n" }, FIXTURE_END };
        char *root = fixture_new(devices, 9);

        assert_int_equal(zram_reset(root, 2), 0);
        _cleanup_free_ char *reset = get(root, "/sys/block/zram2/reset"),
                            *removed = get(root, "/sys/class/zram-control/hot_remove");
        assert_string_equal(reset, "1");
        assert_string_equal(removed, "");
        assert_true(exists(root, "/sys/block/zram2"));
        fixture_free(root);
}

/* A swap file named like a zram device is not that device: find_free takes zram0, and a reset of
 * zram0 does not swap the file off (before, teardown matched /proc/swaps by base name). */
static void test_swap_file_named_zram_is_no_device(void **state) {
        const FixtureDevice devices[] = { { .id = 0 }, { .id = 1, .disksize = "67108864\n", .initstate = "1\n" },
                                          FIXTURE_END };
        char *root = fixture_new(devices, 9);
        put(root, "/proc/swaps", "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                                 "/var/lib/zram0                          file\t\t2097148\t\t0\t\t-2\n"
                                 "/srv/zram1                              file\t\t2097148\t\t0\t\t-3\n");
        int id = -1;
        assert_int_equal(zram_find_free(root, &id), 0);
        assert_int_equal(id, 0);
        /* 0: nothing to swap off (1 would say a swapoff was skipped under --root) */
        assert_int_equal(zram_reset(root, 1), 0);

        assert_int_equal(zram_id_from_swap_path("/dev/zram0"), 0);
        assert_int_equal(zram_id_from_swap_path("/dev/zram12"), 12);
        assert_int_equal(zram_id_from_swap_path("/var/lib/zram0"), -1);
        assert_int_equal(zram_id_from_swap_path("/dev/zram"), -1);
        assert_int_equal(zram_id_from_swap_path("/dev/zram0p1"), -1);
        assert_int_equal(zram_id_from_swap_path("/dev/zram-1"), -1);
        assert_int_equal(zram_id_from_swap_path("zram0"), -1);
        assert_int_equal(zram_id_from_swap_path(NULL), -1);
        fixture_free(root);
}

static void test_read_mm_stat(void **state) {
        const FixtureDevice devices[] = { { .id = 0 }, FIXTURE_END };
        char *root = fixture_new(devices, 9);
        ZramMmStat st;

        put(root, "/sys/block/zram0/mm_stat",
            "  8388608   2097152   2359296         0   2359296       12        0        3        0\n");
        assert_int_equal(zram_read_mm_stat(root, 0, &st), 0);
        assert_int_equal(st.orig_data_size, 8388608);
        assert_int_equal(st.compr_data_size, 2097152);
        assert_int_equal(st.mem_used_total, 2359296);
        assert_int_equal(st.mem_limit, 0);
        assert_int_equal(st.mem_used_max, 2359296);
        assert_int_equal(st.same_pages, 12);
        assert_int_equal(st.huge_pages, 3);

        /* an old kernel with five columns */
        put(root, "/sys/block/zram0/mm_stat", "100 50 60 0 60\n");
        assert_int_equal(zram_read_mm_stat(root, 0, &st), 0);
        assert_int_equal(st.orig_data_size, 100);
        assert_int_equal(st.mem_used_max, 60);
        assert_int_equal(st.same_pages, 0);

        put(root, "/sys/block/zram0/mm_stat", "100 50\n");
        assert_int_equal(zram_read_mm_stat(root, 0, &st), -EINVAL);
        put(root, "/sys/block/zram0/mm_stat", "100 fifty 60\n");
        assert_int_equal(zram_read_mm_stat(root, 0, &st), -EINVAL);
        assert_int_equal(zram_read_mm_stat(root, 4, &st), -ENOENT);
        fixture_free(root);
}

/* disksize, bd_stat and the block layer's stat: the one reader of each (probe and execute use it). */
static void test_read_attrs(void **state) {
        const FixtureDevice devices[] = { { .id = 0 }, FIXTURE_END };
        char *root = fixture_new(devices, 9);
        ZramBdStat bd;
        uint64_t v;

        put(root, "/sys/block/zram0/disksize", "67108864\n");
        assert_int_equal(zram_read_disksize(root, 0, &v), 0);
        assert_int_equal(v, 64 * MiB);

        /* 4 KiB units whatever the page size */
        put(root, "/sys/block/zram0/bd_stat", "       3        1        5\n");
        assert_int_equal(zram_read_bd_stat(root, 0, &bd), 0);
        assert_int_equal(bd.count, 3 * 4096);
        assert_int_equal(bd.reads, 1 * 4096);
        assert_int_equal(bd.writes, 5 * 4096);
        put(root, "/sys/block/zram0/bd_stat", "3 1\n");
        assert_int_equal(zram_read_bd_stat(root, 0, &bd), -EINVAL);
        assert_int_equal(zram_read_bd_stat(root, 4, &bd), -ENOENT);

        /* the 7th field: sectors written, 512 bytes each */
        put(root, "/sys/block/zram0/stat", "  10 0 80 1  20 0 160 2 0 3 3 0 0 0 0 0 0\n");
        assert_int_equal(zram_read_written_bytes(root, 0, &v), 0);
        assert_int_equal(v, 160 * 512);
        put(root, "/sys/block/zram0/stat", "10 0 80\n");
        assert_int_equal(zram_read_written_bytes(root, 0, &v), -EINVAL);

        assert_true(zram_has_attr(root, 0, "disksize"));
        assert_false(zram_has_attr(root, 0, "recomp_algorithm"));
        fixture_free(root);
}

static void test_read_comp_algorithm(void **state) {
        const FixtureDevice devices[] = { { .id = 0 }, FIXTURE_END };
        char *root = fixture_new(devices, 9);
        _cleanup_strv_free_ char **offered = NULL;
        _cleanup_free_ char *active = NULL;

        assert_int_equal(zram_read_comp_algorithm(root, 0, &offered, &active), 0);
        _cleanup_free_ char *joined = strv_join(offered, " ");
        assert_string_equal(joined, "lzo-rle lzo lz4");
        assert_string_equal(active, "lzo-rle");
        fixture_free(root);
}

static void test_kernel_offers(void **state) {
        const FixtureDevice devices[] = {
                { .id = 5 }, { .id = 2, .disksize = "67108864\n", .initstate = "1\n", .in_swaps = true }, FIXTURE_END
        };
        char *root = fixture_new(devices, 9);
        put(root, "/sys/block/zram2/comp_algorithm", "lzo-rle lzo [lz4]\n");
        put(root, "/sys/block/zram5/comp_algorithm", "[zstd]\n");

        /* read off the lowest device, in use or not; nothing is added */
        _cleanup_strv_free_ char **offered = NULL;
        assert_int_equal(zram_kernel_offers(root, &offered), 0);
        _cleanup_free_ char *joined = strv_join(offered, " ");
        assert_string_equal(joined, "lzo-rle lzo lz4");
        _cleanup_free_ char *removed = get(root, "/sys/class/zram-control/hot_remove");
        assert_string_equal(removed, "");
        fixture_free(root);

        /* no device: one is hot_add'ed and removed again, even when reading it fails */
        root = fixture_new(NULL, 3);
        char **none = NULL;
        assert_int_equal(zram_kernel_offers(root, &none), -ENOENT);
        assert_null(none);
        _cleanup_free_ char *removed3 = get(root, "/sys/class/zram-control/hot_remove");
        assert_string_equal(removed3, "3");
        fixture_free(root);

        /* no zram */
        root = fixture_new(NULL, -1);
        assert_int_equal(zram_kernel_offers(root, &none), -ENOENT);
        fixture_free(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pick_algorithm),
                cmocka_unit_test(test_read_attrs),
                cmocka_unit_test(test_parse_comp_algorithm),
                cmocka_unit_test(test_find_free),
                cmocka_unit_test(test_setup_writes_in_the_kernels_order),
                cmocka_unit_test(test_provision_extra_in_the_kernels_order),
                cmocka_unit_test(test_setup_leaves_out_what_is_not_asked_or_not_there),
                cmocka_unit_test(test_setup_refuses_bad_arguments),
                cmocka_unit_test(test_provision_under_a_fixture_root),
                cmocka_unit_test(test_provision_undoes_what_it_did),
                cmocka_unit_test(test_provision_refuses_bad_arguments_before_touching_anything),
                cmocka_unit_test(test_teardown_under_a_fixture_root),
                cmocka_unit_test(test_reset_keeps_the_device),
                cmocka_unit_test(test_swap_file_named_zram_is_no_device),
                cmocka_unit_test(test_read_mm_stat),
                cmocka_unit_test(test_read_comp_algorithm),
                cmocka_unit_test(test_kernel_offers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
