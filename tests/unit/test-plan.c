/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan() over the fixture trees: the real parser reads a policy, the real probe reads the tree,
 * and the tests check the actions, their order and their reasons. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "plan/check.h"
#include "plan/placement.h"
#include "plan/plan.h"
#include "probe/crypt.h"
#include "probe/meminfo.h"
#include "probe/swap.h"
#include "probe/probe.h"
#include "execute/swapon.h"

static char tmpdir[] = "/tmp/nodeswap-test-plan-XXXXXX";

typedef struct Case {
        Policy policy;
        HostState host;
        Plan plan;
        char root[PATH_MAX];
} Case;

/* Copy a fixture tree to a scratch root (git keeps no modes; some cases need a 0600 swap file). */
static void fixture_copy(Case *c, const char *name) {
        snprintf(c->root, sizeof c->root, "%s/%s", tmpdir, name);
        char cmd[PATH_MAX * 3];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/%s' '%s'", c->root, FIXTURE_DIR, name, c->root);
        assert_int_equal(system(cmd), 0);
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

/* Index of the first action of kind on target (NULL: any target), or -1. */
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

/* A finding with verdict v (its id and severity are the table's); with words, one whose message
 * holds them: the value it names, or which of the verdict's cases it is. */
static bool has_finding(const Plan *pl, Verdict v, const char *words) {
        for (size_t i = 0; i < pl->findings.n; i++)
                if (pl->findings.f[i].verdict == v && (!words || strstr(pl->findings.f[i].message, words)))
                        return true;
        return false;
}

static const char *const default_conflicts[] = {
        "dev-zram0.swap", "systemd-zram-setup@zram0.service", "rpi-zram-writeback.timer",
        "rpi-zram-writeback.service", "rpi-resize-swap-file.service", "var-swap.swap",
        "dphys-swapfile.service", "zramswap.service",
};

#define FILE_POLICY                                                                                                    \
        "[Swap]\nBackend=file\n[File]\nSize=4G\n[Sysctl]\nSwappiness=60\nPageCluster=0\n"                            \
        "[Kubelet]\nSwapBehavior=LimitedSwap\n"

/* The untouched Pi: its zram is masked, the file comes up before zram0 goes off, one restart. */
static void test_rpi_to_file(void **state) {
        Case c = {};
        load(&c, "rpi-untouched", FILE_POLICY);
        run(&c, NULL);

        assert_int_equal(plan_errors(&c.plan), 0);
        assert_false(c.plan.revert);
        for (size_t i = 0; i < ELEMENTSOF(default_conflicts); i++)
                assert_true(find(&c.plan, ACTION_MASK_UNIT, default_conflicts[i]) >= 0);
        int create = find(&c.plan, ACTION_FILE_CREATE, "/var/lib/nodeswap/swapfile");
        int stop = find(&c.plan, ACTION_STOP_UNIT, "dev-zram0.swap");
        int mask = find(&c.plan, ACTION_MASK_UNIT, "dev-zram0.swap");
        int dropin = find(&c.plan, ACTION_DROPIN_WRITE, NULL);
        int restart = find(&c.plan, ACTION_RESTART_UNIT, "k3s-agent.service");
        assert_true(mask >= 0 && mask < create);
        assert_true(create >= 0 && create < stop);
        assert_true(stop < dropin && dropin < restart);
        /* the restart is the last step but for the labels, which say what the node is after it */
        assert_int_equal(restart, (int) c.plan.n_actions - 2);
        assert_int_equal(c.plan.actions[c.plan.n_actions - 1].kind, ACTION_FEATURES_WRITE);
        assert_int_equal(c.plan.actions[create].file_create.size, 4 * GiB);
        assert_int_equal(c.plan.actions[create].file_create.priority, 10);
        assert_non_null(strstr(c.plan.actions[dropin].dropin_write.content, "swapBehavior: LimitedSwap"));
        assert_non_null(strstr(c.plan.actions[dropin].dropin_write.content, "apiVersion: kubelet.config.k8s.io/v1beta1"));
        assert_non_null(strstr(c.plan.actions[dropin].dropin_write.content, "kind: KubeletConfiguration"));
        /* 2 GiB of zram out, a 4 GiB file in (less its header page, 16 KiB on this kernel). */
        assert_string_equal(c.plan.actions[restart].reason, "node swap 2.0 GiB -> 4.0 GiB, drop-in changed");
        /* Swappiness 60 and page-cluster 0 already hold: no sysctl action. */
        assert_int_equal(count(&c.plan, ACTION_SYSCTL), 0);
        assert_true(plan_changes(&c.plan));
        done(&c);
}

/* With systemd telling which units run: the writeback timer stops first, before anything is
 * masked (masking the service it triggers under a running timer fails the timer: "Unit to trigger
 * vanished"), the zram setup service only after the new swap is up (stopping it would stop
 * dev-zram0.swap, which requires it). */
static void test_rpi_stop_order(void **state) {
        Case c = {};
        load(&c, "rpi-untouched", FILE_POLICY);
        for (size_t i = 0; i < c.host.n_units; i++)
                c.host.units[i].active = streq(c.host.units[i].name, "rpi-zram-writeback.timer") ||
                                         streq(c.host.units[i].name, "systemd-zram-setup@zram0.service") ||
                                         streq(c.host.units[i].name, "dev-zram0.swap");
        run(&c, NULL);
        int timer = find(&c.plan, ACTION_STOP_UNIT, "rpi-zram-writeback.timer");
        int create = find(&c.plan, ACTION_FILE_CREATE, NULL);
        int swap = find(&c.plan, ACTION_STOP_UNIT, "dev-zram0.swap");
        int setup = find(&c.plan, ACTION_STOP_UNIT, "systemd-zram-setup@zram0.service");
        assert_true(timer >= 0 && timer < find(&c.plan, ACTION_MASK_UNIT, NULL));
        assert_true(timer < find(&c.plan, ACTION_MASK_UNIT, "rpi-zram-writeback.service"));
        assert_true(timer >= 0 && timer < create && create < swap && swap < setup);
        assert_int_equal(count(&c.plan, ACTION_STOP_UNIT), 3);
        done(&c);
}

/* rpi-untouched with rpi-swap's generator installed and its default configuration (zram written
 * back to a loop device on /var/swap): tests/fixtures/rpi-swap/zram-file-default over it. */
static void rpi_swap_installed(Case *c) {
        fixture_copy(c, "rpi-untouched");
        char *cmd = strdup_printf("rm -rf '%s/etc/rpi' && cp -a '%s/rpi-swap/zram-file-default/root/.' '%s/' && "
                                  "rm -f '%s/etc/nodeswap/nodeswap.conf'", c->root, FIXTURE_DIR, c->root, c->root);
        assert_non_null(cmd);
        assert_int_equal(system(cmd), 0);
        free(cmd);
}

/* The loop device rpi-swap holds on /var/swap: its unit is masked with the rest and stopped
 * after zram0 (its only user) is off, and nodeswap says it detaches the device itself. */
static void test_rpi_swap_loop_unit(void **state) {
        Case c = {};
        rpi_swap_installed(&c);
        load(&c, NULL, FILE_POLICY);
        assert_true(c.host.rpi_swap.installed);
        assert_int_equal(c.host.rpi_swap.mechanism, RPI_SWAP_AUTO);
        for (size_t i = 0; i < c.host.n_units; i++)
                c.host.units[i].active = streq(c.host.units[i].name, "rpi-zram-writeback.timer") ||
                                         streq(c.host.units[i].name, "systemd-zram-setup@zram0.service") ||
                                         streq(c.host.units[i].name, "rpi-setup-loop@var-swap.service") ||
                                         streq(c.host.units[i].name, "dev-zram0.swap");
        run(&c, NULL);
        int mask = find(&c.plan, ACTION_MASK_UNIT, "rpi-setup-loop@var-swap.service");
        int remove = find(&c.plan, ACTION_MASK_UNIT, "rpi-remove-swap-file@var-lib-nodeswap-swapfile.service");
        int swap = find(&c.plan, ACTION_STOP_UNIT, "dev-zram0.swap");
        int setup = find(&c.plan, ACTION_STOP_UNIT, "systemd-zram-setup@zram0.service");
        int loop = find(&c.plan, ACTION_STOP_UNIT, "rpi-setup-loop@var-swap.service");
        assert_true(mask >= 0 && remove >= 0);
        assert_true(find(&c.plan, ACTION_STOP_UNIT, "rpi-zram-writeback.timer") < mask);
        assert_true(swap >= 0 && swap < setup && setup < loop);
        assert_non_null(strstr(c.plan.actions[loop].reason, "loop device on /var/swap"));
        done(&c);
}

/* revert starts what apply stopped, timers last: a timer started first would fire at once (its
 * OnBootSec= has passed) and start its service before what it triggers is set up. */
static void test_rpi_swap_revert_timers_last(void **state) {
        Case c = {};
        rpi_swap_installed(&c);
        char *dir = strdup_printf("%s/var/lib/nodeswap", c.root), *path = strdup_printf("%s/state", dir);
        assert_true(dir && path);
        assert_int_equal(mkdir(dir, 0755), 0);
        FILE *f = fopen(path, "we");
        free(dir);
        free(path);
        assert_non_null(f);
        fputs("stopped_unit=rpi-zram-writeback.timer\nstopped_unit=dev-zram0.swap\n"
              "stopped_unit=systemd-zram-setup@zram0.service\nstopped_unit=rpi-setup-loop@var-swap.service\n", f);
        fclose(f);
        PlanOptions o = { .revert = true };
        load(&c, NULL, FILE_POLICY);
        run(&c, &o);
        int timer = find(&c.plan, ACTION_START_UNIT, "rpi-zram-writeback.timer");
        int swap = find(&c.plan, ACTION_START_UNIT, "dev-zram0.swap");
        int loop = find(&c.plan, ACTION_START_UNIT, "rpi-setup-loop@var-swap.service");
        assert_true(swap >= 0 && loop >= 0 && timer > swap && timer > loop);
        assert_int_equal(count(&c.plan, ACTION_START_UNIT), 4);
        done(&c);
}

/* At boot the kubelet has not started: it is never restarted. */
static void test_boot_never_restarts(void **state) {
        Case c = {};
        PlanOptions o = { .boot = true };
        load(&c, "rpi-untouched", FILE_POLICY);
        run(&c, &o);
        assert_int_equal(find(&c.plan, ACTION_RESTART_UNIT, NULL), -1);
        assert_true(find(&c.plan, ACTION_DROPIN_WRITE, NULL) >= 0);
        done(&c);
}

/* A kubelet known to be stopped is not started; it reads the change when it starts. */
static void test_inactive_kubelet_not_restarted(void **state) {
        Case c = {};
        load(&c, "rpi-untouched", FILE_POLICY);
        c.host.kubelet_active = 0;
        run(&c, NULL);
        assert_int_equal(find(&c.plan, ACTION_RESTART_UNIT, NULL), -1);
        done(&c);
}

#define MATCHING_POLICY                                                                                                \
        "[Swap]\nBackend=zram file\n[Zram]\nSize=8G\nAlgorithm=zstd lz4\nPriority=100\n"                               \
        "[File]\nSize=40K\nPriority=10\nEncrypt=no\n[Sysctl]\nSwappiness=60\nPageCluster=0\n"                          \
        "[Kubelet]\nSwapBehavior=LimitedSwap\n"

/* A node that already matches: an empty plan, nothing to restart. */
static void test_matching_is_empty(void **state) {
        Case c = {};
        load(&c, "matching", MATCHING_POLICY);
        run(&c, NULL);
        for (size_t i = 0; i < c.plan.n_actions; i++)
                print_error("unexpected action %s %s\n", action_kind_to_string(c.plan.actions[i].kind),
                            c.plan.actions[i].target);
        assert_int_equal(c.plan.n_actions, 0);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_false(plan_changes(&c.plan));
        done(&c);
}

/* A bigger zram device replaces nodeswap's own make-before-break, and the kubelet learns of it. */
static void test_matching_zram_resize(void **state) {
        Case c = {};
        load(&c, "matching",
             "[Swap]\nBackend=zram file\n[Zram]\nSize=12G\n[File]\nSize=40K\nEncrypt=no\n"
             "[Kubelet]\nSwapBehavior=LimitedSwap\n");
        run(&c, NULL);
        int create = find(&c.plan, ACTION_ZRAM_CREATE, NULL);
        int off = find(&c.plan, ACTION_SWAPOFF, "/dev/zram1");
        int remove = find(&c.plan, ACTION_ZRAM_REMOVE, "/dev/zram1");
        assert_true(create >= 0 && create < off && off < remove);
        assert_string_equal(c.plan.actions[create].zram_create.algorithm, "lz4");
        assert_string_equal(c.plan.actions[create].reason, "zstd not offered by this kernel, using lz4");
        assert_int_equal(c.plan.actions[create].zram_create.size, 12 * GiB);
        assert_int_equal(c.plan.actions[remove].zram_remove.zram_id, 1);
        assert_true(find(&c.plan, ACTION_RESTART_UNIT, "k3s-agent.service") > remove);
        assert_int_equal(count(&c.plan, ACTION_MASK_UNIT), 0);
        done(&c);
}

/* No algorithm the kernel offers: an error naming what it offers, nothing to do. */
static void test_algorithm_not_offered(void **state) {
        Case c = {};
        load(&c, "matching", "[Swap]\nBackend=zram\n[Zram]\nAlgorithm=zstd deflate\n");
        run(&c, NULL);
        assert_true(has_finding(&c.plan, VERDICT_ZRAM_ALGORITHM_UNAVAILABLE, NULL));
        assert_true(has_finding(&c.plan, VERDICT_ZRAM_ALGORITHM_UNAVAILABLE, "lzo-rle lzo lz4"));
        done(&c);
}

static void put_file(const Case *c, const char *rel, const char *content, mode_t mode) {
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s%s", c->root, rel);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, content, strlen(content)), (ssize_t) strlen(content));
        assert_int_equal(fchmod(fd, mode), 0);
        close(fd);
}

/* The zram knobs of issue 17 on a kernel that lacks them: each refused by name, nothing planned for
 * zram. */
static void test_zram_knobs_missing(void **state) {
        Case c = {};
        fixture_copy(&c, "matching");
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/sys/block/zram0/algorithm_params", c.root);
        assert_int_equal(unlink(path), 0);
        snprintf(path, sizeof path, "%s/sys/block/zram1/algorithm_params", c.root);
        assert_int_equal(unlink(path), 0);
        load(&c, NULL, MATCHING_POLICY "[Zram]\nAlgorithm=lz4(level=2)\nRecompressAlgorithm=lzo\nWriteback=/var/wb\n");
        run(&c, NULL);
        assert_true(has_finding(&c.plan, VERDICT_ZRAM_FEATURE_UNAVAILABLE, "this kernel's zram has no algorithm_params"));
        assert_true(has_finding(&c.plan, VERDICT_ZRAM_FEATURE_UNAVAILABLE, "this kernel's zram has no recomp_algorithm"));
        assert_true(has_finding(&c.plan, VERDICT_ZRAM_FEATURE_UNAVAILABLE, "this kernel's zram has no backing_dev"));
        assert_true(findings_has(&c.plan.findings, VERDICT_ZRAM_FEATURE_UNAVAILABLE));
        assert_int_equal(count(&c.plan, ACTION_ZRAM_CREATE), 0);
        done(&c);
}

/* With CONFIG_ZRAM_WRITEBACK: a file to be made is planned with the device; a block device that is
 * not one, or a file others may write, is refused; a device of ours already backed by the loop
 * device on the policy's file matches and nothing changes. */
static void test_zram_writeback_plan(void **state) {
        Case c = {};
        fixture_copy(&c, "matching");
        for (int id = 0; id <= 1; id++) {
                char rel[64];
                snprintf(rel, sizeof rel, "/sys/block/zram%d/backing_dev", id);
                put_file(&c, rel, id == 1 ? "/dev/loop3\n" : "none\n", 0644);
                snprintf(rel, sizeof rel, "/sys/block/zram%d/writeback_limit", id);
                put_file(&c, rel, "0\n", 0644);
        }
        load(&c, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\nWritebackLimit=1G\nWritebackEncrypt=no\n");
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        int create = find(&c.plan, ACTION_ZRAM_CREATE, NULL);
        assert_true(create >= 0);       /* zram1's loop3 is not backed by the policy's file */
        assert_non_null(strstr(c.plan.actions[create].want, "writeback to /var/lib/nodeswap/wb (on a loop device), at most 1.0 GiB a day"));
        done(&c);

        /* The file exists and loop3 is backed by it: zram1 matches. */
        Case m = {};
        fixture_copy(&m, "matching");
        for (int id = 0; id <= 1; id++) {
                char rel[64];
                snprintf(rel, sizeof rel, "/sys/block/zram%d/backing_dev", id);
                put_file(&m, rel, id == 1 ? "/dev/loop3\n" : "none\n", 0644);
        }
        char dir[PATH_MAX * 2];
        snprintf(dir, sizeof dir, "%s/sys/block/loop3/loop", m.root);
        char cmd[PATH_MAX * 5];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s' '%s/var/lib/nodeswap'", dir, m.root);
        assert_int_equal(system(cmd), 0);
        put_file(&m, "/sys/block/loop3/loop/backing_file", "/var/lib/nodeswap/wb\n", 0644);
        put_file(&m, "/var/lib/nodeswap/wb", "0123456789abcdef0123456789abcdef", 0600);
        assert_int_equal(truncate(strcat(strcpy(dir, m.root), "/var/lib/nodeswap/wb"), 8192), 0);
        load(&m, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\nWritebackEncrypt=no\n");
        run(&m, NULL);
        assert_int_equal(plan_errors(&m.plan), 0);
        assert_int_equal(count(&m.plan, ACTION_ZRAM_CREATE), 0);
        done(&m);

        /* ... unless others may write it; and /dev/nothing is no block device. */
        Case w = {};
        fixture_copy(&w, "matching");
        put_file(&w, "/sys/block/zram0/backing_dev", "none\n", 0644);
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/var/lib/nodeswap'", w.root);
        assert_int_equal(system(cmd), 0);
        put_file(&w, "/var/lib/nodeswap/wb", "x", 0666);
        load(&w, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\n");
        run(&w, NULL);
        assert_true(findings_has(&w.plan.findings, VERDICT_ZRAM_WRITEBACK_TARGET));
        assert_true(has_finding(&w.plan, VERDICT_ZRAM_WRITEBACK_TARGET, "may be written by others than root"));
        done(&w);
        Case b = {};
        fixture_copy(&b, "matching");
        put_file(&b, "/sys/block/zram0/backing_dev", "none\n", 0644);
        load(&b, NULL, MATCHING_POLICY "[Zram]\nWriteback=/dev/nothing\n");
        run(&b, NULL);
        assert_true(has_finding(&b.plan, VERDICT_ZRAM_WRITEBACK_TARGET, "[Zram] Writeback=/dev/nothing: no such block device"));
        done(&b);
}

/* The "matching" fixture with zram1 backed by /dev/loop3 on /var/lib/nodeswap/wb (a regular file
 * of 8 KiB, 0600), zram0 without a backing device; with state_line appended to the persistent
 * state when not NULL. */
static void writeback_fixture(Case *c, const char *state_line) {
        fixture_copy(c, "matching");
        for (int id = 0; id <= 1; id++) {
                char rel[64];
                snprintf(rel, sizeof rel, "/sys/block/zram%d/backing_dev", id);
                put_file(c, rel, id == 1 ? "/dev/loop3\n" : "none\n", 0644);
        }
        char cmd[PATH_MAX * 5];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s/sys/block/loop3/loop' '%s/var/lib/nodeswap'", c->root, c->root);
        assert_int_equal(system(cmd), 0);
        put_file(c, "/sys/block/loop3/loop/backing_file", "/var/lib/nodeswap/wb\n", 0644);
        put_file(c, "/var/lib/nodeswap/wb", "0123456789abcdef0123456789abcdef", 0600);
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/var/lib/nodeswap/wb", c->root);
        assert_int_equal(truncate(path, 8192), 0);
        if (state_line) {
                snprintf(path, sizeof path, "%s/var/lib/nodeswap/state", c->root);
                FILE *f = fopen(path, "ae");
                assert_non_null(f);
                fputs(state_line, f);
                fclose(f);
        }
}

#define WB_POLICY MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\nWritebackEncrypt=no\n"

/* nodeswap-writeback.timer: apply starts it where systemd reports it inactive (last but the
 * kubelet), and a rerun with the timer active plans nothing; a policy without a schedule stops it
 * first; revert stops it; nothing with --boot (the generator's link starts it), nothing while its
 * state is unknown, and without systemd a finding instead. */
static void test_writeback_timer_plan(void **state) {
        Case c = {};
        writeback_fixture(&c, NULL);
        load(&c, NULL, WB_POLICY);
        assert_int_equal(c.host.writeback_timer_active, -1);    /* nobody asked systemd */
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_int_equal(c.plan.n_actions, 0);                  /* unknown: nothing */
        plan_done(&c.plan);
        c.host.writeback_timer_active = 0;
        run(&c, NULL);
        assert_int_equal(c.plan.n_actions, 1);
        int start = find(&c.plan, ACTION_START_UNIT, "nodeswap-writeback.timer");
        assert_int_equal(start, 0);
        assert_string_equal(c.plan.actions[start].now, "inactive");
        assert_string_equal(c.plan.actions[start].want, "active");
        plan_done(&c.plan);
        PlanOptions boot = { .boot = true };
        run(&c, &boot);
        assert_int_equal(c.plan.n_actions, 0);
        plan_done(&c.plan);
        c.host.writeback_timer_active = 1;
        run(&c, NULL);
        assert_int_equal(c.plan.n_actions, 0);                  /* as wanted: a rerun plans nothing */
        done(&c);

        /* WritebackInterval=0: no schedule, the running timer stops, before anything else. */
        Case z = {};
        writeback_fixture(&z, NULL);
        load(&z, NULL, WB_POLICY "WritebackInterval=0\n");
        z.host.writeback_timer_active = 1;
        run(&z, NULL);
        assert_int_equal(find(&z.plan, ACTION_STOP_UNIT, "nodeswap-writeback.timer"), 0);
        assert_int_equal(find(&z.plan, ACTION_START_UNIT, NULL), -1);
        done(&z);

        /* A policy without writeback: the device is replaced, and the timer stops before that. */
        Case n = {};
        writeback_fixture(&n, NULL);
        load(&n, NULL, MATCHING_POLICY);
        n.host.writeback_timer_active = 1;
        run(&n, NULL);
        int stop = find(&n.plan, ACTION_STOP_UNIT, "nodeswap-writeback.timer");
        assert_int_equal(stop, 0);
        assert_string_equal(n.plan.actions[stop].reason, "the policy asks for no writeback schedule");
        assert_true(find(&n.plan, ACTION_ZRAM_REMOVE, "/dev/zram1") > stop);
        done(&n);

        /* revert stops it. */
        Case r = {};
        PlanOptions o = { .revert = true };
        writeback_fixture(&r, NULL);
        load(&r, NULL, WB_POLICY);
        r.policy.backends = 0;
        r.host.writeback_timer_active = 1;
        run(&r, &o);
        stop = find(&r.plan, ACTION_STOP_UNIT, "nodeswap-writeback.timer");
        assert_int_equal(stop, 0);
        assert_string_equal(r.plan.actions[stop].reason, "nodeswap revert");
        assert_true(find(&r.plan, ACTION_ZRAM_REMOVE, "/dev/zram1") > stop);
        /* revert never starts it */
        plan_done(&r.plan);
        r.host.writeback_timer_active = 0;
        run(&r, &o);
        assert_int_equal(find(&r.plan, ACTION_START_UNIT, "nodeswap-writeback.timer"), -1);
        assert_int_equal(find(&r.plan, ACTION_STOP_UNIT, "nodeswap-writeback.timer"), -1);
        done(&r);

        /* Without systemd: nothing planned, and plan and status say why. */
        Case s = {};
        writeback_fixture(&s, NULL);
        char cmd[PATH_MAX * 2];
        snprintf(cmd, sizeof cmd, "rm -rf '%s/run/systemd/system'", s.root);
        assert_int_equal(system(cmd), 0);
        load(&s, NULL, WB_POLICY);
        assert_false(s.host.systemd_booted);
        s.host.writeback_timer_active = 0;      /* not asked without systemd; ignored */
        run(&s, NULL);
        assert_int_equal(find(&s.plan, ACTION_START_UNIT, "nodeswap-writeback.timer"), -1);
        assert_true(findings_has(&s.plan.findings, VERDICT_SYSTEMD_NOT_RUNNING));
        assert_true(has_finding(&s.plan, VERDICT_SYSTEMD_NOT_RUNNING, "nodeswap-writeback.timer is not started"));
        done(&s);
}

/* The writeback file nodeswap made (writeback_file= in the state): revert --purge deletes it after
 * the zram device whose loop device is on it; plain revert keeps it; a file the state does not
 * record (the operator's) or a symlink at the recorded path is never deleted; an apply whose
 * Writeback= names another file deletes the old one after its device, and keeps the one it names. */
static void test_writeback_file_plan(void **state) {
        PlanOptions revert = { .revert = true }, purge = { .revert = true, .purge = true };

        Case p = {};
        writeback_fixture(&p, "writeback_file=/var/lib/nodeswap/wb\n");
        load(&p, NULL, WB_POLICY);
        p.policy.backends = 0;
        assert_int_equal(p.host.n_recorded_wb_files, 1);
        assert_string_equal(p.host.recorded_wb_files[0].loop_device, "/dev/loop3");
        run(&p, &purge);
        assert_int_equal(plan_errors(&p.plan), 0);
        int rm = find(&p.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/wb");
        assert_true(rm > find(&p.plan, ACTION_ZRAM_REMOVE, "/dev/zram1"));
        assert_int_equal(p.plan.actions[rm].file_remove.role, ACTION_FILE_WRITEBACK);
        assert_string_equal(p.plan.actions[rm].reason, "revert --purge: zram's writeback file, created by nodeswap");
        /* the swap file is still a swap file's removal */
        int srm = find(&p.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/swapfile");
        assert_true(srm >= 0);
        assert_int_equal(p.plan.actions[srm].file_remove.role, ACTION_FILE_POLICY_SWAP_FILE);
        plan_done(&p.plan);
        run(&p, &revert);
        assert_int_equal(find(&p.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/wb"), -1);
        done(&p);

        /* Not recorded: the operator's file stays, even with --purge. */
        Case o = {};
        writeback_fixture(&o, NULL);
        load(&o, NULL, WB_POLICY);
        o.policy.backends = 0;
        run(&o, &purge);
        assert_int_equal(find(&o.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/wb"), -1);
        done(&o);

        /* A symlink where the recorded file was: left alone, and said so. */
        Case l = {};
        writeback_fixture(&l, "writeback_file=/var/lib/nodeswap/wb\n");
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/var/lib/nodeswap/wb", l.root);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(symlink("/etc/passwd", path), 0);
        load(&l, NULL, WB_POLICY);
        l.policy.backends = 0;
        run(&l, &purge);
        assert_int_equal(find(&l.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/wb"), -1);
        assert_true(findings_has(&l.plan.findings, VERDICT_SWAPFILE_RECORD_LEFT_ALONE));
        assert_true(has_finding(&l.plan, VERDICT_SWAPFILE_RECORD_LEFT_ALONE, "is no longer a regular file"));
        done(&l);

        /* The loop device on it belongs to a device the plan keeps (not ours): left alone. */
        Case h = {};
        writeback_fixture(&h, "writeback_file=/var/lib/nodeswap/wb\n");
        put_file(&h, "/sys/block/zram1/backing_dev", "none\n", 0644);
        load(&h, NULL, WB_POLICY);
        h.policy.backends = 0;
        run(&h, &purge);
        assert_int_equal(find(&h.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/wb"), -1);
        assert_true(has_finding(&h.plan, VERDICT_SWAPFILE_RECORD_LEFT_ALONE, "still backs /dev/loop3"));
        done(&h);

        /* apply with Writeback= naming another file: the old device goes, then its file. */
        Case m = {};
        writeback_fixture(&m, "writeback_file=/var/lib/nodeswap/wb\n");
        load(&m, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb2\n");
        run(&m, NULL);
        assert_int_equal(plan_errors(&m.plan), 0);
        int create = find(&m.plan, ACTION_ZRAM_CREATE, NULL);
        int remove = find(&m.plan, ACTION_ZRAM_REMOVE, "/dev/zram1");
        rm = find(&m.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/wb");
        assert_true(create >= 0 && remove > create && rm > remove);
        assert_string_equal(m.plan.actions[rm].reason,
                            "zram's writeback file, created by nodeswap, no longer the policy's [Zram] Writeback=");
        done(&m);

        /* ... and the file the policy names stays, even when Backend= drops zram. */
        Case k = {};
        writeback_fixture(&k, "writeback_file=/var/lib/nodeswap/wb\n");
        load(&k, NULL, WB_POLICY);
        run(&k, NULL);
        assert_int_equal(k.plan.n_actions, 0);
        done(&k);
        Case f = {};
        writeback_fixture(&f, "writeback_file=/var/lib/nodeswap/wb\n");
        load(&f, NULL, "[Swap]\nBackend=file\n[File]\nSize=40K\nPriority=10\nEncrypt=no\n[Zram]\nWriteback=/var/lib/nodeswap/wb\n");
        run(&f, NULL);
        assert_int_equal(find(&f.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/wb"), -1);
        done(&f);
}

/* The writeback fixture's zram1 (20 MiB used) backed by the dm-crypt mapping nodeswap makes over
 * the file's loop3, as the kernel shows it: /sys/block/dm-4/dm/name is the mapping's name and
 * /sys/block/dm-4/slaves/loop3 its one slave, and zram's backing_dev reads "/dev/dm-4". */
static void sh(const char *fmt, ...) _printf_(1, 2);
static void writeback_encrypted_fixture(Case *c, bool mapped, bool zram_on_mapping) {
        writeback_fixture(c, "writeback_file=/var/lib/nodeswap/wb\n");
        put_file(c, "/proc/swaps",
                 "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
                 "/dev/zram1                              partition\t8388604\t\t20480\t\t100\n"
                 "/var/lib/nodeswap/swapfile              file\t\t36\t\t0\t\t10\n", 0644);
        if (!mapped)
                return;
        sh("mkdir -p '%s/sys/block/dm-4/dm' '%s/sys/block/dm-4/slaves/loop3'", c->root, c->root);
        put_file(c, "/sys/block/dm-4/dm/name", "nodeswap-var-lib-nodeswap-wb\n", 0644);
        if (zram_on_mapping)
                put_file(c, "/sys/block/zram1/backing_dev", "/dev/dm-4\n", 0644);
}

/* [Zram] WritebackEncrypt=: a device of ours on the file in clear is rebuilt on the file's mapping
 * make before break (a bridge for its pages beside the file, encrypted, at zram's priority; zram1
 * off and reset; the new device; the bridge off and deleted), and one on the mapping matches; the
 * way back to WritebackEncrypt=no is the same steps; a rerun after a kill with the bridge on keeps
 * it and goes on; with no room for the bridge apply refuses, and --force goes without it. */
static void test_writeback_encrypt_switch(void **state) {
        static const char *const bridge = "/var/lib/nodeswap/.#wb.bridge";
        Case c = {};
        writeback_encrypted_fixture(&c, false, false);
        load(&c, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\n");
        assert_true(c.policy.zram.writeback_encrypt);           /* the default */
        assert_null(c.host.writeback.mapping);
        c.host.writeback.fs_free = 1 * GiB;
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        int up = find(&c.plan, ACTION_FILE_CREATE, bridge);
        int off = find(&c.plan, ACTION_SWAPOFF, "/dev/zram1");
        int reset = find(&c.plan, ACTION_ZRAM_REMOVE, "/dev/zram1");
        int create = find(&c.plan, ACTION_ZRAM_CREATE, NULL);
        int boff = find(&c.plan, ACTION_SWAPOFF, bridge);
        int brm = find(&c.plan, ACTION_FILE_REMOVE, bridge);
        assert_true(up >= 0 && up < off && off < reset && reset < create && create < boff && boff < brm);
        assert_true(c.plan.actions[up].file_create.encrypt);
        assert_int_equal(c.plan.actions[up].file_create.priority, 100);
        /* 20 MiB used: + 1/8 + 16 MiB, in pages */
        assert_int_equal(c.plan.actions[up].file_create.size, 20 * MiB + 20 * MiB / 8 + 16 * MiB);
        assert_true(c.plan.actions[boff].swapoff.encrypted);
        assert_int_equal(c.plan.actions[brm].file_remove.role, ACTION_FILE_RECORDED_SWAP_FILE);
        assert_string_equal(c.plan.actions[reset].now, "initialised, writeback to the file, in clear");
        assert_non_null(strstr(c.plan.actions[create].want, "writeback to /var/lib/nodeswap/wb (encrypted, on a loop device)"));
        assert_int_equal(count(&c.plan, ACTION_ZRAM_REMOVE), 1);
        assert_int_equal(count(&c.plan, ACTION_SWAPOFF), 2);
        done(&c);

        /* On its mapping: nothing to do. */
        Case e = {};
        writeback_encrypted_fixture(&e, true, true);
        load(&e, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\n");
        assert_string_equal(e.host.writeback.mapping, "/dev/dm-4");
        run(&e, NULL);
        assert_int_equal(plan_errors(&e.plan), 0);
        assert_int_equal(e.plan.n_actions, 0);
        done(&e);

        /* ... and back to WritebackEncrypt=no: the same steps, the bridge in clear as asked. */
        Case n = {};
        writeback_encrypted_fixture(&n, true, true);
        load(&n, NULL, WB_POLICY);
        n.host.writeback.fs_free = 1 * GiB;
        run(&n, NULL);
        assert_int_equal(plan_errors(&n.plan), 0);
        up = find(&n.plan, ACTION_FILE_CREATE, bridge);
        reset = find(&n.plan, ACTION_ZRAM_REMOVE, "/dev/zram1");
        create = find(&n.plan, ACTION_ZRAM_CREATE, NULL);
        assert_true(up >= 0 && up < reset && reset < create && create < find(&n.plan, ACTION_FILE_REMOVE, bridge));
        assert_false(n.plan.actions[up].file_create.encrypt);
        assert_string_equal(n.plan.actions[reset].now, "initialised, writeback to the file, encrypted");
        done(&n);

        /* A mapping left by a run killed before zram took it is no device of ours: a new device is
         * made (its setup removes the mapping first), nothing is reset. */
        Case k = {};
        writeback_encrypted_fixture(&k, true, false);
        put_file(&k, "/sys/block/zram1/backing_dev", "none\n", 0644);
        load(&k, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\n");
        run(&k, NULL);
        assert_int_equal(plan_errors(&k.plan), 0);
        assert_int_equal(find(&k.plan, ACTION_FILE_CREATE, bridge), -1);
        assert_true(find(&k.plan, ACTION_ZRAM_CREATE, NULL) >= 0);
        done(&k);

        /* Killed with the bridge on, zram1 still in clear: the bridge is kept, not made again. */
        Case r = {};
        writeback_encrypted_fixture(&r, false, false);
        sh("echo 'swap_file=%s' >> '%s/var/lib/nodeswap/state'", bridge, r.root);
        sh("echo '%s file 53248 0 100' >> '%s/proc/swaps'", bridge, r.root);
        sh("truncate -s 52M '%s%s' && chmod 600 '%s%s'", r.root, bridge, r.root, bridge);
        load(&r, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\n");
        r.host.writeback.fs_free = 0;
        run(&r, NULL);
        assert_int_equal(plan_errors(&r.plan), 0);
        assert_int_equal(find(&r.plan, ACTION_FILE_CREATE, bridge), -1);
        assert_true(find(&r.plan, ACTION_ZRAM_REMOVE, "/dev/zram1") < find(&r.plan, ACTION_SWAPOFF, bridge));
        assert_true(find(&r.plan, ACTION_FILE_REMOVE, bridge) >= 0);
        done(&r);

        /* ... killed later, after zram1's swapoff: zram1 is reset, the bridge goes once, after the
         * new device. */
        Case o = {};
        writeback_encrypted_fixture(&o, false, false);
        sh("echo 'swap_file=%s' >> '%s/var/lib/nodeswap/state'", bridge, o.root);
        sh("sed -i '/zram1/d' '%s/proc/swaps' && echo '%s file 53248 0 100' >> '%s/proc/swaps'", o.root, bridge, o.root);
        sh("truncate -s 52M '%s%s' && chmod 600 '%s%s'", o.root, bridge, o.root, bridge);
        load(&o, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\n");
        run(&o, NULL);
        assert_int_equal(plan_errors(&o.plan), 0);
        assert_int_equal(count(&o.plan, ACTION_SWAPOFF), 1);
        assert_true(find(&o.plan, ACTION_ZRAM_REMOVE, "/dev/zram1") < find(&o.plan, ACTION_ZRAM_CREATE, NULL));
        assert_true(find(&o.plan, ACTION_ZRAM_CREATE, NULL) < find(&o.plan, ACTION_SWAPOFF, bridge));
        assert_true(find(&o.plan, ACTION_SWAPOFF, bridge) < find(&o.plan, ACTION_FILE_REMOVE, bridge));
        done(&o);

        /* No room for the bridge: refused, naming Writeback=; --force: zram1 off without one. */
        Case f = {};
        writeback_encrypted_fixture(&f, false, false);
        load(&f, NULL, MATCHING_POLICY "[Zram]\nWriteback=/var/lib/nodeswap/wb\n");
        f.host.writeback.fs_free = 1 * MiB;
        run(&f, NULL);
        assert_true(has_finding(&f.plan, VERDICT_SWAPFILE_NO_SPACE, "not enough room beside /var/lib/nodeswap/wb"));
        assert_int_equal(find(&f.plan, ACTION_ZRAM_REMOVE, NULL), -1);
        plan_done(&f.plan);
        PlanOptions force = { .force = true };
        run(&f, &force);
        assert_int_equal(find(&f.plan, ACTION_FILE_CREATE, bridge), -1);
        assert_true(find(&f.plan, ACTION_SWAPOFF, "/dev/zram1") < find(&f.plan, ACTION_ZRAM_REMOVE, "/dev/zram1"));
        assert_true(find(&f.plan, ACTION_ZRAM_CREATE, NULL) > find(&f.plan, ACTION_ZRAM_REMOVE, "/dev/zram1"));
        done(&f);
}

/* revert: the distro's swap back first, sysctls restored, nodeswap's devices off, drop-in gone. */
static void test_matching_revert(void **state) {
        Case c = {};
        PlanOptions o = { .revert = true };
        load(&c, "matching", MATCHING_POLICY);
        /* what cli_load does for revert */
        c.policy.backends = 0;
        run(&c, &o);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_true(c.plan.revert);
        int mark = find(&c.plan, ACTION_MARK_REVERTED, NULL);
        int unmask = find(&c.plan, ACTION_UNMASK_UNIT, "dev-zram0.swap");
        int start = find(&c.plan, ACTION_START_UNIT, "dev-zram0.swap");
        int off = find(&c.plan, ACTION_SWAPOFF, "/dev/zram1");
        int fileoff = find(&c.plan, ACTION_SWAPOFF, "/var/lib/nodeswap/swapfile");
        int remove = find(&c.plan, ACTION_ZRAM_REMOVE, "/dev/zram1");
        int sysctl = find(&c.plan, ACTION_SYSCTL, "vm.page-cluster");
        int dropin = find(&c.plan, ACTION_DROPIN_REMOVE, NULL);
        int restart = find(&c.plan, ACTION_RESTART_UNIT, "k3s-agent.service");
        assert_int_equal(mark, 0);
        assert_true(unmask > mark && start > unmask && off > start && remove > off && fileoff > start);
        assert_int_equal(count(&c.plan, ACTION_UNMASK_UNIT), ELEMENTSOF(default_conflicts));
        assert_true(find(&c.plan, ACTION_START_UNIT, "systemd-zram-setup@zram0.service") >= 0);
        /* the sysctls before the swapoffs: the watermarks they lower are room for the pages */
        assert_true(sysctl > start && sysctl < off && sysctl < fileoff && dropin > remove && restart > dropin);
        assert_int_equal(c.plan.actions[sysctl].sysctl.value, 3);
        /* swappiness was 60 before and is 60 now */
        assert_int_equal(find(&c.plan, ACTION_SYSCTL, "vm.swappiness"), -1);
        /* the file stays without --purge */
        assert_int_equal(find(&c.plan, ACTION_FILE_REMOVE, NULL), -1);
        done(&c);

        Case p = {};
        PlanOptions purge = { .revert = true, .purge = true };
        load(&p, "matching", MATCHING_POLICY);
        p.policy.backends = 0;
        run(&p, &purge);
        int rm = find(&p.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/swapfile");
        assert_true(rm > find(&p.plan, ACTION_SWAPOFF, "/var/lib/nodeswap/swapfile"));
        done(&p);
}

/* A file made for 4 KiB pages on a 16 KiB kernel gets a new header before swapon; apply ends the revert. */
static void test_stale_file(void **state) {
        Case c = {};
        fixture_copy(&c, "stale-file");
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/var/lib/nodeswap/swapfile", c.root);
        assert_int_equal(chmod(path, 0600), 0);
        /* 40 KiB is no whole number of 16 KiB pages: make it 64 KiB, header still for 4 KiB pages. */
        int fd = open(path, O_RDWR | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, 64 * KiB), 0);
        assert_int_equal(swap_header_write(fd, 64 * KiB, 4096, "nodeswap"), 0);
        close(fd);
        load(&c, "stale-file", "[Swap]\nBackend=file\n[File]\nSize=64K\nEncrypt=no\n[Kubelet]\nSwapBehavior=LimitedSwap\n");
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_int_equal(find(&c.plan, ACTION_CLEAR_REVERTED, NULL), 0);
        int mkswap = find(&c.plan, ACTION_FILE_MKSWAP, "/var/lib/nodeswap/swapfile");
        int on = find(&c.plan, ACTION_SWAPON, "/var/lib/nodeswap/swapfile");
        assert_true(mkswap >= 0 && mkswap < on);
        assert_string_equal(c.plan.actions[mkswap].now, "header for 4096-byte pages");
        assert_string_equal(c.plan.actions[mkswap].want, "header for 16384-byte pages");
        int dropin = find(&c.plan, ACTION_DROPIN_WRITE, NULL);
        assert_string_equal(c.plan.actions[dropin].now, "NoSwap");
        /* a k3s kubelet without --config has no default evictionHard: the drop-in adds the threshold */
        assert_string_equal(c.plan.actions[dropin].want, "LimitedSwap, evictionHard memory.available 100Mi");
        assert_true(find(&c.plan, ACTION_RESTART_UNIT, "k3s.service") > dropin);
        done(&c);

        /* 40 KiB cannot hold whole 16 KiB pages: the policy's 32 KiB differs, so the unused file is remade. */
        Case sz = {};
        fixture_copy(&sz, "stale-file");
        snprintf(path, sizeof path, "%s/var/lib/nodeswap/swapfile", sz.root);
        assert_int_equal(chmod(path, 0600), 0);
        load(&sz, "stale-file", "[Swap]\nBackend=file\n[File]\nSize=40K\nEncrypt=no\n");
        run(&sz, NULL);
        int rm = find(&sz.plan, ACTION_FILE_REMOVE, "/var/lib/nodeswap/swapfile");
        int mk = find(&sz.plan, ACTION_FILE_CREATE, "/var/lib/nodeswap/swapfile");
        assert_true(rm >= 0 && rm < mk);
        assert_int_equal(sz.plan.actions[mk].file_create.size, 32 * KiB);
        done(&sz);

        /* The same file readable by others is refused, not swapped on. */
        Case bad = {};
        fixture_copy(&bad, "stale-file");
        snprintf(path, sizeof path, "%s/var/lib/nodeswap/swapfile", bad.root);
        assert_int_equal(chmod(path, 0644), 0);
        load(&bad, "stale-file", "[Swap]\nBackend=file\n[File]\nSize=32K\nEncrypt=no\n");
        run(&bad, NULL);
        assert_true(has_finding(&bad.plan, VERDICT_SWAPFILE_PERMISSIONS, "mode 0644"));
        done(&bad);
}

/* The swap to be turned off must fit in memory plus the swap that stays, unless --force. */
static void test_swapoff_fit_check(void **state) {
        Case c = {};
        load(&c, "rpi-untouched", FILE_POLICY);
        c.host.swaps[0].used = 10 * GiB;        /* zram0 */
        c.host.mem_available = 1 * GiB;
        run(&c, NULL);
        /* 10 GiB out, 1 GiB + a fresh 4 GiB file (less one 16 KiB page) in: 5 GiB missing. */
        assert_true(has_finding(&c.plan, VERDICT_SWAPOFF_NO_ROOM, "missing"));
        assert_true(has_finding(&c.plan, VERDICT_SWAPOFF_NO_ROOM, "10.0 GiB"));
        plan_done(&c.plan);

        PlanOptions force = { .force = true };
        run(&c, &force);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_true(has_finding(&c.plan, VERDICT_SWAPOFF_FORCED, NULL));
        assert_true(find(&c.plan, ACTION_STOP_UNIT, "dev-zram0.swap") >= 0);
        done(&c);
}

/* Without Backend= nodeswap manages no swap and masks nothing; only what is set is touched. */
static void test_sysctl_only(void **state) {
        Case c = {};
        load(&c, "rpi-untouched", "[Sysctl]\nSwappiness=100\n");
        run(&c, NULL);
        assert_int_equal(c.plan.n_actions, 1);
        assert_int_equal(c.plan.actions[0].kind, ACTION_SYSCTL);
        assert_string_equal(c.plan.actions[0].target, "vm.swappiness");
        assert_string_equal(c.plan.actions[0].now, "60");
        assert_string_equal(c.plan.actions[0].want, "100");
        assert_int_equal(c.plan.actions[0].sysctl.value, 100);
        done(&c);
}

/* Without SwapBehavior= the kubelet is left alone even when swap changes. */
static void test_kubelet_left_alone(void **state) {
        Case c = {};
        load(&c, "rpi-untouched", "[Swap]\nBackend=file\n[File]\nSize=4G\n");
        run(&c, NULL);
        assert_int_equal(find(&c.plan, ACTION_DROPIN_WRITE, NULL), -1);
        assert_int_equal(find(&c.plan, ACTION_RESTART_UNIT, NULL), -1);
        done(&c);
}

/* Backend=none: all swap off, even swap nodeswap did not make. */
static void test_vps_backend_none(void **state) {
        Case c = {};
        load(&c, "vps-cgroupv1", "[Swap]\nBackend=none\n");
        run(&c, NULL);
        int off = find(&c.plan, ACTION_SWAPOFF, "/swapfile");
        assert_true(off >= 0);
        assert_string_equal(c.plan.actions[off].reason, "Backend=none: no swap on this node");
        assert_int_equal(c.plan.actions[off].swapoff.used, 1024 * KiB);
        assert_int_equal(count(&c.plan, ACTION_MASK_UNIT), ELEMENTSOF(default_conflicts));
        done(&c);
}

/* Backend=file on a VPS: its own /swapfile stays (with a warning); LimitedSwap on cgroup v1 is an
 * error (cgroup-v1-limitedswap), the same verdict as check's: apply refuses it. */
static void test_vps_file(void **state) {
        Case c = {};
        load(&c, "vps-cgroupv1", "[Swap]\nBackend=file\n[File]\nSize=1G\n[Kubelet]\nSwapBehavior=LimitedSwap\n");
        run(&c, NULL);
        assert_int_equal(find(&c.plan, ACTION_SWAPOFF, "/swapfile"), -1);
        assert_true(has_finding(&c.plan, VERDICT_SWAP_UNMANAGED, "/swapfile: swap not made by nodeswap"));
        assert_true(has_finding(&c.plan, VERDICT_SWAP_UNMANAGED, "swapfile.swap"));
        assert_true(has_finding(&c.plan, VERDICT_CGROUP_V1_LIMITEDSWAP, NULL));
        assert_true(find(&c.plan, ACTION_RESTART_UNIT, "kubelet.service") >= 0);
        done(&c);
}

/* The storage and file system under the file are the swap file backend's decision. */
static void test_file_storage_and_fs_refused(void **state) {
        Case c = {};
        load(&c, "vps-cgroupv1", "[Swap]\nBackend=file\n[File]\nSize=1G\nStorage=nvme ssd\n");
        run(&c, NULL);
        assert_true(has_finding(&c.plan, VERDICT_SWAPFILE_STORAGE, "vda"));
        assert_true(has_finding(&c.plan, VERDICT_SWAPFILE_STORAGE, "Storage="));
        assert_int_equal(find(&c.plan, ACTION_FILE_CREATE, NULL), -1);
        done(&c);

        /* /var/lib/nodeswap on a tmpfs */
        Case t = {};
        fixture_copy(&t, "rpi-untouched");
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/proc/self/mountinfo", t.root);
        FILE *f = fopen(path, "ae");
        assert_non_null(f);
        fputs("90 28 0:50 / /var/lib/nodeswap rw,relatime shared:40 - tmpfs tmpfs rw,size=1048576k\n", f);
        fclose(f);
        snprintf(path, sizeof path, "%s/var/lib/nodeswap", t.root);
        assert_int_equal(mkdir(path, 0700), 0);
        load(&t, "rpi-untouched", "[Swap]\nBackend=file\n[File]\nSize=1G\n");
        run(&t, NULL);
        assert_true(has_finding(&t.plan, VERDICT_SWAPFILE_FILESYSTEM, "tmpfs"));
        done(&t);

        /* more than the file system has */
        Case big = {};
        load(&big, "rpi-untouched", "[Swap]\nBackend=file\n[File]\nSize=64T\n");
        run(&big, NULL);
        assert_true(has_finding(&big.plan, VERDICT_SWAPFILE_NO_SPACE, "free"));
        done(&big);
}

/* No zram in the kernel: an error that says what to do. */
static void test_vps_no_zram(void **state) {
        Case c = {};
        load(&c, "vps-cgroupv1", "[Swap]\nBackend=zram\n");
        run(&c, NULL);
        assert_true(has_finding(&c.plan, VERDICT_ZRAM_UNAVAILABLE, NULL));
        done(&c);
}

/* Masks already in place are not redone; the plan is stable when run twice. */
static void test_plan_is_pure(void **state) {
        Case c = {};
        load(&c, "rpi-untouched", FILE_POLICY);
        run(&c, NULL);
        Plan again = {};
        assert_int_equal(verdict_plan(&c.policy, &c.host, NULL, &again), 0);
        assert_int_equal(again.n_actions, c.plan.n_actions);
        for (size_t i = 0; i < again.n_actions; i++) {
                assert_int_equal(again.actions[i].kind, c.plan.actions[i].kind);
                assert_string_equal(strempty(again.actions[i].target), strempty(c.plan.actions[i].target));
        }
        plan_done(&again);
        done(&c);
}

/* --- swap files recorded in the state (swap_file=) at a [File] Path= the policy no longer names --- */

#define OLD_FILE "/var/lib/nodeswap/swapfile"
#define NEW_FILE "/var/lib/nodeswap/swapfile-new"
#define MOVED_POLICY                                                                                                   \
        "[Swap]\nBackend=zram file\n[Zram]\nSize=8G\nAlgorithm=zstd lz4\nPriority=100\n"                               \
        "[File]\nPath=" NEW_FILE "\nSize=40K\nPriority=10\nEncrypt=no\n[Sysctl]\nSwappiness=60\nPageCluster=0\n"                  \
        "[Kubelet]\nSwapBehavior=LimitedSwap\n"

typedef enum OldFile {
        OLD_ACTIVE,             /* still swapped on, as nodeswap left it */
        OLD_INACTIVE,           /* off (after a reboot) */
        OLD_SYMLINK,            /* the recorded path is now a symlink to a labelled swap file */
        OLD_UNLABELLED,         /* a swap area, active, whose label is not nodeswap's */
        OLD_GONE,               /* deleted by hand */
} OldFile;

static void sh(const char *fmt, ...) _printf_(1, 2);
static void sh(const char *fmt, ...) {
        char cmd[PATH_MAX * 4];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(cmd, sizeof cmd, fmt, ap);
        va_end(ap);
        assert_int_equal(system(cmd), 0);
}

/* A copy of "matching" (its swap file at OLD_FILE is on) whose state records OLD_FILE as nodeswap's,
 * changed as `old` says, probed with policy_text. */
static void load_recorded(Case *c, const char *as, OldFile old, const char *policy_text) {
        snprintf(c->root, sizeof c->root, "%s/%s", tmpdir, as);
        sh("rm -rf '%s' && cp -a '%s/matching' '%s'", c->root, FIXTURE_DIR, c->root);
        sh("echo 'swap_file=" OLD_FILE "' >> '%s/var/lib/nodeswap/state'", c->root);
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s" OLD_FILE, c->root);
        assert_int_equal(chmod(path, 0600), 0);
        if (old != OLD_ACTIVE && old != OLD_UNLABELLED)
                sh("sed -i '\\|^" OLD_FILE " |d' '%s/proc/swaps'", c->root);
        if (old == OLD_SYMLINK)
                sh("mv '%s' '%s.real' && ln -s swapfile.real '%s'", path, path, path);
        if (old == OLD_GONE)
                assert_int_equal(unlink(path), 0);
        if (old == OLD_UNLABELLED) {
                int fd = open(path, O_RDWR | O_CLOEXEC);
                assert_true(fd >= 0);
                assert_int_equal(swap_header_write(fd, 40 * KiB, 4096, "someone"), 0);
                close(fd);
        }
        load(c, NULL, policy_text);
}

/* Path= moved: the new file comes up, then the old one goes off, then it is deleted; the next
 * run (the old file gone, the new one on) has nothing to do. */
static void test_moved_path_old_file_deleted(void **state) {
        Case c = {};
        load_recorded(&c, "moved-active", OLD_ACTIVE, MOVED_POLICY);
        assert_int_equal(host_find_swap(&c.host, OLD_FILE)->owner, SWAP_OWNER_NODESWAP);
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_false(has_finding(&c.plan, VERDICT_SWAP_UNMANAGED, NULL));
        int create = find(&c.plan, ACTION_FILE_CREATE, NEW_FILE);
        int off = find(&c.plan, ACTION_SWAPOFF, OLD_FILE);
        int rm = find(&c.plan, ACTION_FILE_REMOVE, OLD_FILE);
        assert_true(create >= 0 && create < off && off < rm);
        assert_string_equal(c.plan.actions[rm].reason, "created by nodeswap, no longer the policy's Path=");
        assert_string_equal(c.plan.actions[off].reason, "created by nodeswap, no longer the policy's Path=");
        assert_int_equal(count(&c.plan, ACTION_FILE_REMOVE), 1);
        done(&c);
}

/* A recorded file that is off (after a reboot) is deleted the same way, without a swapoff. */
static void test_recorded_inactive_file_deleted(void **state) {
        Case c = {};
        load_recorded(&c, "moved-inactive", OLD_INACTIVE, MOVED_POLICY);
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_int_equal(find(&c.plan, ACTION_SWAPOFF, OLD_FILE), -1);
        int rm = find(&c.plan, ACTION_FILE_REMOVE, OLD_FILE);
        assert_true(rm > find(&c.plan, ACTION_FILE_CREATE, NEW_FILE));
        assert_string_equal(c.plan.actions[rm].now, "present, off");
        done(&c);
}

/* A recorded path that became a symlink, or a file without nodeswap's label, is never deleted. */
static void test_recorded_file_not_ours_any_more(void **state) {
        static const struct {
                const char *as;
                OldFile old;
                const char *warning;
        } cases[] = {
                { "moved-symlink", OLD_SYMLINK, "is no longer a regular file" },
                { "moved-unlabelled", OLD_UNLABELLED, "no longer carries nodeswap's swap label" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Case c = {};
                load_recorded(&c, cases[i].as, cases[i].old, MOVED_POLICY);
                run(&c, NULL);
                assert_int_equal(plan_errors(&c.plan), 0);
                assert_int_equal(find(&c.plan, ACTION_FILE_REMOVE, NULL), -1);
                assert_int_equal(find(&c.plan, ACTION_SWAPOFF, OLD_FILE), -1);
                assert_true(has_finding(&c.plan, VERDICT_SWAPFILE_RECORD_LEFT_ALONE, cases[i].warning));
                done(&c);
        }
        /* The unlabelled one is active: someone else's swap now, kept on with the usual warning. */
        Case u = {};
        load_recorded(&u, "moved-unlabelled", OLD_UNLABELLED, MOVED_POLICY);
        assert_int_equal(host_find_swap(&u.host, OLD_FILE)->owner, SWAP_OWNER_OTHER);
        run(&u, NULL);
        assert_true(has_finding(&u.plan, VERDICT_SWAP_UNMANAGED, NULL));
        done(&u);
}

/* A recorded file that is gone is only forgotten: no action, no warning. */
static void test_recorded_file_gone(void **state) {
        Case c = {};
        load_recorded(&c, "moved-gone", OLD_GONE, MOVED_POLICY);
        assert_false(c.host.recorded_files[0].exists);
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_int_equal(find(&c.plan, ACTION_FILE_REMOVE, NULL), -1);
        assert_false(has_finding(&c.plan, VERDICT_SWAPFILE_RECORD_LEFT_ALONE, NULL));
        assert_false(has_finding(&c.plan, VERDICT_SWAP_UNMANAGED, OLD_FILE));
        done(&c);
}

/* Backend= without file (file -> zram): the file at the policy's Path= goes off and stays on disk. */
static void test_recorded_policy_file_kept_without_file_backend(void **state) {
        Case c = {};
        load_recorded(&c, "to-zram", OLD_ACTIVE,
                      "[Swap]\nBackend=zram\n[Zram]\nSize=8G\nAlgorithm=zstd lz4\nPriority=100\n"
                      "[Sysctl]\nSwappiness=60\nPageCluster=0\n[Kubelet]\nSwapBehavior=LimitedSwap\n");
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_true(find(&c.plan, ACTION_SWAPOFF, OLD_FILE) >= 0);
        assert_int_equal(find(&c.plan, ACTION_FILE_REMOVE, NULL), -1);
        done(&c);
}

/* revert swaps every recorded file off; --purge deletes each of them, not only the policy's Path=. */
static void test_revert_purge_recorded_files(void **state) {
        Case c = {};
        load_recorded(&c, "revert-recorded", OLD_ACTIVE, MOVED_POLICY);
        /* the new file exists too, recorded and off */
        sh("cp -a '%s" OLD_FILE "' '%s" NEW_FILE "' && echo 'swap_file=" NEW_FILE "' >> '%s/var/lib/nodeswap/state'",
           c.root, c.root, c.root);
        host_state_done(&c.host);
        assert_int_equal(probe(c.root, &c.policy, &c.host), 0);
        c.policy.backends = 0;  /* what cli_load does for revert */

        PlanOptions o = { .revert = true };
        run(&c, &o);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_true(find(&c.plan, ACTION_SWAPOFF, OLD_FILE) >= 0);
        assert_int_equal(find(&c.plan, ACTION_FILE_REMOVE, NULL), -1);
        plan_done(&c.plan);

        PlanOptions purge = { .revert = true, .purge = true };
        run(&c, &purge);
        assert_int_equal(plan_errors(&c.plan), 0);
        int off = find(&c.plan, ACTION_SWAPOFF, OLD_FILE);
        int rm_old = find(&c.plan, ACTION_FILE_REMOVE, OLD_FILE);
        int rm_new = find(&c.plan, ACTION_FILE_REMOVE, NEW_FILE);
        assert_true(off >= 0 && rm_old > off && rm_new >= 0);
        assert_int_equal(count(&c.plan, ACTION_FILE_REMOVE), 2);
        done(&c);
}

/* --- resizing the active swap file: every step of the bridge is an action --- */

#define BRIDGE "/var/lib/nodeswap/.#swapfile.bridge"

/* The plan's actions on files below /var/lib/nodeswap, as "kind target" lines. */
static char *file_steps(const Plan *p) {
        char *s = strdup("");
        assert_non_null(s);
        for (size_t i = 0; i < p->n_actions; i++) {
                const Action *a = &p->actions[i];
                if (!a->target || !startswith(a->target, "/var/lib/nodeswap/"))
                        continue;
                char *n = strdup_printf("%s%s %s\n", s, action_kind_to_string(a->kind), a->target);
                assert_non_null(n);
                free(s);
                s = n;
        }
        return s;
}

typedef enum Stopped {
        STOPPED_NOWHERE,        /* a fresh start: the old file on, no bridge */
        STOPPED_BRIDGE_ON,      /* killed after the bridge came on */
        STOPPED_OLD_OFF,        /* ... after the old file went off */
        STOPPED_NEW_ON,         /* ... after the new file came on (the bridge still on) */
        STOPPED_BRIDGE_OFF,     /* ... after the bridge went off (not yet deleted) */
} Stopped;

/* A copy of "matching" (its 40 KiB swap file on at priority 10) as a resize stopped at `at`
 * left it, probed with a policy that wants size_k KiB at priority prio. */
static void load_resize(Case *c, const char *as, Stopped at, int size_k, int prio) {
        snprintf(c->root, sizeof c->root, "%s/%s", tmpdir, as);
        sh("rm -rf '%s' && cp -a '%s/matching' '%s' && chmod 0600 '%s" OLD_FILE "'", c->root, FIXTURE_DIR, c->root,
           c->root);
        if (at != STOPPED_NOWHERE) {
                /* the bridge: recorded before it was made, labelled as nodeswap labels it */
                char path[PATH_MAX + 64];
                snprintf(path, sizeof path, "%s" BRIDGE, c->root);
                int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
                assert_true(fd >= 0);
                assert_int_equal(ftruncate(fd, 64 * KiB), 0);
                assert_int_equal(swap_header_write(fd, 64 * KiB, 4096, "nodeswap"), 0);
                close(fd);
                sh("echo 'swap_file=" BRIDGE "' >> '%s/var/lib/nodeswap/state'", c->root);
                if (at != STOPPED_BRIDGE_OFF)
                        sh("printf '%%-40s%%s\\t\\t%%s\\t\\t%%s\\t\\t%%s\\n' '" BRIDGE "' file 60 0 %d >> '%s/proc/swaps'",
                           prio, c->root);
        }
        if (at == STOPPED_OLD_OFF)
                sh("sed -i '\\|^" OLD_FILE " |d' '%s/proc/swaps'", c->root);
        if (at == STOPPED_NEW_ON || at == STOPPED_BRIDGE_OFF) {
                sh("truncate -s %dK '%s" OLD_FILE "'", size_k, c->root);
                sh("sed -i 's|^\\(" OLD_FILE " *file\\s*\\)36\\(\\s*0\\s*\\)10$|\\1%d\\2%d|' '%s/proc/swaps'",
                   size_k - 4, prio, c->root);
        }
        char policy[512];
        snprintf(policy, sizeof policy,
                 "[Swap]\nBackend=zram file\n[Zram]\nSize=8G\nAlgorithm=zstd lz4\nPriority=100\n"
                 "[File]\nSize=%dK\nPriority=%d\nEncrypt=no\n[Sysctl]\nSwappiness=60\nPageCluster=0\n"
                 "[Kubelet]\nSwapBehavior=LimitedSwap\n", size_k, prio);
        load(c, NULL, policy);
}

static void assert_steps(const Plan *p, const char *want) {
        _cleanup_free_ char *got = file_steps(p);
        if (!streq(got, want))
                fail_msg("file steps:\n%s\nwant:\n%s", got, want);
}

/* A new size: the bridge comes on, the old file goes off and is made anew, the bridge goes. */
static void test_file_resize_steps(void **state) {
        Case c = {};
        load_resize(&c, "resize", STOPPED_NOWHERE, 80, 10);
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_steps(&c.plan,
                     "file-create " BRIDGE "\n"
                     "swapoff " OLD_FILE "\n"
                     "file-remove " OLD_FILE "\n"
                     "file-create " OLD_FILE "\n"
                     "swapoff " BRIDGE "\n"
                     "file-remove " BRIDGE "\n");
        const Action *b = &c.plan.actions[find(&c.plan, ACTION_FILE_CREATE, BRIDGE)];
        assert_int_equal(b->file_create.size, swapfile_bridge_size(0, c.host.page_size));
        assert_int_equal(b->file_create.priority, 10);
        assert_non_null(strstr(b->reason, "bridge"));
        assert_int_equal(c.plan.actions[find(&c.plan, ACTION_FILE_CREATE, OLD_FILE)].file_create.size, 80 * KiB);
        done(&c);

        /* A new priority alone: the file is kept and swapped on again behind the bridge. */
        Case p = {};
        load_resize(&p, "reprio", STOPPED_NOWHERE, 40, 20);
        run(&p, NULL);
        assert_int_equal(plan_errors(&p.plan), 0);
        assert_steps(&p.plan,
                     "file-create " BRIDGE "\n"
                     "swapoff " OLD_FILE "\n"
                     "swapon " OLD_FILE "\n"
                     "swapoff " BRIDGE "\n"
                     "file-remove " BRIDGE "\n");
        assert_int_equal(p.plan.actions[find(&p.plan, ACTION_SWAPON, OLD_FILE)].swapon.priority, 20);
        done(&p);
}

/* Stopped after any step, the next run plans the steps that remain, and no more. */
static void test_file_resize_rerun(void **state) {
        static const struct {
                const char *as;
                Stopped at;
                const char *steps;
        } cases[] = {
                { "resize-bridge-on", STOPPED_BRIDGE_ON,
                  "swapoff " OLD_FILE "\nfile-remove " OLD_FILE "\nfile-create " OLD_FILE "\n"
                  "swapoff " BRIDGE "\nfile-remove " BRIDGE "\n" },
                { "resize-old-off", STOPPED_OLD_OFF,
                  "file-remove " OLD_FILE "\nfile-create " OLD_FILE "\nswapoff " BRIDGE "\nfile-remove " BRIDGE "\n" },
                { "resize-new-on", STOPPED_NEW_ON, "swapoff " BRIDGE "\nfile-remove " BRIDGE "\n" },
                { "resize-bridge-off", STOPPED_BRIDGE_OFF, "file-remove " BRIDGE "\n" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Case c = {};
                load_resize(&c, cases[i].as, cases[i].at, 80, 10);
                run(&c, NULL);
                if (plan_errors(&c.plan) != 0)
                        fail_msg("%s: %s", cases[i].as, c.plan.findings.f[0].message);
                assert_steps(&c.plan, cases[i].steps);
                done(&c);
        }
}

/* No room for the bridge: refused, with a hint at --force, which swaps the old file off first. */
static void test_file_resize_no_room(void **state) {
        Case c = {};
        load_resize(&c, "resize-no-room", STOPPED_NOWHERE, 80, 10);
        c.host.file.fs_free = 20 * MiB;     /* the bridge wants 16 MiB + its margin */
        run(&c, NULL);
        assert_true(has_finding(&c.plan, VERDICT_SWAPFILE_NO_SPACE, "bridge"));
        assert_int_equal(find(&c.plan, ACTION_FILE_CREATE, NULL), -1);
        plan_done(&c.plan);

        PlanOptions force = { .force = true };
        run(&c, &force);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_steps(&c.plan, "swapoff " OLD_FILE "\nfile-remove " OLD_FILE "\nfile-create " OLD_FILE "\n");
        plan_done(&c.plan);

        /* not even without the old file */
        c.host.file.fs_free = 0;
        c.host.file.allocated = 40 * KiB;
        run(&c, &force);
        assert_true(has_finding(&c.plan, VERDICT_SWAPFILE_NO_SPACE, "counting the old file's space"));
        done(&c);
}

static int setup(void **state) {
        return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        return system(cmd) == 0 ? 0 : -1;
}

/* --- [File] Encrypt= (probe/crypt.h) --- */

#define CRYPT_POLICY(encrypt)                                                                                          \
        "[Swap]\nBackend=zram file\n[Zram]\nSize=8G\nAlgorithm=zstd lz4\nPriority=100\n"                               \
        "[File]\nSize=64K\nPriority=10\nEncrypt=" encrypt "\n[Sysctl]\nSwappiness=60\nPageCluster=0\n"                \
        "[Kubelet]\nSwapBehavior=LimitedSwap\n"

/* The matching node with its swap file at 64 KiB: plain (a swap header, on as itself in
 * /proc/swaps), or encrypted (the marker page; /proc/swaps lists its mapping dm-0, whose name,
 * slave loop0 and loop0's backing file and direct I/O are in sysfs as the kernel shows them). */
static void load_crypt_node(Case *c, const char *as, bool encrypted, const char *policy_text) {
        snprintf(c->root, sizeof c->root, "%s/%s", tmpdir, as);
        /* every block written, as nodeswap makes its files (no hole for the allocation check) */
        sh("rm -rf '%s' && cp -a '%s/matching' '%s' && dd if=/dev/zero of='%s" OLD_FILE "' bs=1K count=64 status=none && "
           "chmod 0600 '%s" OLD_FILE "'",
           c->root, FIXTURE_DIR, c->root, c->root, c->root);
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s" OLD_FILE, c->root);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        assert_true(fd >= 0);
        if (encrypted) {
                char page[CRYPT_DATA_OFFSET] = CRYPT_MARKER_MAGIC "\n";
                assert_int_equal(pwrite(fd, page, sizeof page, 0), (ssize_t) sizeof page);
                sh("sed -i '\\|^" OLD_FILE " |d' '%s/proc/swaps' && "
                   "printf '%%-40s%%s\\t%%s\\t\\t%%s\\t\\t%%s\\n' /dev/dm-0 partition 56 0 10 >> '%s/proc/swaps' && "
                   "mkdir -p '%s/sys/block/dm-0/dm' '%s/sys/block/dm-0/slaves/loop0' '%s/sys/block/loop0/loop' && "
                   "echo nodeswap-var-lib-nodeswap-swapfile > '%s/sys/block/dm-0/dm/name' && "
                   "echo " OLD_FILE " > '%s/sys/block/loop0/loop/backing_file' && echo 1 > '%s/sys/block/loop0/loop/dio'",
                   c->root, c->root, c->root, c->root, c->root, c->root, c->root, c->root);
        } else {
                assert_int_equal(swap_header_write(fd, 64 * KiB, 4096, "nodeswap"), 0);
                sh("sed -i 's|^\\(" OLD_FILE " *file\\s*\\)36\\(\\s\\)|\\160\\2|' '%s/proc/swaps'", c->root);
        }
        close(fd);
        load(c, NULL, policy_text);
}

/* Encrypt=yes on a node with a plain file: made anew through the bridge, the old file overwritten
 * before it goes, the bridge and the new file encrypted. */
static void test_encrypt_switch_on(void **state) {
        Case c = {};
        load_crypt_node(&c, "crypt-on", false, CRYPT_POLICY("yes"));
        assert_false(c.host.file.encrypted);
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_steps(&c.plan,
                     "file-create " BRIDGE "\n"
                     "swapoff " OLD_FILE "\n"
                     "file-remove " OLD_FILE "\n"
                     "file-create " OLD_FILE "\n"
                     "swapoff " BRIDGE "\n"
                     "file-remove " BRIDGE "\n");
        assert_true(c.plan.actions[find(&c.plan, ACTION_FILE_CREATE, BRIDGE)].file_create.encrypt);
        assert_true(c.plan.actions[find(&c.plan, ACTION_FILE_CREATE, OLD_FILE)].file_create.encrypt);
        assert_false(c.plan.actions[find(&c.plan, ACTION_SWAPOFF, OLD_FILE)].swapoff.encrypted);
        assert_true(c.plan.actions[find(&c.plan, ACTION_SWAPOFF, BRIDGE)].swapoff.encrypted);
        const Action *rm = &c.plan.actions[find(&c.plan, ACTION_FILE_REMOVE, OLD_FILE)];
        assert_true(rm->file_remove.overwrite);
        assert_string_equal(rm->reason, "[File] Encrypt=yes and the file is not encrypted: made anew below");
        assert_int_equal(c.plan.actions[find(&c.plan, ACTION_FILE_CREATE, OLD_FILE)].file_create.size, 64 * KiB);
        done(&c);
}

/* An encrypted node: /proc/swaps's dm-0 is known as the policy's file; nothing to do under the
 * default; Encrypt=no makes it plain again through the bridge; revert swaps the mapping off. */
static void test_encrypt_node(void **state) {
        Case c = {};
        load_crypt_node(&c, "crypt-node", true, CRYPT_POLICY("yes"));
        assert_true(c.host.file.encrypted);
        const SwapDevice *d = host_find_swap(&c.host, OLD_FILE);
        assert_non_null(d);
        assert_true(d->encrypted);
        assert_true(d->loop_dio);
        assert_string_equal(d->mapping, "/dev/dm-0");
        assert_int_equal(d->owner, SWAP_OWNER_NODESWAP);
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_steps(&c.plan, "");
        done(&c);

        Case n = {};
        load_crypt_node(&n, "crypt-off", true, CRYPT_POLICY("no"));
        run(&n, NULL);
        assert_int_equal(plan_errors(&n.plan), 0);
        assert_steps(&n.plan,
                     "file-create " BRIDGE "\n"
                     "swapoff " OLD_FILE "\n"
                     "file-remove " OLD_FILE "\n"
                     "file-create " OLD_FILE "\n"
                     "swapoff " BRIDGE "\n"
                     "file-remove " BRIDGE "\n");
        assert_true(n.plan.actions[find(&n.plan, ACTION_SWAPOFF, OLD_FILE)].swapoff.encrypted);
        assert_false(n.plan.actions[find(&n.plan, ACTION_FILE_CREATE, OLD_FILE)].file_create.encrypt);
        assert_false(n.plan.actions[find(&n.plan, ACTION_FILE_REMOVE, OLD_FILE)].file_remove.overwrite);
        done(&n);

        Case r = {};
        load_crypt_node(&r, "crypt-revert", true, CRYPT_POLICY("yes"));
        run(&r, &(PlanOptions) { .revert = true });
        int i = find(&r.plan, ACTION_SWAPOFF, OLD_FILE);
        assert_true(i >= 0);
        assert_true(r.plan.actions[i].swapoff.encrypted);
        done(&r);
}

/* Off after a reboot: swapped on through a new mapping; a marker file of the wrong size is made anew. */
static void test_encrypt_off(void **state) {
        Case c = {};
        load_crypt_node(&c, "crypt-boot", true, CRYPT_POLICY("yes"));
        sh("sed -i '\\|^/dev/dm-0 |d' '%s/proc/swaps' && rm -rf '%s/sys/block/dm-0' '%s/sys/block/loop0'",
           c.root, c.root, c.root);
        done(&c);
        c = (Case) {};
        snprintf(c.root, sizeof c.root, "%s/crypt-boot", tmpdir);
        load(&c, NULL, CRYPT_POLICY("yes"));
        run(&c, NULL);
        assert_int_equal(plan_errors(&c.plan), 0);
        assert_steps(&c.plan, "swapon " OLD_FILE "\n");
        const Action *a = &c.plan.actions[find(&c.plan, ACTION_SWAPON, OLD_FILE)];
        assert_true(a->swapon.encrypted);
        assert_non_null(strstr(a->reason, "mapped with a new key"));
        done(&c);

        Case w = {};
        snprintf(w.root, sizeof w.root, "%s/crypt-boot", tmpdir);
        sh("dd if=/dev/zero of='%s" OLD_FILE "' bs=1K seek=64 count=2 status=none", w.root);
        load(&w, NULL, CRYPT_POLICY("yes"));
        run(&w, NULL);
        assert_steps(&w.plan, "file-remove " OLD_FILE "\nfile-create " OLD_FILE "\n");
        done(&w);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rpi_to_file),
                cmocka_unit_test(test_rpi_stop_order),
                cmocka_unit_test(test_rpi_swap_loop_unit),
                cmocka_unit_test(test_rpi_swap_revert_timers_last),
                cmocka_unit_test(test_boot_never_restarts),
                cmocka_unit_test(test_inactive_kubelet_not_restarted),
                cmocka_unit_test(test_matching_is_empty),
                cmocka_unit_test(test_matching_zram_resize),
                cmocka_unit_test(test_algorithm_not_offered),
                cmocka_unit_test(test_zram_knobs_missing),
                cmocka_unit_test(test_zram_writeback_plan),
                cmocka_unit_test(test_writeback_timer_plan),
                cmocka_unit_test(test_writeback_file_plan),
                cmocka_unit_test(test_writeback_encrypt_switch),
                cmocka_unit_test(test_matching_revert),
                cmocka_unit_test(test_stale_file),
                cmocka_unit_test(test_swapoff_fit_check),
                cmocka_unit_test(test_sysctl_only),
                cmocka_unit_test(test_kubelet_left_alone),
                cmocka_unit_test(test_vps_backend_none),
                cmocka_unit_test(test_vps_file),
                cmocka_unit_test(test_vps_no_zram),
                cmocka_unit_test(test_file_storage_and_fs_refused),
                cmocka_unit_test(test_plan_is_pure),
                cmocka_unit_test(test_moved_path_old_file_deleted),
                cmocka_unit_test(test_recorded_inactive_file_deleted),
                cmocka_unit_test(test_recorded_file_not_ours_any_more),
                cmocka_unit_test(test_recorded_file_gone),
                cmocka_unit_test(test_recorded_policy_file_kept_without_file_backend),
                cmocka_unit_test(test_revert_purge_recorded_files),
                cmocka_unit_test(test_file_resize_steps),
                cmocka_unit_test(test_encrypt_switch_on),
                cmocka_unit_test(test_encrypt_node),
                cmocka_unit_test(test_encrypt_off),
                cmocka_unit_test(test_file_resize_rerun),
                cmocka_unit_test(test_file_resize_no_room),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
