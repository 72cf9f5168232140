/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe/pressure.c (PSI files as kernel/sched/psi.c's psi_show() writes them, /proc/vmstat and
 * memory.stat's swap counters), the pods' stall through pods_probe(), and the memory-thrashing
 * verdict (plan/pressure.c) on the fixture trees in tests/fixtures/pressure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <unistd.h>

#include "plan/pressure.h"
#include "probe/pods.h"
#include "probe/pressure.h"
#include "probe/probe.h"

#ifndef FIXTURES
#error "FIXTURES must point at tests/fixtures"
#endif

#define BURSTABLE_POD "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c3d4e_5f60_7182_93a4_b5c6d7e8f901.slice"

static void test_parse_kernel_format(void **state) {
        Pressure p;
        assert_int_equal(pressure_parse("some avg10=31.02 avg60=52.80 avg300=20.11 total=98123456\n"
                                        "full avg10=18.40 avg60=23.45 avg300=9.87 total=51234567\n", &p), 0);
        assert_true(p.present && p.some.present && p.full.present);
        assert_float_equal(p.some.avg10, 31.02, 1e-9);
        assert_float_equal(p.some.avg60, 52.80, 1e-9);
        assert_float_equal(p.full.avg60, 23.45, 1e-9);
        assert_float_equal(p.full.avg300, 9.87, 1e-9);
        assert_int_equal(p.some.total_us, 98123456);
        assert_int_equal(p.full.total_us, 51234567);

        /* an idle node */
        assert_int_equal(pressure_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
                                        "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", &p), 0);
        assert_true(p.full.present);
        assert_float_equal(p.full.avg60, 0, 0);

        /* a "some" line alone (the cpu file before Linux 5.13): full is missing, not 0 */
        assert_int_equal(pressure_parse("some avg10=1.00 avg60=2.00 avg300=3.00 total=4\n", &p), 0);
        assert_true(p.some.present);
        assert_false(p.full.present);
}

static void test_parse_refuses(void **state) {
        static const char *const bad[] = {
                "",
                "garbage\n",
                "some avg10=0.00 avg60=0.00 total=0\n",                                     /* no avg300 */
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0 extra\n",
                "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nsome avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",                        /* no some line */
                "some avg10=100.01 avg60=0.00 avg300=0.00 total=0\n",                      /* above 100 % */
                "some avg10=nan avg60=0.00 avg300=0.00 total=0\n",
                "some avg60=0.00 avg10=0.00 avg300=0.00 total=0\n",                        /* order */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                Pressure p;
                print_message("  '%s'\n", bad[i]);
                assert_int_equal(pressure_parse(bad[i], &p), -EINVAL);
        }
}

/* A file not in psi_show()'s format is unknown, not fatal: status and check go on. */
static void test_read_malformed(void **state) {
        char dir[] = "/tmp/test-pressure-XXXXXX";
        assert_non_null(mkdtemp(dir));
        _cleanup_free_ char *path = strdup_printf("%s/memory.pressure", dir);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs("some avg10=x\n", f);
        assert_int_equal(fclose(f), 0);
        Pressure p = { .present = true };
        assert_int_equal(pressure_read(path, &p), 0);
        assert_false(p.present);
        assert_true(p.malformed);
        assert_int_equal(unlink(path), 0);
        /* absent */
        assert_int_equal(pressure_read(path, &p), 0);
        assert_false(p.present);
        assert_false(p.malformed);
        assert_int_equal(rmdir(dir), 0);
}

static void test_node(void **state) {
        NodePressure n;
        assert_int_equal(node_pressure_read(FIXTURES "/pressure/thrashing", &n), 0);
        assert_true(n.probed && n.memory.present && n.memory.full.present);
        assert_float_equal(n.memory.full.avg60, 23.45, 1e-9);
        assert_true(n.traffic.has_pswp && n.traffic.has_zswp);
        assert_int_equal(n.traffic.pswpin, 1312331);
        assert_int_equal(n.traffic.pswpout, 2203311);

        /* PSI off and no /proc/vmstat: every figure missing, none 0 */
        assert_int_equal(node_pressure_read(FIXTURES "/pods/systemd", &n), 0);
        assert_true(n.probed);
        assert_false(n.memory.present);
        assert_false(n.traffic.has_pswp);
        assert_false(n.traffic.has_zswp);
}

static const PodSwap *find(const PodSwap *p, size_t n, const char *suffix) {
        for (size_t i = 0; i < n; i++)
                if (endswith(p[i].name, suffix))
                        return &p[i];
        return NULL;
}

static void test_pods(void **state) {
        PodSwap *p = NULL;
        size_t n = 0;
        assert_int_equal(pods_probe(FIXTURES "/pressure/thrashing", &p, &n), 0);
        assert_int_equal(n, 4);
        const PodSwap *a = find(p, n, "cri-containerd-aaaa1111.scope");
        assert_non_null(a);
        assert_true(a->pressure.container.present && a->pressure.pod.present);
        assert_float_equal(a->pressure.container.full.avg60, 40.80, 1e-9);
        assert_float_equal(a->pressure.pod.full.avg60, 41.20, 1e-9);
        assert_int_equal(a->pressure.pod.full.total_us, 45012345);
        assert_true(a->pressure.traffic.has_pswp);
        assert_int_equal(a->pressure.traffic.pswpin, 412331);
        assert_int_equal(a->pressure.traffic.pswpout, 508112);
        pod_swaps_free(p, n);

        /* a 6.1 kernel's memory.stat: zswpin/zswpout, no pswpin/pswpout */
        assert_int_equal(pods_probe(FIXTURES "/pressure/quiet", &p, &n), 0);
        a = find(p, n, "cri-containerd-aaaa1111.scope");
        assert_non_null(a);
        assert_false(a->pressure.traffic.has_pswp);
        assert_true(a->pressure.traffic.has_zswp);
        pod_swaps_free(p, n);

        /* PSI off: the files are absent, the figures unknown */
        assert_int_equal(pods_probe(FIXTURES "/pods/systemd", &p, &n), 0);
        assert_int_equal(n, 4);
        for (size_t i = 0; i < n; i++) {
                assert_false(p[i].pressure.container.present);
                assert_false(p[i].pressure.pod.present);
                assert_false(p[i].pressure.traffic.has_pswp);
        }
        pod_swaps_free(p, n);
}

static void test_pod_of(void **state) {
        char *pod, *uid;
        assert_int_equal(pressure_pod_of(BURSTABLE_POD "/cri-containerd-aaaa1111.scope", &pod, &uid), 0);
        assert_string_equal(pod, BURSTABLE_POD);
        assert_string_equal(uid, "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901");
        free(pod);
        free(uid);
        /* the cgroupfs driver */
        assert_int_equal(pressure_pod_of("kubepods/burstable/pod11111111-2222-3333-4444-555555555555/0123abcd",
                                         &pod, &uid), 0);
        assert_string_equal(pod, "kubepods/burstable/pod11111111-2222-3333-4444-555555555555");
        assert_string_equal(uid, "11111111-2222-3333-4444-555555555555");
        free(pod);
        free(uid);
        assert_int_equal(pressure_pod_of("kubepods.slice/kubepods-burstable.slice", &pod, &uid), 0);
        assert_null(pod);
        assert_null(uid);
}

/* probe(), probe_pressure() and the verdict on a fixture tree, as check runs them. */
static void verdict_on(const char *root, bool with_pressure, Findings *fs) {
        Policy p = { .swappiness = -1, .page_cluster = -1 };
        HostState h;
        assert_int_equal(probe(root, &p, &h), 0);
        if (with_pressure)
                assert_int_equal(probe_pressure(root, &h), 0);
        *fs = (Findings) {};
        assert_int_equal(check_memory_pressure(&p, &h, fs), 0);
        for (size_t i = 0; i < fs->n; i++)
                print_message("  %s: %s\n", fs->f[i].id, fs->f[i].message);
        host_state_done(&h);
}

static const Finding *finding(const Findings *fs, Verdict v) {
        for (size_t i = 0; i < fs->n; i++)
                if (fs->f[i].verdict == v)
                        return &fs->f[i];
        return NULL;
}

static void test_verdict_thrashing(void **state) {
        Findings fs;
        verdict_on(FIXTURES "/pressure/thrashing", true, &fs);
        const Finding *f = finding(&fs, VERDICT_MEMORY_THRASHING);
        assert_non_null(f);
        assert_int_equal(f->severity, SEVERITY_WARNING);
        /* the node's figure, and the two pods above 10 %, the highest first, with swap and allowance */
        assert_non_null(strstr(f->message, "23.45 %"));
        const char *bu = strstr(f->message, "pod 1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901 (burstable");
        const char *be = strstr(f->message, "pod ffffeeee-dddd-cccc-bbbb-aaaa99998888 (besteffort");
        assert_non_null(bu);
        assert_non_null(be);
        assert_true(bu < be);
        assert_non_null(strstr(bu, "full avg60 41.20 %, swap 50.0 MiB of 258.6 MiB allowed"));
        assert_non_null(strstr(be, "with none allowed"));
        /* the guaranteed pod, at 0.00 %, is not named */
        assert_null(strstr(f->message, "0a0b0c0d"));
        assert_non_null(strstr(f->hint, "requests"));
        assert_non_null(strstr(f->hint, "limits"));
        assert_non_null(strstr(f->hint, "faster backend"));
        /* the node swaps to zram: the context line */
        const Finding *z = finding(&fs, VERDICT_MEMORY_STALL_ZRAM);
        assert_non_null(z);
        assert_int_equal(z->severity, SEVERITY_INFO);
        assert_non_null(strstr(z->message, "/dev/zram0"));
        assert_non_null(strstr(z->message, "compressing"));
        findings_done(&fs);
}

static void test_verdict_quiet(void **state) {
        Findings fs;
        /* stall under the threshold */
        verdict_on(FIXTURES "/pressure/quiet", true, &fs);
        assert_int_equal(fs.n, 0);
        findings_done(&fs);
        /* PSI off: nothing is known, nothing said (psi-off says it) */
        verdict_on(FIXTURES "/pods/systemd", true, &fs);
        assert_int_equal(fs.n, 0);
        findings_done(&fs);
        /* without probe_pressure() (plan, apply) the verdict is not made */
        verdict_on(FIXTURES "/pressure/thrashing", false, &fs);
        assert_int_equal(fs.n, 0);
        findings_done(&fs);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_kernel_format),
                cmocka_unit_test(test_parse_refuses),
                cmocka_unit_test(test_read_malformed),
                cmocka_unit_test(test_node),
                cmocka_unit_test(test_pods),
                cmocka_unit_test(test_pod_of),
                cmocka_unit_test(test_verdict_thrashing),
                cmocka_unit_test(test_verdict_quiet),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
