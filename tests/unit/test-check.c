/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "plan/check.h"
#include "probe/probe.h"

#define MEMTOTAL_16G (UINT64_C(16218) * MiB)

static const char valid_dropin[] =
        "apiVersion: kubelet.config.k8s.io/v1beta1\n"
        "kind: KubeletConfiguration\n"
        "failSwapOn: false\n"
        "memorySwap:\n"
        "  swapBehavior: LimitedSwap\n";

/* A healthy Pi 5 k3s node: 8 GiB zram at 100 above a 16 GiB NVMe swap file at 10, LimitedSwap
 * on cgroup v2, PSI on, swappiness 60, the distro's zram unit masked, the kubelet restarted after
 * the last swap change. check finds nothing here; each case below changes one thing. */
static SwapDevice swaps[2];
static ZramDevice zrams[1];
static UnitState units[2];
static Policy policy;
static HostState host;
static const char *extra_path, *extra_text;

static void healthy_node(void) {
        static char *conflicts[] = { (char *) "dev-zram0.swap", (char *) "var-swap.swap", NULL };

        policy = (Policy) {
                .found = true,
                .backend_set = true,
                .backends = BACKEND_ZRAM | BACKEND_FILE,
                .swappiness = 60,
                .page_cluster = 0,
                .swap_behavior = SWAP_BEHAVIOR_LIMITED_SWAP,
                .dropin = (char *) "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf",
                .conflict_units = conflicts,
        };
        policy.zram.size = 8 * GiB;
        policy.zram.priority = 100;
        policy.file.path = (char *) "/var/lib/nodeswap/swapfile";
        policy.file.size = 16 * GiB;
        policy.file.priority = 10;
        policy.file.storage = STORAGE_NVME | STORAGE_SSD | STORAGE_VIRTUAL;
        policy.file.encrypt = true;

        swaps[0] = (SwapDevice) { .path = (char *) "/dev/zram0", .kind = SWAP_KIND_ZRAM,
                                  .size = 8 * GiB, .priority = 100, .owner = SWAP_OWNER_NODESWAP,
                                  .zram_id = 0 };
        /* encrypted, as apply makes it by default: /proc/swaps's dm-0 known as the file */
        swaps[1] = (SwapDevice) { .path = (char *) "/var/lib/nodeswap/swapfile", .kind = SWAP_KIND_FILE,
                                  .size = 16 * GiB, .priority = 10, .owner = SWAP_OWNER_NODESWAP,
                                  .zram_id = -1, .encrypted = true, .mapping = (char *) "/dev/dm-0",
                                  .loop_dio = true };
        zrams[0] = (ZramDevice) { .id = 0, .disksize = 8 * GiB, .algorithm = (char *) "lz4",
                                  .swap_on = true, .ours = true };
        units[0] = (UnitState) { .name = (char *) "dev-zram0.swap", .exists = true, .masked = true,
                                 .active = 0 };
        units[1] = (UnitState) { .name = (char *) "var-swap.swap", .exists = false, .active = -1 };

        extra_path = extra_text = NULL;
        host = (HostState) {
                .page_size = 4096,
                .mem_total = MEMTOTAL_16G,
                .mem_available = 8 * GiB,
                .swap_total = 24 * GiB,
                .swap_free = 24 * GiB,
                .swaps = swaps, .n_swaps = 2,
                .zram_control = true,
                .zrams = zrams, .n_zrams = 1,
                .swappiness = 60,
                .page_cluster = 0,
                /* unknown: the reclaim findings have their fixture cases in test-plan.c */
                .min_free_kbytes = -1,
                .watermark_scale_factor = -1,
                .dropin_path = policy.dropin,
                .dropin = (char *) valid_dropin,
                .kubelet_unit = (char *) "k3s-agent.service",
                .kubelet_active = 1,
                .kubelet_started_usec = 2000000,
                .units = units, .n_units = 2,
                .cgroup = CGROUP_V2,
                .psi = true,
                .systemd_booted = true,
                .state = { .saved_swappiness = -1, .saved_page_cluster = -1,
                           .swap_changed_usec = 1000000 },
        };
        host.file = (SwapFileState) {
                .exists = true, .is_regular = true,
                .size = 16 * GiB, .allocated = 16 * GiB,
                .mode = 0600, .uid = 0,
                .has_header = true, .header_page_size = 4096, .checked = true, .encrypted = true,
                .swap_on = true, .priority = 10,
                .fstype = (char *) "ext4",
                .storage = STORAGE_NVME, .storage_device = (char *) "nvme0n1",
        };
}

/* What probe() gives: the files the kubelet reads, parsed (here: nodeswap's drop-in and extra). */

static int run_check(Finding **f, size_t *n) {
        KubeletConfig *k = &host.kubelet;
        *k = (KubeletConfig) {};
        assert_non_null(k->config_dir = strdup("/var/lib/rancher/k3s/agent/etc/kubelet.conf.d"));
        /* the kubelet (and so probe) reads only names ending in .conf */
        const char *paths[2] = { host.dropin && endswith(policy.dropin, ".conf") ? policy.dropin : NULL, extra_path };
        const char *texts[2] = { host.dropin, extra_text };
        if (paths[0] && paths[1] && strcmp(paths[1], paths[0]) < 0) {
                const char *t = paths[0]; paths[0] = paths[1]; paths[1] = t;
                t = texts[0]; texts[0] = texts[1]; texts[1] = t;
        }
        assert_non_null(k->files = calloc(2, sizeof(KubeletConfigFile)));
        for (size_t i = 0; i < 2; i++)
                if (paths[i])
                        assert_int_equal(kubelet_config_parse(paths[i], texts[i], strlen(texts[i]),
                                                              &k->files[k->n_files++]), 0);
        /* The rules of check.c alone, on the synthetic node (the plan's own findings are
         * test-plan.c's). */
        Findings fs = {};
        int r = check_rules(&policy, &host, NULL, &fs);
        kubelet_config_done(k);
        if (r < 0)
                return r;
        *f = fs.f;
        *n = fs.n;
        return 0;
}

/* --- one change each ------------------------------------------------------------------------- */

static void cgroup_v1(void) { host.cgroup = CGROUP_V1; }
static void cgroup_hybrid(void) { host.cgroup = CGROUP_HYBRID; }
static void cgroup_hybrid_noswap(void) { host.cgroup = CGROUP_HYBRID; policy.swap_behavior = SWAP_BEHAVIOR_NO_SWAP; }
static void cgroup_v1_dropin_limited(void) {
        /* the policy leaves the kubelet alone, but the drop-in in place asks for LimitedSwap */
        host.cgroup = CGROUP_V1;
        policy.swap_behavior = SWAP_BEHAVIOR_UNSET;
}

static void little_swap(void) { host.swap_total = 2 * GiB; }   /* the stock zram: 12.6 % */
static void quarter_swap(void) { host.swap_total = MEMTOTAL_16G / 4; }
static void no_swap_limited(void) { host.swap_total = 0; host.n_swaps = 0; }
static void little_swap_noswap(void) { host.swap_total = 2 * GiB; policy.swap_behavior = SWAP_BEHAVIOR_NO_SWAP; }

static void same_priority(void) { swaps[1].priority = 100; }

/* issue 37: swap on a disk in clear while pods swap; tmpfs before 6.3 */
static void file_plain(void) {
        swaps[1].encrypted = false;
        swaps[1].mapping = NULL;
        host.file.encrypted = false;
        policy.file.encrypt = false;
}
static void file_plain_noswap(void) {
        file_plain();
        policy.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
}
static void zram_writeback_disk(void) { zrams[0].wb.backing_dev = (char *) "/dev/loop3"; }
/* [Zram] WritebackEncrypt=yes: zram's backing device is nodeswap's mapping over the file */
static void zram_writeback_encrypted(void) {
        zrams[0].wb.backing_dev = (char *) "/dev/dm-4";
        zrams[0].wb.backing_encrypted = true;
        zrams[0].wb.backing_file = (char *) "/var/lib/nodeswap/wb";
}
static void kernel_6_1(void) { host.kernel_release = (char *) "6.1.0-57-amd64"; }
static void kernel_6_3(void) { host.kernel_release = (char *) "6.3.0"; }
static void kernel_6_1_noswap(void) {
        kernel_6_1();
        policy.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
}

static void churn(void) {
        policy.swappiness = 200;
        policy.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
}
static void churn_host_value(void) {
        policy.swappiness = -1;
        host.swappiness = 180;
        policy.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
}
static void churn_179(void) {
        policy.swappiness = 179;
        policy.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
}
static void churn_limited(void) { policy.swappiness = 200; }
static void churn_without_zram(void) {
        policy.swappiness = 200;
        policy.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
        policy.backends = BACKEND_FILE;
        swaps[0] = swaps[1];
        host.n_swaps = 1;
}

static void psi_off(void) { host.psi = false; }
static void psi_off_without_zram(void) {
        host.psi = false;
        policy.backends = BACKEND_FILE;
        swaps[0] = swaps[1];
        host.n_swaps = 1;
}

static void zram_policy_3x(void) { policy.zram.size = 3 * MEMTOTAL_16G; policy.zram.mem_limit = 8 * GiB; }
static void zram_policy_ram_no_limit(void) { policy.zram.size = 16 * GiB; }
static void zram_policy_ram_with_limit(void) { policy.zram.size = 16 * GiB; policy.zram.mem_limit = 4 * GiB; }
static void zram_foreign_large(void) {
        /* a distro device, not nodeswap's: judged by itself */
        zrams[0].ours = false;
        zrams[0].disksize = 32 * GiB;
}
static void zram_ours_large_but_policy_fine(void) {
        /* nodeswap's own device is judged by the policy that will replace it */
        zrams[0].disksize = 32 * GiB;
}

static void file_on_mmc(void) { host.file.storage = STORAGE_MMC; host.file.storage_device = (char *) "mmcblk0"; }
static void file_on_mmc_allowed(void) { file_on_mmc(); policy.file.storage |= STORAGE_MMC; }
static void file_on_rotational(void) { host.file.storage = STORAGE_ROTATIONAL; host.file.storage_device = (char *) "sda"; }
static void file_on_mmc_unused(void) {
        /* the policy wants no file and none is on: where it would live does not matter */
        file_on_mmc();
        policy.backends = BACKEND_ZRAM;
        host.file.swap_on = false;
}
static void file_not_regular(void) { host.file.is_regular = false; }
static void file_pagesize_16k(void) { host.page_size = 16384; }
static void file_mode_0644(void) { host.file.mode = 0644; }
static void file_not_root(void) { host.file.uid = 1000; }
static void file_mode_0644_off(void) {
        host.file.mode = 0644;
        host.file.swap_on = false;
}
/* what probe's checks found (probe/swapfile.c): the kernel refuses such a file at swapon */
static void file_holes(void) {
        host.file.allocated = 1 * GiB;
        host.file.allocation_problem = (char *) "/var/lib/nodeswap/swapfile has holes: only 1.0 GiB of 16.0 GiB allocated";
        host.file.swap_on = false;
}
static void file_holes_active(void) {   /* the kernel took it: it cannot have had holes */
        host.file.allocation_problem = (char *) "/var/lib/nodeswap/swapfile has a hole at offset 0";
}
static void file_cow(void) {
        host.file.nocow_problem = (char *) "/var/lib/nodeswap/swapfile is on btrfs without the No_COW attribute (chattr +C)";
        host.file.swap_on = false;
}
static void file_unsafe_path(void) {
        host.file.path_problem = (char *) "/var/lib is writable by group or others (mode 0777); refusing a swap file below it";
}
static void file_not_swap(void) {
        host.file.has_header = false;
        host.file.header_page_size = 0;
        host.file.header_problem = (char *) "/var/lib/nodeswap/swapfile carries no swap signature";
        host.file.swap_on = false;
}
static void file_absent(void) {
        host.file.exists = false;
        host.file.mode = 0666;
        host.file.allocated = 0;
        host.page_size = 16384;
}

static void kubelet_stale(void) { host.state.swap_changed_usec = 3000000; }
static void kubelet_start_unknown(void) { host.state.swap_changed_usec = 3000000; host.kubelet_started_usec = 0; }

static void dropin_no_conf(void) {
        policy.dropin = (char *) "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.yaml";
}
/* An invalid drop-in is judged when the policy leaves the kubelet alone; a policy that sets
 * SwapBehavior= rewrites it (the plan's dropin-write), so that is no finding. */
static void dropin_no_kind_rewritten(void) {
        host.dropin = (char *) "apiVersion: kubelet.config.k8s.io/v1beta1\nmemorySwap:\n  swapBehavior: LimitedSwap\n";
}
static void dropin_no_kind(void) {
        dropin_no_kind_rewritten();
        policy.swap_behavior = SWAP_BEHAVIOR_UNSET;
}
static void dropin_no_apiversion(void) {
        host.dropin = (char *) "kind: KubeletConfiguration\nmemorySwap:\n  swapBehavior: LimitedSwap\n";
        policy.swap_behavior = SWAP_BEHAVIOR_UNSET;
}
static void dropin_nested_kind_only(void) {
        /* an indented kind: is no top-level key */
        host.dropin = (char *) "apiVersion: v1\nfoo:\n  kind: KubeletConfiguration\n";
        policy.swap_behavior = SWAP_BEHAVIOR_UNSET;
}
static void dropin_json(void) {
        host.dropin = (char *) "{\n\"apiVersion\": \"kubelet.config.k8s.io/v1beta1\",\n"
                               "\"kind\": \"KubeletConfiguration\",\n"
                               "\"memorySwap\": {\"swapBehavior\": \"LimitedSwap\"}\n}\n";
}
static void dropin_absent(void) { host.dropin = NULL; }
static void dropin_sorts_first(void) {
        policy.dropin = (char *) "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/0-nodeswap.conf";
}
static void dropin_00_sorts_after(void) {
        /* "00-n" > "00-k" */
        policy.dropin = (char *) "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-nodeswap.conf";
}
static void dropin_left_alone(void) {
        /* no SwapBehavior= and no file: nodeswap does not touch the kubelet; the name is moot */
        policy.swap_behavior = SWAP_BEHAVIOR_UNSET;
        policy.dropin = (char *) "/etc/kubelet.d/nodeswap";
        host.dropin = NULL;
}

static void unit_unmasked(void) { units[1].exists = true; }
static void unit_unmasked_unmanaged(void) { units[1].exists = true; policy.backend_set = false; }
static void unit_unmasked_no_systemd(void) { units[1].exists = true; host.systemd_booted = false; }
/* "nodeswap revert" ran: the distribution's swap is meant to run, its units unmasked */
static void unit_unmasked_reverted(void) { units[1].exists = true; host.state.reverted = true; }

typedef struct Case {
        const char *name;
        void (*change)(void);
        const char *id;         /* the one finding expected, NULL: none */
        Severity severity;
} Case;

static const Case rule_cases[] = {
        { "healthy node",                       NULL,                           NULL, 0 },

        { "cgroup v1 with LimitedSwap",         cgroup_v1,                      "cgroup-v1-limitedswap", SEVERITY_ERROR },
        { "hybrid with LimitedSwap",            cgroup_hybrid,                  "cgroup-v1-limitedswap", SEVERITY_ERROR },
        { "hybrid with NoSwap",                 cgroup_hybrid_noswap,           NULL, 0 },
        { "cgroup v1, drop-in says LimitedSwap",cgroup_v1_dropin_limited,       "cgroup-v1-limitedswap", SEVERITY_ERROR },

        { "LimitedSwap with stock 2 GiB",       little_swap,                    "limitedswap-little-swap", SEVERITY_WARNING },
        { "LimitedSwap with a quarter",         quarter_swap,                   NULL, 0 },
        { "LimitedSwap without swap",           no_swap_limited,                "limitedswap-little-swap", SEVERITY_WARNING },
        { "NoSwap with little swap",            little_swap_noswap,             NULL, 0 },

        { "two areas at one priority",          same_priority,                  "swap-priority-shared", SEVERITY_WARNING },

        { "plain file, LimitedSwap",            file_plain,                     "swap-unencrypted", SEVERITY_WARNING },
        { "plain file, NoSwap",                 file_plain_noswap,              NULL, 0 },
        { "zram writing back to a disk",        zram_writeback_disk,            "swap-unencrypted", SEVERITY_WARNING },
        { "zram writing back, encrypted",       zram_writeback_encrypted,       NULL, 0 },
        { "Linux 6.1, LimitedSwap",             kernel_6_1,                     "tmpfs-swap", SEVERITY_WARNING },
        { "Linux 6.3, LimitedSwap",             kernel_6_3,                     NULL, 0 },
        { "Linux 6.1, NoSwap",                  kernel_6_1_noswap,              NULL, 0 },

        { "swappiness 200, zram, NoSwap",       churn,                          "swappiness-zram-churn", SEVERITY_WARNING },
        { "host swappiness 180, zram, NoSwap",  churn_host_value,               "swappiness-zram-churn", SEVERITY_WARNING },
        { "swappiness 179",                     churn_179,                      NULL, 0 },
        { "swappiness 200 with LimitedSwap",    churn_limited,                  NULL, 0 },
        { "swappiness 200 without zram",       churn_without_zram,             NULL, 0 },

        { "PSI off with zram",                  psi_off,                        "psi-off", SEVERITY_WARNING },
        { "PSI off without zram",               psi_off_without_zram,           "psi-off-info", SEVERITY_INFO },

        { "policy zram 3 x RAM",                zram_policy_3x,                 "zram-too-large", SEVERITY_WARNING },
        { "policy zram = RAM, no mem_limit",    zram_policy_ram_no_limit,       "zram-too-large", SEVERITY_WARNING },
        { "policy zram = RAM, with mem_limit",  zram_policy_ram_with_limit,     NULL, 0 },
        { "foreign zram 2 x RAM",               zram_foreign_large,             "zram-too-large", SEVERITY_WARNING },
        { "own zram judged by the policy",      zram_ours_large_but_policy_fine,NULL, 0 },

        { "file on mmc",                        file_on_mmc,                    "swapfile-storage", SEVERITY_ERROR },
        { "file on mmc, Storage= allows",       file_on_mmc_allowed,            "swapfile-storage-wear", SEVERITY_WARNING },
        { "file on rotational",                 file_on_rotational,             "swapfile-storage", SEVERITY_ERROR },
        { "unused path on mmc",                 file_on_mmc_unused,             NULL, 0 },
        { "file not regular",                   file_not_regular,               "swapfile-not-regular", SEVERITY_ERROR },
        { "header for 4K on a 16K kernel",      file_pagesize_16k,              "swapfile-pagesize", SEVERITY_WARNING },
        { "active file mode 0644",              file_mode_0644,                 "swapfile-permissions-active", SEVERITY_WARNING },
        { "active file not root's",             file_not_root,                  "swapfile-permissions-active", SEVERITY_WARNING },
        { "file off, mode 0644",                file_mode_0644_off,             "swapfile-permissions", SEVERITY_ERROR },
        { "file with holes",                    file_holes,                     "swapfile-holes", SEVERITY_WARNING },
        { "active file, holes seen",            file_holes_active,              NULL, 0 },
        { "btrfs file without No_COW",          file_cow,                       "swapfile-cow", SEVERITY_WARNING },
        { "unsafe parent",                      file_unsafe_path,               "swapfile-unsafe-path", SEVERITY_ERROR },
        { "file off, no swap signature",        file_not_swap,                  "swapfile-not-swap", SEVERITY_ERROR },
        { "no file yet",                        file_absent,                    NULL, 0 },

        { "kubelet older than the swap",        kubelet_stale,                  "kubelet-swap-stale", SEVERITY_WARNING },
        { "kubelet start unknown",              kubelet_start_unknown,          NULL, 0 },

        { "drop-in without .conf",              dropin_no_conf,                 "dropin-name", SEVERITY_ERROR },
        { "drop-in without kind",               dropin_no_kind,                 "dropin-invalid", SEVERITY_ERROR },
        { "drop-in without kind, rewritten",    dropin_no_kind_rewritten,       NULL, 0 },
        { "drop-in without apiVersion",         dropin_no_apiversion,           "dropin-invalid", SEVERITY_ERROR },
        { "drop-in with a nested kind",         dropin_nested_kind_only,        "dropin-invalid", SEVERITY_ERROR },
        { "drop-in in JSON",                    dropin_json,                    NULL, 0 },
        { "drop-in not written yet",            dropin_absent,                  NULL, 0 },
        { "drop-in before k3s defaults",        dropin_sorts_first,             "dropin-order", SEVERITY_WARNING },
        { "drop-in 00-nodeswap.conf",           dropin_00_sorts_after,          NULL, 0 },
        { "kubelet left alone",                 dropin_left_alone,              NULL, 0 },

        { "distro unit unmasked",               unit_unmasked,                  "conflict-unit-unmasked", SEVERITY_WARNING },
        { "distro unit unmasked, no systemd",   unit_unmasked_no_systemd,       NULL, 0 },
        { "unmasked, swap not managed",         unit_unmasked_unmanaged,        NULL, 0 },
        { "unmasked on a reverted node",        unit_unmasked_reverted,         NULL, 0 },
};

static void test_each_rule(void **state) {
        for (size_t i = 0; i < ELEMENTSOF(rule_cases); i++) {
                const Case *c = &rule_cases[i];
                healthy_node();
                if (c->change)
                        c->change();

                Finding *f = NULL;
                size_t n = 99;
                print_message("case: %s\n", c->name);
                assert_int_equal(run_check(&f, &n), 0);
                for (size_t k = 0; k < n; k++)
                        print_message("  %s %s: %s\n", severity_to_string(f[k].severity), f[k].id, f[k].message);

                if (!c->id)
                        assert_int_equal(n, 0);
                else {
                        assert_int_equal(n, 1);
                        assert_string_equal(f[0].id, c->id);
                        assert_int_equal(f[0].severity, c->severity);
                        assert_non_null(f[0].message);
                        assert_true(strlen(f[0].hint) > 0);
                }
                findings_free(f, n);
        }
}

static void test_messages_carry_the_numbers(void **state) {
        Finding *f = NULL;
        size_t n = 0;

        healthy_node();
        little_swap();
        assert_int_equal(run_check(&f, &n), 0);
        assert_int_equal(n, 1);
        assert_int_equal(f[0].verdict, VERDICT_LIMITEDSWAP_LITTLE_SWAP);
        assert_non_null(strstr(f[0].message, "12.6 %"));
        findings_free(f, n);

        healthy_node();
        file_pagesize_16k();
        assert_int_equal(run_check(&f, &n), 0);
        assert_int_equal(n, 1);
        assert_int_equal(f[0].verdict, VERDICT_SWAPFILE_PAGESIZE);
        assert_non_null(strstr(f[0].message, "4096-byte pages"));
        assert_non_null(strstr(f[0].message, "16384"));
        findings_free(f, n);

        healthy_node();
        units[1].exists = true;
        units[0].masked = false;
        assert_int_equal(run_check(&f, &n), 0);
        assert_int_equal(n, 1);
        assert_int_equal(f[0].verdict, VERDICT_CONFLICT_UNIT_UNMASKED);
        assert_non_null(strstr(f[0].message, "dev-zram0.swap var-swap.swap are not masked"));
        findings_free(f, n);
}

static void test_several_at_once_in_rule_order(void **state) {
        /* this very machine: hybrid cgroups, no PSI, a LimitedSwap policy */
        Finding *f = NULL;
        size_t n = 0;
        healthy_node();
        host.cgroup = CGROUP_HYBRID;
        host.psi = false;
        swaps[1].priority = 100;
        assert_int_equal(run_check(&f, &n), 0);
        assert_int_equal(n, 3);
        assert_string_equal(f[0].id, "cgroup-v1-limitedswap");
        assert_string_equal(f[1].id, "swap-priority-shared");
        assert_string_equal(f[2].id, "psi-off");
        findings_free(f, n);
}

#define HDR "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
#define DIR "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/"

/* Other files beside nodeswap's drop-in: the findings, in order, with the file and line named. */
static void test_other_kubelet_files(void **state) {
        static const struct {
                const char *name;
                bool policy_leaves_alone;
                bool cgroup_v1;
                const char *path, *text;
                const char *ids[3];
                const char *in_message;         /* in the last finding's message */
        } cases[] = {
                { "a later site drop-in says NoSwap", false, false, DIR "95-site.conf",
                  HDR "memorySwap:\n  swapBehavior: NoSwap\n",
                  { "kubelet-swap-behavior", "dropin-overridden" }, DIR "95-site.conf:4 sets swapBehavior NoSwap" },
                { "90-swap.conf sorts after 90-nodeswap.conf, flow style", false, false, DIR "90-swap.conf",
                  HDR "# site\nmemorySwap: {swapBehavior: \"NoSwap\"}\n",
                  { "kubelet-swap-behavior", "dropin-overridden" }, DIR "90-swap.conf:4" },
                { "memorySwap: null in a later file clears it", false, false, DIR "95-site.conf",
                  HDR "memorySwap: null\n",
                  { "kubelet-swap-behavior", "dropin-overridden" }, DIR "95-site.conf:3 sets swapBehavior NoSwap" },
                { "an earlier file is overridden by nodeswap's", false, false, DIR "50-site.conf",
                  HDR "memorySwap:\n  swapBehavior: NoSwap\n",
                  { "kubelet-swap-behavior" }, DIR "90-nodeswap.conf:5 wins: LimitedSwap" },
                { "a later file agrees", false, false, DIR "95-site.conf",
                  HDR "memorySwap:\n  swapBehavior: 'LimitedSwap'\n",
                  { "kubelet-swap-behavior" }, DIR "95-site.conf:4 wins: LimitedSwap" },
                { "a later file without swapBehavior", false, false, DIR "95-site.conf",
                  HDR "memorySwap: {}\nmaxPods: 50\n", {}, NULL },
                { "an invalid file", false, false, DIR "95-bad.conf",
                  HDR "memorySwap: [\n", { "kubelet-config-invalid" }, DIR "95-bad.conf:" },
                { "a file without kind", false, false, DIR "95-bad.conf",
                  "apiVersion: kubelet.config.k8s.io/v1beta1\nfailSwapOn: false\n",
                  { "kubelet-config-invalid" }, "no kind" },
                { "failSwapOn: true after nodeswap's", false, false, DIR "95-site.conf",
                  HDR "failSwapOn: true\n", { "kubelet-fail-swap-on" }, DIR "95-site.conf:3 sets failSwapOn" },
                { "failSwapOn: true before nodeswap's", false, false, DIR "50-site.conf",
                  HDR "failSwapOn: true\n", {}, NULL },
                { "kubelet left alone, a hand-written 90-swap.conf on cgroup v1", true, true, DIR "90-swap.conf",
                  HDR "memorySwap: {swapBehavior: LimitedSwap}\n",
                  { "cgroup-v1-limitedswap", "kubelet-swap-behavior" }, DIR "90-swap.conf:3 wins: LimitedSwap" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                print_message("case: %s\n", cases[i].name);
                healthy_node();
                if (cases[i].policy_leaves_alone) {
                        policy.swap_behavior = SWAP_BEHAVIOR_UNSET;
                        host.dropin = NULL;
                }
                if (cases[i].cgroup_v1)
                        host.cgroup = CGROUP_V1;
                extra_path = cases[i].path;
                extra_text = cases[i].text;
                Finding *f = NULL;
                size_t n = 99, want = 0;
                assert_int_equal(run_check(&f, &n), 0);
                for (size_t k = 0; k < n; k++)
                        print_message("  %s %s: %s\n", severity_to_string(f[k].severity), f[k].id, f[k].message);
                while (want < ELEMENTSOF(cases[i].ids) && cases[i].ids[want])
                        want++;
                assert_int_equal(n, want);
                for (size_t k = 0; k < n; k++)
                        assert_string_equal(f[k].id, cases[i].ids[k]);
                if (cases[i].in_message)
                        assert_non_null(strstr(f[n - 1].message, cases[i].in_message));
                findings_free(f, n);
        }
}

static void test_severity_names(void **state) {
        assert_string_equal(severity_to_string(SEVERITY_INFO), "info");
        assert_string_equal(severity_to_string(SEVERITY_WARNING), "warning");
        assert_string_equal(severity_to_string(SEVERITY_ERROR), "error");
        assert_null(severity_to_string(_SEVERITY_MAX));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_each_rule),
                cmocka_unit_test(test_messages_carry_the_numbers),
                cmocka_unit_test(test_several_at_once_in_rule_order),
                cmocka_unit_test(test_other_kubelet_files),
                cmocka_unit_test(test_severity_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
