/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap writeback's run and record (execute/zram-writeback.c, probe/writeback-record.c) on a
 * fixture tree: sysfs attributes are regular files there, so what each run writes is read back.
 * The host kernel has no CONFIG_ZRAM_WRITEBACK; the e2e scenario w runs it for real. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "execute/zram-writeback.h"
#include "policy/policy.h"

static char root[PATH_MAX];

static void put(const char *rel, const char *content) {
        char p[PATH_MAX * 2];
        snprintf(p, sizeof p, "%s%s", root, rel);
        char *slash = strrchr(p, '/');
        *slash = 0;
        char cmd[PATH_MAX * 3];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", p);
        assert_int_equal(system(cmd), 0);
        *slash = '/';
        FILE *f = fopen(p, "we");
        assert_non_null(f);
        fputs(content, f);
        assert_int_equal(fclose(f), 0);
}

static char *get(const char *rel) {
        _cleanup_free_ char *p = path_join_root(root, rel);
        char *s = NULL;
        assert_true(read_full_file(p, 4096, &s) >= 0);
        return s;
}

static int rm_one(const char *path, const struct stat *s, int flag, struct FTW *f) {
        return remove(path);
}

static int setup(void **state) {
        snprintf(root, sizeof root, "/tmp/nodeswap-test-wb-XXXXXX");
        assert_non_null(mkdtemp(root));
        put("/sys/block/zram1/idle", "");
        put("/sys/block/zram1/writeback", "");
        put("/sys/block/zram1/recompress", "");
        put("/sys/block/zram1/writeback_limit", "0\n");
        put("/sys/block/zram1/writeback_limit_enable", "0\n");
        put("/sys/block/zram1/bd_stat", "       0        0        0\n");
        return 0;
}

static int teardown(void **state) {
        return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static Policy policy(const char *writeback, char **recompress, uint64_t limit, uint64_t interval) {
        Policy p = {};
        p.backends = BACKEND_ZRAM;
        p.zram.writeback = (char *) writeback;
        p.zram.recompress = recompress;
        p.zram.writeback_idle_after = 7200;
        p.zram.writeback_interval = interval;
        p.zram.writeback_limit = limit;
        return p;
}

/* Set-up records the device, its loop device and the day's budget; the first run marks pages idle
 * by age, writes them back and keeps the budget it found; a second run within the interval does
 * nothing; --force runs again. */
static void test_run_and_record(void **state) {
        ZramBacking b = { .fd = -EBADF, .dev = (char *) "/dev/loop3", .file = (char *) "/var/lib/nodeswap/wb" };
        assert_int_equal(zram_writeback_started(root, 1, &b, 8 * 1024 * 1024), 0);
        _cleanup_free_ char *en = get("/sys/block/zram1/writeback_limit_enable"), *lim = get("/sys/block/zram1/writeback_limit");
        assert_string_equal(en, "1");
        assert_string_equal(lim, "2048");

        WritebackRecord rec;
        assert_int_equal(writeback_record_load(root, &rec), 0);
        assert_int_equal(rec.zram_id, 1);
        assert_string_equal(rec.loop, "/dev/loop3");
        assert_string_equal(rec.file, "/var/lib/nodeswap/wb");
        assert_true(rec.window_usec > 0);
        assert_true(rec.last_usec == 0);
        uint64_t window = rec.window_usec;
        writeback_record_done(&rec);

        Policy p = policy("/var/lib/nodeswap/wb", NULL, 8 * 1024 * 1024, 3600);
        WritebackRun w;
        _cleanup_free_ char *reason = NULL;
        assert_int_equal(zram_writeback_run(root, &p, 1, false, &w, &reason), 0);
        assert_true(w.due);
        assert_true(w.idle_by_age);
        assert_false(w.budget_reset);           /* the budget set up with the device stands */
        _cleanup_free_ char *idle = get("/sys/block/zram1/idle"), *wb = get("/sys/block/zram1/writeback"),
                            *rc = get("/sys/block/zram1/recompress");
        assert_string_equal(idle, "7200");      /* WritebackIdleAfter= in seconds */
        assert_string_equal(wb, "idle");
        assert_string_equal(rc, "");            /* no RecompressAlgorithm= */
        assert_int_equal(writeback_record_load(root, &rec), 0);
        assert_true(rec.window_usec == window);
        assert_true(rec.last_usec > 0);
        writeback_record_done(&rec);

        /* within the interval: nothing written */
        put("/sys/block/zram1/writeback", "");
        assert_int_equal(zram_writeback_run(root, &p, 1, false, &w, &reason), 0);
        assert_false(w.due);
        _cleanup_free_ char *wb2 = get("/sys/block/zram1/writeback");
        assert_string_equal(wb2, "");

        /* --force: now; recompression with RecompressAlgorithm= */
        char *rec_algs[] = { (char *) "zstd", NULL };
        Policy q = policy("/var/lib/nodeswap/wb", rec_algs, 8 * 1024 * 1024, 3600);
        assert_int_equal(zram_writeback_run(root, &q, 1, true, &w, &reason), 0);
        assert_true(w.due);
        assert_true(w.recompressed);
        _cleanup_free_ char *wb3 = get("/sys/block/zram1/writeback"), *rc3 = get("/sys/block/zram1/recompress");
        assert_string_equal(wb3, "idle");
        assert_string_equal(rc3, "type=idle");

        /* the device goes: the record with it */
        assert_int_equal(zram_writeback_forget(root, 1), 1);
        assert_int_equal(writeback_record_load(root, &rec), 0);
        assert_int_equal(rec.zram_id, -1);
        assert_null(rec.loop);
        writeback_record_done(&rec);
        assert_int_equal(zram_writeback_forget(root, 1), 0);
}

/* A day after the budget began, the next run fills it again; a policy without a limit turns the
 * kernel's off. */
static void test_budget_renewed_after_a_day(void **state) {
        put("/run/nodeswap-state/writeback", "zram_id=1\nwindow_usec=1000\nlast_usec=1000\n");
        Policy p = policy("/dev/nvme0n1p3", NULL, 1024 * 1024, 3600);
        WritebackRun w;
        _cleanup_free_ char *reason = NULL;
        assert_int_equal(zram_writeback_run(root, &p, 1, false, &w, &reason), 0);
        assert_true(w.due);
        assert_true(w.budget_reset);
        _cleanup_free_ char *en = get("/sys/block/zram1/writeback_limit_enable"), *lim = get("/sys/block/zram1/writeback_limit");
        assert_string_equal(en, "1");
        assert_string_equal(lim, "256");
        WritebackRecord rec;
        assert_int_equal(writeback_record_load(root, &rec), 0);
        assert_true(rec.window_usec > 1000);
        assert_null(rec.loop);                  /* a block device: no loop device of ours */
        writeback_record_done(&rec);

        Policy none = policy("/dev/nvme0n1p3", NULL, 0, 0);
        assert_int_equal(zram_writeback_run(root, &none, 1, false, &w, &reason), 0);
        assert_true(w.due);                     /* WritebackInterval=0: whenever it is run */
        _cleanup_free_ char *en2 = get("/sys/block/zram1/writeback_limit_enable");
        assert_string_equal(en2, "0");
        assert_true(w.budget_left == UINT64_MAX);
}

/* A record nobody may trust reads as empty where it is damaged, never as a loop device to detach. */
static void test_record_damaged(void **state) {
        put("/run/nodeswap-state/writeback", "zram_id=x\nloop=/etc/passwd\nfile=relative\nwindow_usec=-5\nbogus\n");
        WritebackRecord rec;
        assert_int_equal(writeback_record_load(root, &rec), 0);
        assert_int_equal(rec.zram_id, -1);
        assert_null(rec.loop);
        assert_null(rec.file);
        assert_true(rec.window_usec == 0);
        writeback_record_done(&rec);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_run_and_record, setup, teardown),
                cmocka_unit_test_setup_teardown(test_budget_renewed_after_a_day, setup, teardown),
                cmocka_unit_test_setup_teardown(test_record_damaged, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
