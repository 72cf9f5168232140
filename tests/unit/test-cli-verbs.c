/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status, check and allowance commands on the fixture trees, output captured and parsed.
 * They run with the real cli_load() (src/cli/load.c), as the nodeswap binary does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <sys/stat.h>

#include "plan/allowance.h"
#include "cli/cli.h"

#ifndef FIXTURES
#error "FIXTURES must point at tests/fixtures"
#endif

/* Run a verb with stdout going to a buffer. */
static int run(int (*verb)(const CliContext *), const CliContext *c, char **ret_out) {
        fflush(stdout);
        int saved = dup(STDOUT_FILENO);
        FILE *tmp = tmpfile();
        assert_true(saved >= 0);
        assert_non_null(tmp);
        assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);

        int ex = verb(c);

        fflush(stdout);
        assert_true(dup2(saved, STDOUT_FILENO) >= 0);
        close(saved);
        long n = ftell(tmp);
        assert_true(n >= 0);
        char *buf = calloc(1, (size_t) n + 1);
        assert_non_null(buf);
        rewind(tmp);
        assert_int_equal(fread(buf, 1, (size_t) n, tmp), (size_t) n);
        fclose(tmp);
        *ret_out = buf;
        return ex;
}

static json_object *run_json(int (*verb)(const CliContext *), const CliContext *c, int *ret_exit) {
        _cleanup_free_ char *out = NULL;
        *ret_exit = run(verb, c, &out);
        json_object *o = json_tokener_parse(out);
        if (!o)
                print_message("not JSON:\n%s\n", out);
        assert_non_null(o);
        return o;
}

static json_object *get(json_object *o, const char *key) {
        json_object *v = NULL;
        if (!json_object_object_get_ex(o, key, &v))
                fail_msg("no key '%s' in %s", key, json_object_to_json_string(o));
        return v;
}

static const char *get_str(json_object *o, const char *key) {
        json_object *v = get(o, key);
        assert_true(json_object_is_type(v, json_type_string));
        return json_object_get_string(v);
}

static uint64_t get_u64(json_object *o, const char *key) {
        json_object *v = get(o, key);
        assert_true(json_object_is_type(v, json_type_int));
        return json_object_get_uint64(v);
}

static bool has_finding(json_object *o, const char *id, const char *severity) {
        json_object *a = get(o, "findings");
        for (size_t i = 0; i < json_object_array_length(a); i++) {
                json_object *f = json_object_array_get_idx(a, i);
                if (streq(get_str(f, "id"), id)) {
                        assert_string_equal(get_str(f, "severity"), severity);
                        assert_true(strlen(get_str(f, "message")) > 0);
                        assert_true(strlen(get_str(f, "hint")) > 0);
                        return true;
                }
        }
        return false;
}

/* Copies of the policies in tests/fixtures/status/ with mode 0644: nodeswap refuses a policy file
 * others may write, and a checkout's modes follow the umask. */
static char policy_dir[] = "/tmp/test-cli-verbs.XXXXXX";
static char POLICY_ZRAM_FILE[sizeof policy_dir + 64];
static char POLICY_LIMITED[sizeof policy_dir + 64];

static void copy_policy(const char *name, char *ret_path, size_t len) {
        _cleanup_free_ char *src = strdup_printf("%s/status/%s", FIXTURES, name);
        _cleanup_free_ char *text = NULL;
        assert_true(read_full_file(src, 64 * 1024, &text) >= 0);
        snprintf(ret_path, len, "%s/%s", policy_dir, name);
        FILE *f = fopen(ret_path, "we");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(chmod(ret_path, 0644), 0);
}

static int setup_policies(void **state) {
        if (!mkdtemp(policy_dir))
                return -1;
        copy_policy("zram-file-limitedswap.conf", POLICY_ZRAM_FILE, sizeof POLICY_ZRAM_FILE);
        copy_policy("limitedswap-only.conf", POLICY_LIMITED, sizeof POLICY_LIMITED);
        return 0;
}

static int teardown_policies(void **state) {
        unlink(POLICY_ZRAM_FILE);
        unlink(POLICY_LIMITED);
        rmdir(policy_dir);
        return 0;
}

/* --- check ---------------------------------------------------------------------------------- */

static void test_check_hybrid_limitedswap_is_an_error(void **state) {
        const char *policies[] = { POLICY_ZRAM_FILE, POLICY_LIMITED };
        for (size_t i = 0; i < ELEMENTSOF(policies); i++) {
                CliContext c = { .root = FIXTURES "/vps-cgroupv1", .config = policies[i], .json = true };
                int ex;
                json_object *o = run_json(verb_check, &c, &ex);
                assert_int_equal(ex, EXIT_FAIL);
                assert_true(has_finding(o, "cgroup-v1-limitedswap", "error"));
                assert_true(get_u64(o, "errors") >= 1);
                json_object_put(o);
        }
}

static void test_check_untouched_pi(void **state) {
        /* the stock Raspberry Pi OS swap under a zram + file LimitedSwap policy: warnings only */
        CliContext c = { .root = FIXTURES "/rpi-untouched", .config = POLICY_ZRAM_FILE, .json = true };
        int ex;
        json_object *o = run_json(verb_check, &c, &ex);
        assert_int_equal(ex, EXIT_OK);
        assert_int_equal(get_u64(o, "errors"), 0);
        assert_true(has_finding(o, "conflict-unit-unmasked", "warning"));
        /* 2 GiB of 16 today, but the swap is judged as the plan leaves it (8 GiB zram and a file):
         * the same verdict as plan's */
        assert_false(has_finding(o, "limitedswap-little-swap", "warning"));
        assert_true(has_finding(o, "psi-off", "warning"));
        assert_false(has_finding(o, "cgroup-v1-limitedswap", "error"));
        /* the policy's file is made with Encrypt=no while pods get swap */
        assert_true(has_finding(o, "swap-unencrypted", "warning"));
        assert_int_equal(get_u64(o, "warnings"), 3);
        json_object_put(o);
}

static void test_check_matching_node(void **state) {
        /* the node nodeswap made: nothing to say, but about the checkout's swap file: git keeps no
         * mode (a warning: the file is active, and apply does not swap it off for its mode). The
         * file system under the checkout may store its zeros sparsely: no finding either, as the
         * file is active (the kernel took it, so the holes are the checkout's, not the node's) */
        struct stat st;
        assert_int_equal(lstat(FIXTURES "/matching/var/lib/nodeswap/swapfile", &st), 0);
        bool loose = (st.st_mode & 077) || st.st_uid != 0;

        CliContext c = { .root = FIXTURES "/matching", .config = POLICY_ZRAM_FILE, .json = true };
        int ex;
        json_object *o = run_json(verb_check, &c, &ex);
        /* and its file is plain (the policy says Encrypt=no) while pods get swap */
        assert_int_equal(json_object_array_length(get(o, "findings")), loose + 1);
        assert_int_equal(has_finding(o, "swapfile-permissions-active", "warning"), loose);
        assert_true(has_finding(o, "swap-unencrypted", "warning"));
        assert_false(has_finding(o, "swapfile-holes", "warning"));
        assert_int_equal(ex, EXIT_OK);
        json_object_put(o);
}

static void test_check_stale_page_size(void **state) {
        CliContext c = { .root = FIXTURES "/stale-file", .config = POLICY_ZRAM_FILE, .json = true };
        int ex;
        json_object *o = run_json(verb_check, &c, &ex);
        /* apply rewrites the header (file-mkswap): a warning, and plan agrees; the file is off, so
         * a checkout's loose mode (git keeps none) is an error apply refuses, as plan does */
        struct stat st;
        assert_int_equal(lstat(FIXTURES "/stale-file/var/lib/nodeswap/swapfile", &st), 0);
        bool loose = (st.st_mode & 077) || st.st_uid != 0;
        assert_int_equal(ex, loose ? EXIT_FAIL : EXIT_OK);
        assert_int_equal(has_finding(o, "swapfile-permissions", "error"), loose);
        assert_true(has_finding(o, "swapfile-pagesize", "warning"));
        json_object_put(o);
}

static void test_check_text(void **state) {
        CliContext c = { .root = FIXTURES "/vps-cgroupv1", .config = POLICY_LIMITED };
        _cleanup_free_ char *out = NULL;
        assert_int_equal(run(verb_check, &c, &out), EXIT_FAIL);
        assert_non_null(strstr(out, "error   cgroup-v1-limitedswap: LimitedSwap needs cgroup v2"));
        assert_non_null(strstr(out, "        hint: "));
        assert_non_null(strstr(out, "1 error, "));
}

/* --- status --------------------------------------------------------------------------------- */

static void test_status_matching_json(void **state) {
        CliContext c = { .root = FIXTURES "/matching", .config = POLICY_ZRAM_FILE, .json = true };
        int ex;
        json_object *o = run_json(verb_status, &c, &ex);
        assert_int_equal(ex, EXIT_OK);

        json_object *swaps = get(o, "swaps");
        assert_int_equal(json_object_array_length(swaps), 2);
        json_object *z = json_object_array_get_idx(swaps, 0);
        assert_string_equal(get_str(z, "path"), "/dev/zram1");
        assert_string_equal(get_str(z, "kind"), "zram");
        assert_string_equal(get_str(z, "owner"), "nodeswap");
        assert_int_equal(get_u64(z, "priority"), 100);
        json_object *zo = get(z, "zram");
        assert_string_equal(get_str(zo, "algorithm"), "lz4");
        assert_int_equal(get_u64(zo, "orig_data_size"), 4096);
        assert_int_equal(get_u64(zo, "compr_data_size"), 74);
        assert_int_equal(get_u64(zo, "mem_used_total"), 65536);
        assert_true(json_object_get_double(get(zo, "ratio")) > 55.3);
        assert_int_equal(get_u64(o, "zram_mem_used"), 65536);

        json_object *f = json_object_array_get_idx(swaps, 1);
        assert_string_equal(get_str(f, "kind"), "file");
        assert_string_equal(get_str(f, "storage"), "nvme");
        assert_false(json_object_object_get_ex(f, "zram", NULL));

        assert_int_equal(get_u64(o, "swappiness"), 60);
        assert_int_equal(get_u64(o, "page_cluster"), 0);
        json_object *k = get(o, "kubelet");
        assert_string_equal(get_str(k, "unit"), "k3s-agent.service");
        assert_string_equal(get_str(k, "swap_behavior"), "LimitedSwap");
        assert_true(json_object_get_boolean(get(k, "dropin_present")));
        assert_null(get(k, "active"));  /* no systemd asked under a fixture root */
        assert_null(get(k, "swap_stale"));

        json_object *units = get(o, "units");
        assert_int_equal(json_object_array_length(units), 8);
        for (size_t i = 0; i < 8; i++)
                assert_true(json_object_get_boolean(get(json_object_array_get_idx(units, i), "masked")));
        assert_string_equal(get_str(o, "cgroup"), "v2");
        assert_true(json_object_get_boolean(get(o, "psi")));
        assert_false(json_object_get_boolean(get(o, "reverted")));
        assert_false(json_object_object_get_ex(o, "pods", NULL));
        json_object *files = get(o, "policy_files");
        assert_int_equal(json_object_array_length(files), 1);
        assert_string_equal(json_object_get_string(json_object_array_get_idx(files, 0)), POLICY_ZRAM_FILE);
        json_object_put(o);
}

static void test_status_text(void **state) {
        CliContext c = { .root = FIXTURES "/rpi-untouched", .config = POLICY_ZRAM_FILE };
        _cleanup_free_ char *out = NULL;
        assert_int_equal(run(verb_status, &c, &out), EXIT_OK);
        print_message("%s", out);
        assert_non_null(strstr(out, "/dev/zram0"));
        assert_non_null(strstr(out, "owner distro (conflict)"));
        assert_non_null(strstr(out, "algorithm zstd"));
        assert_non_null(strstr(out, "no pod's memory limit accounts for it"));
        assert_non_null(strstr(out, "vm.page-cluster 0"));
        assert_non_null(strstr(out, "(absent)"));
        assert_non_null(strstr(out, "dev-zram0.swap"));
        assert_non_null(strstr(out, "not masked"));
        assert_non_null(strstr(out, "Reverted: no"));
        assert_non_null(strstr(out, "Policy:   /tmp/"));
}

static void test_status_reverted(void **state) {
        CliContext c = { .root = FIXTURES "/stale-file", .json = true };
        int ex;
        json_object *o = run_json(verb_status, &c, &ex);
        assert_int_equal(ex, EXIT_OK);
        assert_true(json_object_get_boolean(get(o, "reverted")));
        assert_string_equal(get_str(get(o, "kubelet"), "swap_behavior"), "NoSwap");
        assert_int_equal(json_object_array_length(get(o, "swaps")), 0);
        assert_int_equal(json_object_array_length(get(o, "policy_files")), 0);    /* none in the tree */
        json_object_put(o);
}

static void test_status_pods(void **state) {
        CliContext c = { .root = FIXTURES "/pods/systemd", .config = POLICY_LIMITED, .json = true, .pods = true };
        int ex;
        json_object *o = run_json(verb_status, &c, &ex);
        assert_int_equal(ex, EXIT_OK);
        json_object *pods = get(o, "pods");
        assert_int_equal(json_object_array_length(pods), 4);
        json_object *b = json_object_array_get_idx(pods, 1);
        assert_string_equal(get_str(b, "qos"), "burstable");
        assert_int_equal(get_u64(b, "swap_max"), 271179776);
        assert_int_equal(get_u64(b, "swap_current"), 52428800);
        assert_string_equal(get_str(json_object_array_get_idx(pods, 0), "memory_max"), "max");
        json_object_put(o);

        c.json = false;
        _cleanup_free_ char *out = NULL;
        assert_int_equal(run(verb_status, &c, &out), EXIT_OK);
        assert_non_null(strstr(out, "SWAP.MAX"));
        assert_non_null(strstr(out, "cri-containerd-aaaa1111.scope"));

        /* no kubelet here: an empty table */
        CliContext none = { .root = FIXTURES "/matching", .config = POLICY_ZRAM_FILE, .json = true, .pods = true };
        o = run_json(verb_status, &none, &ex);
        assert_int_equal(json_object_array_length(get(o, "pods")), 0);
        json_object_put(o);
}

/* --- allowance ------------------------------------------------------------------------------ */

static void test_allowance_limitedswap(void **state) {
        /* matching: LimitedSwap drop-in, cgroup v2, MemTotal 16608080 kB, SwapTotal 8388640 kB */
        CliContext c = { .root = FIXTURES "/matching", .config = POLICY_ZRAM_FILE, .json = true,
                         .request = "256Mi", .limit = "1Gi", .qos = "burstable" };
        int ex;
        json_object *o = run_json(verb_allowance, &c, &ex);
        assert_int_equal(ex, EXIT_OK);
        uint64_t mem = UINT64_C(16608080) * KiB, swap = UINT64_C(8388640) * KiB;
        assert_int_equal(get_u64(o, "mem_total"), mem);
        assert_int_equal(get_u64(o, "swap_total"), swap);
        assert_int_equal(get_u64(o, "request"), 256 * MiB);
        assert_int_equal(get_u64(o, "limit"), 1 * GiB);
        assert_int_equal(get_u64(o, "swap"), (uint64_t) ((unsigned __int128) 256 * MiB * swap / mem));
        assert_null(get(o, "reason"));
        assert_string_equal(get_str(o, "qos"), "burstable");
        assert_string_equal(get_str(o, "swap_behavior"), "LimitedSwap");
        json_object_put(o);

        c.json = false;
        _cleanup_free_ char *out = NULL;
        assert_int_equal(run(verb_allowance, &c, &out), EXIT_OK);
        print_message("%s", out);
        assert_non_null(strstr(out, "Swap: 129.3 MiB"));
        assert_non_null(strstr(out, "256.0 MiB request / 15.8 GiB MemTotal"));
        assert_non_null(strstr(out, "zram"));
}

static void test_allowance_none(void **state) {
        static const struct {
                const char *root, *request, *limit, *qos;
                bool critical;
                const char *reason;     /* a piece of it */
                bool static_pod;
                const char *priority;
        } cases[] = {
                { "/matching", "512Mi", "512Mi", NULL, false, "request equals the limit", false, NULL },
                { "/matching", NULL, "512Mi", NULL, false, "limit without a request", false, NULL },
                { "/matching", NULL, NULL, "besteffort", false, "BestEffort", false, NULL },
                /* a container without memory in a Burstable pod: not called BestEffort */
                { "/matching", NULL, NULL, "burstable", false, "neither a memory request nor a memory limit",
                  false, NULL },
                { "/matching", "256Mi", NULL, "guaranteed", false, "Guaranteed", false, NULL },
                { "/matching", "256Mi", NULL, NULL, true, "critical", false, NULL },
                { "/matching", "256Mi", "1Gi", NULL, false, "static pods", true, NULL },
                { "/matching", "256Mi", "1Gi", NULL, false, "priority is at least", false, "2000000000" },
                { "/stale-file", "256Mi", NULL, NULL, false, "NoSwap", false, NULL },
                { "/rpi-untouched", "256Mi", NULL, NULL, false, "default NoSwap", false, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                _cleanup_free_ char *root = strdup_printf("%s%s", FIXTURES, cases[i].root);
                CliContext c = { .root = root, .config = POLICY_ZRAM_FILE, .json = true,
                                 .request = cases[i].request, .limit = cases[i].limit,
                                 .qos = cases[i].qos, .critical = cases[i].critical,
                                 .static_pod = cases[i].static_pod, .priority = cases[i].priority };
                int ex;
                print_message("case %zu\n", i);
                json_object *o = run_json(verb_allowance, &c, &ex);
                assert_int_equal(ex, EXIT_OK);
                assert_int_equal(get_u64(o, "swap"), 0);
                assert_non_null(strstr(get_str(o, "reason"), cases[i].reason));
                if (!cases[i].request)
                        assert_null(get(o, "request"));
                json_object_put(o);
        }
}

static void test_allowance_before_apply(void **state) {
        /* the stock Pi has no drop-in yet: none now, and what the policy's LimitedSwap would give */
        CliContext c = { .root = FIXTURES "/rpi-untouched", .config = POLICY_ZRAM_FILE, .request = "1Gi" };
        _cleanup_free_ char *out = NULL;
        assert_int_equal(run(verb_allowance, &c, &out), EXIT_OK);
        print_message("%s", out);
        assert_non_null(strstr(out, "Swap: 0\n  because the kubelet has no swapBehavior"));
        /* 1 GiB × 2 GiB / 16608080 kB */
        assert_non_null(strstr(out, "swapBehavior LimitedSwap (nodeswap apply writes it); with it and today's swap: 129.3 MiB."));
}

static void test_allowance_bad_usage(void **state) {
        static const struct {
                const char *request, *limit, *qos;
        } cases[] = {
                { "lots", NULL, NULL },
                { "256Mi", "-1", NULL },
                { "1Gi", "512Mi", NULL },
                { "256Mi", NULL, "platinum" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                CliContext c = { .root = FIXTURES "/matching", .config = POLICY_ZRAM_FILE,
                                 .request = cases[i].request, .limit = cases[i].limit, .qos = cases[i].qos };
                _cleanup_free_ char *out = NULL;
                assert_int_equal(run(verb_allowance, &c, &out), EXIT_USAGE);
                assert_string_equal(out, "");
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_check_hybrid_limitedswap_is_an_error),
                cmocka_unit_test(test_check_untouched_pi),
                cmocka_unit_test(test_check_matching_node),
                cmocka_unit_test(test_check_stale_page_size),
                cmocka_unit_test(test_check_text),
                cmocka_unit_test(test_status_matching_json),
                cmocka_unit_test(test_status_text),
                cmocka_unit_test(test_status_reverted),
                cmocka_unit_test(test_status_pods),
                cmocka_unit_test(test_allowance_limitedswap),
                cmocka_unit_test(test_allowance_none),
                cmocka_unit_test(test_allowance_before_apply),
                cmocka_unit_test(test_allowance_bad_usage),
        };
        return cmocka_run_group_tests(tests, setup_policies, teardown_policies);
}
