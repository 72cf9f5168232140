/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "plan/allowance.h"

#define MEMTOTAL_16G (UINT64_C(16218) * MiB)    /* a 16 GB Pi 5 */

/* A Burstable container on a cgroup v2 node with LimitedSwap and the given swap. */
static AllowanceInput burstable(uint64_t request, uint64_t limit, uint64_t swap_total) {
        return (AllowanceInput) {
                .has_request = true, .request = request,
                .has_limit = limit > 0, .limit = limit,
                .behavior = SWAP_BEHAVIOR_LIMITED_SWAP,
                .cgroup = CGROUP_V2,
                .mem_total = MEMTOTAL_16G,
                .swap_total = swap_total,
        };
}

static void test_measured_on_a_16g_node(void **state) {
        /* 256 MiB request, 16 GiB swap: 256 × 16384 / 16218 = 258.6 MiB */
        AllowanceInput in = burstable(256 * MiB, 1 * GiB, 16 * GiB);
        uint64_t swap;
        AllowanceReason reason;
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        assert_int_equal(reason, ALLOWANCE_GRANTED);
        assert_int_equal(swap, (uint64_t) ((unsigned __int128) 256 * MiB * 16 * GiB / MEMTOTAL_16G));

        char buf[FORMAT_BYTES_MAX];
        assert_string_equal(format_bytes(buf, sizeof buf, swap), "258.6 MiB");

        _cleanup_free_ char *f = allowance_formula(&in, swap);
        assert_non_null(f);
        assert_string_equal(f, "256.0 MiB request / 15.8 GiB MemTotal \u00d7 16.0 GiB SwapTotal = "
                               "258.6 MiB (101.0 % of the request)");
}

static void test_stock_2g_zram_gives_an_eighth(void **state) {
        /* the Raspberry Pi OS default: 2 GiB zram on a 16 GB node: 12.6 % of the request */
        AllowanceInput in = burstable(1 * GiB, 0, 2 * GiB);
        uint64_t swap;
        AllowanceReason reason;
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        assert_int_equal(reason, ALLOWANCE_GRANTED);
        assert_int_equal(swap * 1000 / in.request, 126);

        _cleanup_free_ char *f = allowance_formula(&in, swap);
        assert_non_null(strstr(f, "(12.6 % of the request)"));
}

static void test_exact_integer_math(void **state) {
        /* request × swap_total overflows 64 bits: 64 TiB of swap, a 1 TiB request */
        AllowanceInput in = burstable(1 * TiB, 0, 64 * TiB);
        in.mem_total = 2 * TiB;
        uint64_t swap;
        AllowanceReason reason;
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        assert_int_equal(reason, ALLOWANCE_GRANTED);
        assert_int_equal(swap, 32 * TiB);

        /* rounded down, as the kubelet's int64() conversion does */
        in = burstable(1, 0, 2);
        in.mem_total = 3;
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        assert_int_equal(swap, 0);
        assert_int_equal(reason, ALLOWANCE_GRANTED);
}

/* Nodes where the kubelet's float64 arithmetic (calcSwapForBurstablePods: request / capacity in
 * float64, times the swap capacity, truncated) falls one byte short of the exact quotient. The
 * numbers were found by evaluating the kubelet's expression, int(float(r) / float(m) * float(s)) in
 * IEEE double, against r * s // m; MemTotal and SwapTotal are in kB as /proc/meminfo gives them. */
static void test_kubelet_float64_arithmetic(void **state) {
        static const struct {
                uint64_t mem_kb, swap_kb, request, kubelet;
        } cases[] = {
                /* swap equal to RAM: the exact answer is the request itself */
                { 65811510, 65811510, 512 * MiB, 512 * MiB - 1 },
                { 51654832, 51654832, 2000000, 1999999 },
                /* swap half of RAM */
                { 65258310, 32629155, 512 * MiB, 256 * MiB - 1 },
                /* swap twice RAM */
                { 63876607, 127753214, 128 * MiB, 256 * MiB - 1 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                AllowanceInput in = burstable(cases[i].request, 0, cases[i].swap_kb * 1024);
                in.mem_total = cases[i].mem_kb * 1024;
                uint64_t swap;
                AllowanceReason reason;
                print_message("case: MemTotal %" PRIu64 " kB, SwapTotal %" PRIu64 " kB, request %" PRIu64 "\n",
                              cases[i].mem_kb, cases[i].swap_kb, cases[i].request);
                assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
                assert_int_equal(reason, ALLOWANCE_GRANTED);
                /* the exact quotient is one byte more: this is where the two differ */
                assert_int_equal((uint64_t) ((unsigned __int128) in.request * in.swap_total / in.mem_total),
                                 cases[i].kubelet + 1);
                assert_int_equal(swap, cases[i].kubelet);
        }
}

static void test_no_swap_cases(void **state) {
        static const struct {
                const char *name;
                bool has_request;
                uint64_t request;
                bool has_limit;
                uint64_t limit;
                PodQos qos;
                bool critical;
                SwapBehavior behavior;
                CgroupMode cgroup;
                uint64_t swap_total;
                AllowanceReason want;
        } cases[] = {
                { "request equals limit", true, 512 * MiB, true, 512 * MiB, POD_QOS_AUTO, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_REQUEST_EQUALS_LIMIT },
                { "limit without request", false, 0, true, 512 * MiB, POD_QOS_AUTO, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_LIMIT_WITHOUT_REQUEST },
                { "neither request nor limit", false, 0, false, 0, POD_QOS_AUTO, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_NO_MEMORY_REQUEST },
                /* a Burstable pod (another container requests memory) with one that does not: the
                 * kubelet's containerDoesNotRequestMemory, not BestEffort */
                { "burstable pod, container without memory", false, 0, false, 0, POD_QOS_BURSTABLE, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_NO_MEMORY_REQUEST },
                { "qos besteffort", true, 256 * MiB, false, 0, POD_QOS_BEST_EFFORT, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_QOS_BEST_EFFORT },
                { "qos guaranteed", true, 256 * MiB, true, 1 * GiB, POD_QOS_GUARANTEED, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_QOS_GUARANTEED },
                { "critical priority", true, 256 * MiB, true, 1 * GiB, POD_QOS_BURSTABLE, true,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_CRITICAL },
                { "NoSwap", true, 256 * MiB, true, 1 * GiB, POD_QOS_BURSTABLE, false,
                  SWAP_BEHAVIOR_NO_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_NO_SWAP },
                { "swapBehavior unset", true, 256 * MiB, true, 1 * GiB, POD_QOS_BURSTABLE, false,
                  SWAP_BEHAVIOR_UNSET, CGROUP_V2, 16 * GiB, ALLOWANCE_BEHAVIOR_UNSET },
                { "cgroup v1", true, 256 * MiB, true, 1 * GiB, POD_QOS_BURSTABLE, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V1, 16 * GiB, ALLOWANCE_CGROUP_V1 },
                { "cgroup hybrid", true, 256 * MiB, true, 1 * GiB, POD_QOS_BURSTABLE, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_HYBRID, 16 * GiB, ALLOWANCE_CGROUP_V1 },
                { "node without swap", true, 256 * MiB, true, 1 * GiB, POD_QOS_BURSTABLE, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 0, ALLOWANCE_NODE_WITHOUT_SWAP },
                { "no swap controller", true, 256 * MiB, true, 1 * GiB, POD_QOS_BURSTABLE, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_NO_SWAP_CONTROLLER },
                { "request over MemTotal", true, 17 * GiB, false, 0, POD_QOS_BURSTABLE, false,
                  SWAP_BEHAVIOR_LIMITED_SWAP, CGROUP_V2, 16 * GiB, ALLOWANCE_REQUEST_OVER_MEMTOTAL },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                AllowanceInput in = {
                        .has_request = cases[i].has_request, .request = cases[i].request,
                        .has_limit = cases[i].has_limit, .limit = cases[i].limit,
                        .qos = cases[i].qos, .critical = cases[i].critical,
                        .behavior = cases[i].behavior, .cgroup = cases[i].cgroup,
                        .mem_total = MEMTOTAL_16G, .swap_total = cases[i].swap_total,
                        .no_swap_controller = cases[i].want == ALLOWANCE_NO_SWAP_CONTROLLER,
                };
                uint64_t swap = 42;
                AllowanceReason reason = ALLOWANCE_GRANTED;
                print_message("case: %s\n", cases[i].name);
                assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
                assert_int_equal(swap, 0);
                assert_int_equal(reason, cases[i].want);
                assert_non_null(allowance_reason_to_string(reason));
        }
}

/* IsCriticalPod(): static and mirror pods, and priority >= SystemCriticalPriority (2000000000),
 * whatever the priority class is called; one below the threshold is an ordinary pod. */
static void test_critical_pods(void **state) {
        uint64_t swap;
        AllowanceReason reason;

        AllowanceInput in = burstable(256 * MiB, 1 * GiB, 16 * GiB);
        in.static_pod = true;
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        assert_int_equal(reason, ALLOWANCE_STATIC_POD);
        assert_int_equal(swap, 0);

        in = burstable(256 * MiB, 1 * GiB, 16 * GiB);
        in.has_priority = true;
        in.priority = 2000000000;               /* system-cluster-critical's value, another class */
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        assert_int_equal(reason, ALLOWANCE_CRITICAL);
        in.priority = 2000001000;               /* system-node-critical */
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        assert_int_equal(reason, ALLOWANCE_CRITICAL);
        in.priority = 1999999999;               /* just below: the pod gets swap */
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        assert_int_equal(reason, ALLOWANCE_GRANTED);
        assert_true(swap > 0);
        in.priority = 1000000000;               /* the highest user-definable priority */
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        assert_int_equal(reason, ALLOWANCE_GRANTED);
}

static void test_burstable_with_and_without_limit(void **state) {
        /* a request below the limit, an explicit burstable QoS, and no limit at all: all get swap */
        AllowanceInput ins[] = {
                burstable(256 * MiB, 512 * MiB, 16 * GiB),
                burstable(256 * MiB, 0, 16 * GiB),
        };
        ins[0].qos = POD_QOS_BURSTABLE;
        for (size_t i = 0; i < ELEMENTSOF(ins); i++) {
                uint64_t swap;
                AllowanceReason reason;
                assert_int_equal(allowance_compute(&ins[i], &swap, &reason), 0);
                assert_int_equal(reason, ALLOWANCE_GRANTED);
                assert_true(swap > 256 * MiB);
        }
}

static void test_impossible_input(void **state) {
        uint64_t swap = 7;
        AllowanceReason reason = ALLOWANCE_CRITICAL;

        AllowanceInput in = burstable(1 * GiB, 512 * MiB, 16 * GiB);    /* request above limit */
        assert_int_equal(allowance_compute(&in, &swap, &reason), -EINVAL);
        in = burstable(1 * GiB, 0, 16 * GiB);
        in.mem_total = 0;
        assert_int_equal(allowance_compute(&in, &swap, &reason), -EINVAL);
        /* outputs untouched on failure */
        assert_int_equal(swap, 7);
        assert_int_equal(reason, ALLOWANCE_CRITICAL);
}

static void test_qos_names(void **state) {
        static const struct {
                const char *s;
                int r;
                PodQos q;
        } cases[] = {
                { "burstable", 0, POD_QOS_BURSTABLE },
                { "Burstable", 0, POD_QOS_BURSTABLE },
                { "guaranteed", 0, POD_QOS_GUARANTEED },
                { "besteffort", 0, POD_QOS_BEST_EFFORT },
                { "BestEffort", 0, POD_QOS_BEST_EFFORT },
                { "best-effort", 0, POD_QOS_BEST_EFFORT },
                { "auto", -EINVAL, 0 },
                { "", -EINVAL, 0 },
                { "gold", -EINVAL, 0 },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                PodQos q = POD_QOS_AUTO;
                assert_int_equal(pod_qos_from_string(cases[i].s, &q), cases[i].r);
                if (cases[i].r == 0)
                        assert_int_equal(q, cases[i].q);
        }
        assert_string_equal(pod_qos_to_string(POD_QOS_BEST_EFFORT), "besteffort");
        assert_null(allowance_reason_to_string(ALLOWANCE_GRANTED));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_measured_on_a_16g_node),
                cmocka_unit_test(test_stock_2g_zram_gives_an_eighth),
                cmocka_unit_test(test_exact_integer_math),
                cmocka_unit_test(test_kubelet_float64_arithmetic),
                cmocka_unit_test(test_no_swap_cases),
                cmocka_unit_test(test_critical_pods),
                cmocka_unit_test(test_burstable_with_and_without_limit),
                cmocka_unit_test(test_impossible_input),
                cmocka_unit_test(test_qos_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
