/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shared/clock.c: each function reads the clock its name says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <time.h>

#include "shared/clock.h"

static uint64_t ref_usec(clockid_t c) {
        struct timespec ts;
        assert_int_equal(clock_gettime(c, &ts), 0);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* Between two readings of the reference clock, within the same second: the right clock (realtime
 * and monotonic are decades apart on any machine not booted in 1970). */
static void clocks_are_what_they_say(void **state) {
        (void) state;
        uint64_t a = ref_usec(CLOCK_REALTIME), r = now_realtime_usec(), b = ref_usec(CLOCK_REALTIME);
        assert_true(a <= r && r <= b);
        a = ref_usec(CLOCK_MONOTONIC);
        uint64_t m = now_monotonic_usec();
        b = ref_usec(CLOCK_MONOTONIC);
        assert_true(a <= m && m <= b);
        assert_true(r > m);
        assert_true(now_monotonic_usec() >= m);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(clocks_are_what_they_say),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
