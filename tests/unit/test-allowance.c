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

/* --- issue 26: the request behind a container's memory.swap.max, and what its peak needed ------ */

/* A Burstable container whose memory.swap.max the kubelet computed from request (through
 * allowance_compute(), the kubelet's own arithmetic), with the given swap use; every other file
 * absent unless set after. */
static PodSwap container(uint64_t request, uint64_t swap_total, uint64_t current, uint64_t peak) {
        AllowanceInput in = burstable(request, 0, swap_total);
        uint64_t swap;
        AllowanceReason reason;
        assert_int_equal(allowance_compute(&in, &swap, &reason), 0);
        return (PodSwap) {
                .qos = POD_QOS_BURSTABLE, .memory_max = CGROUP_VALUE_MAX, .swap_max = swap,
                .swap_current = current, .swap_peak = peak, .memory_min = CGROUP_VALUE_UNKNOWN,
                .zswap_current = CGROUP_VALUE_UNKNOWN,
        };
}

/* The request comes back from memory.swap.max, to the MiB, for requests from 1Mi to 15Gi on nodes
 * with little, as much and twice as much swap as RAM. */
static void test_request_from_swap_max(void **state) {
        const uint64_t swaps[] = { 1 * GiB, 2 * GiB, 8 * GiB, 16 * GiB, 32 * GiB };
        for (size_t k = 0; k < ELEMENTSOF(swaps); k++)
                for (uint64_t mi = 1; mi < 15 * 1024; mi += 97) {
                        PodSwap c = container(mi * MiB, swaps[k], 0, 0);
                        ContainerNeed n;
                        assert_int_equal(allowance_container(&c, MEMTOTAL_16G, swaps[k], 0, &n), 0);
                        assert_true(n.request_known);
                        assert_string_equal(n.request_source, "memory.swap.max");
                        assert_int_equal(n.request, mi * MiB);
                        assert_int_equal(n.state, CONTAINER_SWAP_BELOW);
                        assert_int_equal(n.allowance, c.swap_max);
                }
}

/* The kernel keeps memory.swap.max in whole pages: the kubelet's bytes rounded down. The request
 * still comes back to the MiB, with 4 KiB pages and with a Pi 5's 16 KiB. */
static void test_request_from_whole_pages(void **state) {
        const uint64_t swaps[] = { 1 * GiB, 2 * GiB, 8 * GiB, 16 * GiB, 32 * GiB };
        const uint64_t pages[] = { 4096, 16384 };
        for (size_t p = 0; p < ELEMENTSOF(pages); p++)
                for (size_t k = 0; k < ELEMENTSOF(swaps); k++)
                        for (uint64_t mi = 1; mi < 15 * 1024; mi += 97) {
                                PodSwap c = container(mi * MiB, swaps[k], 0, 0);
                                c.swap_max -= c.swap_max % pages[p];
                                if (c.swap_max == 0)
                                        continue;       /* less than a page: no allowance */
                                ContainerNeed n;
                                assert_int_equal(allowance_container(&c, MEMTOTAL_16G, swaps[k], pages[p], &n), 0);
                                assert_true(n.request_known);
                                assert_int_equal(n.request, mi * MiB);
                                assert_int_equal(n.allowance, c.swap_max);
                        }

        /* The e2e's real node (tests/e2e/README.md, "The real node"): MemTotal 2021408 kB, a 256M
         * swap file (SwapTotal 262140 kB); for a 64Mi request the kubelet asked for 8702803 bytes
         * in the container's config.json and the cgroup's memory.swap.max said 8699904. Taken as
         * the kubelet's exact bytes (page size 0) it is a request 22362 bytes short of 64Mi. */
        PodSwap e = { .qos = POD_QOS_BURSTABLE, .memory_max = 128 * MiB, .swap_max = 8699904,
                      .swap_current = 0, .swap_peak = CGROUP_VALUE_UNKNOWN, .memory_min = 0,
                      .zswap_current = CGROUP_VALUE_UNKNOWN };
        ContainerNeed n;
        assert_int_equal(allowance_container(&e, UINT64_C(2021408) * 1024, UINT64_C(262140) * 1024, 4096, &n), 0);
        assert_true(n.request_known);
        assert_string_equal(n.request_source, "memory.swap.max");
        assert_int_equal(n.request, 64 * MiB);
        assert_int_equal(allowance_container(&e, UINT64_C(2021408) * 1024, UINT64_C(262140) * 1024, 0, &n), 0);
        assert_int_equal(n.request, 64 * MiB - 22362);
}

/* memory.min, where the kubelet keeps the request (MemoryQoS), is taken as it is. */
static void test_request_from_memory_min(void **state) {
        PodSwap c = container(300 * MiB, 16 * GiB, 0, 0);
        c.memory_min = 300 * MiB + 4096;
        ContainerNeed n;
        assert_int_equal(allowance_container(&c, MEMTOTAL_16G, 16 * GiB, 0, &n), 0);
        assert_int_equal(n.request, 300 * MiB + 4096);
        assert_string_equal(n.request_source, "memory.min");
}

/* Below, at and over the allowance, and the request the peak needed. */
static void test_below_at_over(void **state) {
        ContainerNeed n;
        PodSwap below = container(256 * MiB, 16 * GiB, 10 * MiB, 100 * MiB);
        below.swap_events = true;
        assert_int_equal(allowance_container(&below, MEMTOTAL_16G, 16 * GiB, 0, &n), 0);
        assert_int_equal(n.state, CONTAINER_SWAP_BELOW);
        assert_false(n.need_known);

        /* at: the kernel refused swap-outs at memory.swap.max; its peak is its limit */
        PodSwap at = container(256 * MiB, 16 * GiB, 10 * MiB, 0);
        at.swap_peak = at.swap_max / 4096 * 4096;
        at.swap_events = true;
        at.swap_max_hits = at.swap_fail = 3;
        assert_int_equal(allowance_container(&at, MEMTOTAL_16G, 16 * GiB, 0, &n), 0);
        assert_int_equal(n.state, CONTAINER_SWAP_AT);
        assert_true(n.need_known && n.need_at_least);
        assert_int_equal(n.need_request, 256 * MiB);
        assert_true(n.need_allowance >= n.need_swap);

        /* at, on a kernel without memory.swap.peak or .events: its swap now is its limit */
        PodSwap full = container(256 * MiB, 16 * GiB, 0, CGROUP_VALUE_UNKNOWN);
        full.swap_current = full.swap_max;
        assert_int_equal(allowance_container(&full, MEMTOTAL_16G, 16 * GiB, 0, &n), 0);
        assert_int_equal(n.state, CONTAINER_SWAP_AT);
        assert_false(n.need_at_least);

        /* over: memory.swap.max lowered under what it had in swap; 500 MiB of swap needs
         * 500 × 16218 / 16384 = 494.9 MiB of request: 495Mi */
        PodSwap over = container(128 * MiB, 16 * GiB, 400 * MiB, 500 * MiB);
        assert_int_equal(allowance_container(&over, MEMTOTAL_16G, 16 * GiB, 0, &n), 0);
        assert_int_equal(n.state, CONTAINER_SWAP_OVER);
        assert_int_equal(n.request, 128 * MiB);
        assert_true(n.need_known && !n.need_at_least && !n.need_over_memtotal);
        assert_int_equal(n.need_swap, 500 * MiB);
        assert_int_equal(n.need_request, 495 * MiB);
        assert_true(n.need_allowance >= 500 * MiB);
        PodSwap one_less = container(494 * MiB, 16 * GiB, 0, 0);
        assert_true(one_less.swap_max < 500 * MiB);

        /* a peak no request below MemTotal gives: 1 GiB of swap on a node with 512 MiB of it */
        PodSwap huge = container(1 * GiB, 512 * MiB, 600 * MiB, 1 * GiB);
        assert_int_equal(allowance_container(&huge, MEMTOTAL_16G, 512 * MiB, 0, &n), 0);
        assert_true(n.need_known && n.need_over_memtotal);

        /* no allowance: Guaranteed, or a memory.swap.max of 0 or max */
        PodSwap g = container(256 * MiB, 16 * GiB, 0, 0);
        g.qos = POD_QOS_GUARANTEED;
        assert_int_equal(allowance_container(&g, MEMTOTAL_16G, 16 * GiB, 0, &n), 0);
        assert_int_equal(n.state, CONTAINER_SWAP_NO_ALLOWANCE);
        g.qos = POD_QOS_BURSTABLE;
        g.swap_max = CGROUP_VALUE_MAX;
        assert_int_equal(allowance_container(&g, MEMTOTAL_16G, 16 * GiB, 0, &n), 0);
        assert_int_equal(n.state, CONTAINER_SWAP_NO_ALLOWANCE);
        assert_int_equal(allowance_container(&g, 0, 16 * GiB, 0, &n), -EINVAL);
}

/* container-swap-fail: one finding per container whose swap-outs failed, none without the file. */
static void test_check_containers(void **state) {
        PodSwap c[3] = {
                container(256 * MiB, 16 * GiB, 0, 0),
                container(256 * MiB, 16 * GiB, 0, 0),
                container(256 * MiB, 16 * GiB, 0, 0),
        };
        c[0].name = (char *) "a";
        c[1].name = (char *) "b";
        c[1].swap_events = true;
        c[1].swap_fail = 2;
        c[2].name = (char *) "c";
        c[2].swap_fail = 5;     /* no memory.swap.events: never read */
        Findings fs = {};
        assert_int_equal(allowance_check_containers(c, 3, MEMTOTAL_16G, 16 * GiB, 0, &fs), 0);
        assert_int_equal(fs.n, 1);
        assert_int_equal(fs.f[0].verdict, VERDICT_CONTAINER_SWAP_FAIL);
        assert_int_equal(fs.f[0].severity, SEVERITY_WARNING);
        assert_non_null(strstr(fs.f[0].message, "b: 2 swap-outs failed"));
        findings_done(&fs);
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
                cmocka_unit_test(test_request_from_swap_max),
                cmocka_unit_test(test_request_from_whole_pages),
                cmocka_unit_test(test_request_from_memory_min),
                cmocka_unit_test(test_below_at_over),
                cmocka_unit_test(test_check_containers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
