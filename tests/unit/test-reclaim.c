/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reclaim headroom (issue 38) through plan(): the real parser reads a policy, the real probe
 * reads the headroom tree (this x86 machine's /proc: 24683792 kB of RAM, vm.min_free_kbytes 67584,
 * vm.watermark_scale_factor 10, Linux 6.18, its /proc/zoneinfo), and the tests check the sysctl
 * actions, their reasons and the findings. Each case that changes a file works on its own copy
 * of the tree (copied in-process: a few dozen small files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "plan/check.h"
#include "plan/reclaim.h"
#include "plan/plan.h"
#include "probe/meminfo.h"
#include "probe/probe.h"

static char tmpdir[] = "/tmp/nodeswap-test-reclaim-XXXXXX";

typedef struct Case {
        Policy policy;
        HostState host;
        Plan plan;
        char root[PATH_MAX];
} Case;

static const char *copy_from, *copy_to;

static int copy_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        char dst[PATH_MAX * 2];
        snprintf(dst, sizeof dst, "%s%s", copy_to, path + strlen(copy_from));
        if (flag == FTW_D)
                return mkdir(dst, 0755) < 0 && errno != EEXIST ? -1 : 0;
        if (flag == FTW_SL) {
                char target[PATH_MAX];
                ssize_t n = readlink(path, target, sizeof target - 1);
                if (n < 0)
                        return -1;
                target[n] = 0;
                return symlink(target, dst);
        }
        _cleanup_free_ char *content = NULL;
        if (read_full_file(path, 1 << 20, &content) < 0)
                return -1;
        int fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st->st_mode & 0777);
        if (fd < 0)
                return -1;
        size_t len = strlen(content);
        bool ok = write(fd, content, len) == (ssize_t) len;
        return close(fd) < 0 || !ok ? -1 : 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(path);
}

static int setup(void **state) {
        return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
        return nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh copy of the fixture tree as the case's root. */
static void fixture_copy(Case *c, const char *name) {
        static unsigned n;
        char src[PATH_MAX];
        snprintf(src, sizeof src, "%s/%s", FIXTURE_DIR, name);
        snprintf(c->root, sizeof c->root, "%s/%s-%u", tmpdir, name, n++);
        copy_from = src;
        copy_to = c->root;
        assert_int_equal(nftw(src, copy_one, 16, FTW_PHYS), 0);
}

static void load(Case *c, const char *fixture, const char *policy_text) {
        PolicyContext ctx;
        PolicyErrors errors = {};
        char path[PATH_MAX];

        if (!c->root[0])
                snprintf(c->root, sizeof c->root, "%s/%s", FIXTURE_DIR, fixture);
        assert_int_equal(probe_context(c->root, &ctx), 0);
        snprintf(path, sizeof path, "%s/policy.conf", tmpdir);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(policy_text, f);
        fclose(f);
        assert_int_equal(chmod(path, 0644), 0);
        int r = policy_load(c->root, path, &ctx, &c->policy, &errors);
        for (size_t i = 0; i < errors.n; i++) {
                char *s = policy_error_format(&errors.errors[i]);
                print_error("policy: %s\n", s);
                free(s);
        }
        assert_int_equal(r, 0);
        policy_errors_clear(&errors);
        assert_int_equal(probe(c->root, &c->policy, &c->host), 0);
}

static void run(Case *c, const PlanOptions *o) {
        assert_int_equal(verdict_plan(&c->policy, &c->host, o, &c->plan), 0);
}

static void done(Case *c) {
        plan_done(&c->plan);
        host_state_done(&c->host);
        policy_done(&c->policy);
}

static int find(const Plan *p, ActionKind kind, const char *target) {
        for (size_t i = 0; i < p->n_actions; i++)
                if (p->actions[i].kind == kind && (!target || streq_ptr(p->actions[i].target, target)))
                        return (int) i;
        return -1;
}

static size_t count(const Plan *p, ActionKind kind) {
        size_t n = 0;
        for (size_t i = 0; i < p->n_actions; i++)
                n += p->actions[i].kind == kind;
        return n;
}

static bool has_finding(const Plan *pl, Verdict v, const char *words) {
        for (size_t i = 0; i < pl->findings.n; i++)
                if (pl->findings.f[i].verdict == v && (!words || strstr(pl->findings.f[i].message, words)))
                        return true;
        return false;
}


#define HEADROOM_ZRAM "[Swap]\nBackend=zram\n[Zram]\nSize=4G\n[Kubelet]\nSwapBehavior=LimitedSwap\n"
#define HEADROOM_FILE "[Swap]\nBackend=file\n[File]\nPath=/swapfile\nSize=2G\n[Kubelet]\nSwapBehavior=LimitedSwap\n"

/* Writes content to rel below the case's (copied) root, making its directories. */
static void put(Case *c, const char *rel, const char *content) {
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", c->root, rel);
        for (char *s = path + strlen(c->root) + 1; (s = strchr(s, '/')); s++) {
                *s = 0;
                assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
                *s = '/';
        }
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(content, f);
        assert_int_equal(fclose(f), 0);
}

static const Action *sysctl_action(const Plan *p, const char *name) {
        int i = find(p, ACTION_SYSCTL, name);
        return i < 0 ? NULL : &p->actions[i];
}

/* watermarks_compute() gives what the kernel printed in this tree's /proc/zoneinfo for its own
 * vm.min_free_kbytes 67584 and watermark_scale_factor 10: min, low and high summed over the zones
 * with managed pages (21+4345+12528, 26+5431+15660, 31+6517+18792 pages of 4 KiB); and for the
 * study's 2000 the low watermarks lie a fifth of the managed memory above min. */
static void test_watermarks_match_kernel(void **state) {
        Case c = {};
        load(&c, "headroom", "");
        Watermarks w;
        watermarks_compute(c.host.zones, c.host.n_zones, c.host.page_size, c.host.mem_total, 67584, 10, &w);
        assert_true(w.min == UINT64_C(16894) * 4096);
        assert_true(w.low == UINT64_C(21117) * 4096);
        assert_true(w.high == UINT64_C(25340) * 4096);
        watermarks_compute(c.host.zones, c.host.n_zones, c.host.page_size, c.host.mem_total, 67584, 2000, &w);
        /* 3004914 managed pages: each zone's managed * 2000 / 10000, rounded down */
        assert_true(w.low - w.min == (UINT64_C(768) + 154570 + 445644) * 4096);
        /* without zones, one zone of MemTotal */
        watermarks_compute(NULL, 0, 4096, UINT64_C(8) << 30, 524288, 2000, &w);
        assert_true(w.min == UINT64_C(512) << 20);
        assert_true(w.low == (UINT64_C(512) << 20) + (UINT64_C(2097152) * 2000 / 10000) * 4096);
        done(&c);
}

/* Pods get swap on zram: 1/16 of 23.5 GiB is above the 1 GiB cap, and both above half the kubelet's
 * default 100Mi, so min_free_kbytes 51200 KiB, raised from a small node's kernel default (5792 KiB,
 * the kernel's 4 * sqrt of 2 GiB in KiB); zram alone gets watermark_scale_factor 200, which puts the
 * low watermarks far above the threshold. Both before the kubelet's restart; a second plan with the
 * values in place has nothing to do. */
static void test_reclaim_auto_zram(void **state) {
        Case c = {};
        fixture_copy(&c, "headroom");
        put(&c, "proc/sys/vm/min_free_kbytes", "5792\n");
        load(&c, NULL, HEADROOM_ZRAM);
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        const Action *m = sysctl_action(&c.plan, "vm.min_free_kbytes");
        const Action *w = sysctl_action(&c.plan, "vm.watermark_scale_factor");
        assert_non_null(m);
        assert_non_null(w);
        assert_string_equal(m->now, "5792");
        assert_int_equal(m->sysctl.value, 51200);
        assert_non_null(strstr(m->reason, "MinFreeKbytes=auto"));
        assert_non_null(strstr(m->reason, "threshold (100.0 MiB)"));
        assert_string_equal(w->now, "10");
        assert_int_equal(w->sysctl.value, 200);
        assert_string_equal(w->reason, "[Sysctl] WatermarkScaleFactor=auto, pods get swap: 200 with zram alone");
        int restart = find(&c.plan, ACTION_RESTART_UNIT, NULL);
        assert_true(restart > find(&c.plan, ACTION_SYSCTL, "vm.watermark_scale_factor"));
        done(&c);

        Case again = {};
        fixture_copy(&again, "headroom");
        put(&again, "proc/sys/vm/min_free_kbytes", "51200\n");
        put(&again, "proc/sys/vm/watermark_scale_factor", "200\n");
        load(&again, NULL, HEADROOM_ZRAM);
        run(&again, NULL);
        assert_null(sysctl_action(&again.plan, "vm.min_free_kbytes"));
        assert_null(sysctl_action(&again.plan, "vm.watermark_scale_factor"));
        done(&again);
}

/* The kubelet's memory.available threshold: min_free_kbytes at most half of it, so 1Gi gives
 * 524288 KiB and 5 % of 24683792 KiB (1263810150 bytes) 617094 KiB; 3Gi reaches the 1 GiB cap, and
 * the low watermarks (this tree's 11.5 GiB of managed pages: 1 GiB + 20 % of them) fall short of
 * 3Gi and an eighth, so watermark_scale_factor rises past the swap file's 2000 to 2072; 10Gi is
 * beyond even the kernel's 3000. */
static void test_reclaim_threshold(void **state) {
        static const struct {
                const char *threshold;
                int min_free, wsf;
                const char *why;
        } cases[] = {
                { "1Gi", 524288, 2000, "2000 with a swap file" },
                { "5%", 617094, 2000, "2000 with a swap file" },
                { "3Gi", 1048576, 2072, "2000 with a swap file, raised until the low watermarks lie above" },
                { "10Gi", 1048576, 3000, "the kernel's bound: the low watermarks stay below the threshold" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Case c = {};
                char conf[256];
                fixture_copy(&c, "headroom");
                snprintf(conf, sizeof conf,
                         "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                         "evictionHard:\n  memory.available: \"%s\"\n", cases[i].threshold);
                put(&c, "var/lib/rancher/k3s/agent/etc/kubelet.conf.d/95-site.conf", conf);
                load(&c, NULL, HEADROOM_FILE);
                run(&c, NULL);
                const Action *m = sysctl_action(&c.plan, "vm.min_free_kbytes");
                assert_non_null(m);
                assert_int_equal(m->sysctl.value, cases[i].min_free);
                const Action *w = sysctl_action(&c.plan, "vm.watermark_scale_factor");
                assert_non_null(w);
                assert_int_equal(w->sysctl.value, cases[i].wsf);
                if (!strstr(w->reason, cases[i].why))
                        print_error("%s: %s\n", cases[i].threshold, w->reason);
                assert_non_null(strstr(w->reason, cases[i].why));
                done(&c);
        }
}

/* Never lowered: a kernel value above the rule's stays (this tree's own 67584 KiB is above half of
 * 100Mi); keep and a NoSwap policy leave both alone; a value is written as it is; before Linux 5.18
 * the rule's 2000 is the kernel's bound 1000. */
static void test_reclaim_left_alone(void **state) {
        Case high = {};
        fixture_copy(&high, "headroom");
        put(&high, "proc/sys/vm/min_free_kbytes", "2000000\n");
        put(&high, "proc/sys/vm/watermark_scale_factor", "3000\n");
        load(&high, NULL, HEADROOM_FILE);
        run(&high, NULL);
        assert_int_equal(count(&high.plan, ACTION_SYSCTL), 0);
        done(&high);

        Case keep = {};
        load(&keep, "headroom", HEADROOM_ZRAM "[Sysctl]\nMinFreeKbytes=keep\nWatermarkScaleFactor=keep\n");
        run(&keep, NULL);
        assert_int_equal(count(&keep.plan, ACTION_SYSCTL), 0);
        done(&keep);

        Case noswap = {};
        load(&noswap, "headroom", "[Swap]\nBackend=zram\n[Kubelet]\nSwapBehavior=NoSwap\n");
        run(&noswap, NULL);
        assert_int_equal(count(&noswap.plan, ACTION_SYSCTL), 0);
        done(&noswap);

        Case value = {};
        load(&value, "headroom", "[Sysctl]\nMinFreeKbytes=524288\nWatermarkScaleFactor=500\n");
        run(&value, NULL);
        assert_int_equal(sysctl_action(&value.plan, "vm.min_free_kbytes")->sysctl.value, 524288);
        assert_int_equal(sysctl_action(&value.plan, "vm.watermark_scale_factor")->sysctl.value, 500);
        assert_string_equal(sysctl_action(&value.plan, "vm.min_free_kbytes")->reason, "policy [Sysctl]");
        done(&value);

        Case old = {};
        fixture_copy(&old, "headroom");
        put(&old, "proc/sys/kernel/osrelease", "5.15.0-91-generic\n");
        load(&old, NULL, HEADROOM_FILE);
        run(&old, NULL);
        assert_int_equal(sysctl_action(&old.plan, "vm.watermark_scale_factor")->sysctl.value, 1000);
        done(&old);
}

/* The values from before nodeswap come back: on revert, and with auto once pods get no swap. */
static void test_reclaim_restore(void **state) {
        static const char saved[] = "saved_min_free_kbytes=67584\nsaved_watermark_scale_factor=10\n"
                                    "set_min_free_kbytes=1048576\n";
        Case rv = {};
        PlanOptions o = { .revert = true };
        fixture_copy(&rv, "headroom");
        put(&rv, "proc/sys/vm/min_free_kbytes", "1048576\n");
        put(&rv, "proc/sys/vm/watermark_scale_factor", "200\n");
        put(&rv, "var/lib/nodeswap/state", saved);
        load(&rv, NULL, HEADROOM_ZRAM);
        rv.policy.backends = 0;
        run(&rv, &o);
        assert_int_equal(sysctl_action(&rv.plan, "vm.min_free_kbytes")->sysctl.value, 67584);
        assert_int_equal(sysctl_action(&rv.plan, "vm.watermark_scale_factor")->sysctl.value, 10);
        assert_false(has_finding(&rv.plan, VERDICT_MIN_FREE_REWRITTEN, NULL));
        done(&rv);

        Case noswap = {};
        fixture_copy(&noswap, "headroom");
        put(&noswap, "proc/sys/vm/min_free_kbytes", "1048576\n");
        put(&noswap, "proc/sys/vm/watermark_scale_factor", "200\n");
        put(&noswap, "var/lib/nodeswap/state", saved);
        load(&noswap, NULL, "[Swap]\nBackend=zram\n[Kubelet]\nSwapBehavior=NoSwap\n");
        run(&noswap, NULL);
        const Action *m = sysctl_action(&noswap.plan, "vm.min_free_kbytes");
        assert_int_equal(m->sysctl.value, 67584);
        assert_non_null(strstr(m->reason, "pods get no swap"));
        assert_int_equal(sysctl_action(&noswap.plan, "vm.watermark_scale_factor")->sysctl.value, 10);
        done(&noswap);
}

/* khugepaged raised vm.min_free_kbytes after apply set it (THP on in this tree): said, and kept;
 * lowered by someone: said, and the policy's value written again. */
static void test_reclaim_rewritten(void **state) {
        Case up = {};
        fixture_copy(&up, "headroom");
        put(&up, "proc/sys/vm/min_free_kbytes", "1100000\n");
        put(&up, "proc/sys/vm/watermark_scale_factor", "200\n");
        put(&up, "var/lib/nodeswap/state", "saved_min_free_kbytes=67584\nset_min_free_kbytes=1048576\n");
        load(&up, NULL, HEADROOM_ZRAM);
        run(&up, NULL);
        assert_true(has_finding(&up.plan, VERDICT_MIN_FREE_REWRITTEN, "is 1100000, nodeswap set 1048576"));
        assert_true(has_finding(&up.plan, VERDICT_MIN_FREE_REWRITTEN, "set_recommended_min_free_kbytes"));
        assert_null(sysctl_action(&up.plan, "vm.min_free_kbytes"));
        done(&up);

        Case down = {};
        fixture_copy(&down, "headroom");
        put(&down, "proc/sys/vm/min_free_kbytes", "67584\n");
        put(&down, "var/lib/nodeswap/state", "saved_min_free_kbytes=67584\nset_min_free_kbytes=1048576\n");
        load(&down, NULL, HEADROOM_ZRAM "[Sysctl]\nMinFreeKbytes=1048576\n");
        run(&down, NULL);
        assert_true(has_finding(&down.plan, VERDICT_MIN_FREE_REWRITTEN, "lowered since"));
        assert_int_equal(sysctl_action(&down.plan, "vm.min_free_kbytes")->sysctl.value, 1048576);
        done(&down);
}

/* --- check's findings on the kubelet's threshold among the watermarks (issue 38, item 2), on the
 * headroom tree's real /proc/zoneinfo: min 16894 pages (66.0 MiB) for its 67584 KiB ---------- */

static const Finding *finding(const Plan *pl, Verdict v) {
        for (size_t i = 0; i < pl->findings.n; i++)
                if (pl->findings.f[i].verdict == v)
                        return &pl->findings.f[i];
        return NULL;
}

/* The kubelet's default 100Mi above the kernel's 66.0 MiB of min watermarks: 34.0 MiB between,
 * 3.4 MiB/s in the kubelet's 10 s; zram's 4 GiB pool is named. Nothing else: the rule's
 * watermark_scale_factor puts low above the threshold. */
static void test_eviction_ramp_and_zram(void **state) {
        Case c = {};
        load(&c, "headroom", HEADROOM_ZRAM);
        run(&c, NULL);
        const Finding *f = finding(&c.plan, VERDICT_EVICTION_RAMP);
        assert_non_null(f);
        assert_int_equal(f->severity, SEVERITY_INFO);
        assert_non_null(strstr(f->message, "threshold (100.0 MiB) and the OOM point (the min watermarks, 66.0 MiB) "
                                           "lie 34.0 MiB"));
        assert_non_null(strstr(f->message, "faster than 3.4 MiB/s"));
        f = finding(&c.plan, VERDICT_EVICTION_ZRAM);
        assert_non_null(f);
        assert_non_null(strstr(f->message, "up to 4.0 GiB of RAM"));
        assert_false(has_finding(&c.plan, VERDICT_EVICTION_AFTER_OOM, NULL));
        assert_false(has_finding(&c.plan, VERDICT_EVICTION_BEFORE_SWAP, NULL));
        done(&c);

        /* a swap file only: no zram finding; a [Zram] MemLimit= is the pool's bound */
        Case file = {};
        load(&file, "headroom", HEADROOM_FILE);
        run(&file, NULL);
        assert_true(has_finding(&file.plan, VERDICT_EVICTION_RAMP, NULL));
        assert_false(has_finding(&file.plan, VERDICT_EVICTION_ZRAM, NULL));
        done(&file);
        Case lim = {};
        load(&lim, "headroom", HEADROOM_ZRAM "[Zram]\nMemLimit=1G\n");
        run(&lim, NULL);
        assert_true(has_finding(&lim.plan, VERDICT_EVICTION_ZRAM, "up to 1.0 GiB of RAM"));
        done(&lim);
}

/* min_free_kbytes at 2000000 KiB (an operator's; the rule never lowers it) puts the min
 * watermarks above the default 100Mi: the OOM killer acts first, said with both figures and the
 * key; no ramp figure then. */
static void test_eviction_after_oom(void **state) {
        Case c = {};
        fixture_copy(&c, "headroom");
        put(&c, "proc/sys/vm/min_free_kbytes", "2000000\n");
        load(&c, NULL, HEADROOM_FILE);
        run(&c, NULL);
        const Finding *f = finding(&c.plan, VERDICT_EVICTION_AFTER_OOM);
        assert_non_null(f);
        assert_int_equal(f->severity, SEVERITY_WARNING);
        assert_non_null(strstr(f->message, "threshold (100.0 MiB) is at or below the zones' min watermarks (1.9 GiB, "
                                           "vm.min_free_kbytes 2000000)"));
        assert_non_null(strstr(f->hint, "raise the threshold above 1.9 GiB"));
        assert_false(has_finding(&c.plan, VERDICT_EVICTION_RAMP, NULL));
        done(&c);
}

/* A 3Gi threshold with the watermarks left as the kernel has them (keep): low is 82.5 MiB, so the
 * kubelet evicts while swap is free; with auto the rule raises low above it and the warning goes.
 * Under NoSwap pods do not swap: no such warning. */
static void test_eviction_before_swap(void **state) {
        static const char site[] = "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\n"
                                   "evictionHard:\n  memory.available: \"3Gi\"\n";
        Case keep = {};
        fixture_copy(&keep, "headroom");
        put(&keep, "var/lib/rancher/k3s/agent/etc/kubelet.conf.d/95-site.conf", site);
        load(&keep, NULL, HEADROOM_FILE "[Sysctl]\nMinFreeKbytes=keep\nWatermarkScaleFactor=keep\n");
        run(&keep, NULL);
        const Finding *f = finding(&keep.plan, VERDICT_EVICTION_BEFORE_SWAP);
        assert_non_null(f);
        assert_int_equal(f->severity, SEVERITY_WARNING);
        assert_non_null(strstr(f->message, "threshold (3.0 GiB) is at or above the zones' low watermarks (82.5 MiB, "
                                           "vm.watermark_scale_factor 10)"));
        done(&keep);

        Case autos = {};
        fixture_copy(&autos, "headroom");
        put(&autos, "var/lib/rancher/k3s/agent/etc/kubelet.conf.d/95-site.conf", site);
        load(&autos, NULL, HEADROOM_FILE);
        run(&autos, NULL);
        assert_false(has_finding(&autos.plan, VERDICT_EVICTION_BEFORE_SWAP, NULL));
        assert_false(has_finding(&autos.plan, VERDICT_EVICTION_AFTER_OOM, NULL));
        /* 3 GiB less the rule's 1 GiB of min, in 10 s */
        assert_true(has_finding(&autos.plan, VERDICT_EVICTION_RAMP, "faster than 204.8 MiB/s"));
        done(&autos);

        Case noswap = {};
        fixture_copy(&noswap, "headroom");
        put(&noswap, "var/lib/rancher/k3s/agent/etc/kubelet.conf.d/95-site.conf", site);
        load(&noswap, NULL, "[Swap]\nBackend=file\n[File]\nPath=/swapfile\nSize=2G\n[Kubelet]\nSwapBehavior=NoSwap\n");
        run(&noswap, NULL);
        assert_false(has_finding(&noswap.plan, VERDICT_EVICTION_BEFORE_SWAP, NULL));
        assert_false(has_finding(&noswap.plan, VERDICT_EVICTION_ZRAM, NULL));
        done(&noswap);

        /* no swap at all: nothing to relate */
        Case none = {};
        load(&none, "headroom", "[Kubelet]\nSwapBehavior=LimitedSwap\n");
        run(&none, NULL);
        assert_false(has_finding(&none.plan, VERDICT_EVICTION_RAMP, NULL));
        done(&none);
}

/* revert with the watermarks of WatermarkScaleFactor=auto (2000 with a swap file) and
 * MinFreeKbytes=auto (1 GiB) in place: they keep some 5.5 GiB of this tree's RAM out of
 * MemAvailable (2 GiB here), so the 4 GiB in nodeswap's zram fit only once the sysctls are back at
 * 67584 and 10. The sysctls are written back before the swapoff, and the room counts what their
 * watermarks give back; 12 GiB of pages still do not fit, and the refusal names the gain. */
static void revert_swapped(Case *c, const char *used_kb) {
        char swaps[256];
        fixture_copy(c, "headroom");
        put(c, "proc/sys/vm/min_free_kbytes", "1048576\n");
        put(c, "proc/sys/vm/watermark_scale_factor", "2000\n");
        put(c, "var/lib/nodeswap/state", "saved_min_free_kbytes=67584\nsaved_watermark_scale_factor=10\n");
        put(c, "run/nodeswap-state/state", "zram_id=0\n");
        put(c, "proc/meminfo", "MemTotal:       24683792 kB\nMemFree:         2097152 kB\n"
                               "MemAvailable:    2097152 kB\nSwapTotal:      16777212 kB\n"
                               "SwapFree:        4194300 kB\n");
        snprintf(swaps, sizeof swaps, "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                                      "/dev/zram0                              partition\t16777212\t%s\t100\n",
                 used_kb);
        put(c, "proc/swaps", swaps);
        load(c, NULL, HEADROOM_ZRAM);
        c->policy.backends = 0;         /* what cli_load does for revert */
}

static void test_revert_room_watermarks(void **state) {
        PlanOptions o = { .revert = true };
        Case fits = {};
        revert_swapped(&fits, "4194304");
        run(&fits, &o);
        assert_false(has_finding(&fits.plan, VERDICT_SWAPOFF_NO_ROOM, NULL));
        int off = find(&fits.plan, ACTION_SWAPOFF, "/dev/zram0");
        int wsf = find(&fits.plan, ACTION_SYSCTL, "vm.watermark_scale_factor");
        int min = find(&fits.plan, ACTION_SYSCTL, "vm.min_free_kbytes");
        assert_true(off >= 0);
        assert_true(wsf >= 0 && wsf < off);
        assert_true(min >= 0 && min < off);
        assert_int_equal(fits.plan.actions[wsf].sysctl.value, 10);
        done(&fits);

        Case big = {};
        revert_swapped(&big, "12582912");
        run(&big, &o);
        assert_true(has_finding(&big.plan, VERDICT_SWAPOFF_NO_ROOM, "the restored watermarks give back"));
        done(&big);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_watermarks_match_kernel),
                cmocka_unit_test(test_reclaim_auto_zram),
                cmocka_unit_test(test_reclaim_threshold),
                cmocka_unit_test(test_reclaim_left_alone),
                cmocka_unit_test(test_reclaim_restore),
                cmocka_unit_test(test_reclaim_rewritten),
                cmocka_unit_test(test_eviction_ramp_and_zram),
                cmocka_unit_test(test_eviction_after_oom),
                cmocka_unit_test(test_eviction_before_swap),
                cmocka_unit_test(test_revert_room_watermarks),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
