/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe("/") on the real kernel with a zram device and a swap file of our own swapped on.
 * Root only; exits 77 (skip) otherwise. Touches nothing it did not create, and the teardown
 * swaps off, resets and removes what it made even when an assertion fails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/swap.h>

#include "probe/probe.h"
#include "kernel-lock.h"

#define ZRAM_SIZE (64 * MiB)
#define FILE_SIZE (8 * MiB)

typedef struct Live {
        int zram_id;            /* -1 none */
        char zram_path[64];
        bool zram_on;
        char dir[64];
        char file[128];
        bool file_on;
} Live;

static int zram_attr(int id, const char *attr, char *ret, size_t size) {
        return snprintf(ret, size, "/sys/block/zram%d/%s", id, attr) < (int) size ? 0 : -ENAMETOOLONG;
}

static int run_mkswap(const char *path, const char *label) {
        _cleanup_free_ char *cmd = label ? strdup_printf("mkswap -q -L '%s' '%s'", label, path)
                                         : strdup_printf("mkswap -q '%s'", path);
        return cmd && system(cmd) == 0 ? 0 : -EIO;
}

static int teardown(void **state);

static int setup_live(void **state) {
        static Live live;
        live = (Live) { .zram_id = -1 };
        *state = &live;

        _cleanup_free_ char *id = NULL;
        if (read_one_line("/sys/class/zram-control/hot_add", &id) < 0 || safe_atoi(id, &live.zram_id) < 0)
                return -1;
        snprintf(live.zram_path, sizeof live.zram_path, "/dev/zram%d", live.zram_id);
        char attr[128];
        zram_attr(live.zram_id, "disksize", attr, sizeof attr);
        char size[32];
        snprintf(size, sizeof size, "%" PRIu64, ZRAM_SIZE);
        /* udev may still be creating the node */
        for (int i = 0; i < 50 && access(live.zram_path, F_OK) < 0; i++)
                usleep(20000);
        if (write_string_file(attr, size) < 0 || run_mkswap(live.zram_path, NULL) < 0)
                return -1;
        if (swapon(live.zram_path, SWAP_FLAG_PREFER | (7 << SWAP_FLAG_PRIO_SHIFT)) < 0)
                return -1;
        live.zram_on = true;

        /* /mnt, not /var/tmp: probe reads a swap file's header only through root-owned parents that
         * others cannot write, as apply creates one only there */
        snprintf(live.dir, sizeof live.dir, "/mnt/nodeswap-probe-live-XXXXXX");
        if (!mkdtemp(live.dir))
                return -1;
        snprintf(live.file, sizeof live.file, "%s/swapfile", live.dir);
        _cleanup_close_ int fd = open(live.file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 || posix_fallocate(fd, 0, FILE_SIZE) != 0 || fsync(fd) < 0)
                return -1;
        if (run_mkswap(live.file, "nodeswap") < 0)
                return -1;
        if (swapon(live.file, SWAP_FLAG_PREFER | (3 << SWAP_FLAG_PRIO_SHIFT)) < 0)
                return -1;
        live.file_on = true;
        return 0;
}

/* cmocka runs no teardown after a failed setup: undo what the setup got to here */
static int setup(void **state) {
        if (setup_live(state) < 0) {
                (void) teardown(state);
                return -1;
        }
        return 0;
}

static int teardown(void **state) {
        Live *live = *state;
        int r = 0;
        if (live->file_on && swapoff(live->file) < 0)
                r = -1;
        if (live->file[0])
                (void) unlink(live->file);
        if (live->dir[0])
                (void) rmdir(live->dir);
        if (live->zram_on && swapoff(live->zram_path) < 0)
                r = -1;
        if (live->zram_id >= 0) {
                char attr[128], id[16];
                zram_attr(live->zram_id, "reset", attr, sizeof attr);
                /* udev may hold the device open for a moment */
                for (int i = 0; i < 50 && write_string_file(attr, "1") < 0; i++)
                        usleep(20000);
                snprintf(id, sizeof id, "%d", live->zram_id);
                for (int i = 0; i < 50 && write_string_file("/sys/class/zram-control/hot_remove", id) < 0; i++)
                        usleep(20000);
                if (access(attr, F_OK) == 0)
                        r = -1;
        }
        return r;
}

static void test_probe_sees_our_swaps(void **state) {
        Live *live = *state;
        char *conflicts[] = { NULL };
        Policy p = {
                .backend_set = true,
                .backends = BACKEND_ZRAM | BACKEND_FILE,
                .conflict_units = conflicts,
        };
        p.file.path = live->file;
        HostState h;
        assert_int_equal(probe("/", &p, &h), 0);

        uint64_t ps = h.page_size;
        assert_int_equal(ps, (uint64_t) sysconf(_SC_PAGESIZE));

        const SwapDevice *z = host_find_swap(&h, live->zram_path);
        assert_non_null(z);
        assert_int_equal(z->kind, SWAP_KIND_ZRAM);
        assert_int_equal(z->zram_id, live->zram_id);
        assert_int_equal(z->priority, 7);
        assert_int_equal(z->size, ZRAM_SIZE - ps);     /* the header page is not swap space */
        assert_int_equal(z->owner, SWAP_OWNER_OTHER);  /* not in nodeswap's state */
        _cleanup_free_ char *unit = strdup_printf("dev-zram%d.swap", live->zram_id);
        assert_string_equal(z->unit, unit);

        const ZramDevice *zd = host_find_zram(&h, live->zram_id);
        assert_non_null(zd);
        assert_int_equal(zd->disksize, ZRAM_SIZE);
        assert_true(zd->swap_on);
        assert_non_null(zd->algorithm);
        assert_true(strv_contains(zd->algorithms_offered, zd->algorithm));
        assert_true(zd->mem_used_total > 0);            /* the header is stored */

        const SwapDevice *f = host_find_swap(&h, live->file);
        assert_non_null(f);
        assert_int_equal(f->kind, SWAP_KIND_FILE);
        assert_int_equal(f->priority, 3);
        assert_int_equal(f->size, FILE_SIZE - ps);
        assert_int_equal(f->owner, SWAP_OWNER_NODESWAP); /* the policy's path, label "nodeswap" */

        assert_true(h.file.exists);
        assert_true(h.file.is_regular);
        assert_int_equal(h.file.size, FILE_SIZE);
        assert_true(h.file.allocated >= FILE_SIZE);
        assert_int_equal(h.file.mode, 0600);
        assert_int_equal(h.file.uid, 0);
        assert_true(h.file.has_header);
        assert_int_equal(h.file.header_page_size, ps);
        assert_string_equal(h.file.label, "nodeswap");
        assert_true(h.file.swap_on);
        assert_int_equal(h.file.priority, 3);
        assert_non_null(h.file.fstype);
        assert_true(h.file.fs_free > 0);
        assert_true(h.swap_total >= ZRAM_SIZE - ps + FILE_SIZE - ps);

        host_state_done(&h);
}

int main(void) {
        if (geteuid() != 0) {
                printf("skip: needs root\n");
                return 77;
        }
        if (access("/sys/class/zram-control/hot_add", F_OK) < 0) {
                printf("skip: no zram-control (zram module not loaded)\n");
                return 77;
        }
        if (system("mkswap --version >/dev/null 2>&1") != 0) {
                printf("skip: no mkswap to prepare the swap areas\n");
                return 77;
        }
        if (kernel_test_lock() < 0)
                return 1;
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_probe_sees_our_swaps, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
