/* SPDX-License-Identifier: GPL-2.0-or-later */
/* [Kubelet] NoSwapUnits= (issue 25, part 2): the key's parser, what probe reads of each unit (the
 * unit's own MemorySwapMax= as systemd merges its files, the cgroup's memory.swap.max, nodeswap's
 * drop-ins), and what plan and check decide, on copies of the fixture trees with the files of a
 * real node added: memory.swap.max as the kernel prints it ("max\n", "0\n"), the control drop-in as
 * systemd's unit_write_setting() writes it, an operator's drop-in as systemctl edit leaves it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "plan/check.h"
#include "plan/plan.h"
#include "probe/noswap.h"
#include "probe/probe.h"

static char tmpdir[] = "/tmp/nodeswap-test-noswap-XXXXXX";

typedef struct Case {
        Policy policy;
        HostState host;
        Plan plan;
        char root[PATH_MAX];
} Case;

static void fixture_copy(Case *c, const char *name) {
        snprintf(c->root, sizeof c->root, "%s/%s", tmpdir, name);
        char cmd[PATH_MAX * 3];
        snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s/%s' '%s'", c->root, FIXTURE_DIR, name, c->root);
        assert_int_equal(system(cmd), 0);
}

/* root/rel with content, its directories made. */
static void put(const Case *c, const char *rel, const char *content) {
        char path[PATH_MAX * 2], cmd[PATH_MAX * 3];
        snprintf(path, sizeof path, "%s/%s", c->root, rel);
        snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s')\"", path);
        assert_int_equal(system(cmd), 0);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(content, f);
        fclose(f);
}

static int load_errors(Case *c, const char *policy_text, PolicyErrors *errors) {
        PolicyContext ctx;
        char path[PATH_MAX];
        assert_int_equal(probe_context(c->root, &ctx), 0);
        snprintf(path, sizeof path, "%s/policy.conf", tmpdir);
        FILE *f = fopen(path, "we");
        assert_non_null(f);
        fputs(policy_text, f);
        fclose(f);
        assert_int_equal(chmod(path, 0644), 0);
        return policy_load(c->root, path, &ctx, &c->policy, errors);
}

static void load(Case *c, const char *policy_text) {
        PolicyErrors errors = {};
        assert_int_equal(load_errors(c, policy_text, &errors), 0);
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
        memset(c, 0, sizeof *c);
}

static int find(const Plan *p, ActionKind kind, const char *target) {
        for (size_t i = 0; i < p->n_actions; i++)
                if (p->actions[i].kind == kind && (!target || streq_ptr(p->actions[i].target, target)))
                        return (int) i;
        return -1;
}

static bool has_finding(const Plan *pl, Verdict v, const char *words) {
        for (size_t i = 0; i < pl->findings.n; i++)
                if (pl->findings.f[i].verdict == v &&
                    (!words || strstr(pl->findings.f[i].message, words) || strstr(strempty(pl->findings.f[i].hint), words)))
                        return true;
        return false;
}

static const NoSwapUnit *unit_of(const HostState *h, const char *name) {
        for (size_t i = 0; i < h->n_no_swap_units; i++)
                if (streq(h->no_swap_units[i].name, name))
                        return &h->no_swap_units[i];
        return NULL;
}

#define LIMITED "[Swap]\nBackend=file\n[File]\nSize=4G\n[Kubelet]\nSwapBehavior=LimitedSwap\n"
#define CGROUP "sys/fs/cgroup/system.slice/k3s-agent.service/memory.swap.max"
#define CONTROL_TEXT                                                                                  \
        "# This is a drop-in unit file extension, created via \"systemctl set-property\"\n"         \
        "# or an equivalent operation. Do not edit.\n[Service]\nMemorySwapMax=0\n"

/* The key: "kubelet" by default, each line appends, an empty one empties the list, a name systemd
 * refuses or a type without MemorySwapMax= is an error naming the line, the key and the value. */
static void test_key(void **state) {
        Case c = {};
        fixture_copy(&c, "rpi-untouched");
        load(&c, LIMITED);
        assert_int_equal(strv_length(c.policy.no_swap_units), 1);
        assert_string_equal(c.policy.no_swap_units[0], "kubelet");
        done(&c);

        fixture_copy(&c, "rpi-untouched");
        load(&c, LIMITED "NoSwapUnits=system.slice\nNoSwapUnits=containerd.service system.slice\n");
        assert_int_equal(strv_length(c.policy.no_swap_units), 3);
        assert_string_equal(c.policy.no_swap_units[1], "system.slice");
        assert_string_equal(c.policy.no_swap_units[2], "containerd.service");
        assert_int_equal(c.policy.origin[POLICY_KEY_KUBELET_NO_SWAP_UNITS].line, 8);
        done(&c);

        fixture_copy(&c, "rpi-untouched");
        load(&c, LIMITED "NoSwapUnits=\n");
        assert_int_equal(strv_length(c.policy.no_swap_units), 0);
        assert_false(policy_wants_no_swap_units(&c.policy));
        done(&c);

        static const char *const bad[] = { "k3s.timer", "-.slice", "foo@.service", "a/b.service", "kubelet2" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                PolicyErrors errors = {};
                char text[256];
                fixture_copy(&c, "rpi-untouched");
                snprintf(text, sizeof text, LIMITED "NoSwapUnits=kubelet %s\n", bad[i]);
                assert_int_equal(load_errors(&c, text, &errors), -EINVAL);
                assert_int_equal(errors.n, 1);
                assert_int_equal(errors.errors[0].line, 7);
                assert_string_equal(errors.errors[0].key, "NoSwapUnits");
                assert_non_null(strstr(errors.errors[0].message, bad[i]));
                policy_errors_clear(&errors);
                done(&c);
        }
}

/* Pods get swap, k3s-agent's cgroup may swap: apply sets MemorySwapMax=0 before the restart,
 * and check does not warn about what apply fixes. */
static void test_plan_sets(void **state) {
        Case c = {};
        fixture_copy(&c, "rpi-untouched");
        put(&c, CGROUP, "max\n");
        load(&c, LIMITED);
        const NoSwapUnit *u = unit_of(&c.host, "k3s-agent.service");
        assert_non_null(u);
        assert_true(u->listed && u->kubelet && !u->recorded);
        assert_string_equal(u->cgroup, "system.slice/k3s-agent.service");
        assert_int_equal(u->cgroup_read, 1);
        assert_true(u->cgroup_swap_max == NO_SWAP_MAX);
        run(&c, NULL);
        int a = find(&c.plan, ACTION_UNIT_SWAP_MAX, "k3s-agent.service");
        assert_true(a >= 0);
        assert_false(c.plan.actions[a].unit_swap_max.restore);
        assert_string_equal(c.plan.actions[a].now, "memory.swap.max max");
        assert_string_equal(c.plan.actions[a].want, "MemorySwapMax=0");
        int restart = find(&c.plan, ACTION_RESTART_UNIT, "k3s-agent.service");
        assert_true(restart < 0 || a < restart);
        assert_false(has_finding(&c.plan, VERDICT_KUBELET_UNIT_SWAPPABLE, NULL));
        done(&c);

        /* The kubelet's unit not running (no cgroup): the property is set all the same. */
        fixture_copy(&c, "rpi-untouched");
        load(&c, LIMITED);
        assert_int_equal(unit_of(&c.host, "k3s-agent.service")->cgroup_read, 0);
        run(&c, NULL);
        a = find(&c.plan, ACTION_UNIT_SWAP_MAX, "k3s-agent.service");
        assert_true(a >= 0);
        assert_string_equal(c.plan.actions[a].now, "no cgroup");
        done(&c);

        /* systemd says the unit is not-found (probe_systemd()): SetUnitProperties would refuse it. */
        fixture_copy(&c, "rpi-untouched");
        load(&c, LIMITED "NoSwapUnits=containerd.service\n");
        for (size_t i = 0; i < c.host.n_no_swap_units; i++)
                if (streq(c.host.no_swap_units[i].name, "containerd.service"))
                        c.host.no_swap_units[i].loaded = 0;
        run(&c, NULL);
        assert_true(find(&c.plan, ACTION_UNIT_SWAP_MAX, "k3s-agent.service") >= 0);
        assert_int_equal(find(&c.plan, ACTION_UNIT_SWAP_MAX, "containerd.service"), -1);
        done(&c);

        /* A policy that gives pods no swap protects nothing and plans nothing. */
        fixture_copy(&c, "rpi-untouched");
        put(&c, CGROUP, "max\n");
        load(&c, "[Swap]\nBackend=file\n[File]\nSize=4G\n[Kubelet]\nSwapBehavior=NoSwap\n");
        run(&c, NULL);
        assert_int_equal(find(&c.plan, ACTION_UNIT_SWAP_MAX, NULL), -1);
        assert_false(has_finding(&c.plan, VERDICT_KUBELET_UNIT_SWAPPABLE, NULL));
        done(&c);
}

/* NoSwapUnits= empty: the operator opted out; nothing planned, and check warns. */
static void test_opt_out_warns(void **state) {
        Case c = {};
        fixture_copy(&c, "rpi-untouched");
        put(&c, CGROUP, "max\n");
        load(&c, LIMITED "NoSwapUnits=\n");
        run(&c, NULL);
        assert_int_equal(find(&c.plan, ACTION_UNIT_SWAP_MAX, NULL), -1);
        assert_true(has_finding(&c.plan, VERDICT_KUBELET_UNIT_SWAPPABLE, "k3s-agent.service may swap too (memory.swap.max max"));
        done(&c);

        /* Its cgroup already at 0 (someone else keeps it out): no warning. */
        fixture_copy(&c, "rpi-untouched");
        put(&c, CGROUP, "0\n");
        load(&c, LIMITED "NoSwapUnits=\n");
        run(&c, NULL);
        assert_false(has_finding(&c.plan, VERDICT_KUBELET_UNIT_SWAPPABLE, NULL));
        done(&c);
}

/* The unit's own MemorySwapMax= is honoured: merged as systemd merges drop-ins (by file name over
 * every unit directory, the last assignment wins, an empty one resets). */
static void test_operator_setting(void **state) {
        Case c = {};
        fixture_copy(&c, "rpi-untouched");
        put(&c, CGROUP, "max\n");
        put(&c, "etc/systemd/system/k3s-agent.service.d/override.conf", "[Service]\nMemorySwapMax=1G\n");
        load(&c, LIMITED);
        const NoSwapUnit *u = unit_of(&c.host, "k3s-agent.service");
        assert_string_equal(u->operator_where, "/etc/systemd/system/k3s-agent.service.d/override.conf:2");
        assert_string_equal(u->operator_value, "1G");
        run(&c, NULL);
        assert_int_equal(find(&c.plan, ACTION_UNIT_SWAP_MAX, NULL), -1);
        assert_true(has_finding(&c.plan, VERDICT_KUBELET_UNIT_SWAPPABLE,
                                "set MemorySwapMax=0 in /etc/systemd/system/k3s-agent.service.d/override.conf:2"));
        done(&c);

        /* A later drop-in (by name, in /usr/lib) resets it: nodeswap sets it again. And the same
         * name in /run is masked by /etc's. */
        fixture_copy(&c, "rpi-untouched");
        put(&c, "etc/systemd/system/k3s-agent.service.d/10-a.conf", "[Service]\nMemorySwapMax=2G\n");
        put(&c, "run/systemd/system/k3s-agent.service.d/10-a.conf", "[Service]\nMemorySwapMax=3G\n");
        put(&c, "usr/lib/systemd/system/k3s-agent.service.d/20-b.conf", "[Service]\n  MemorySwapMax=\n");
        load(&c, LIMITED);
        assert_null(unit_of(&c.host, "k3s-agent.service")->operator_where);
        run(&c, NULL);
        assert_true(find(&c.plan, ACTION_UNIT_SWAP_MAX, "k3s-agent.service") >= 0);
        done(&c);

        fixture_copy(&c, "rpi-untouched");
        put(&c, "etc/systemd/system/k3s-agent.service.d/30-c.conf", "[Service]\nMemorySwapMax=2G\n");
        put(&c, "run/systemd/system/k3s-agent.service.d/30-c.conf", "[Service]\nMemorySwapMax=\n");
        load(&c, LIMITED);
        assert_string_equal(unit_of(&c.host, "k3s-agent.service")->operator_value, "2G");
        done(&c);

        /* A control drop-in nodeswap did not record (systemctl set-property --runtime) is the
         * operator's too. */
        fixture_copy(&c, "rpi-untouched");
        put(&c, "run/systemd/system.control/k3s-agent.service.d/50-MemorySwapMax.conf", CONTROL_TEXT);
        load(&c, LIMITED);
        assert_string_equal(unit_of(&c.host, "k3s-agent.service")->operator_where,
                            "/run/systemd/system.control/k3s-agent.service.d/50-MemorySwapMax.conf:4");
        run(&c, NULL);
        assert_int_equal(find(&c.plan, ACTION_UNIT_SWAP_MAX, NULL), -1);
        done(&c);
}

#define MATCHING_POLICY                                                                                  \
        "[Swap]\nBackend=zram file\n[Zram]\nSize=8G\nAlgorithm=zstd lz4\nPriority=100\n"                 \
        "[File]\nSize=40K\nPriority=10\nEncrypt=no\n[Sysctl]\nSwappiness=60\nPageCluster=0\n"                       \
        "[Kubelet]\nSwapBehavior=LimitedSwap\n"

/* The matching node: nodeswap's control drop-in and record, nothing to do; after a reboot the
 * generator's drop-in instead, nothing to do either; its cgroup back at max: set again. */
static void test_matching(void **state) {
        Case c = {};
        fixture_copy(&c, "matching");
        put(&c, CGROUP, "0\n");
        load(&c, MATCHING_POLICY);
        const NoSwapUnit *u = unit_of(&c.host, "k3s-agent.service");
        assert_true(u->recorded && u->control_dropin && u->control_zero && !u->generator_dropin);
        assert_null(u->operator_where);         /* the recorded control drop-in is nodeswap's */
        run(&c, NULL);
        assert_int_equal(find(&c.plan, ACTION_UNIT_SWAP_MAX, NULL), -1);
        done(&c);

        fixture_copy(&c, "matching");
        assert_int_equal(system("rm -r /tmp/nodeswap-test-noswap-*/matching/run/systemd/system.control"), 0);
        put(&c, CGROUP, "0\n");
        put(&c, "run/systemd/generator/k3s-agent.service.d/50-nodeswap-no-swap.conf",
            "[Service]\nMemorySwapMax=0\n");
        load(&c, MATCHING_POLICY);
        run(&c, NULL);
        assert_int_equal(find(&c.plan, ACTION_UNIT_SWAP_MAX, NULL), -1);
        done(&c);

        fixture_copy(&c, "matching");
        put(&c, CGROUP, "max\n");
        load(&c, MATCHING_POLICY);
        run(&c, NULL);
        int a = find(&c.plan, ACTION_UNIT_SWAP_MAX, "k3s-agent.service");
        assert_true(a >= 0);
        assert_false(c.plan.actions[a].unit_swap_max.restore);
        done(&c);
}

/* The way back: revert, a policy without pod swap and a unit no longer listed each take away what
 * is nodeswap's: the recorded control drop-in (removed), the generator's (a reload). */
static void test_restore(void **state) {
        Case c = {};
        PlanOptions revert = { .revert = true };
        fixture_copy(&c, "matching");
        put(&c, CGROUP, "0\n");
        load(&c, MATCHING_POLICY);
        run(&c, &revert);
        int a = find(&c.plan, ACTION_UNIT_SWAP_MAX, "k3s-agent.service");
        assert_true(a >= 0);
        assert_true(c.plan.actions[a].unit_swap_max.restore);
        assert_true(c.plan.actions[a].unit_swap_max.remove_control);
        assert_string_equal(c.plan.actions[a].reason, "nodeswap revert");
        assert_string_equal(c.plan.actions[a].now, "memory.swap.max 0");
        done(&c);

        fixture_copy(&c, "matching");
        load(&c, "[Swap]\nBackend=zram file\n[Zram]\nSize=8G\nAlgorithm=zstd lz4\nPriority=100\n"
                 "[File]\nSize=40K\nPriority=10\nEncrypt=no\n[Sysctl]\nSwappiness=60\nPageCluster=0\n"
                 "[Kubelet]\nSwapBehavior=NoSwap\n");
        run(&c, NULL);
        a = find(&c.plan, ACTION_UNIT_SWAP_MAX, "k3s-agent.service");
        assert_true(a >= 0 && c.plan.actions[a].unit_swap_max.restore);
        assert_string_equal(c.plan.actions[a].reason, "the policy gives pods no swap");
        done(&c);

        fixture_copy(&c, "matching");
        load(&c, MATCHING_POLICY "NoSwapUnits=\nNoSwapUnits=system.slice\n");
        run(&c, NULL);
        a = find(&c.plan, ACTION_UNIT_SWAP_MAX, "k3s-agent.service");
        assert_true(a >= 0 && c.plan.actions[a].unit_swap_max.restore);
        assert_string_equal(c.plan.actions[a].reason, "no longer in [Kubelet] NoSwapUnits=");
        a = find(&c.plan, ACTION_UNIT_SWAP_MAX, "system.slice");
        assert_true(a >= 0 && !c.plan.actions[a].unit_swap_max.restore);
        done(&c);

        /* The operator's MemorySwapMax= written after nodeswap's apply wins: nodeswap takes its own away. */
        fixture_copy(&c, "matching");
        put(&c, "etc/systemd/system/k3s-agent.service.d/override.conf", "[Service]\nMemorySwapMax=512M\n");
        load(&c, MATCHING_POLICY);
        run(&c, NULL);
        a = find(&c.plan, ACTION_UNIT_SWAP_MAX, "k3s-agent.service");
        assert_true(a >= 0 && c.plan.actions[a].unit_swap_max.restore);
        assert_string_equal(c.plan.actions[a].want,
                            "MemorySwapMax=512M of /etc/systemd/system/k3s-agent.service.d/override.conf:2");
        done(&c);
}

/* Slices: their cgroup below their parents, as systemd builds it. */
static void test_slices(void **state) {
        Case c = {};
        fixture_copy(&c, "rpi-untouched");
        put(&c, "sys/fs/cgroup/system.slice/memory.swap.max", "max\n");
        put(&c, "sys/fs/cgroup/a.slice/a-b.slice/a-b-c.slice/memory.swap.max", "0\n");
        load(&c, LIMITED "NoSwapUnits=system.slice a-b-c.slice\n");
        assert_string_equal(unit_of(&c.host, "system.slice")->cgroup, "system.slice");
        assert_string_equal(unit_of(&c.host, "a-b-c.slice")->cgroup, "a.slice/a-b.slice/a-b-c.slice");
        assert_int_equal(unit_of(&c.host, "a-b-c.slice")->cgroup_read, 1);
        run(&c, NULL);
        int a = find(&c.plan, ACTION_UNIT_SWAP_MAX, "system.slice");
        assert_true(a >= 0);
        assert_string_equal(c.plan.actions[a].now, "memory.swap.max max");
        assert_true(find(&c.plan, ACTION_UNIT_SWAP_MAX, "a-b-c.slice") >= 0);     /* 0, but not nodeswap's yet */
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

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_key),
                cmocka_unit_test(test_plan_sets),
                cmocka_unit_test(test_opt_out_warns),
                cmocka_unit_test(test_operator_setting),
                cmocka_unit_test(test_matching),
                cmocka_unit_test(test_restore),
                cmocka_unit_test(test_slices),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
