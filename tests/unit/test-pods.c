/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "probe/pods.h"

#ifndef FIXTURES
#error "FIXTURES must point at tests/fixtures"
#endif

typedef struct Want {
        const char *name;
        PodQos qos;
        uint64_t memory_max, memory_current, swap_max, swap_current;
} Want;

static void expect_pods(const char *root, const Want *want, size_t n_want) {
        PodSwap *p = NULL;
        size_t n = 0;
        assert_int_equal(pods_probe(root, &p, &n), 0);
        for (size_t i = 0; i < n; i++)
                print_message("  %s\n", p[i].name);
        assert_int_equal(n, n_want);
        for (size_t i = 0; i < n; i++) {
                assert_string_equal(p[i].name, want[i].name);
                assert_int_equal(p[i].qos, want[i].qos);
                assert_int_equal(p[i].memory_max, want[i].memory_max);
                assert_int_equal(p[i].memory_current, want[i].memory_current);
                assert_int_equal(p[i].swap_max, want[i].swap_max);
                assert_int_equal(p[i].swap_current, want[i].swap_current);
        }
        pod_swaps_free(p, n);
}

static void test_systemd_driver_v2(void **state) {
        /* containers only: neither the QoS slices nor the pod slices are listed */
        static const Want want[] = {
                { "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podffffeeee_dddd_cccc_bbbb_aaaa99998888.slice/cri-containerd-dddd4444.scope",
                  POD_QOS_BEST_EFFORT, CGROUP_VALUE_MAX, 4096, 0, 0 },
                { "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c3d4e_5f60_7182_93a4_b5c6d7e8f901.slice/cri-containerd-aaaa1111.scope",
                  POD_QOS_BURSTABLE, 1073741824, 268435456, 271179776, 52428800 },
                { "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c3d4e_5f60_7182_93a4_b5c6d7e8f901.slice/cri-containerd-bbbb2222.scope",
                  POD_QOS_BURSTABLE, CGROUP_VALUE_MAX, 1048576, 0, 0 },
                { "kubepods.slice/kubepods-pod0a0b0c0d_1111_2222_3333_444455556666.slice/cri-containerd-cccc3333.scope",
                  POD_QOS_GUARANTEED, 536870912, 99999744, 0, 0 },
        };
        expect_pods(FIXTURES "/pods/systemd", want, ELEMENTSOF(want));
}

static void test_cgroupfs_driver_hybrid(void **state) {
        /* the kubelet's v2 tree under /sys/fs/cgroup/unified; the v1 memory tree is not read;
         * a container without swap accounting files shows them as unknown */
        static const Want want[] = {
                { "kubepods/besteffort/pod22222222-2222-3333-4444-555555555555/fedcba9876543210",
                  POD_QOS_BEST_EFFORT, CGROUP_VALUE_MAX, 4096, CGROUP_VALUE_UNKNOWN, CGROUP_VALUE_UNKNOWN },
                { "kubepods/burstable/pod11111111-2222-3333-4444-555555555555/0123456789abcdef",
                  POD_QOS_BURSTABLE, 2147483648, 123456789, 0, 0 },
                { "kubepods/pod33333333-2222-3333-4444-555555555555/aaaabbbbccccdddd",
                  POD_QOS_GUARANTEED, 268435456, 1000000, 0, 0 },
        };
        expect_pods(FIXTURES "/pods/cgroupfs-hybrid", want, ELEMENTSOF(want));
}

static void test_no_kubelet(void **state) {
        PodSwap *p = (PodSwap *) 1;
        size_t n = 99;
        assert_int_equal(pods_probe(FIXTURES "/pods/does-not-exist", &p, &n), 0);
        assert_int_equal(n, 0);
        pod_swaps_free(p, n);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_systemd_driver_v2),
                cmocka_unit_test(test_cgroupfs_driver_hybrid),
                cmocka_unit_test(test_no_kubelet),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
