/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kubelet-config.c: one file parsed (a table of YAML texts), the files of the fixture trees read
 * the way the kubelet reads them, and the merge with nodeswap's drop-in put in or taken out. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "plan/kubelet.h"

/* the table below leaves trailing fields zero */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define HDR "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
#define K3S_DIR "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d"

typedef struct ParseCase {
        const char *name;
        const char *text;
        bool invalid;
        unsigned invalid_line;
        KubeletField sb;                /* swapBehavior */
        const char *sb_value;
        unsigned sb_line;
        KubeletField fso;               /* failSwapOn */
        bool fso_value;
        unsigned fso_line;
} ParseCase;

static const ParseCase parse_cases[] = {
        { "block style", HDR "failSwapOn: false\nmemorySwap:\n  swapBehavior: LimitedSwap\n",
          false, 0, KUBELET_FIELD_SET, "LimitedSwap", 5, KUBELET_FIELD_SET, false, 3 },
        { "flow style", HDR "memorySwap: {swapBehavior: LimitedSwap}\n",
          false, 0, KUBELET_FIELD_SET, "LimitedSwap", 3 },
        { "JSON", "{\"apiVersion\": \"kubelet.config.k8s.io/v1beta1\", \"kind\": \"KubeletConfiguration\",\n"
                  " \"failSwapOn\": false, \"memorySwap\": {\"swapBehavior\": \"NoSwap\"}}",
          false, 0, KUBELET_FIELD_SET, "NoSwap", 2, KUBELET_FIELD_SET, false, 2 },
        { "quoted keys and values, comments", "# by hand\n'apiVersion': \"kubelet.config.k8s.io/v1beta1\"\n"
                  "\"kind\": 'KubeletConfiguration' # required\nmemorySwap:\n  # swapBehavior: NoSwap\n"
                  "  \"swapBehavior\": \"LimitedSwap\"  # comment\n",
          false, 0, KUBELET_FIELD_SET, "LimitedSwap", 6 },
        { "a commented-out key", HDR "# memorySwap: {swapBehavior: LimitedSwap}\n", false, 0, KUBELET_FIELD_ABSENT },
        { "an empty value", HDR "memorySwap:\n  swapBehavior: ''\n", false, 0, KUBELET_FIELD_SET, "", 4 },
        { "null clears", HDR "memorySwap:\n  swapBehavior: null\n", false, 0, KUBELET_FIELD_CLEARED, NULL, 4 },
        { "no value clears", HDR "memorySwap:\n  swapBehavior:\n", false, 0, KUBELET_FIELD_CLEARED, NULL, 4 },
        { "memorySwap: null clears", HDR "memorySwap: ~\n", false, 0, KUBELET_FIELD_CLEARED, NULL, 3 },
        { "memorySwap: {} keeps", HDR "memorySwap: {}\n", false, 0, KUBELET_FIELD_ABSENT },
        { "CRLF line ends", "apiVersion: kubelet.config.k8s.io/v1beta1\r\nkind: KubeletConfiguration\r\n"
                            "memorySwap:\r\n  swapBehavior: LimitedSwap\r\n",
          false, 0, KUBELET_FIELD_SET, "LimitedSwap", 4 },
        { "the last of two wins", HDR "memorySwap:\n  swapBehavior: LimitedSwap\n  swapBehavior: NoSwap\n",
          false, 0, KUBELET_FIELD_SET, "NoSwap", 5 },
        { "a nested swapBehavior elsewhere", HDR "other:\n  swapBehavior: LimitedSwap\n", false, 0, KUBELET_FIELD_ABSENT },
        { "a key that only ends in swapBehavior", HDR "memorySwap:\n  noswapBehavior: LimitedSwap\n",
          false, 0, KUBELET_FIELD_ABSENT },
        { "only the first document counts", "---\n" HDR "memorySwap: {swapBehavior: NoSwap}\n---\n"
                                            "memorySwap: {swapBehavior: LimitedSwap}\n",
          false, 0, KUBELET_FIELD_SET, "NoSwap", 4 },
        { "an anchor and alias", HDR "x: &ms {swapBehavior: LimitedSwap}\nmemorySwap: *ms\n",
          false, 0, KUBELET_FIELD_SET, "LimitedSwap", 3 },
        { "an unknown value is kept", HDR "memorySwap: {swapBehavior: UnlimitedSwap}\n",
          false, 0, KUBELET_FIELD_SET, "UnlimitedSwap", 3 },
        { "failSwapOn: yes (YAML 1.1)", HDR "failSwapOn: yes\n", false, 0, KUBELET_FIELD_ABSENT, NULL, 0,
          KUBELET_FIELD_SET, true, 3 },
        { "failSwapOn: null", HDR "failSwapOn: null\n", false, 0, KUBELET_FIELD_ABSENT, NULL, 0,
          KUBELET_FIELD_CLEARED, false, 3 },
        { "failSwapOn quoted is a string", HDR "failSwapOn: \"false\"\n", true, 3 },
        { "swapBehavior a list", HDR "memorySwap:\n  swapBehavior: [LimitedSwap]\n", true, 4 },
        { "memorySwap a string", HDR "memorySwap: LimitedSwap\n", true, 3 },
        { "no kind", "apiVersion: kubelet.config.k8s.io/v1beta1\nmemorySwap: {swapBehavior: LimitedSwap}\n",
          true, 0, KUBELET_FIELD_SET, "LimitedSwap", 2 },
        { "no apiVersion", "kind: KubeletConfiguration\n", true, 0 },
        { "a nested kind only", "apiVersion: v1\nfoo:\n  kind: KubeletConfiguration\n", true, 1 },
        { "another kind", "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: Pod\n", true, 2 },
        { "empty", "", true, 0 },
        { "only comments", "# nothing\n", true, 0 },
        { "a list", "- a\n- b\n", true, 1 },
        { "not YAML", HDR "memorySwap: {swapBehavior: LimitedSwap\nmaxPods: 50\n", true, 4 },
        { "a tab indent", HDR "memorySwap:\n\tswapBehavior: LimitedSwap\n", true, 4 },
};

/* Deep nesting is refused quickly (libyaml is quadratic in it), shallow nesting parses. */
static void test_deep_nesting(void **state) {
        size_t n = 100000;
        _cleanup_free_ char *text = malloc(strlen(HDR) + 2 * n + 8);
        assert_non_null(text);
        char *p = stpcpy(stpcpy(text, HDR), "x: ");
        memset(p, '[', n);
        memset(p + n, ']', n);
        p[2 * n] = 0;
        KubeletConfigFile f;
        assert_int_equal(kubelet_config_parse("/x.conf", text, strlen(text), &f), 0);
        assert_true(f.invalid);
        assert_string_equal(f.invalid_reason, "nested more than 1000 levels deep");
        kubelet_config_file_done(&f);

        /* 1000 levels, and brackets in quotes and comments, do not count */
        p = stpcpy(stpcpy(text, HDR), "y: '[[[[' # {{{{\nx: ");
        memset(p, '[', 1000);
        memset(p + 1000, ']', 1000);
        p[2000] = 0;
        assert_int_equal(kubelet_config_parse("/x.conf", text, strlen(text), &f), 0);
        assert_false(f.invalid);
        kubelet_config_file_done(&f);
}

static void test_parse(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(parse_cases); i++) {
                const ParseCase *c = &parse_cases[i];
                KubeletConfigFile f;
                print_message("case: %s\n", c->name);
                assert_int_equal(kubelet_config_parse("/x.conf", c->text, strlen(c->text), &f), 0);
                if (f.invalid)
                        print_message("  invalid at %u: %s\n", f.invalid_line, f.invalid_reason);
                assert_string_equal(f.path, "/x.conf");
                assert_int_equal(f.invalid, c->invalid);
                if (c->invalid) {
                        assert_non_null(f.invalid_reason);
                        assert_int_equal(f.invalid_line, c->invalid_line);
                } else
                        assert_null(f.invalid_reason);
                if (!c->invalid || c->sb != KUBELET_FIELD_ABSENT) {
                        assert_int_equal(f.swap_behavior_field, c->sb);
                        if (c->sb_value)
                                assert_string_equal(f.swap_behavior_value, c->sb_value);
                        else
                                assert_null(f.swap_behavior_value);
                        if (c->sb != KUBELET_FIELD_ABSENT)
                                assert_int_equal(f.swap_behavior_line, c->sb_line);
                }
                if (!c->invalid) {
                        assert_int_equal(f.fail_swap_on_field, c->fso);
                        if (c->fso == KUBELET_FIELD_SET)
                                assert_int_equal(f.fail_swap_on, c->fso_value);
                        if (c->fso != KUBELET_FIELD_ABSENT)
                                assert_int_equal(f.fail_swap_on_line, c->fso_line);
                }
                kubelet_config_file_done(&f);
        }
}

/* What nodeswap writes parses as what it means. */
static void test_rendered_dropin(void **state) {
        for (SwapBehavior b = SWAP_BEHAVIOR_NO_SWAP; b <= SWAP_BEHAVIOR_LIMITED_SWAP; b++) {
                _cleanup_free_ char *text = kubelet_render_dropin(b, NULL);
                KubeletConfigFile f;
                assert_int_equal(kubelet_config_parse(K3S_DIR "/90-nodeswap.conf", text, strlen(text), &f), 0);
                assert_false(f.invalid);
                assert_int_equal(f.swap_behavior_field, KUBELET_FIELD_SET);
                assert_string_equal(f.swap_behavior_value, swap_behavior_to_string(b));
                assert_int_equal(f.swap_behavior_line, 6);
                assert_int_equal(f.fail_swap_on_field, KUBELET_FIELD_SET);
                assert_false(f.fail_swap_on);
                kubelet_config_file_done(&f);
        }
}

static char *overlay(const char *name) {
        return strdup_printf("%s/kubelet/%s", FIXTURE_DIR, name);
}

static void test_read_k3s_hand_swap(void **state) {
        _cleanup_free_ char *root = overlay("hand-swap");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_null(c.config_file);
        assert_string_equal(c.config_dir, K3S_DIR);
        /* k3s's defaults, then 90-swap.conf; 90-swap.conf.bak is not read */
        assert_int_equal(c.n_files, 2);
        assert_string_equal(c.files[0].path, K3S_DIR "/00-k3s-defaults.conf");
        assert_string_equal(c.files[1].path, K3S_DIR "/90-swap.conf");

        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_LIMITED_SWAP);
        assert_ptr_equal(e.swap_behavior_from, &c.files[1]);
        assert_false(e.fail_swap_on);
        assert_ptr_equal(e.fail_swap_on_from, &c.files[0]);
        assert_null(e.first_invalid);

        /* nodeswap's NoSwap drop-in would sort before 90-swap.conf: LimitedSwap still wins */
        KubeletConfigFile ours;
        assert_int_equal(kubelet_effective_with_dropin(&c, K3S_DIR "/90-nodeswap.conf", SWAP_BEHAVIOR_NO_SWAP, NULL,
                                                       &ours, &e), 0);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_LIMITED_SWAP);
        assert_ptr_equal(e.swap_behavior_from, &c.files[1]);
        assert_ptr_equal(e.fail_swap_on_from, &ours);
        kubelet_config_file_done(&ours);

        /* ... and a 95-nodeswap.conf after it wins */
        assert_int_equal(kubelet_effective_with_dropin(&c, K3S_DIR "/95-nodeswap.conf", SWAP_BEHAVIOR_NO_SWAP, NULL,
                                                       &ours, &e), 0);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_NO_SWAP);
        assert_ptr_equal(e.swap_behavior_from, &ours);
        kubelet_config_file_done(&ours);
        kubelet_config_done(&c);
}

static void test_read_site_override(void **state) {
        _cleanup_free_ char *root = overlay("site-override");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        /* the overlay alone: no 90-nodeswap.conf (the base tree has it) */
        assert_int_equal(c.n_files, 2);
        assert_string_equal(c.files[0].path, K3S_DIR "/50-early.conf");
        assert_string_equal(c.files[1].path, K3S_DIR "/95-site.conf");
        assert_string_equal(c.files[1].swap_behavior_value, "NoSwap");
        assert_int_equal(c.files[1].swap_behavior_line, 6);

        /* revert: with nodeswap's drop-in gone, 95-site.conf decides */
        KubeletConfigFile ours;
        KubeletEffective e;
        assert_int_equal(kubelet_effective_with_dropin(&c, K3S_DIR "/90-nodeswap.conf", SWAP_BEHAVIOR_UNSET, NULL,
                                                       &ours, &e), 0);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_NO_SWAP);
        assert_ptr_equal(e.swap_behavior_from, &c.files[1]);
        kubelet_config_file_done(&ours);
        kubelet_config_done(&c);
}

static void test_read_kubeadm(void **state) {
        _cleanup_free_ char *root = overlay("kubeadm");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "kubelet.service", "/etc/kubelet.d/90-nodeswap.conf", &c), 0);
        assert_string_equal(c.config_file, "/var/lib/kubelet/config.yaml");
        /* kubeadm-flags.env's --config-dir, not DropIn='s directory */
        assert_string_equal(c.config_dir, "/etc/kubernetes/kubelet.conf.d");
        assert_string_equal(c.config_dir_source, "--config-dir=/etc/kubernetes/kubelet.conf.d "
                                                 "(KUBELET_KUBEADM_ARGS in /var/lib/kubelet/kubeadm-flags.env:1)");
        assert_int_equal(c.n_files, 3);
        assert_string_equal(c.files[0].path, "/var/lib/kubelet/config.yaml");
        assert_string_equal(c.files[1].path, "/etc/kubernetes/kubelet.conf.d/10-swap.conf");
        assert_string_equal(c.files[2].path, "/etc/kubernetes/kubelet.conf.d/sub/20-fail.conf");
        assert_false(kubelet_config_reads(&c, "/etc/kubelet.d/90-nodeswap.conf"));
        assert_true(kubelet_config_reads(&c, "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf"));
        assert_false(kubelet_config_reads(&c, "/etc/kubernetes/kubelet.conf.d.conf"));

        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_LIMITED_SWAP);
        assert_ptr_equal(e.swap_behavior_from, &c.files[1]);
        assert_true(e.fail_swap_on);
        assert_ptr_equal(e.fail_swap_on_from, &c.files[2]);

        /* 90-nodeswap.conf sorts before sub/ (walked where "sub" sorts) */
        KubeletConfigFile ours;
        assert_int_equal(kubelet_effective_with_dropin(&c, "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf",
                                                       SWAP_BEHAVIOR_NO_SWAP, NULL, &ours, &e), 0);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_NO_SWAP);
        assert_ptr_equal(e.swap_behavior_from, &ours);
        assert_ptr_equal(e.fail_swap_on_from, &c.files[2]);
        kubelet_config_file_done(&ours);
        kubelet_config_done(&c);

        /* without the flags file: DropIn='s directory; kubeadm's config.yaml is there */
        _cleanup_free_ char *base = strdup_printf("%s/vps-cgroupv1", FIXTURE_DIR);
        assert_int_equal(kubelet_config_read(base, "kubelet.service", "/etc/kubelet.d/90-nodeswap.conf", &c), 0);
        assert_string_equal(c.config_dir, "/etc/kubelet.d");
        assert_string_equal(c.config_dir_source, "the directory of [Kubelet] DropIn=");
        assert_int_equal(c.n_files, 1);
        assert_false(c.config_file_missing);
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_true(kubelet_config_starts(&c, &e));
        kubelet_config_done(&c);
}

/* memory.available as the eviction manager parses it (pkg/kubelet/eviction/helpers.go
 * parseThresholdStatement(), the same in v1.31.0 and v1.36.3). The real kubelets load and log every
 * value below, the refused ones too (tests/k8s/kubelet-differential.py's harness, which stops at
 * that log line): ParseThresholdConfig() refuses them later in run(), once the container runtime
 * answered, where the harness cannot follow. A percentage is of the node's capacity, MemTotal:
 * int64(float64(capacity) * float64(float32(5) / 100)). */
static void test_threshold_parse(void **state) {
        const uint64_t mem = 4015024ULL * 1024;         /* vps-cgroupv1's MemTotal */
        uint64_t b = 1;
        const char *why = "x";
        assert_int_equal(kubelet_threshold_parse("100Mi", mem, &b, &why), 1);
        assert_int_equal(b, 100ULL << 20);
        assert_null(why);
        assert_int_equal(kubelet_threshold_parse("500M", mem, &b, &why), 1);
        assert_int_equal(b, 500000000);
        /* float32(5) / 100 = 0.0500000007: 4111384576 * it = 205569231.8 */
        assert_int_equal(kubelet_threshold_parse("5%", mem, &b, &why), 1);
        assert_int_equal(b, 205569231);
        assert_int_equal(kubelet_threshold_parse("7.5%", mem, &b, &why), 1);
        assert_int_equal(b, 308353855);        /* float32 0.075000003 */
        assert_int_equal(kubelet_threshold_parse("5%%", mem, &b, &why), 1);   /* TrimRight: every '%' */
        assert_int_equal(b, 205569231);
        assert_int_equal(kubelet_threshold_parse("0.0%", mem, &b, &why), 1);  /* only "0%" is ignored */
        assert_int_equal(b, 0);
        /* no threshold */
        assert_int_equal(kubelet_threshold_parse("0%", mem, &b, &why), 0);
        assert_int_equal(kubelet_threshold_parse("100%", mem, &b, &why), 0);
        /* refused: the kubelet does not start */
        assert_int_equal(kubelet_threshold_parse("101%", mem, &b, &why), -EINVAL);
        assert_string_equal(why, "a percentage above 100%");
        assert_int_equal(kubelet_threshold_parse("-5%", mem, &b, &why), -EINVAL);
        assert_string_equal(why, "a percentage below 0%");
        assert_int_equal(kubelet_threshold_parse("five%", mem, &b, &why), -EINVAL);
        assert_int_equal(kubelet_threshold_parse(" 5%", mem, &b, &why), -EINVAL);
        assert_int_equal(kubelet_threshold_parse("%", mem, &b, &why), -EINVAL);
        assert_int_equal(kubelet_threshold_parse("0", mem, &b, &why), -EINVAL);
        assert_string_equal(why, "zero, which must be positive");
        assert_int_equal(kubelet_threshold_parse("0Mi", mem, &b, &why), -EINVAL);
        assert_int_equal(kubelet_threshold_parse("-100Mi", mem, &b, &why), -EINVAL);
        assert_int_equal(kubelet_threshold_parse("abc", mem, &b, &why), -EINVAL);
        assert_string_equal(why, "not a quantity (such as 100Mi) or a percentage");
}

/* kubeadm's --config file missing (a node before kubeadm init or join): the real kubelets v1.31.0
 * and v1.36.3 stop in loadConfigFile() ("failed to load kubelet config file, path:
 * /var/lib/kubelet/config.yaml, ... no such file or directory"), whatever the drop-ins say. */
static void test_read_kubeadm_no_config(void **state) {
        _cleanup_free_ char *root = overlay("kubeadm-no-config");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "kubelet.service", "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf",
                                             &c), 0);
        assert_string_equal(c.config_file, "/var/lib/kubelet/config.yaml");
        assert_true(c.config_file_missing);
        assert_int_equal(c.n_files, 1);
        assert_string_equal(c.files[0].path, "/etc/kubernetes/kubelet.conf.d/10-swap.conf");
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_null(e.first_invalid);
        assert_false(kubelet_config_starts(&c, &e));
        /* nodeswap's drop-in does not make it start */
        KubeletConfigFile ours;
        assert_int_equal(kubelet_effective_with_dropin(&c, "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf",
                                                       SWAP_BEHAVIOR_LIMITED_SWAP, NULL, &ours, &e), 0);
        assert_false(kubelet_config_starts(&c, &e));
        kubelet_config_file_done(&ours);
        kubelet_config_done(&c);

        /* k3s reads no default --config file: the same tree's kubelet starts */
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf",
                                             &c), 0);
        assert_false(c.config_file_missing);
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_true(kubelet_config_starts(&c, &e));
        kubelet_config_done(&c);
}

/* A null in a drop-in over a --config file, on a kubelet of unknown version: the 1.32+ rule
 * (mergeKubeletConfigurations converts the base to v1beta1, merges, then runs
 * SetDefaults_KubeletConfiguration): the null deletes the key and the v1beta1 default comes back,
 * failSwapOn true and swapBehavior "" (NoSwap), not config.yaml's values. Checked against the
 * real kubelet v1.36.3 (tests/k8s/kubelet-differential.py). */
static void test_read_kubeadm_null(void **state) {
        _cleanup_free_ char *root = overlay("kubeadm-null");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "kubelet.service", "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf",
                                             &c), 0);
        assert_int_equal(c.n_files, 3);
        assert_null(c.version.text);
        assert_int_equal(kubelet_config_rule(&c), KUBELET_MERGE_VERSIONED);
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_true(e.fail_swap_on);
        assert_ptr_equal(e.fail_swap_on_from, &c.files[2]);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_UNSET);
        assert_true(kubelet_config_starts(&c, &e));
        kubelet_config_done(&c);

        /* without a --config file (k3s) the same null brings back the built-in default too */
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf",
                                             &c), 0);
        assert_int_equal(c.n_files, 2);
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_true(e.fail_swap_on);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_UNSET);
        kubelet_config_done(&c);
}

/* The same files on a kubelet v1.31.0 (usr/bin/kubelet holds that kubelet's Go build information,
 * cut out of the binary tests/k8s/build.sh builds): the rule before 1.32, where the base is the
 * internal type marshalled with Go field names, so the null removes only 10-site.conf's camelCase
 * keys and config.yaml's values come back. 30-kind-only.conf has no apiVersion, which 1.31 takes
 * (its disk threshold merges into DefaultEvictionHard; memory.available stays) and 1.32+ refuses. */
static void test_read_kubeadm_null_131(void **state) {
        _cleanup_free_ char *root = overlay("kubeadm-null-1.31");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "kubelet.service", "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf",
                                             &c), 0);
        assert_string_equal(c.version.text, "v1.31.0");
        assert_string_equal(c.version.path, "/usr/bin/kubelet");
        assert_int_equal(c.version.major, 1);
        assert_int_equal(c.version.minor, 31);
        assert_int_equal(kubelet_config_rule(&c), KUBELET_MERGE_LEGACY);
        assert_int_equal(c.n_files, 4);
        assert_false(c.files[3].invalid);
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_false(e.fail_swap_on);
        assert_ptr_equal(e.fail_swap_on_from, &c.files[0]);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_LIMITED_SWAP);
        assert_ptr_equal(e.swap_behavior_from, &c.files[0]);
        assert_string_equal(e.memory_available, "100Mi");
        assert_true(e.memory_available_default);
        assert_true(kubelet_config_starts(&c, &e));
        kubelet_config_done(&c);

        /* the kubelet's version file alone makes the difference: without it, the 1.32+ rule */
        KubeletVersion v = {};
        assert_int_equal(kubelet_version_of_file(root, "/usr/lib/systemd/system/kubelet.service", &v), 0);
        assert_null(v.text);    /* no ELF */
        assert_int_equal(kubelet_version_of_file(root, "/nonexistent", &v), 0);
        assert_null(v.text);
}

static void assert_flag(const KubeletFlag *f, const char *name, const char *value, const char *file, unsigned line) {
        assert_non_null(f);
        assert_string_equal(f->name, name);
        assert_string_equal(f->value, value);
        assert_string_equal(f->file, file);
        assert_int_equal(f->line, line);
}

/* k3s: config.yaml's kubelet-arg list, replaced by config.yaml.d/50-site.yaml (no "+"), appended to
 * by 60-grace.yml ("kubelet-arg+"), 70-ignored.yaml.bak not read (k3s-io/k3s pkg/configfilearg);
 * then --kubelet-arg on the unit's ExecStart= (quoted words, "\" continuations), last: it wins. */
static void test_flags_k3s(void **state) {
        _cleanup_free_ char *root = overlay("k3s-flags");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_int_equal(c.flags.n, 3);
        assert_flag(&c.flags.flags[0], "eviction-soft", "memory.available<500Mi",
                    "/etc/rancher/k3s/config.yaml.d/50-site.yaml", 3);
        assert_flag(&c.flags.flags[1], "eviction-soft-grace-period", "memory.available=1m30s",
                    "/etc/rancher/k3s/config.yaml.d/60-grace.yml", 1);
        assert_flag(&c.flags.flags[2], "fail-swap-on", "true", "/etc/systemd/system/k3s-agent.service", 27);
        assert_null(kubelet_flags_last(&c.flags, "eviction-hard"));

        /* the flag wins over 00-k3s-defaults.conf's failSwapOn: false, and over nodeswap's drop-in */
        KubeletConfigFile ours;
        KubeletEffective e;
        assert_int_equal(kubelet_effective_with_dropin(&c, K3S_DIR "/90-nodeswap.conf", SWAP_BEHAVIOR_LIMITED_SWAP, NULL,
                                                       &ours, &e), 0);
        assert_true(e.fail_swap_on);
        assert_ptr_equal(e.fail_swap_on_flag, &c.flags.flags[2]);
        assert_ptr_equal(e.fail_swap_on_from, &ours);
        kubelet_config_file_done(&ours);
        kubelet_config_done(&c);
}

/* A unit drop-in clears ExecStart= and passes --kubelet-arg "config-dir=..." (a separate, quoted
 * word) for a directory that does not exist, and fail_swap_on (pflag reads '_' as '-'). k3s takes
 * config-dir out of the kubelet's flags and copies the directory into 20-cli-config-dir/ of its own
 * --config-dir (extractConfigArgs()); the copy fails, and k3s does not start the kubelet. */
static void test_flags_k3s_dropin_missing_dir(void **state) {
        _cleanup_free_ char *root = overlay("k3s-dropin-dir");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_int_equal(c.flags.n, 1);
        const char *d = "/etc/systemd/system/k3s-agent.service.d/10-kubelet.conf";
        assert_flag(&c.flags.k3s_config_dir, "config-dir", "/etc/rancher/k3s/kubelet.conf.d", d, 4);
        assert_flag(&c.flags.flags[0], "fail-swap-on", "false", d, 4);
        assert_null(kubelet_flags_last(&c.flags, "config-dir"));
        assert_string_equal(c.config_dir, K3S_DIR);
        assert_null(c.config_dir_flag);
        assert_int_equal(c.config_dir_error, 0);
        assert_true(kubelet_config_reads(&c, K3S_DIR "/90-nodeswap.conf"));
        assert_int_equal(c.n_files, 1);
        assert_string_equal(c.files[0].path, "/etc/rancher/k3s/kubelet.conf.d");
        assert_string_equal(c.files[0].order_path, K3S_DIR "/20-cli-config-dir");
        assert_true(c.files[0].invalid);
        assert_string_equal(c.files[0].copy_failed, d);
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_false(e.fail_swap_on);
        assert_ptr_equal(e.fail_swap_on_flag, &c.flags.flags[0]);
        assert_ptr_equal(e.first_invalid, &c.files[0]);
        assert_false(kubelet_config_starts(&c, &e));
        kubelet_config_done(&c);
}

/* kubelet-arg config= and config-dir= on k3s (the fixture alone, without k3s's own
 * 00-k3s-defaults.conf): the file is read as the drop-in 10-cli-config.conf
 * (replacing the copy an earlier start left), not as --config, so it brings no default
 * evictionHard; the directory's files merge as 20-cli-config-dir/, beside the files an earlier
 * start copied there, and before nodeswap's 90-nodeswap.conf. */
static void test_flags_k3s_cli_config(void **state) {
        _cleanup_free_ char *root = overlay("k3s-cli-config");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_int_equal(c.flags.n, 0);
        assert_null(c.config_file);
        assert_flag(&c.flags.k3s_config, "config", "/etc/rancher/k3s/kubelet.yaml", "/etc/rancher/k3s/config.yaml", 5);
        assert_string_equal(c.config_dir, K3S_DIR);
        assert_int_equal(c.n_files, 3);
        assert_string_equal(c.files[0].path, "/etc/rancher/k3s/kubelet.yaml");
        assert_string_equal(c.files[0].order_path, K3S_DIR "/10-cli-config.conf");
        assert_string_equal(c.files[1].path, K3S_DIR "/20-cli-config-dir/10-old.conf");
        assert_null(c.files[1].order_path);
        assert_string_equal(c.files[2].path, "/etc/rancher/k3s/kubelet.d/95-site.conf");
        assert_string_equal(c.files[2].order_path, K3S_DIR "/20-cli-config-dir/95-site.conf");

        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_true(kubelet_config_starts(&c, &e));
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_NO_SWAP);
        assert_ptr_equal(e.swap_behavior_from, &c.files[0]);
        assert_string_equal(e.memory_available, "300Mi");
        assert_false(e.memory_available_default);
        assert_ptr_equal(e.memory_available_from, &c.files[2]);
        assert_int_equal(e.max_pods, 50);

        /* nodeswap's drop-in sorts after every copy: LimitedSwap wins */
        KubeletConfigFile ours;
        assert_int_equal(kubelet_effective_with_dropin(&c, K3S_DIR "/90-nodeswap.conf", SWAP_BEHAVIOR_LIMITED_SWAP, NULL,
                                                       &ours, &e), 0);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_LIMITED_SWAP);
        assert_ptr_equal(e.swap_behavior_from, &ours);
        kubelet_config_file_done(&ours);
        kubelet_config_done(&c);
}

/* kubeadm: $KUBELET_KUBEADM_ARGS ("--config-dir DIR", two words), then $KUBELET_EXTRA_ARGS from
 * /etc/default/kubelet, its second assignment (line 4: a double-quoted part continued on the next
 * line, then a single-quoted part) replacing the first. */
static void test_flags_kubeadm(void **state) {
        _cleanup_free_ char *root = overlay("kubeadm-flags");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "kubelet.service", "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf",
                                             &c), 0);
        const char *env = "/var/lib/kubelet/kubeadm-flags.env";
        assert_int_equal(c.flags.n, 6);
        assert_flag(&c.flags.flags[1], "config-dir", "/etc/kubernetes/kubelet.conf.d", env, 1);
        assert_string_equal(c.flags.flags[1].via, "KUBELET_KUBEADM_ARGS");
        assert_flag(&c.flags.flags[3], "node-ip", "10.0.0.5", "/etc/default/kubelet", 4);
        assert_flag(&c.flags.flags[4], "fail-swap-on", "false", "/etc/default/kubelet", 4);
        assert_string_equal(c.flags.flags[4].via, "KUBELET_EXTRA_ARGS");
        assert_flag(&c.flags.flags[5], "eviction-hard", "memory.available<300Mi", "/etc/default/kubelet", 4);
        assert_int_equal(c.config_dir_error, 0);
        assert_int_equal(c.n_files, 2);

        /* --fail-swap-on=false wins over 10-site.conf's failSwapOn: true */
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_false(e.fail_swap_on);
        assert_ptr_equal(e.fail_swap_on_flag, &c.flags.flags[4]);
        assert_ptr_equal(e.fail_swap_on_from, &c.files[1]);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_LIMITED_SWAP);
        kubelet_config_done(&c);
}

static void test_read_invalid(void **state) {
        _cleanup_free_ char *root = overlay("invalid");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, NULL, K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_int_equal(c.n_files, 1);
        assert_true(c.files[0].invalid);
        assert_int_equal(c.files[0].invalid_line, 4);
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_ptr_equal(e.first_invalid, &c.files[0]);
        assert_int_equal(e.swap_behavior, SWAP_BEHAVIOR_UNSET);
        assert_null(e.swap_behavior_from);
        assert_true(e.fail_swap_on);
        kubelet_config_done(&c);
}


/* --- evictionHard memory.available (issue 25) --- */

static KubeletConfigFile kubelet_parse_as(const char *path, const char *text) {
        KubeletConfigFile f;
        assert_int_equal(kubelet_config_parse(path, text, strlen(text), &f), 0);
        return f;
}

static KubeletConfigFile parse_text(const char *text) {
        return kubelet_parse_as(K3S_DIR "/50-x.conf", text);
}

/* One file's evictionHard, memory.available and mergeDefaultEvictionSettings as the kubelet reads
 * them: block and flow maps, null (the key, or the whole map: RFC 7386 removes it), a map that is
 * no map (the kubelet's decoder refuses it). */
static void test_parse_eviction(void **state) {
        KubeletConfigFile f = parse_text(HDR "evictionHard:\n  nodefs.available: 5%\n  memory.available: 1Gi\n");
        assert_false(f.invalid);
        assert_int_equal(f.eviction_hard_field, KUBELET_FIELD_SET);
        assert_int_equal(f.eviction_hard_line, 3);
        assert_int_equal(f.memory_available_field, KUBELET_FIELD_SET);
        assert_string_equal(f.memory_available_value, "1Gi");
        assert_int_equal(f.memory_available_line, 5);
        kubelet_config_file_done(&f);

        f = parse_text(HDR "evictionHard: {\"memory.available\": \"5%\"}\nmergeDefaultEvictionSettings: true\n");
        assert_int_equal(f.memory_available_field, KUBELET_FIELD_SET);
        assert_string_equal(f.memory_available_value, "5%");
        assert_int_equal(f.merge_default_eviction_field, KUBELET_FIELD_SET);
        assert_true(f.merge_default_eviction);
        assert_int_equal(f.merge_default_eviction_line, 4);
        kubelet_config_file_done(&f);

        f = parse_text(HDR "evictionHard:\n  imagefs.available: 5%\n");
        assert_int_equal(f.eviction_hard_field, KUBELET_FIELD_SET);
        assert_int_equal(f.memory_available_field, KUBELET_FIELD_ABSENT);
        assert_null(f.memory_available_value);
        kubelet_config_file_done(&f);

        f = parse_text(HDR "evictionHard:\n  memory.available: null\n");
        assert_int_equal(f.memory_available_field, KUBELET_FIELD_CLEARED);
        kubelet_config_file_done(&f);

        f = parse_text(HDR "evictionHard: ~\n");
        assert_int_equal(f.eviction_hard_field, KUBELET_FIELD_CLEARED);
        kubelet_config_file_done(&f);

        f = parse_text(HDR "evictionHard: memory.available<100Mi\n");
        assert_true(f.invalid);
        assert_int_equal(f.invalid_line, 3);
        assert_string_equal(f.invalid_reason, "evictionHard is not a mapping");
        kubelet_config_file_done(&f);

        f = parse_text(HDR "mergeDefaultEvictionSettings: sometimes\n");
        assert_true(f.invalid);
        kubelet_config_file_done(&f);
}

/* A merge of in-memory files in the given order (the first one is a drop-in, as on k3s). */
static void effective_of(KubeletConfigFile *files, size_t n, KubeletEffective *e) {
        KubeletConfig c = { .config_dir = (char *) K3S_DIR, .files = files, .n_files = n };
        kubelet_config_effective(&c, NULL, NULL, e);
}

/* The merge on k3s (no --config file): no default evictionHard at all (loadConfigFile() alone
 * puts it in); maps merge key by key; a null removes the key; a drop-in's
 * mergeDefaultEvictionSettings does nothing; 0% is no threshold. */
static void test_merge_eviction(void **state) {
        KubeletEffective e;
        KubeletConfigFile f[2];

        /* no file sets evictionHard: no threshold, not the default */
        f[0] = parse_text(HDR "failSwapOn: false\n");
        effective_of(f, 1, &e);
        assert_null(e.memory_available);
        assert_null(e.eviction_hard_from);
        _cleanup_free_ char *src0 = kubelet_memory_eviction_source(&e);
        assert_string_equal(src0, "the kubelet without a --config file");
        kubelet_config_file_done(&f[0]);

        /* disk thresholds only (k3s): no memory threshold, and who set them */
        f[0] = parse_text(HDR "evictionHard:\n  imagefs.available: 5%\n  nodefs.available: 5%\n");
        f[1] = parse_text(HDR "evictionHard:\n  memory.available: 200Mi\n");
        effective_of(f, 1, &e);
        assert_null(e.memory_available);
        assert_ptr_equal(e.eviction_hard_from, &f[0]);
        _cleanup_free_ char *src = kubelet_memory_eviction_source(&e);
        assert_string_equal(src, K3S_DIR "/50-x.conf:3");
        /* a later file adds memory.available: the keys merge */
        effective_of(f, 2, &e);
        assert_string_equal(e.memory_available, "200Mi");
        assert_false(e.memory_available_default);
        assert_ptr_equal(e.memory_available_from, &f[1]);
        assert_int_equal(e.memory_available_line, 4);
        kubelet_config_file_done(&f[1]);

        /* memory.available: null in a later drop-in takes it back out */
        f[1] = parse_text(HDR "evictionHard:\n  memory.available: null\n");
        effective_of(f, 2, &e);
        assert_null(e.memory_available);
        kubelet_config_file_done(&f[1]);

        /* mergeDefaultEvictionSettings: true in a drop-in: the kubelet reads it in the --config file only */
        f[1] = parse_text(HDR "mergeDefaultEvictionSettings: true\n");
        effective_of(f, 2, &e);
        assert_null(e.memory_available);
        kubelet_config_file_done(&f[1]);

        /* 0%: parseThresholdStatement ignores it, no threshold */
        f[1] = parse_text(HDR "evictionHard:\n  memory.available: 0%\n");
        effective_of(f, 2, &e);
        assert_null(e.memory_available);
        kubelet_config_file_done(&f[1]);
        kubelet_config_file_done(&f[0]);
}

/* With a --config file (kubeadm): loadConfigFile() puts in DefaultEvictionHard when the file sets
 * no evictionHard, and a drop-in's evictionHard merges into it key by key; a --config file that
 * sets evictionHard keeps only what it names, unless it sets mergeDefaultEvictionSettings (1.33+);
 * a drop-in's null: 1.32+ no threshold, 1.31 the --config file's value back. */
static void test_merge_eviction_config(void **state) {
        KubeletConfigFile f[2];
        KubeletConfig c = { .config_file = (char *) "/var/lib/kubelet/config.yaml", .config_dir = (char *) K3S_DIR,
                            .files = f, .n_files = 2 };
        KubeletEffective e;

        f[0] = kubelet_parse_as("/var/lib/kubelet/config.yaml", HDR "failSwapOn: false\n");
        f[1] = parse_text(HDR "evictionHard:\n  nodefs.available: 7%\n");
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_string_equal(e.memory_available, "100Mi");
        assert_true(e.memory_available_default);
        _cleanup_free_ char *src = kubelet_memory_eviction_source(&e);
        assert_string_equal(src, "the kubelet's default (its --config file sets no evictionHard)");
        kubelet_config_file_done(&f[1]);

        /* evictionHard: null in a drop-in */
        f[1] = parse_text(HDR "evictionHard: null\n");
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_null(e.memory_available);
        c.version.major = 1;
        c.version.minor = 31;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_string_equal(e.memory_available, "100Mi");
        c.version.minor = 0;
        c.version.major = 0;
        kubelet_config_file_done(&f[1]);

        /* the --config file sets evictionHard without memory.available */
        kubelet_config_file_done(&f[0]);
        f[0] = kubelet_parse_as("/var/lib/kubelet/config.yaml", HDR "evictionHard:\n  nodefs.available: 7%\n");
        f[1] = parse_text(HDR "mergeDefaultEvictionSettings: true\n");
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_null(e.memory_available);
        kubelet_config_file_done(&f[0]);
        /* ... and mergeDefaultEvictionSettings: true there: the default memory.available stays */
        f[0] = kubelet_parse_as("/var/lib/kubelet/config.yaml",
                                HDR "evictionHard:\n  nodefs.available: 7%\nmergeDefaultEvictionSettings: true\n");
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_string_equal(e.memory_available, "100Mi");
        assert_ptr_equal(e.merge_default_eviction_from, &f[0]);
        /* not on 1.32, which has no such field */
        c.version.major = 1;
        c.version.minor = 32;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_null(e.memory_available);
        kubelet_config_file_done(&f[1]);
        kubelet_config_file_done(&f[0]);
}

/* kubeadm with the default in force (config.yaml sets no evictionHard, a drop-in sets disk
 * thresholds only): memory.available<100Mi holds, and nodeswap's drop-in adds none; the real
 * kubelet v1.36.3 runs with it. */
static void test_read_kubeadm_eviction(void **state) {
        _cleanup_free_ char *root = overlay("kubeadm-eviction");
        KubeletConfig c;
        const char *dropin = "/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf";
        assert_int_equal(kubelet_config_read(root, "kubelet.service", dropin, &c), 0);
        assert_string_equal(c.version.text, "v1.36.3");
        assert_int_equal(c.n_files, 3);
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_string_equal(e.memory_available, "100Mi");
        assert_true(e.memory_available_default);
        Policy p = { .swap_behavior = SWAP_BEHAVIOR_LIMITED_SWAP, .memory_eviction = (char *) "100Mi" };
        const char *ma;
        assert_int_equal(kubelet_dropin_memory_eviction(&p, &c, dropin, &ma), 0);
        assert_null(ma);
        kubelet_config_done(&c);
}

/* k3s with a drop-in that sets mergeDefaultEvictionSettings and a disk threshold: no memory
 * threshold (no --config file, and only that file's setting counts), so nodeswap's drop-in adds
 * one; the kubelet-arg merge-default-eviction-settings=true names a flag the kubelet does not
 * have: it does not start ("unknown flag", v1.36.3). */
static void test_read_k3s_merge_default(void **state) {
        _cleanup_free_ char *root = overlay("k3s-merge-default");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_int_equal(c.n_files, 1);
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_null(e.memory_available);
        assert_non_null(e.unknown_flag);
        assert_string_equal(e.unknown_flag->name, "merge-default-eviction-settings");
        assert_false(kubelet_config_starts(&c, &e));
        Policy p = { .swap_behavior = SWAP_BEHAVIOR_LIMITED_SWAP, .memory_eviction = (char *) "100Mi" };
        const char *ma;
        assert_int_equal(kubelet_dropin_memory_eviction(&p, &c, K3S_DIR "/90-nodeswap.conf", &ma), 0);
        assert_string_equal(ma, "100Mi");
        kubelet_config_done(&c);
}

/* k3s's 00-k3s-defaults.conf as k3s writes it (k3s-io/k3s pkg/daemons/agent defaultKubeletConfig,
 * yaml.Marshal'ed): evictionHard for disk only, so no memory threshold; nodeswap's LimitedSwap
 * drop-in adds memory.available, and the merge keeps k3s's file as what set evictionHard. */
static void test_read_k3s_eviction(void **state) {
        _cleanup_free_ char *root = overlay("k3s-eviction");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_int_equal(c.n_files, 1);
        const KubeletConfigFile *d = &c.files[0];
        assert_false(d->invalid);
        assert_int_equal(d->eviction_hard_field, KUBELET_FIELD_SET);
        assert_int_equal(d->eviction_hard_line, 22);
        assert_int_equal(d->memory_available_field, KUBELET_FIELD_ABSENT);
        assert_int_equal(d->fail_swap_on_field, KUBELET_FIELD_SET);
        assert_int_equal(d->swap_behavior_field, KUBELET_FIELD_ABSENT);     /* memorySwap: {} */

        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_null(e.memory_available);
        assert_ptr_equal(e.eviction_hard_from, d);

        Policy p = { .swap_behavior = SWAP_BEHAVIOR_LIMITED_SWAP, .memory_eviction = (char *) "100Mi" };
        const char *ma;
        assert_int_equal(kubelet_dropin_memory_eviction(&p, &c, K3S_DIR "/90-nodeswap.conf", &ma), 0);
        assert_non_null(ma);
        assert_string_equal(ma, "100Mi");
        KubeletConfigFile ours;
        assert_int_equal(kubelet_effective_with_dropin(&c, K3S_DIR "/90-nodeswap.conf", SWAP_BEHAVIOR_LIMITED_SWAP, ma,
                                                       &ours, &e), 0);
        assert_string_equal(e.memory_available, "100Mi");
        assert_ptr_equal(e.memory_available_from, &ours);
        assert_ptr_equal(e.eviction_hard_from, &ours);
        kubelet_config_file_done(&ours);

        /* NoSwap, or MemoryEviction=off: nothing written */
        p.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
        assert_int_equal(kubelet_dropin_memory_eviction(&p, &c, K3S_DIR "/90-nodeswap.conf", &ma), 0);
        assert_null(ma);
        p.swap_behavior = SWAP_BEHAVIOR_LIMITED_SWAP;
        p.memory_eviction = NULL;
        assert_int_equal(kubelet_dropin_memory_eviction(&p, &c, K3S_DIR "/90-nodeswap.conf", &ma), 0);
        assert_null(ma);
        kubelet_config_done(&c);
}

/* An operator's 50-site.conf sets memory.available: nodeswap leaves it and names it. */
static void test_read_k3s_eviction_site(void **state) {
        _cleanup_free_ char *root = overlay("k3s-eviction-site");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_int_equal(c.n_files, 2);
        Policy p = { .swap_behavior = SWAP_BEHAVIOR_LIMITED_SWAP, .memory_eviction = (char *) "100Mi" };
        const char *ma;
        assert_int_equal(kubelet_dropin_memory_eviction(&p, &c, K3S_DIR "/90-nodeswap.conf", &ma), 0);
        assert_null(ma);
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_string_equal(e.memory_available, "500Mi");
        _cleanup_free_ char *src = kubelet_memory_eviction_source(&e);
        assert_string_equal(src, K3S_DIR "/50-site.conf:5");
        kubelet_config_done(&c);
}

/* kubelet-arg eviction-hard without memory.available: the flag replaces every file's evictionHard,
 * so nodeswap's drop-in would not help and is not given the key. */
static void test_flags_k3s_eviction(void **state) {
        _cleanup_free_ char *root = overlay("k3s-eviction-flag");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_non_null(c.eviction_hard_flag);
        assert_flag(c.eviction_hard_flag, "eviction-hard", "nodefs.available<10%,imagefs.available<15%",
                    "/etc/rancher/k3s/config.yaml", 5);
        assert_null(c.flag_memory_available);
        assert_null(c.eviction_hard_flag_invalid);
        Policy p = { .swap_behavior = SWAP_BEHAVIOR_LIMITED_SWAP, .memory_eviction = (char *) "100Mi" };
        const char *ma;
        assert_int_equal(kubelet_dropin_memory_eviction(&p, &c, K3S_DIR "/90-nodeswap.conf", &ma), 0);
        assert_null(ma);
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        assert_null(e.memory_available);
        assert_ptr_equal(e.eviction_hard_flag, c.eviction_hard_flag);
        _cleanup_free_ char *src = kubelet_memory_eviction_source(&e);
        assert_string_equal(src, "--eviction-hard=nodefs.available<10%,imagefs.available<15% "
                                 "(kubelet-arg in /etc/rancher/k3s/config.yaml:5)");
        kubelet_config_done(&c);
}

/* kubeReserved, systemReserved (maps merged key by key, a null taking back) and maxPods in the
 * files, and the flags over them (issue 39: the scheduler's allocatable memory). */
static void test_reserved_and_max_pods(void **state) {
        KubeletConfigFile f[2];
        KubeletEffective e;
        f[0] = parse_text(HDR "kubeReserved:\n  cpu: 500m\n  memory: 1Gi\nsystemReserved: {memory: 200Mi}\nmaxPods: 60\n");
        assert_false(f[0].invalid);
        assert_int_equal(f[0].kube_reserved.map_field, KUBELET_FIELD_SET);
        assert_string_equal(f[0].kube_reserved.memory_value, "1Gi");
        assert_int_equal(f[0].kube_reserved.memory_line, 5);
        assert_string_equal(f[0].system_reserved.memory_value, "200Mi");
        assert_int_equal(f[0].max_pods_field, KUBELET_FIELD_SET);
        assert_int_equal(f[0].max_pods, 60);
        effective_of(f, 1, &e);
        assert_string_equal(e.kube_reserved_memory, "1Gi");
        assert_ptr_equal(e.kube_reserved_from, &f[0]);
        assert_string_equal(e.system_reserved_memory, "200Mi");
        assert_int_equal(e.max_pods, 60);
        assert_ptr_equal(e.max_pods_from, &f[0]);

        /* a later drop-in: the maps merge key by key (cpu alone leaves memory), a null takes back */
        f[1] = parse_text(HDR "kubeReserved:\n  cpu: 1\nsystemReserved:\n  memory: null\nmaxPods: null\n");
        effective_of(f, 2, &e);
        assert_string_equal(e.kube_reserved_memory, "1Gi");
        assert_null(e.system_reserved_memory);
        assert_int_equal(e.max_pods, KUBELET_DEFAULT_MAX_PODS);
        kubelet_config_file_done(&f[1]);
        kubelet_config_file_done(&f[0]);

        /* nothing set: none reserved, the default maxPods */
        f[0] = parse_text(HDR "failSwapOn: false\n");
        effective_of(f, 1, &e);
        assert_null(e.kube_reserved_memory);
        assert_null(e.system_reserved_memory);
        assert_int_equal(e.max_pods, KUBELET_DEFAULT_MAX_PODS);
        kubelet_config_file_done(&f[0]);

        /* what the kubelet's decoder refuses */
        f[0] = parse_text(HDR "maxPods: \"60\"\n");
        assert_true(f[0].invalid);
        assert_string_equal(f[0].invalid_reason, "maxPods is not a whole number");
        kubelet_config_file_done(&f[0]);
        f[0] = parse_text(HDR "kubeReserved: memory=1Gi\n");
        assert_true(f[0].invalid);
        assert_string_equal(f[0].invalid_reason, "kubeReserved is not a mapping");
        kubelet_config_file_done(&f[0]);
}

static void test_flags_k3s_reserved(void **state) {
        _cleanup_free_ char *root = overlay("k3s-reserved");
        KubeletConfig c;
        assert_int_equal(kubelet_config_read(root, "k3s-agent.service", K3S_DIR "/90-nodeswap.conf", &c), 0);
        assert_int_equal(c.n_files, 2);
        assert_string_equal(c.flag_kube_reserved_memory, "300Mi");
        assert_null(c.system_reserved_flag);
        KubeletEffective e;
        kubelet_config_effective(&c, NULL, NULL, &e);
        /* the flag's map replaces the file's: 300Mi, not 1Gi */
        assert_string_equal(e.kube_reserved_memory, "300Mi");
        assert_ptr_equal(e.kube_reserved_flag, c.kube_reserved_flag);
        assert_null(e.kube_reserved_from);
        assert_string_equal(e.system_reserved_memory, "200Mi");
        assert_ptr_equal(e.system_reserved_from, &c.files[1]);
        assert_int_equal(e.system_reserved_line, 9);
        assert_int_equal(e.max_pods, 40);
        assert_non_null(e.max_pods_flag);
        kubelet_config_done(&c);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_deep_nesting),
                cmocka_unit_test(test_rendered_dropin),
                cmocka_unit_test(test_read_k3s_hand_swap),
                cmocka_unit_test(test_read_site_override),
                cmocka_unit_test(test_read_kubeadm),
                cmocka_unit_test(test_read_kubeadm_no_config),
                cmocka_unit_test(test_threshold_parse),
                cmocka_unit_test(test_read_kubeadm_null),
                cmocka_unit_test(test_read_kubeadm_null_131),
                cmocka_unit_test(test_merge_eviction_config),
                cmocka_unit_test(test_read_kubeadm_eviction),
                cmocka_unit_test(test_read_k3s_merge_default),
                cmocka_unit_test(test_flags_k3s),
                cmocka_unit_test(test_flags_k3s_dropin_missing_dir),
                cmocka_unit_test(test_flags_k3s_cli_config),
                cmocka_unit_test(test_flags_kubeadm),
                cmocka_unit_test(test_read_invalid),
                cmocka_unit_test(test_parse_eviction),
                cmocka_unit_test(test_merge_eviction),
                cmocka_unit_test(test_read_k3s_eviction),
                cmocka_unit_test(test_read_k3s_eviction_site),
                cmocka_unit_test(test_flags_k3s_eviction),
                cmocka_unit_test(test_reserved_and_max_pods),
                cmocka_unit_test(test_flags_k3s_reserved),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
