/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap trial --density (issue 39): a replica's allowance (the kubelet's formula in whole
 * pages, none where the kubelet gives none), the prediction, the search fed with outcomes, the
 * judgement of a point and the scheduler's view, with numbers worked by hand. No process is
 * started: the replicas themselves run in the e2e VM (scenario density). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "plan/density.h"

static void allowance_in_whole_pages(void **state) {
        uint64_t swap;
        const char *why;
        /* 256 MiB / 4 GiB × 2 GiB = 128 MiB exactly */
        assert_int_equal(density_allowance(4 * GiB, 2 * GiB, 4096, 256 * MiB, 512 * MiB, &swap, &why), 0);
        assert_int_equal(swap, 128 * MiB);
        assert_null(why);
        /* 100 MiB / 4038660096 × 2147479552 = 55756004.9... -> 55756004 (int64 of the float64
         * product), 55754752 in whole 4 KiB pages */
        assert_int_equal(density_allowance(UINT64_C(4038660096), UINT64_C(2147479552), 4096, 100 * MiB, 200 * MiB,
                                           &swap, &why), 0);
        assert_int_equal(swap, UINT64_C(55754752));
        /* none: request equal to the limit, zero, above MemTotal, no swap */
        assert_int_equal(density_allowance(4 * GiB, 2 * GiB, 4096, 64 * MiB, 64 * MiB, &swap, &why), 0);
        assert_int_equal(swap, 0);
        assert_non_null(why);
        assert_int_equal(density_allowance(4 * GiB, 2 * GiB, 4096, 0, 64 * MiB, &swap, &why), 0);
        assert_int_equal(swap, 0);
        assert_string_equal(why, "a request of zero gets no swap");
        assert_int_equal(density_allowance(4 * GiB, 2 * GiB, 4096, 5 * GiB, 6 * GiB, &swap, &why), 0);
        assert_int_equal(swap, 0);
        assert_non_null(why);
        assert_int_equal(density_allowance(4 * GiB, 0, 4096, 64 * MiB, 128 * MiB, &swap, &why), 0);
        assert_int_equal(swap, 0);
        /* impossible input */
        assert_int_equal(density_allowance(0, 2 * GiB, 4096, 64 * MiB, 128 * MiB, &swap, &why), -EINVAL);
        assert_int_equal(density_allowance(4 * GiB, 2 * GiB, 4096, 256 * MiB, 128 * MiB, &swap, &why), -EINVAL);
}

static void predict_from_the_lone_footprint(void **state) {
        /* 1 GiB available, 40 MiB a replica: 25 without swap */
        assert_int_equal(density_predict(GiB, GiB, 40 * MiB, 30 * MiB, 4096, false, 64), 25);
        /* with 30 MiB of swap each: 1024 / 10 = 102 by RAM, (1024 + 1024) / 40 = 51 by RAM + swap */
        assert_int_equal(density_predict(GiB, GiB, 40 * MiB, 30 * MiB, 4096, true, 64), 51);
        assert_int_equal(density_predict(GiB, GiB, 40 * MiB, 30 * MiB, 4096, true, 40), 40);
        /* little swap free: (1024 + 64) / 40 = 27 */
        assert_int_equal(density_predict(GiB, 64 * MiB, 40 * MiB, 30 * MiB, 4096, true, 64), 27);
        /* an allowance above the footprint: a page of RAM each, so RAM + swap decides */
        assert_int_equal(density_predict(GiB, GiB, 40 * MiB, 80 * MiB, 4096, true, 1000), 51);
        /* never below 1 */
        assert_int_equal(density_predict(10 * MiB, 0, 40 * MiB, 0, 4096, false, 64), 1);
}

/* Run the search against a workload that holds up to `real` replicas; the counts it ran. */
static size_t search(unsigned start, unsigned max, unsigned around, unsigned real, unsigned *ran, DensitySearch *ret) {
        DensitySearch s;
        size_t n = 0;
        unsigned k;
        density_search_init(&s, start, max, around);
        while (density_search_next(&s, &k) > 0) {
                assert_true(n < 32);
                ran[n++] = k;
                assert_int_equal(density_search_feed(&s, k <= real), 0);
        }
        *ret = s;
        return n;
}

static void search_gallops_then_bisects(void **state) {
        unsigned ran[32];
        DensitySearch s;
        /* up: 4 5 7 (held), 11 (not), then 9, 8 (not): 7 */
        assert_int_equal(search(4, 64, 0, 7, ran, &s), 6);
        unsigned up[] = { 4, 5, 7, 11, 9, 8 };
        assert_memory_equal(ran, up, sizeof up);
        assert_int_equal(s.held, 7);
        assert_int_equal(s.failed, 8);
        assert_false(s.at_least);
        /* down: 10 9 7 (not), 3 (held), then 5, 4 (not): 3 */
        assert_int_equal(search(10, 64, 0, 3, ran, &s), 6);
        unsigned down[] = { 10, 9, 7, 3, 5, 4 };
        assert_memory_equal(ran, down, sizeof down);
        assert_int_equal(s.held, 3);
        /* the prediction exactly: 6 held, 7 not */
        assert_int_equal(search(6, 64, 0, 6, ran, &s), 2);
        assert_int_equal(s.held, 6);
        /* max holds: at least max */
        assert_int_equal(search(30, 32, 0, 100, ran, &s), 3);
        unsigned top[] = { 30, 31, 32 };
        assert_memory_equal(ran, top, sizeof top);
        assert_int_equal(s.held, 32);
        assert_true(s.at_least);
        /* a lone replica that does not hold: none */
        assert_int_equal(search(1, 64, 0, 0, ran, &s), 1);
        assert_int_equal(s.held, 0);
        assert_int_equal(s.failed, 1);
        /* the start is clamped to 1..max */
        assert_int_equal(search(0, 5, 0, 2, ran, &s), 4);      /* 1 2 (held) 4 3 (not) */
        assert_int_equal(ran[0], 1);
        assert_int_equal(search(9, 5, 0, 2, ran, &s), 4);      /* 5 4 (not) 2 (held) 3 (not) */
        assert_int_equal(ran[0], 5);
        assert_int_equal(s.held, 2);
}

static void search_around_the_prediction(void **state) {
        unsigned ran[32];
        DensitySearch s;
        /* ±2 around 5: up to 7, which holds: at least 7 */
        assert_int_equal(search(5, 64, 2, 20, ran, &s), 3);
        unsigned up[] = { 5, 6, 7 };
        assert_memory_equal(ran, up, sizeof up);
        assert_int_equal(s.held, 7);
        assert_true(s.at_least);
        /* down is not bounded: a point that holds is needed */
        assert_int_equal(search(8, 64, 2, 2, ran, &s), 6);
        unsigned down[] = { 8, 7, 5, 1, 3, 2 };
        assert_memory_equal(ran, down, sizeof down);
        assert_int_equal(s.held, 2);
        assert_false(s.at_least);
        /* feeding without a point */
        assert_int_equal(density_search_feed(&s, true), -EINVAL);
}

static void judge_names_what_gave_out(void **state) {
        DensityOutcome o = { .replicas = 1, .settle_max_usec = 5 * USEC_PER_SEC, .hold_usec = 10 * USEC_PER_SEC,
                             .stall_full_usec = 999999 };
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_HELD);
        /* one replica (cpus 0: one CPU): 3 × the lone replica's 2 s is 6 s: 6 s holds, 6.000001 s does not */
        o.settle_max_usec = 6 * USEC_PER_SEC;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_HELD);
        o.settle_max_usec++;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_GAVE_OUT_SLOW);
        assert_int_equal(density_judge(&o, 0), DENSITY_HELD);
        /* 4 replicas on 2 CPUs share them: 3 × 2 s × 4 / 2 = 12 s */
        o.replicas = 4;
        o.cpus = 2;
        o.settle_max_usec = 12 * USEC_PER_SEC;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_HELD);
        o.settle_max_usec++;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_GAVE_OUT_SLOW);
        /* more CPUs than replicas: no share */
        o.cpus = 8;
        o.settle_max_usec = 6 * USEC_PER_SEC + 1;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_GAVE_OUT_SLOW);
        /* a lone replica faster than the floor counts as 1 s: 3 s, not 0.9 s */
        o.settle_max_usec = 3 * USEC_PER_SEC;
        assert_int_equal(density_judge(&o, 300000), DENSITY_HELD);
        o.settle_max_usec++;
        assert_int_equal(density_judge(&o, 300000), DENSITY_GAVE_OUT_SLOW);
        o.cpus = 0;
        /* 10 % of the 10 s hold stalled: thrashing */
        o.settle_max_usec = 1;
        o.stall_full_usec = USEC_PER_SEC;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_GAVE_OUT_STALL);
        o.stall_full_usec = TRIAL_MISSING;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_HELD);
        /* the order: oom, exit, settle */
        o.unsettled = 1;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_GAVE_OUT_SETTLE);
        o.failed = 1;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_GAVE_OUT_EXIT);
        o.oom = 2;
        assert_int_equal(density_judge(&o, 2 * USEC_PER_SEC), DENSITY_GAVE_OUT_OOM);
        assert_string_equal(density_gave_out_to_string(DENSITY_HELD), "held");
        assert_string_equal(density_gave_out_to_string(DENSITY_GAVE_OUT_STALL), "stall");
        assert_null(density_gave_out_to_string(_DENSITY_GAVE_OUT_MAX));
}

static void scheduler_view(void **state) {
        uint64_t ev;
        assert_int_equal(density_eviction_bytes("100Mi", 4 * GiB, &ev), 0);
        assert_int_equal(ev, 100 * MiB);
        /* GetThresholdQuantity: int64(4294967296 × 0.05) */
        assert_int_equal(density_eviction_bytes("5%", 4 * GiB, &ev), 0);
        assert_int_equal(ev, UINT64_C(214748364));
        assert_int_equal(density_eviction_bytes("", 4 * GiB, &ev), -EINVAL);
        assert_int_equal(density_eviction_bytes("150%", 4 * GiB, &ev), -EINVAL);
        assert_int_equal(density_eviction_bytes("x%", 4 * GiB, &ev), -EINVAL);

        /* 4096 - 256 - 128 - 100 = 3612 MiB allocatable; 512 MiB requested already: 3100 MiB,
         * 31 pods of 100 MiB */
        DensityScheduler s = { .capacity = 4 * GiB, .kube_reserved = 256 * MiB, .system_reserved = 128 * MiB,
                               .eviction_hard = 100 * MiB, .requests_on_node = 512 * MiB, .pods_on_node = 5 };
        assert_int_equal(density_scheduler(&s, 100 * MiB), 0);
        assert_int_equal(s.allocatable, 3612 * MiB);
        assert_int_equal(s.admitted, 31);
        assert_false(s.by_max_pods);
        /* the request at which it admits 40: 3100 / 40 = 77.5 -> 77 MiB */
        assert_int_equal(density_request_for(&s, 40), 77 * MiB);
        /* maxPods 20 with 5 on the node: 15 */
        s.max_pods = 20;
        assert_int_equal(density_scheduler(&s, 100 * MiB), 0);
        assert_int_equal(s.admitted, 15);
        assert_true(s.by_max_pods);
        assert_int_equal(density_request_for(&s, 16), 0);
        /* reservations above the capacity: nothing */
        s.kube_reserved = 8 * GiB;
        assert_int_equal(density_scheduler(&s, 100 * MiB), 0);
        assert_int_equal(s.allocatable, 0);
        assert_int_equal(s.admitted, 0);
        assert_int_equal(density_request_for(&s, 1), 0);
        assert_int_equal(density_scheduler(&s, 0), -EINVAL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(allowance_in_whole_pages),
                cmocka_unit_test(predict_from_the_lone_footprint),
                cmocka_unit_test(search_gallops_then_bisects),
                cmocka_unit_test(search_around_the_prediction),
                cmocka_unit_test(judge_names_what_gave_out),
                cmocka_unit_test(scheduler_view),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
