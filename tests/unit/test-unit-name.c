/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shared/unit-name.c: the one unit name test (policy and generator alike) and path escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "shared/unit-name.h"
#include "shared/util.h"

static void valid_names(void **state) {
        (void) state;
        static const struct {
                const char *name;
                UnitNameFlags flags;
                bool valid;
        } cases[] = {
                { "dev-zram0.swap", UNIT_NAME_ANY, true },
                { "var-swap.swap", UNIT_NAME_PLAIN, true },
                { "systemd-zram-setup@zram0.service", UNIT_NAME_ANY, true },
                { "systemd-zram-setup@zram0.service", UNIT_NAME_PLAIN, false },
                { "systemd-zram-setup@zram0.service", UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE, true },
                { "rpi-remove-swap-file@var-swap.service", UNIT_NAME_ANY, true },
                { "rpi-setup-loop@var-lib-x\\x2dy.service", UNIT_NAME_ANY, true },
                { "foo@.service", UNIT_NAME_ANY, true },                        /* a template masks all */
                { "foo@.service", UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE, false },/* Unit= needs one unit */
                { "foo.service", UNIT_NAME_TEMPLATE | UNIT_NAME_INSTANCE, false },
                /* The policy allowed it and the generator refused it: systemd allows it, both do now. */
                { ".hidden.service", UNIT_NAME_ANY, true },
                { "..service", UNIT_NAME_ANY, true },
                /* The generator allowed these and the policy refused them: both refuse them now. */
                { "a@b@c.service", UNIT_NAME_ANY, false },
                { "a.@service", UNIT_NAME_ANY, false },
                /* Refused by both before and now. */
                { "@x.service", UNIT_NAME_ANY, false },
                { ".service", UNIT_NAME_ANY, false },
                { "service", UNIT_NAME_ANY, false },
                { "", UNIT_NAME_ANY, false },
                { "dphys-swapfile", UNIT_NAME_ANY, false },
                { "b.bogus", UNIT_NAME_ANY, false },
                { "swap$.swap", UNIT_NAME_ANY, false },
                { "a/b.service", UNIT_NAME_ANY, false },
                { "../../etc/passwd.service", UNIT_NAME_ANY, false },
                { "a b.service", UNIT_NAME_ANY, false },
                { "a\nb.service", UNIT_NAME_ANY, false },
                { "x.service", 0, false },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                bool v = unit_name_is_valid(cases[i].name, cases[i].flags);
                if (v != cases[i].valid)
                        fail_msg("'%s' flags %d: %s, expected %s", cases[i].name, cases[i].flags,
                                 v ? "valid" : "invalid", cases[i].valid ? "valid" : "invalid");
        }
        assert_false(unit_name_is_valid(NULL, UNIT_NAME_ANY));
}

static void length_limit(void **state) {
        (void) state;
        char name[300];
        /* 255 bytes: the longest systemd takes; 256 is too long. */
        memset(name, 'a', sizeof name);
        memcpy(name + 255 - strlen(".swap"), ".swap", strlen(".swap") + 1);
        assert_int_equal(strlen(name), 255);
        assert_true(unit_name_is_valid(name, UNIT_NAME_ANY));
        memset(name, 'a', sizeof name);
        memcpy(name + 256 - strlen(".swap"), ".swap", strlen(".swap") + 1);
        assert_false(unit_name_is_valid(name, UNIT_NAME_ANY));
}

static void path_escape(void **state) {
        (void) state;
        static const struct {
                const char *path, *escaped;
        } cases[] = {
                { "/", "-" },
                { "/var/swap", "var-swap" },
                { "//var//./swap/", "var-swap" },
                { "/dev/zram0", "dev-zram0" },
                { "/var/lib/x-y z", "var-lib-x\\x2dy\\x20z" },
                { "/.hidden", "\\x2ehidden" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *e = unit_name_path_escape(cases[i].path);
                assert_non_null(e);
                assert_string_equal(e, cases[i].escaped);
        }
        errno = 0;
        assert_null(unit_name_path_escape("var/swap"));
        assert_int_equal(errno, EINVAL);
        assert_null(unit_name_path_escape("/var/../swap"));
        assert_int_equal(errno, EINVAL);

        _cleanup_free_ char *u = unit_name_from_path("/var/swap", ".swap");
        _cleanup_free_ char *t = unit_name_path_instance("rpi-setup-loop", "/var/swap", ".service");
        assert_string_equal(u, "var-swap.swap");
        assert_string_equal(t, "rpi-setup-loop@var-swap.service");
        /* What escaping makes is a valid name. */
        assert_true(unit_name_is_valid(u, UNIT_NAME_PLAIN));
        assert_true(unit_name_is_valid(t, UNIT_NAME_INSTANCE));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(valid_names),
                cmocka_unit_test(length_limit),
                cmocka_unit_test(path_escape),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
