/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "policy/policy.h"
#include "policy/size.h"

#define RAM_PI (UINT64_C(16218) * MiB)  /* MemTotal of a 16 GB Raspberry Pi 5 */
#define RAM_16G (16 * GiB)

typedef struct GoodCase {
        const char *expr;
        uint64_t ram, page_size;
        uint64_t want;
} GoodCase;

static const GoodCase good[] = {
        /* plain sizes with binary suffixes */
        { "512M", RAM_PI, 4096, 512 * MiB },
        { "16G", RAM_PI, 4096, 16 * GiB },
        { "1.5G", RAM_PI, 4096, 1536 * MiB },
        { "1.25T", RAM_PI, 16384, 1280 * GiB },
        { "4K", RAM_PI, 4096, 4096 },
        { "16K", RAM_PI, 16384, 16384 },
        { "0.5G", RAM_16G, 16384, 512 * MiB },
        { "  4G  ", RAM_PI, 4096, 4 * GiB },
        /* bytes, rounded down to the page size */
        { "8192", RAM_PI, 4096, 8192 },
        { "10000", RAM_PI, 4096, 8192 },
        { "20000", RAM_PI, 16384, 16384 },
        { "1.0000000001G", RAM_PI, 4096, GiB },
        { "4097", RAM_PI, 4096, 4096 },
        /* percent of ram */
        { "50%", RAM_PI, 4096, 8109 * MiB },
        { "50%", RAM_16G, 16384, 8 * GiB },
        { "12.5%", RAM_PI, 4096, UINT64_C(2125725696) },
        { "33.3%", RAM_PI, 4096, UINT64_C(5662932992) },
        { "33.3%", RAM_16G, 16384, UINT64_C(5720883200) },
        { "200%", RAM_16G, 4096, 32 * GiB },
        /* expressions of ram */
        { "ram", RAM_PI, 4096, RAM_PI },
        { "ram", RAM_16G, 16384, RAM_16G },
        { "min(ram / 2, 8G)", RAM_PI, 4096, 8109 * MiB },
        { "min(ram / 2, 8G)", RAM_PI, 16384, 8109 * MiB },
        { "min(ram / 2, 8G)", RAM_16G, 4096, 8 * GiB },
        { "min(ram/2,8G)", 4 * GiB, 4096, 2 * GiB },
        { "ram / 3", RAM_PI, 4096, UINT64_C(5668601856) },
        { "ram / 3", RAM_16G, 4096, UINT64_C(5726621696) },
        { "ram / 3", RAM_16G, 16384, UINT64_C(5726617600) },
        { "ram * 2 / 3", RAM_PI, 4096, UINT64_C(11337203712) },
        { "ram*2/3", RAM_16G, 16384, UINT64_C(11453235200) },
        { "2 * (ram - 8G)", RAM_PI, 4096, UINT64_C(16831741952) },
        { "max(ram, 16G) - 1G", RAM_PI, 4096, 15 * GiB },
        { "max(1G, 2G, 3G, 512M)", RAM_PI, 4096, 3 * GiB },
        { "min(1G)", RAM_PI, 4096, GiB },
        { "(1G)", RAM_PI, 4096, GiB },
        { "((ram))", RAM_16G, 4096, RAM_16G },
        { "-1G + 2G", RAM_PI, 4096, GiB },
        { "--1G", RAM_PI, 4096, GiB },
        { "ram - -1G", RAM_16G, 4096, 17 * GiB },
        { "1G + 2G * 3", RAM_PI, 4096, 7 * GiB },
        { "(1G + 2G) * 3", RAM_PI, 4096, 9 * GiB },
        { "10G - 2G - 3G", RAM_PI, 4096, 5 * GiB },
        { "64G / 4 / 2", RAM_PI, 4096, 8 * GiB },
        { "ram / 2 + 50%", RAM_16G, 4096, 16 * GiB },
        { "min(ram, max(1G, ram / 4))", RAM_16G, 4096, 4 * GiB },
        { "ram * ram / ram", RAM_PI, 4096, RAM_PI },
        { "1.5 * 1.5G", RAM_PI, 4096, 2304 * MiB },
        { ".5G", RAM_PI, 4096, 512 * MiB },
        { "15T", RAM_PI, 4096, 15 * TiB },
};

static void test_size_eval_good(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(good); i++) {
                uint64_t v = 0;
                const char *reason = NULL;
                int r = size_eval(good[i].expr, good[i].ram, good[i].page_size, &v, &reason);
                if (r != 0 || v != good[i].want)
                        print_error("'%s' (ram %" PRIu64 ", page %" PRIu64 "): r=%d v=%" PRIu64 " want %" PRIu64
                                    " reason=%s\n", good[i].expr, good[i].ram, good[i].page_size, r, v,
                                    good[i].want, strempty(reason));
                assert_int_equal(r, 0);
                assert_true(v == good[i].want);
                assert_int_equal(v % good[i].page_size, 0);
        }
}

typedef struct BadCase {
        const char *expr;
        uint64_t page_size;
        const char *reason;     /* a substring of the reason */
} BadCase;

static const BadCase bad[] = {
        { "", 4096, "empty" },
        { "   ", 4096, "empty" },
        { "abc", 4096, "unknown name" },
        { "RAM", 4096, "unknown name" },
        { "ram2", 4096, "unknown name" },
        { "8g", 4096, "upper case" },
        { "512m", 4096, "upper case" },
        { "8GiB", 4096, "not KiB" },
        { "8Gi", 4096, "not KiB" },
        { "8GB", 4096, "unknown size suffix" },
        { "8P", 4096, "up to T" },
        { "2ram", 4096, "unknown size suffix" },
        { "1e9", 4096, "unknown size suffix" },
        { "1G / 0", 4096, "division by zero" },
        { "1G / (ram - ram)", 4096, "division by zero" },
        { "0", 4096, "zero or negative" },
        { "0G", 4096, "zero or negative" },
        { "1G - 2G", 4096, "zero or negative" },
        { "-1G", 4096, "zero or negative" },
        { "min(ram - ram, 1G)", 4096, "zero or negative" },
        { "100", 4096, "smaller than one page" },
        { "8K", 16384, "smaller than one page" },
        { "1G 2G", 4096, "unexpected text after" },
        { "1 G", 4096, "unexpected text after" },
        { "1G & 2G", 4096, "unexpected text after" },
        { "1G)", 4096, "unbalanced ')'" },
        { "(1G", 4096, "missing ')'" },
        { "min()", 4096, "at least one argument" },
        { "min 1G", 4096, "parentheses" },
        { "min(1G 2G)", 4096, "expected ','" },
        { "min(1G,", 4096, "ends too early" },
        { "min(ram / 2, 8G", 4096, "missing ')'" },
        { "1G +", 4096, "ends too early" },
        { "1G * ", 4096, "ends too early" },
        { "*1G", 4096, "unexpected character" },
        { "+1G", 4096, "unexpected character" },
        { "1.5.5G", 4096, "malformed number" },
        { "50%%", 4096, "malformed number" },
        { ".", 4096, "at least one digit" },
        { "99999999999999999999999999999999999999999", 4096, "overflow" },
        { "ram * ram * ram", 4096, "overflow" },
        { "ram * ram * ram * ram * ram", 4096, "overflow" },
        { "16T * 1048576", 4096, "overflow" },
        { "((((((((((((((((((((((((((((((((((((1G))))))))))))))))))))))))))))))))))))", 4096, "nested too deeply" },
};

static void test_size_eval_bad(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                uint64_t v = 12345;
                const char *reason = NULL;
                int r = size_eval(bad[i].expr, RAM_PI, bad[i].page_size, &v, &reason);
                if (r != -EINVAL || !reason || !strstr(reason, bad[i].reason))
                        print_error("'%s': r=%d reason='%s', want '%s'\n", bad[i].expr, r, strempty(reason),
                                    bad[i].reason);
                assert_int_equal(r, -EINVAL);
                assert_non_null(reason);
                assert_non_null(strstr(reason, bad[i].reason));
                assert_true(v == 12345);        /* untouched on failure */
        }
}

static void test_size_eval_exact_decimals(void **state) {
        uint64_t v;
        /* 1.1G is 1181116006.4 bytes: exact arithmetic, rounded down to the byte then to a page. */
        assert_int_equal(size_eval("1.1G", RAM_PI, 1, &v, NULL), 0);
        assert_true(v == UINT64_C(1181116006));
        assert_int_equal(size_eval("1.1G", RAM_PI, 4096, &v, NULL), 0);
        assert_true(v == UINT64_C(1181114368));
        /* ram / 3 * 3 is ram again, not one byte short. */
        assert_int_equal(size_eval("ram / 3 * 3", RAM_PI + 1, 1, &v, NULL), 0);
        assert_true(v == RAM_PI + 1);
        /* The largest 64-bit value still fits, one more byte does not. */
        assert_int_equal(size_eval("18446744073709551615", RAM_PI, 1, &v, NULL), 0);
        assert_true(v == UINT64_MAX);
        const char *reason = NULL;
        assert_int_equal(size_eval("18446744073709551616", RAM_PI, 1, &v, &reason), -EINVAL);
        assert_non_null(strstr(reason, "overflow"));
}

typedef struct QuantityCase {
        const char *s;
        int r;
        uint64_t want;
} QuantityCase;

static const QuantityCase quantities[] = {
        { "0", 0, 0 },
        { "1024", 0, 1024 },
        { "+1k", 0, 1000 },
        { "2k", 0, 2000 },
        { "500M", 0, 500000000 },
        { "1.5G", 0, 1500000000 },
        { "3T", 0, UINT64_C(3000000000000) },
        { "2P", 0, UINT64_C(2000000000000000) },
        { "1E", 0, UINT64_C(1000000000000000000) },
        { "1Ki", 0, 1024 },
        { "256Mi", 0, 256 * MiB },
        { "1Gi", 0, GiB },
        { "1.5Gi", 0, 1536 * MiB },
        { ".5Ki", 0, 512 },
        { "2Ti", 0, 2 * TiB },
        { "1Pi", 0, 1024 * TiB },
        { "1Ei", 0, UINT64_C(1) << 60 },
        { "15Ei", 0, UINT64_C(15) << 60 },
        { "1e9", 0, 1000000000 },
        { "1E9", 0, 1000000000 },
        { "1.5e3", 0, 1500 },
        { "1e+3", 0, 1000 },
        { "12e-1", 0, 2 },              /* fractions of a byte round up */
        { "100m", 0, 1 },
        { "1500m", 0, 2 },
        { "1000000000n", 0, 1 },
        { "129e6", 0, 129000000 },
        { "123Mi", 0, 123 * MiB },
        { "18446744073709551615", 0, UINT64_MAX },
        { "", -EINVAL, 0 },
        { "Mi", -EINVAL, 0 },
        { ".", -EINVAL, 0 },
        { "-1", -EINVAL, 0 },
        { "1MiB", -EINVAL, 0 },
        { "1mi", -EINVAL, 0 },
        { "1 Mi", -EINVAL, 0 },
        { " 1Mi", -EINVAL, 0 },
        { "1.2.3", -EINVAL, 0 },
        { "1kk", -EINVAL, 0 },
        { "1e", -EINVAL, 0 },
        { "1e+", -EINVAL, 0 },
        { "1e3k", -EINVAL, 0 },
        { "0x10", -EINVAL, 0 },
        { "18446744073709551616", -ERANGE, 0 },
        { "16Ei", -ERANGE, 0 },
        { "1e20", -ERANGE, 0 },
        { "99999999999999999999999Gi", -ERANGE, 0 },
        { "9999999999999999999999999999999999999999999", -ERANGE, 0 },
};

static void test_quantity_parse(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(quantities); i++) {
                uint64_t v = 777;
                int r = quantity_parse(quantities[i].s, &v);
                if (r != quantities[i].r || (r == 0 && v != quantities[i].want))
                        print_error("'%s': r=%d v=%" PRIu64 ", want r=%d v=%" PRIu64 "\n", quantities[i].s, r, v,
                                    quantities[i].r, quantities[i].want);
                assert_int_equal(r, quantities[i].r);
                if (r == 0)
                        assert_true(v == quantities[i].want);
                else
                        assert_true(v == 777);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_size_eval_good),
                cmocka_unit_test(test_size_eval_bad),
                cmocka_unit_test(test_size_eval_exact_decimals),
                cmocka_unit_test(test_quantity_parse),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
