/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/stat.h>

#include "probe/swap.h"
#include "execute/swapon.h"

/* A temporary file of size bytes, already unlinked. */
static int temp_file(uint64_t size) {
        char path[] = "/tmp/test-swap-XXXXXX";
        int fd = mkostemp(path, O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(ftruncate(fd, (off_t) size), 0);
        return fd;
}

static uint32_t read_u32_at(int fd, off_t offset) {
        uint32_t v;
        assert_int_equal(pread(fd, &v, sizeof(v), offset), sizeof(v));
        return v;
}

static void write_at(int fd, off_t offset, const void *data, size_t len) {
        assert_int_equal(pwrite(fd, data, len, offset), (ssize_t) len);
}

static bool is_zero_range(int fd, off_t offset, size_t len) {
        _cleanup_free_ uint8_t *buf = malloc(len);
        assert_non_null(buf);
        assert_int_equal(pread(fd, buf, len, offset), (ssize_t) len);
        for (size_t i = 0; i < len; i++)
                if (buf[i])
                        return false;
        return true;
}

typedef struct RoundTrip {
        uint64_t size;
        uint64_t page_size;
        const char *label;
        uint64_t want_last_page;
        const char *want_label;
} RoundTrip;

static const RoundTrip round_trips[] = {
        { 1 * MiB,  4096,  SWAP_LABEL,               255, "nodeswap" },
        { 1 * MiB,  16384, SWAP_LABEL,               63,  "nodeswap" },
        { 1 * MiB,  65536, SWAP_LABEL,               15,  "nodeswap" },
        { 40960,    4096,  SWAP_LABEL,               9,   "nodeswap" },   /* the smallest: 10 pages */
        { 1 * MiB + 100, 4096, SWAP_LABEL,           255, "nodeswap" },   /* a partial last page is left out */
        { 1 * MiB,  4096,  "a-label-longer-than-16", 255, "a-label-longer-t" },
        { 1 * MiB,  4096,  NULL,                     255, "" },
};

static void test_header_round_trip(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(round_trips); i++) {
                const RoundTrip *t = &round_trips[i];
                _cleanup_close_ int fd = temp_file(t->size);

                assert_int_equal(swap_header_write(fd, t->size, t->page_size, t->label), 0);

                SwapHeaderInfo info;
                assert_int_equal(swap_header_probe(fd, &info), 1);
                assert_int_equal(info.page_size, t->page_size);
                assert_int_equal(info.last_page, t->want_last_page);
                assert_string_equal(info.label, t->want_label);

                /* a random version 4 UUID, as text xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx */
                assert_int_equal(strlen(info.uuid), 36);
                assert_int_equal(info.uuid[14], '4');
                assert_non_null(strchr("89ab", info.uuid[19]));
        }
}

static void test_header_layout_is_the_kernels(void **state) {
        /* union swap_header: bootbits[1024], version, last_page, nr_badpages, uuid[16],
         * volume_name[16], ..., "SWAPSPACE2" in the last 10 bytes of the page. */
        _cleanup_close_ int fd = temp_file(1 * MiB);
        write_at(fd, 0, "junk in the boot sector", 23);

        assert_int_equal(swap_header_write(fd, 1 * MiB, 16384, "nodeswap"), 0);

        assert_true(is_zero_range(fd, 0, 1024));
        assert_int_equal(read_u32_at(fd, 1024), 1);
        assert_int_equal(read_u32_at(fd, 1028), 1 * MiB / 16384 - 1);
        assert_int_equal(read_u32_at(fd, 1032), 0);
        char label[16];
        assert_int_equal(pread(fd, label, sizeof(label), 1052), sizeof(label));
        assert_memory_equal(label, "nodeswap\0\0\0\0\0\0\0\0", 16);
        char magic[10];
        assert_int_equal(pread(fd, magic, sizeof(magic), 16384 - 10), sizeof(magic));
        assert_memory_equal(magic, "SWAPSPACE2", 10);
        assert_true(is_zero_range(fd, 1068, 16384 - 10 - 1068));
}

static void test_header_rewrite_at_smaller_page_size_leaves_no_stale_magic(void **state) {
        _cleanup_close_ int fd = temp_file(1 * MiB);
        SwapHeaderInfo info;

        assert_int_equal(swap_header_write(fd, 1 * MiB, 16384, "old"), 0);
        assert_int_equal(swap_header_write(fd, 1 * MiB, 4096, "new"), 0);

        assert_true(is_zero_range(fd, 16384 - 10, 10));
        assert_int_equal(swap_header_probe(fd, &info), 1);
        assert_int_equal(info.page_size, 4096);
        assert_string_equal(info.label, "new");

        /* and back up: a 16 KiB header over a 4 KiB one */
        assert_int_equal(swap_header_write(fd, 1 * MiB, 16384, "up"), 0);
        assert_true(is_zero_range(fd, 4096 - 10, 10));
        assert_int_equal(swap_header_probe(fd, &info), 1);
        assert_int_equal(info.page_size, 16384);
        assert_int_equal(info.last_page, 63);
}

/* On an area that reads as zeros already (a zram device just initialised), only the header page is
 * written: the bytes after it are the caller's promise, not rewritten. The header is the same. */
static void test_header_write_zeroed_writes_one_page(void **state) {
        _cleanup_close_ int fd = temp_file(1 * MiB);
        uint8_t marks[4096];
        memset(marks, 0xAA, sizeof(marks));
        assert_int_equal(pwrite(fd, marks, sizeof(marks), 4096), (ssize_t) sizeof(marks));

        assert_int_equal(swap_header_write_zeroed(fd, 1 * MiB, 4096, "nodeswap"), 0);
        uint8_t after[4096];
        assert_int_equal(pread(fd, after, sizeof(after), 4096), (ssize_t) sizeof(after));
        assert_memory_equal(after, marks, sizeof(marks));
        SwapHeaderInfo info;
        assert_int_equal(swap_header_probe(fd, &info), 1);
        assert_int_equal(info.page_size, 4096);
        assert_int_equal(info.last_page, 1 * MiB / 4096 - 1);
        assert_string_equal(info.label, "nodeswap");

        /* swap_header_write() zeroes them (up to 64 KiB) */
        assert_int_equal(swap_header_write(fd, 1 * MiB, 4096, "nodeswap"), 0);
        assert_true(is_zero_range(fd, 4096, 4096));
        assert_int_equal(swap_header_write_zeroed(-1, 1 * MiB, 4096, "x"), -EINVAL);
}

static void test_header_write_refuses_bad_arguments(void **state) {
        static const struct {
                uint64_t size, page_size;
        } bad[] = {
                { 1 * MiB, 0 },
                { 1 * MiB, 2048 },          /* below 4096 */
                { 1 * MiB, 6000 },          /* not a power of two */
                { 1 * MiB, 12288 },
                { 16 * MiB, 512 * KiB },    /* above any page size */
                { 9 * 4096, 4096 },         /* fewer than 10 pages */
                { 10 * 4096 - 1, 4096 },
                { 0, 4096 },
        };
        _cleanup_close_ int fd = temp_file(1 * MiB);

        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_int_equal(swap_header_write(fd, bad[i].size, bad[i].page_size, "x"), -EINVAL);
        assert_int_equal(swap_header_write(-1, 1 * MiB, 4096, "x"), -EINVAL);

        /* nothing was written */
        assert_true(is_zero_range(fd, 0, 64 * 1024));
}

static void test_header_write_refuses_more_pages_than_the_header_holds(void **state) {
        _cleanup_close_ int fd = temp_file(1 * MiB);
        assert_int_equal(swap_header_write(fd, (UINT64_C(1) << 32) * 4096 + 4096, 4096, "x"), -EFBIG);
}

static void test_probe_finds_no_swap(void **state) {
        static const struct {
                off_t offset;
                const char *magic;
        } cases[] = {
                { 0, NULL },                            /* all zeros */
                { 4096 - 10, "S1SUSPEND" },             /* a hibernation image is not swap for us */
                { 4096 - 10, "SWAP-SPACE" },            /* version 0: no kernel takes it */
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_close_ int fd = temp_file(1 * MiB);
                if (cases[i].magic)
                        write_at(fd, cases[i].offset, cases[i].magic, strlen(cases[i].magic));
                SwapHeaderInfo info = { .page_size = 12345 };
                assert_int_equal(swap_header_probe(fd, &info), 0);
                assert_int_equal(info.page_size, 12345);    /* untouched */
        }
        SwapHeaderInfo info;
        assert_int_equal(swap_header_probe(-1, &info), -EINVAL);
}

static void test_swapon_under_a_foreign_root_is_skipped(void **state) {
        assert_int_equal(swap_on("/tmp/fixture", "/dev/zram0", 100), -EOPNOTSUPP);
        assert_int_equal(swap_off("/tmp/fixture", "/dev/zram0"), -EOPNOTSUPP);
        assert_int_equal(swap_on("/tmp/fixture", "/dev/zram0", -1), -EINVAL);
        assert_int_equal(swap_on("/tmp/fixture", "/dev/zram0", SWAP_PRIORITY_MAX + 1), -EINVAL);
        assert_int_equal(swap_on("/", NULL, 1), -EINVAL);
}

/* A root whose proc/swaps holds text; the directory path is returned (free it, rm -r it). */
static char *root_with_swaps(const char *text) {
        char tmpl[] = "/tmp/test-swap-root-XXXXXX";
        assert_non_null(mkdtemp(tmpl));
        _cleanup_free_ char *proc = strdup_printf("%s/proc", tmpl);
        assert_int_equal(mkdir(proc, 0755), 0);
        if (text) {
                _cleanup_free_ char *swaps = strdup_printf("%s/swaps", proc);
                FILE *f = fopen(swaps, "we");
                assert_non_null(f);
                assert_true(fputs(text, f) >= 0);
                assert_int_equal(fclose(f), 0);
        }
        return strdup(tmpl);
}

static void remove_root(char *root) {
        _cleanup_free_ char *swaps = strdup_printf("%s/proc/swaps", root);
        _cleanup_free_ char *proc = strdup_printf("%s/proc", root);
        (void) unlink(swaps);
        assert_int_equal(rmdir(proc), 0);
        assert_int_equal(rmdir(root), 0);
        free(root);
}

static void test_swaps_read_lists_every_area_in_bytes(void **state) {
        char *root = root_with_swaps(
                "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                "/dev/zram0                              partition\t2097148\t\t1024\t\t100\n"
                "/var/lib/my\\040swap                     file\t\t1048572\t\t0\t\t-2\n");
        SwapEntry *e = NULL;
        size_t n = 0;

        assert_int_equal(swaps_read(root, &e, &n), 0);
        assert_int_equal(n, 2);
        assert_string_equal(e[0].path, "/dev/zram0");
        assert_string_equal(e[0].type, "partition");
        assert_int_equal(e[0].size, UINT64_C(2097148) * 1024);
        assert_int_equal(e[0].used, UINT64_C(1024) * 1024);
        assert_int_equal(e[0].priority, 100);
        assert_string_equal(e[1].path, "/var/lib/my swap");    /* \040 undone */
        assert_string_equal(e[1].type, "file");
        assert_int_equal(e[1].used, 0);
        assert_int_equal(e[1].priority, -2);
        swap_entries_free(e, n);
        remove_root(root);
}

static void test_swaps_read_header_only_is_empty(void **state) {
        char *root = root_with_swaps("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
        SwapEntry *e = (SwapEntry *) 1;
        size_t n = 99;

        assert_int_equal(swaps_read(root, &e, &n), 0);
        assert_int_equal(n, 0);
        assert_null(e);
        remove_root(root);
}

static void test_swaps_read_without_the_file_says_enoent(void **state) {
        char *root = root_with_swaps(NULL);
        SwapEntry *e = NULL;
        size_t n = 0;

        assert_int_equal(swaps_read(root, &e, &n), -ENOENT);
        assert_int_equal(swaps_read(root, NULL, &n), -EINVAL);
        remove_root(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_header_round_trip),
                cmocka_unit_test(test_header_layout_is_the_kernels),
                cmocka_unit_test(test_header_rewrite_at_smaller_page_size_leaves_no_stale_magic),
                cmocka_unit_test(test_header_write_zeroed_writes_one_page),
                cmocka_unit_test(test_header_write_refuses_bad_arguments),
                cmocka_unit_test(test_header_write_refuses_more_pages_than_the_header_holds),
                cmocka_unit_test(test_probe_finds_no_swap),
                cmocka_unit_test(test_swapon_under_a_foreign_root_is_skipped),
                cmocka_unit_test(test_swaps_read_lists_every_area_in_bytes),
                cmocka_unit_test(test_swaps_read_header_only_is_empty),
                cmocka_unit_test(test_swaps_read_without_the_file_says_enoent),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
