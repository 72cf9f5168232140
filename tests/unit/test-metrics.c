/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c: label escaping, the kubelet's names for a container's cgroup, and the exposition when
 * nothing could be read. The full exposition is compared with golden files by test-cli-metrics.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "report/metrics.h"

static void test_escape(void **state) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "", "" },
                { "plain", "plain" },
                { "a\"b", "a\\\"b" },
                { "a\\b", "a\\\\b" },
                { "line\nnext", "line\\nnext" },
                { "\\\"\n", "\\\\\\\"\\n" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *s = metrics_escape_label(cases[i].in);
                assert_non_null(s);
                assert_string_equal(s, cases[i].out);
        }
}

static void labels(const char *cgroup, const char *pod, const char *container) {
        _cleanup_free_ char *p = NULL, *c = NULL;
        assert_int_equal(metrics_container_labels(cgroup, &p, &c), 0);
        assert_string_equal(p, pod);
        assert_string_equal(c, container);
}

static void test_container_labels(void **state) {
        /* systemd driver: '_' in the slice name is '-' in the UID */
        labels("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1b2c3d4e_5f60_7182_93a4_b5c6d7e8f901.slice/"
               "cri-containerd-0123abcd.scope",
               "1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901", "containerd://0123abcd");
        labels("kubepods.slice/kubepods-pod0a0b0c0d_1111_2222_3333_444455556666.slice/crio-feedbeef.scope",
               "0a0b0c0d-1111-2222-3333-444455556666", "cri-o://feedbeef");
        labels("kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-podab_cd.slice/docker-77.scope",
               "ab-cd", "docker://77");
        /* cgroupfs driver: pod<uid>/<container id> */
        labels("kubepods/burstable/pod11111111-2222-3333-4444-555555555555/0123456789abcdef",
               "11111111-2222-3333-4444-555555555555", "0123456789abcdef");
        labels("kubepods/pod99/abc", "99", "abc");
        /* no pod in the path: empty labels, not a failure */
        labels("kubepods.slice", "", "");
}

static void test_render_down(void **state) {
        MetricsInput in = { .error = "0: broken\\policy\nsecond line" };
        _cleanup_free_ char *text = NULL;
        assert_int_equal(metrics_render(&in, &text), 0);
        assert_non_null(strstr(text, "# HELP nodeswap_up 0: broken\\\\policy\\nsecond line\n"));
        assert_non_null(strstr(text, "# TYPE nodeswap_up gauge\nnodeswap_up 0\n"));
        assert_non_null(strstr(text, "nodeswap_build_info{version=\"" NODESWAP_VERSION "\"} 1\n"));
        /* nothing else: no family claims a fact that was not read */
        assert_null(strstr(text, "nodeswap_swap_"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_escape),
                cmocka_unit_test(test_container_labels),
                cmocka_unit_test(test_render_down),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
