/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe/meminfo.c, the one reader of the node's memory and page size, and the one page-size test
 * (shared/page-size.c): texts, the fixture trees, and scratch roots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "probe/meminfo.h"
#include "shared/page-size.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must be defined"
#endif

static uint64_t host_page_size(void) {
        long ps = sysconf(_SC_PAGESIZE);
        assert_true(ps > 0);
        return (uint64_t) ps;
}

static void parse_kernel_text(void **state) {
        (void) state;
        MemInfo m;
        assert_int_equal(meminfo_parse("MemTotal:       16608080 kB\n"
                                       "MemFree:        14873536 kB\n"
                                       "MemAvailable:   15340112 kB\n"
                                       "SwapTotal:       2097136 kB\n"
                                       "SwapFree:        1048576 kB\n"
                                       "Zswap:             24576 kB\n"
                                       "Zswapped:          81920 kB\n"
                                       "HugePages_Total:       0\n"
                                       "Hugepagesize:       2048 kB\n", &m), 0);
        assert_true(m.has_mem_total);
        assert_int_equal(m.mem_total, UINT64_C(16608080) * KiB);
        assert_int_equal(m.mem_available, UINT64_C(15340112) * KiB);
        assert_int_equal(m.swap_total, UINT64_C(2097136) * KiB);
        assert_int_equal(m.swap_free, UINT64_C(1048576) * KiB);
        assert_true(m.has_zswap);
        assert_int_equal(m.zswap, 24576 * KiB);
        assert_int_equal(m.zswapped, 81920 * KiB);
}

static void parse_missing_and_bad(void **state) {
        (void) state;
        MemInfo m;
        /* No MemTotal, no Zswap (a kernel without zswap): known as missing, not as 0 kB. */
        assert_int_equal(meminfo_parse("MemFree: 100 kB\nSwapTotal: 0 kB\n", &m), 0);
        assert_false(m.has_mem_total);
        assert_false(m.has_zswap);
        assert_int_equal(m.mem_total, 0);

        /* A key that only starts like a known one, values that are no number of kB, a value that
         * overflows bytes, a line with no colon, an empty text: all skipped. */
        assert_int_equal(meminfo_parse("MemTotalX: 5 kB\n"
                                       "MemAvailable: -5 kB\n"
                                       "SwapTotal: 12 MB\n"
                                       "SwapFree: 99999999999999999999 kB\n"
                                       "Zswap: 18014398509481984 kB\n"
                                       "MemTotal 7 kB\n", &m), 0);
        assert_false(m.has_mem_total);
        assert_int_equal(m.mem_available, 0);
        assert_int_equal(m.swap_total, 0);
        assert_int_equal(m.swap_free, 0);
        assert_false(m.has_zswap);

        /* The largest value that still fits in bytes is taken; a key given twice takes the last. */
        assert_int_equal(meminfo_parse("MemTotal: 1 kB\nMemTotal: 18014398509481983 kB", &m), 0);
        assert_true(m.has_mem_total);
        assert_int_equal(m.mem_total, UINT64_C(18014398509481983) * KiB);

        assert_int_equal(meminfo_parse("", &m), 0);
        assert_false(m.has_mem_total);
        assert_int_equal(meminfo_parse(NULL, &m), -EINVAL);
}

/* The fixture trees: a 16 KiB-page Raspberry Pi 5, a node with zswap in use, a 4 KiB-page VPS. */
static void fixture_trees(void **state) {
        (void) state;
        _cleanup_free_ char *pi = strdup_printf("%s/rpi-untouched", FIXTURE_DIR);
        _cleanup_free_ char *zswap = strdup_printf("%s/metrics/zswap-writeback", FIXTURE_DIR);
        _cleanup_free_ char *vps = strdup_printf("%s/vps-cgroupv1", FIXTURE_DIR);
        assert_non_null(pi);
        assert_non_null(zswap);
        assert_non_null(vps);
        MemInfo m;
        PolicyContext ctx;

        assert_int_equal(meminfo_read(pi, &m), 0);
        assert_int_equal(m.mem_total, UINT64_C(16608080) * KiB);
        assert_int_equal(m.swap_total, UINT64_C(2097136) * KiB);
        assert_true(m.has_zswap);               /* "Zswap: 0 kB": the kernel has zswap */
        assert_int_equal(m.zswap, 0);
        assert_int_equal(page_size_read(pi), 16 * KiB);
        assert_int_equal(probe_context(pi, &ctx), 0);
        assert_int_equal(ctx.ram, UINT64_C(16608080) * KiB);
        assert_int_equal(ctx.page_size, 16 * KiB);

        assert_int_equal(meminfo_read(zswap, &m), 0);
        assert_int_equal(m.swap_total, UINT64_C(8388640) * KiB);
        assert_int_equal(m.zswap, 24576 * KiB);
        assert_int_equal(m.zswapped, 81920 * KiB);
        assert_int_equal(page_size_read(zswap), 4 * KiB);

        assert_int_equal(probe_context(vps, &ctx), 0);
        assert_int_equal(ctx.page_size, 4 * KiB);
}

static void put(const char *root, const char *rel, const char *content) {
        _cleanup_free_ char *p = strdup_printf("%s%s", root, rel);
        assert_non_null(p);
        for (char *s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = 0;
                (void) mkdir(p, 0755);
                *s = '/';
        }
        _cleanup_close_ int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, content, strlen(content)), (ssize_t) strlen(content));
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        (void) st, (void) flag, (void) ftw;
        return remove(p);
}

/* Scratch roots: what is missing, and where the page size comes from. */
static void scratch_roots(void **state) {
        (void) state;
        char root[] = "/tmp/test-meminfo.XXXXXX";
        assert_non_null(mkdtemp(root));
        MemInfo m;
        PolicyContext ctx;

        /* No /proc/meminfo: the reader says so, and so does the context. */
        assert_int_equal(meminfo_read(root, &m), -ENOENT);
        assert_int_equal(probe_context(root, &ctx), -ENOENT);

        /* meminfo without MemTotal: no context (policy sizes need the RAM). */
        put(root, "/proc/meminfo", "MemFree: 100 kB\n");
        assert_int_equal(meminfo_read(root, &m), 0);
        assert_int_equal(probe_context(root, &ctx), -ENOENT);

        /* No smaps: the host's page size. */
        put(root, "/proc/meminfo", "MemTotal: 4194304 kB\n");
        assert_int_equal(probe_context(root, &ctx), 0);
        assert_int_equal(ctx.ram, 4 * GiB);
        assert_int_equal(ctx.page_size, host_page_size());

        /* smaps: its first KernelPageSize that is not 0. */
        put(root, "/proc/self/smaps", "Size: 112 kB\nKernelPageSize: 0 kB\nKernelPageSize: 64 kB\n"
                                      "KernelPageSize: 4 kB\n");
        assert_int_equal(page_size_read(root), 64 * KiB);
        /* smaps without a usable one: the host's. */
        put(root, "/proc/self/smaps", "Size: 112 kB\nKernelPageSize: x kB\n");
        assert_int_equal(page_size_read(root), host_page_size());

        /* The host itself ("/", NULL, ""): sysconf, never a file. */
        assert_int_equal(page_size_read("/"), host_page_size());
        assert_int_equal(page_size_read(NULL), host_page_size());
        assert_int_equal(page_size_read(""), host_page_size());

        assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void page_size_test(void **state) {
        (void) state;
        static const struct {
                uint64_t size;
                bool valid;
        } cases[] = {
                { 0, false },           { 512, false },         { 2048, false },
                { 4096, true },         { 8192, true },         { 16384, true },
                { 65536, true },        { 256 * KiB, true },    { 512 * KiB, false },
                { 6000, false },        { 12288, false },       { UINT64_MAX, false },
                { UINT64_C(1) << 63, false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                assert_int_equal(page_size_valid(cases[i].size), cases[i].valid);
        assert_true(page_size_valid(host_page_size()));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(parse_kernel_text),
                cmocka_unit_test(parse_missing_and_bad),
                cmocka_unit_test(fixture_trees),
                cmocka_unit_test(scratch_roots),
                cmocka_unit_test(page_size_test),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
