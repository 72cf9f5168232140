/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe/zswap.c's readers (the kernel command line, /proc/crypto, parameter values) on text and on
 * the zswap fixture tree, and the state file's saved zswap parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>
#include <sys/stat.h>

#include "execute/state-save.h"
#include "probe/state.h"
#include "probe/zswap.h"

#ifndef FIXTURE_DIR
#error "FIXTURE_DIR must be defined"
#endif

static void cmdline_free(char *v[static _ZSWAP_PARAM_MAX]) {
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                free(v[i]);
}

static void test_cmdline(void **state) {
        char *v[_ZSWAP_PARAM_MAX];

        assert_int_equal(zswap_parse_cmdline("console=tty1 root=/dev/mmcblk0p2 quiet", v), 0);
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                assert_null(v[i]);

        /* The last one wins; '-' and '_' are the same; quotes are dropped; a bare bool is set;
         * parameters of other modules and unknown zswap ones are ignored; "--" ends the kernel's. */
        assert_int_equal(zswap_parse_cmdline(" zswap.enabled=0 zswap.max-pool-percent=10 \"zswap.compressor=lz4\" "
                                             "zswap.max_pool_percent=33 zswap.shrinker_enabled zram.num_devices=2 "
                                             "zswap.zpool=z3fold zswap.enabledx=1 -- zswap.accept_threshold_percent=5",
                                             v), 0);
        assert_string_equal(v[ZSWAP_PARAM_ENABLED], "0");
        assert_string_equal(v[ZSWAP_PARAM_MAX_POOL_PERCENT], "33");
        assert_string_equal(v[ZSWAP_PARAM_COMPRESSOR], "lz4");
        assert_string_equal(v[ZSWAP_PARAM_SHRINKER_ENABLED], "");
        assert_null(v[ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT]);
        cmdline_free(v);

        /* A quoted value with white space stays one argument. */
        assert_int_equal(zswap_parse_cmdline("zswap.compressor=\"lzo rle\" x", v), 0);
        assert_string_equal(v[ZSWAP_PARAM_COMPRESSOR], "lzo rle");
        cmdline_free(v);
        assert_int_equal(zswap_parse_cmdline("", v), 0);
        assert_null(v[ZSWAP_PARAM_ENABLED]);
}

static void test_crypto(void **state) {
        char **names = NULL;
        assert_int_equal(zswap_parse_crypto("name         : deflate\ndriver       : deflate-generic\n"
                                            "type         : acomp\n\n"
                                            "name         : sha256\ntype         : shash\n\n"
                                            "name         : lzo\ntype         : scomp\n\n"
                                            "name         : lzo\ndriver       : lzo-generic\ntype         : compression\n\n"
                                            "type         : scomp\n\n"      /* no name: nothing */
                                            "name         : lz4\ntype         : compression\n",
                                            &names), 0);
        _cleanup_free_ char *s = strv_join(names, " ");
        assert_string_equal(s, "deflate lzo lz4");
        strv_free(names);
        assert_int_equal(zswap_parse_crypto("", &names), 0);
        assert_null(names[0]);
        strv_free(names);
}

static void test_value_equal(void **state) {
        assert_true(zswap_value_equal(ZSWAP_PARAM_ENABLED, "Y", "1"));
        assert_true(zswap_value_equal(ZSWAP_PARAM_ENABLED, "y", "on"));
        assert_true(zswap_value_equal(ZSWAP_PARAM_ENABLED, "", "Y"));     /* a bare zswap.enabled */
        assert_true(zswap_value_equal(ZSWAP_PARAM_SHRINKER_ENABLED, "N", "off"));
        assert_false(zswap_value_equal(ZSWAP_PARAM_ENABLED, "N", "Y"));
        assert_false(zswap_value_equal(ZSWAP_PARAM_ENABLED, "maybe", "maybe"));
        assert_true(zswap_value_equal(ZSWAP_PARAM_COMPRESSOR, "lzo", "lzo"));
        assert_false(zswap_value_equal(ZSWAP_PARAM_COMPRESSOR, "lzo", "lzo-rle"));
        assert_false(zswap_value_equal(ZSWAP_PARAM_MAX_POOL_PERCENT, "20", "020"));
        assert_false(zswap_value_equal(ZSWAP_PARAM_MAX_POOL_PERCENT, NULL, "20"));
        assert_true(zswap_value_equal(ZSWAP_PARAM_MAX_POOL_PERCENT, NULL, NULL));
        assert_string_equal(zswap_param_to_string(ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT), "accept_threshold_percent");
        assert_int_equal(zswap_param_from_string("shrinker_enabled"), ZSWAP_PARAM_SHRINKER_ENABLED);
        assert_int_equal(zswap_param_from_string("zpool"), -EINVAL);
        assert_null(zswap_param_to_string(_ZSWAP_PARAM_MAX));
}

static void test_probe_fixture(void **state) {
        ZswapState z = { .enabled = -1, .max_pool_percent = -1 };
        const char *root = FIXTURE_DIR "/zswap/overlay";
        assert_int_equal(zswap_probe_all(root, &z), 0);
        assert_true(z.params_read);
        assert_int_equal(z.enabled, 0);
        assert_string_equal(z.param[ZSWAP_PARAM_ENABLED], "N");        /* without the newline */
        assert_string_equal(z.param[ZSWAP_PARAM_COMPRESSOR], "lzo");
        assert_string_equal(z.compressor, "lzo");
        assert_string_equal(z.param[ZSWAP_PARAM_MAX_POOL_PERCENT], "20");
        assert_int_equal(z.max_pool_percent, 20);
        assert_string_equal(z.param[ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT], "90");
        assert_null(z.param[ZSWAP_PARAM_SHRINKER_ENABLED]);              /* a 6.6 kernel */
        assert_string_equal(z.zpool, "zsmalloc");
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                assert_null(z.cmdline[i]);
        _cleanup_free_ char *offered = strv_join(z.compressors_offered, " ");
        assert_string_equal(offered, "zstd lzo-rle lzo lz4");
        assert_false(z.debugfs);
        zswap_state_done(&z);
        assert_int_equal(z.enabled, -1);

        /* enabled alone; a tree without zswap */
        assert_int_equal(zswap_probe_enabled(root, &z), 0);
        assert_int_equal(z.enabled, 0);
        assert_int_equal(zswap_probe_enabled(FIXTURE_DIR "/rpi-untouched", &z), 0);
        assert_int_equal(z.enabled, -1);
        assert_int_equal(zswap_probe_params(FIXTURE_DIR "/rpi-untouched", &z), 0);
        assert_int_equal(z.enabled, -1);
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                assert_null(z.param[i]);
        zswap_state_done(&z);
}

static void test_state_round_trip(void **state) {
        char dir[] = "/tmp/nodeswap-test-zswap-XXXXXX";
        assert_non_null(mkdtemp(dir));
        NodeswapState s, t;
        nodeswap_state_init(&s);

        assert_int_equal(state_save_zswap(&s, ZSWAP_PARAM_ENABLED, "N"), 0);
        assert_int_equal(state_save_zswap(&s, ZSWAP_PARAM_COMPRESSOR, "lzo-rle"), 0);
        assert_int_equal(state_save_zswap(&s, ZSWAP_PARAM_COMPRESSOR, "zstd"), 1);     /* the older stays */
        assert_int_equal(state_save_zswap(&s, ZSWAP_PARAM_MAX_POOL_PERCENT, "2 0"), -EINVAL);
        assert_int_equal(state_save_zswap(&s, ZSWAP_PARAM_MAX_POOL_PERCENT, "20\n"), -EINVAL);
        assert_int_equal(state_save_zswap(&s, ZSWAP_PARAM_MAX_POOL_PERCENT, ""), 0);  /* an empty file */
        assert_int_equal(state_save(dir, &s), 0);

        _cleanup_free_ char *text = state_format_persistent(&s);
        assert_non_null(strstr(text, "saved_zswap_compressor=lzo-rle\n"));
        assert_non_null(strstr(text, "saved_zswap_enabled=N\n"));
        assert_int_equal(state_load(dir, &t), 0);
        assert_string_equal(t.saved_zswap[ZSWAP_PARAM_ENABLED], "N");
        assert_string_equal(t.saved_zswap[ZSWAP_PARAM_COMPRESSOR], "lzo-rle");
        assert_string_equal(t.saved_zswap[ZSWAP_PARAM_MAX_POOL_PERCENT], "");
        assert_null(t.saved_zswap[ZSWAP_PARAM_SHRINKER_ENABLED]);
        state_forget_zswap(&t, ZSWAP_PARAM_COMPRESSOR);
        assert_null(t.saved_zswap[ZSWAP_PARAM_COMPRESSOR]);
        nodeswap_state_done(&t);
        nodeswap_state_done(&s);

        /* A damaged record reads as "not saved": unknown names, values with control characters. */
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/var/lib/nodeswap/state", dir);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs("saved_zswap_zpool=z3fold\nsaved_zswap_compressor=lz\x01o\nsaved_zswap_enabled=Y\n", f);
        fclose(f);
        assert_int_equal(state_load(dir, &t), 0);
        assert_null(t.saved_zswap[ZSWAP_PARAM_COMPRESSOR]);
        assert_string_equal(t.saved_zswap[ZSWAP_PARAM_ENABLED], "Y");
        nodeswap_state_done(&t);

        _cleanup_free_ char *cmd = strdup_printf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_cmdline),
                cmocka_unit_test(test_crypto),
                cmocka_unit_test(test_value_equal),
                cmocka_unit_test(test_probe_fixture),
                cmocka_unit_test(test_state_round_trip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
