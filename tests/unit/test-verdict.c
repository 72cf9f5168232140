/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The table of verdicts (verdict.h) and the findings built from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "plan/verdict.h"
#include "report/json.h"

/* Every row: an id of lower-case words joined by '-', unique, a severity and a summary. */
static void test_table_rows(void **state) {
        for (int v = 0; v < _VERDICT_MAX; v++) {
                const VerdictInfo *i = verdict_info((Verdict) v);
                assert_non_null(i);
                assert_non_null(i->id);
                assert_true(strlen(i->id) > 2);
                assert_int_equal(strspn(i->id, "abcdefghijklmnopqrstuvwxyz0123456789-"), strlen(i->id));
                assert_true(i->id[0] != '-' && i->id[strlen(i->id) - 1] != '-');
                assert_non_null(severity_to_string(i->severity));
                assert_non_null(i->summary);
                for (int w = 0; w < v; w++)                       /* unique */
                        if (streq(verdict_info((Verdict) w)->id, i->id))
                                fail_msg("%s: rows %d and %d", i->id, w, v);
        }
        assert_null(verdict_info(_VERDICT_MAX));
        /* the decisions of nodeswap(8) FINDINGS */
        assert_int_equal(verdict_info(VERDICT_CGROUP_V1_LIMITEDSWAP)->severity, SEVERITY_ERROR);
        assert_int_equal(verdict_info(VERDICT_POLICY_INVALID)->severity, SEVERITY_ERROR);
        assert_int_equal(verdict_info(VERDICT_HOST_UNREADABLE)->severity, SEVERITY_WARNING);
}

static void test_finding_at_a_key(void **state) {
        Policy p = {};
        char file[] = "/etc/nodeswap/nodeswap.conf";
        p.origin[POLICY_KEY_ZRAM_ALGORITHM] = (Origin) { .file = file, .line = 7 };
        Findings fs = {};

        assert_int_equal(findings_add_at(&fs, VERDICT_ZRAM_ALGORITHM_UNAVAILABLE, &p, POLICY_KEY_ZRAM_ALGORITHM, "zsdt",
                                         strdup("none offered"), strdup("did you mean zstd?")), 0);
        /* a key left at its default: no origin to name */
        assert_int_equal(findings_add_at(&fs, VERDICT_SWAPFILE_NO_SPACE, &p, POLICY_KEY_FILE_SIZE, "ram",
                                         strdup("too big"), NULL), 0);
        assert_int_equal(fs.n, 2);
        assert_string_equal(fs.f[0].id, "zram-algorithm-unavailable");
        assert_int_equal(fs.f[0].severity, SEVERITY_ERROR);
        char *w = finding_where(&fs.f[0]);
        assert_string_equal(w, "/etc/nodeswap/nodeswap.conf:7: [Zram] Algorithm=zsdt");
        free(w);
        assert_null(finding_where(&fs.f[1]));
        assert_int_equal(findings_count(&fs, SEVERITY_ERROR), 2);

        json_object *a = findings_to_json(&fs);
        assert_non_null(a);
        assert_int_equal(json_object_array_length(a), 2);
        json_object *o = json_object_array_get_idx(a, 0);
        assert_string_equal(json_object_get_string(json_object_object_get(o, "id")), "zram-algorithm-unavailable");
        assert_int_equal(json_object_get_int(json_object_object_get(o, "line")), 7);
        assert_string_equal(json_object_get_string(json_object_object_get(o, "key")), "Algorithm");
        assert_string_equal(json_object_get_string(json_object_object_get(o, "hint")), "did you mean zstd?");
        o = json_object_array_get_idx(a, 1);
        assert_null(json_object_object_get(o, "file"));
        assert_null(json_object_object_get(o, "hint"));
        json_object_put(a);
        findings_done(&fs);
        assert_int_equal(fs.n, 0);
}

static void test_merge_unique(void **state) {
        Findings a = {}, b = {};
        assert_int_equal(findings_add(&a, VERDICT_PSI_OFF, strdup("plan's"), NULL), 0);
        assert_int_equal(findings_add(&b, VERDICT_PSI_OFF, strdup("rule's"), NULL), 0);
        assert_int_equal(findings_add(&b, VERDICT_DROPIN_ORDER, strdup("order"), NULL), 0);
        assert_int_equal(findings_merge(&a, &b, true), 0);
        assert_int_equal(a.n, 2);
        assert_string_equal(a.f[0].message, "plan's");
        assert_string_equal(a.f[1].id, "dropin-order");
        assert_int_equal(b.n, 0);
        assert_int_equal(findings_add(&b, VERDICT_PSI_OFF, strdup("again"), NULL), 0);
        assert_int_equal(findings_merge(&a, &b, false), 0);
        assert_int_equal(a.n, 3);
        /* NULL message: out of memory, the hint is freed */
        assert_int_equal(findings_add(&a, VERDICT_PSI_OFF, NULL, strdup("x")), -ENOMEM);
        findings_done(&a);
}

static void test_policy_error_as_finding(void **state) {
        PolicyError e = { "a.conf", 4, (char *) "File", (char *) "Size", (char *) "8GB", (char *) "invalid size", 0 };
        Findings fs = {};
        assert_int_equal(findings_add_policy_error(&fs, VERDICT_POLICY_INVALID, &e), 0);
        char *w = finding_where(&fs.f[0]);
        assert_string_equal(w, "a.conf:4: [File] Size=8GB");
        free(w);
        assert_string_equal(fs.f[0].message, "invalid size");
        findings_done(&fs);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table_rows),
                cmocka_unit_test(test_finding_at_a_key),
                cmocka_unit_test(test_merge_unique),
                cmocka_unit_test(test_policy_error_as_finding),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
