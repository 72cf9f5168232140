/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report/: status's (and plan's) JSON document when memory runs out. The Nth allocation alone fails,
 * for every N the document makes: each attempt must either fail with -ENOMEM or give the document
 * byte for byte, never one with null where an object was meant (a failure the code did not check
 * is followed by allocations that succeed, so it shows). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <limits.h>

#include "plan/check.h"
#include "probe/meminfo.h"
#include "probe/pods.h"
#include "probe/probe.h"
#include "report/json.h"
#include "report/report.h"
#include "report/status.h"

#ifndef FIXTURES
#error "FIXTURES must point at tests/fixtures"
#endif

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_MALLOC_HOOK 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define HAVE_MALLOC_HOOK 0
#endif
#endif
#ifndef HAVE_MALLOC_HOOK
#define HAVE_MALLOC_HOOK 1
#endif
#if !HAVE_MALLOC_HOOK
/* Under a sanitizer the sweeps are skipped, and the helpers they alone call go unused. */
#pragma GCC diagnostic ignored "-Wunused-function"
static bool counting;
static unsigned long calls, fail_at;
#endif

#if HAVE_MALLOC_HOOK
/* The executable's malloc() interposes json-c's and libc's: glibc supports replacing it so. */
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static bool counting;
static unsigned long calls, fail_at;    /* fail_at 0: never fail */

static bool fail_now(void) {
        return counting && ++calls == fail_at;
}
void *malloc(size_t n) {
        return fail_now() ? NULL : __libc_malloc(n);
}
void *calloc(size_t n, size_t size) {
        return fail_now() ? NULL : __libc_calloc(n, size);
}
void *realloc(void *p, size_t n) {
        return fail_now() ? NULL : __libc_realloc(p, n);
}
#endif

typedef struct Case {
        Policy policy;
        HostState host;
        StatusVerdict verdict;
        PodSwap *pods;
        size_t n_pods;
        StatusModel model;
        Plan plan;              /* what status judged the node by */
} Case;

/* A zram device that writes back, as probe() reads it from backing_dev and bd_stat. */
static void add_writeback(HostState *h) {
        ZramDevice *z = (ZramDevice *) host_find_zram(h, h->swaps[0].zram_id);
        assert_non_null(z);
        z->wb.backing_dev = strdup("/dev/loop3");
        assert_non_null(z->wb.backing_dev);
        z->wb.writeback_limit_enabled = true;
        z->wb.writeback_limit = 1048576;
}

/* What probe() reads from rpi-swap's configuration and nodeswap's state: rpi-swap installed
 * (its units are the conflict units the policy names) and two swap files nodeswap made. */
static void add_rpi_swap_and_files(HostState *h) {
        h->rpi_swap.installed = true;
        h->rpi_swap.mechanism = RPI_SWAP_ZRAM_FILE;
        free(h->rpi_swap.mechanism_source);
        assert_non_null(h->rpi_swap.mechanism_source = strdup("/etc/rpi/swap.conf:3"));
        free(h->rpi_swap.path);
        assert_non_null(h->rpi_swap.path = strdup("/var/swap"));
        for (size_t i = 0; i < h->n_recorded_files; i++)
                free(h->recorded_files[i].path);
        free(h->recorded_files);
        assert_non_null(h->recorded_files = calloc(2, sizeof(RecordedSwapFile)));
        h->n_recorded_files = 2;
        assert_non_null(h->recorded_files[0].path = strdup("/var/lib/nodeswap/swapfile"));
        h->recorded_files[0] = (RecordedSwapFile) { h->recorded_files[0].path, true, true, true, true };
        assert_non_null(h->recorded_files[1].path = strdup("/old/swapfile"));
}

static void load(Case *c, const char *fixture, bool with_pods, bool writeback, bool more) {
        char root[PATH_MAX];
        PolicyContext ctx;
        PolicyErrors errors = {};
        snprintf(root, sizeof root, "%s/%s", FIXTURES, fixture);
        assert_int_equal(probe_context(root, &ctx), 0);
        assert_int_equal(policy_load(root, FIXTURES "/status/zram-file-limitedswap.conf", &ctx, &c->policy, &errors), 0);
        policy_errors_clear(&errors);
        assert_int_equal(probe(root, &c->policy, &c->host), 0);
        assert_int_equal(probe_zswap(root, &c->host), 0);
        if (writeback)
                add_writeback(&c->host);
        if (more)
                add_rpi_swap_and_files(&c->host);
        c->verdict.have_policy = c->verdict.policy_valid = true;
        assert_int_equal(verdict_plan(&c->policy, &c->host, NULL, &c->plan), 0);
        c->verdict.pending = c->plan.n_actions;
        for (size_t i = 0; i < c->plan.findings.n; i++)
                assert_int_equal(findings_add(&c->verdict.findings, c->plan.findings.f[i].verdict,
                                              strdup(c->plan.findings.f[i].message), NULL), 0);
        if (with_pods)
                assert_int_equal(pods_probe(root, &c->pods, &c->n_pods), 0);
        assert_int_equal(status_model_build(&c->policy, &c->host, &c->verdict, c->pods, c->n_pods, with_pods,
                                            &c->model), 0);
}

static void done(Case *c) {
        plan_done(&c->plan);
        status_model_done(&c->model);
        pod_swaps_free(c->pods, c->n_pods);
        findings_done(&c->verdict.findings);
        host_state_done(&c->host);
        policy_done(&c->policy);
}

static char *document(json_object *o) {
        char *s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        assert_non_null(s);
        return s;
}

/* The documents the sweep builds: status's, and plan's for the plan status judged by. */
static int build_status(const Case *c, json_object **ret) {
        return status_to_json(&c->model, ret);
}

static int build_plan(const Case *c, json_object **ret) {
        *ret = plan_to_json(&c->plan);
        return *ret ? 0 : -ENOMEM;
}

static void sweep_document(const Case *c, const char *fixture, int (*build)(const Case *, json_object **),
                           const char *must_have) {
        json_object *o = NULL;
        counting = true;
        calls = fail_at = 0;
        assert_int_equal(build(c, &o), 0);
        counting = false;
        unsigned long total = calls;
        _cleanup_free_ char *want = document(o);
        json_object_put(o);
        /* the case reaches the parts it is meant to */
        if (!strstr(want, must_have))
                fail_msg("%s: no %s in\n%s", fixture, must_have, want);
        assert_true(total > 20);

        for (unsigned long n = 1; n <= total; n++) {
                o = NULL;
                counting = true;
                calls = 0;
                fail_at = n;
                int r = build(c, &o);
                counting = false;
                if (r == 0) {
                        _cleanup_free_ char *got = document(o);
                        json_object_put(o);
                        if (!streq(got, want))
                                fail_msg("%s: allocation %lu of %lu failed and the document changed:\n%s", fixture,
                                         n, total, got);
                } else {
                        assert_int_equal(r, -ENOMEM);
                        assert_null(o);
                }
        }
}

static void sweep(const char *fixture, bool with_pods, bool writeback, bool more, const char *must_have) {
#if HAVE_MALLOC_HOOK
        Case c = {};
        load(&c, fixture, with_pods, writeback, more);
        sweep_document(&c, fixture, build_status, must_have);
        done(&c);
#else
        skip();
#endif
}

/* plan --json (report/report.c) for a plan with actions of several kinds and findings. */
static void test_plan(void **state) {
#if HAVE_MALLOC_HOOK
        Case c = {};
        load(&c, "rpi-untouched", false, false, false);
        assert_true(c.plan.n_actions > 3);
        sweep_document(&c, "rpi-untouched", build_plan, "\"algorithm\":");
        done(&c);
#else
        skip();
#endif
}

static void test_matching(void **state) {
        sweep("matching", false, false, false, "\"storage_device\":\"nvme0n1\"");
}

static void test_writeback(void **state) {
        sweep("matching", false, true, false, "\"limit_left\":1048576");
}

static void test_rpi_swap_and_files(void **state) {
        sweep("rpi-untouched", false, false, true, "\"policy_path\":false");
}

static void test_pods(void **state) {
        sweep("pods/systemd", true, false, false, "\"zswap_current\":");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_matching),
                cmocka_unit_test(test_writeback),
                cmocka_unit_test(test_rpi_swap_and_files),
                cmocka_unit_test(test_pods),
                cmocka_unit_test(test_plan),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
