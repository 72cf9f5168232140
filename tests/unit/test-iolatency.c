/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemons' I/O ([Kubelet] IOLatencyTargetSec=, issue 38) through probe() and plan(): the iolatency
 * tree lays sysfs out as the kernel does (/sys/class/block and /sys/block symlinks into
 * /sys/devices, a partition's directory below its disk's, dm-N/slaves/ linking its loop device,
 * loopN/loop/backing_file) for a VM with two virtio disks: / on vda1 (254:1 of vda, 254:0), /srv on
 * vdb1 of the rotational vdb, and nodeswap's encrypted swap file on /proc/swaps as /dev/dm-0 over
 * /dev/loop0 over /var/lib/nodeswap/swapfile. Each case works on its own copy of the tree. */
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
#include "plan/iolatency.h"
#include "plan/plan.h"
#include "probe/meminfo.h"
#include "probe/probe.h"

static char tmpdir[] = "/tmp/nodeswap-test-iolatency-XXXXXX";

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

static void load(Case *c, const char *policy_text) {
        PolicyContext ctx;
        PolicyErrors errors = {};
        char path[PATH_MAX];

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


static bool has_finding(const Plan *pl, Verdict v, const char *words) {
        for (size_t i = 0; i < pl->findings.n; i++)
                if (pl->findings.f[i].verdict == v && (!words || strstr(pl->findings.f[i].message, words)))
                        return true;
        return false;
}


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


#define SRV_FILE "[Swap]\nBackend=file\n[File]\nPath=/srv/swapfile\nSize=1G\n[Kubelet]\nSwapBehavior=LimitedSwap\nNoSwapUnits=\n"
#define VAR_FILE "[Swap]\nBackend=file\n[File]\nPath=/var/lib/nodeswap/swapfile\nSize=1G\n[Kubelet]\nSwapBehavior=LimitedSwap\nNoSwapUnits=\n"
#define NO_SWAPS "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"

static const Action *io_action(const Plan *p) {
        int i = find(p, ACTION_IO_LATENCY, IO_LATENCY_SLICE);
        return i < 0 ? NULL : &p->actions[i];
}

/* The policy's file is on vdb, which no daemon uses; the encrypted swap on /proc/swaps reaches vda
 * only through dm-0's one slave loop0, its backing file, that file's mount (/ on /dev/vda1) and the
 * partition's disk: vda is shared with /, not rotational, so auto is 25ms on 254:0. */
static void test_disk_through_dm_crypt_and_loop(void **state) {
        Case c = {};
        fixture_copy(&c, "iolatency");
        load(&c, SRV_FILE);
        const IoLatencyState *s = &c.host.io_latency;
        assert_true(c.host.swaps[0].encrypted);
        assert_string_equal(c.host.swaps[0].mapping, "/dev/dm-0");
        assert_string_equal(s->swap_disk, "vdb");   /* the policy's file first */
        assert_string_equal(s->shared_disk, "vda");
        assert_string_equal(s->shared_path, "/");
        assert_int_equal(s->major, 254);
        assert_int_equal(s->minor, 0);
        assert_int_equal(s->rotational, 0);
        assert_true(s->io_controller);
        run(&c, NULL);
        const Action *a = io_action(&c.plan);
        assert_non_null(a);
        assert_false(a->io_latency.restore);
        assert_int_equal(a->io_latency.major, 254);
        assert_int_equal(a->io_latency.minor, 0);
        assert_true(a->io_latency.usec == IO_LATENCY_AUTO_USEC);
        assert_string_equal(a->want, "254:0 target=25ms");
        assert_string_equal(a->now, "no target on 254:0");
        /* before the kubelet's restart */
        int restart = find(&c.plan, ACTION_RESTART_UNIT, NULL);
        assert_true(restart < 0 || restart > find(&c.plan, ACTION_IO_LATENCY, NULL));
        done(&c);
}

/* Swap only on vdb: no daemon shares it, nothing to do; once /var/lib/kubelet is mounted from
 * vdb1, vdb is shared and rotational: auto is 250ms on 254:16; a value is taken as written; no
 * gives nothing. */
static void test_shared_or_not(void **state) {
        Case apart = {};
        fixture_copy(&apart, "iolatency");
        put(&apart, "proc/swaps", NO_SWAPS);
        load(&apart, SRV_FILE);
        assert_string_equal(apart.host.io_latency.swap_disk, "vdb");
        assert_null(apart.host.io_latency.shared_disk);
        run(&apart, NULL);
        assert_null(io_action(&apart.plan));
        done(&apart);

        static const struct {
                const char *extra;
                uint64_t usec;
        } cases[] = { { "", IO_LATENCY_AUTO_ROTATIONAL_USEC }, { "IOLatencyTargetSec=75ms\n", 75000 },
                      { "IOLatencyTargetSec=no\n", 0 } };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                Case c = {};
                char conf[512];
                fixture_copy(&c, "iolatency");
                put(&c, "proc/swaps", NO_SWAPS);
                put(&c, "proc/self/mountinfo",
                    "27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
                    "30 22 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw\n"
                    "41 27 254:17 / /srv rw,relatime shared:24 - ext4 /dev/vdb1 rw\n"
                    "42 27 254:17 /kubelet /var/lib/kubelet rw,relatime shared:25 - ext4 /dev/vdb1 rw\n");
                snprintf(conf, sizeof conf, SRV_FILE "%s", cases[i].extra);
                load(&c, conf);
                assert_string_equal(c.host.io_latency.shared_disk, "vdb");
                assert_string_equal(c.host.io_latency.shared_path, "/var/lib/kubelet");
                assert_int_equal(c.host.io_latency.rotational, 1);
                run(&c, NULL);
                const Action *a = io_action(&c.plan);
                if (cases[i].usec == 0) {
                        assert_null(a);
                } else {
                        assert_non_null(a);
                        assert_true(a->io_latency.usec == cases[i].usec);
                        assert_int_equal(a->io_latency.minor, 16);
                }
                done(&c);
        }
}

/* cgroup v1 (a tmpfs at /sys/fs/cgroup), or v2 without the io controller: said, nothing done. */
static void test_unsupported(void **state) {
        Case v1 = {};
        fixture_copy(&v1, "iolatency");
        put(&v1, "proc/self/mountinfo",
            "27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
            "30 22 0:27 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
            "31 30 0:28 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:10 - cgroup cgroup rw,memory\n");
        load(&v1, VAR_FILE);
        run(&v1, NULL);
        assert_null(io_action(&v1.plan));
        assert_true(has_finding(&v1.plan, VERDICT_IO_LATENCY_UNSUPPORTED, "cgroup v1"));
        done(&v1);

        Case noio = {};
        fixture_copy(&noio, "iolatency");
        put(&noio, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu memory pids\n");
        load(&noio, VAR_FILE);
        run(&noio, NULL);
        assert_null(io_action(&noio.plan));
        assert_true(has_finding(&noio.plan, VERDICT_IO_LATENCY_UNSUPPORTED, "io controller"));
        done(&noio);

        /* A kernel without io.latency (CONFIG_BLK_CGROUP_IOLATENCY unset, as Debian's): system.slice
         * has the io controller and no io.latency file. */
        Case nolat = {};
        fixture_copy(&nolat, "iolatency");
        char lat[PATH_MAX * 2];
        snprintf(lat, sizeof lat, "%s/sys/fs/cgroup/system.slice/io.latency", nolat.root);
        assert_int_equal(unlink(lat), 0);
        load(&nolat, VAR_FILE);
        assert_int_equal(nolat.host.io_latency.kernel, 0);
        run(&nolat, NULL);
        assert_null(io_action(&nolat.plan));
        assert_true(has_finding(&nolat.plan, VERDICT_IO_LATENCY_UNSUPPORTED, "no io.latency"));
        assert_true(has_finding(&nolat.plan, VERDICT_IO_LATENCY_UNSUPPORTED, "/sys/fs/cgroup/system.slice/io.latency"));
        done(&nolat);

        /* No cgroup below the root with the io controller: the running kernel's config tells, one
         * way or the other; without it nothing tells and the target is set. */
        static const struct {
                const char *config;
                int kernel;
        } cfgs[] = { { "CONFIG_BLK_CGROUP=y\n# CONFIG_BLK_CGROUP_IOLATENCY is not set\nCONFIG_BLK_CGROUP_IOCOST=y\n", 0 },
                     { "CONFIG_BLK_CGROUP=y\nCONFIG_BLK_CGROUP_IOLATENCY=y\n", 1 },
                     { NULL, -1 } };
        for (size_t i = 0; i < ELEMENTSOF(cfgs); i++) {
                Case k = {};
                char ctl[PATH_MAX * 2];
                fixture_copy(&k, "iolatency");
                snprintf(ctl, sizeof ctl, "%s/sys/fs/cgroup/system.slice/cgroup.controllers", k.root);
                assert_int_equal(unlink(ctl), 0);
                put(&k, "proc/sys/kernel/osrelease", "6.12.118+deb12-amd64\n");
                if (cfgs[i].config)
                        put(&k, "boot/config-6.12.118+deb12-amd64", cfgs[i].config);
                load(&k, VAR_FILE);
                assert_int_equal(k.host.io_latency.kernel, cfgs[i].kernel);
                run(&k, NULL);
                if (cfgs[i].kernel == 0) {
                        assert_null(io_action(&k.plan));
                        assert_true(has_finding(&k.plan, VERDICT_IO_LATENCY_UNSUPPORTED, "/boot/config-6.12.118+deb12-amd64"));
                } else {
                        assert_false(has_finding(&k.plan, VERDICT_IO_LATENCY_UNSUPPORTED, NULL));
                }
                done(&k);
        }
}

/* nodeswap's recorded target in place: nothing to do; revert, a policy with no, or pods without
 * swap take it away (the recorded disk, whatever is shared now); another disk: the old one away
 * first, then the new one. */
static void test_recorded(void **state) {
        static const char rec[] = "reverted=no\nio_latency=254:0 25000\n";
        Case in_place = {};
        fixture_copy(&in_place, "iolatency");
        put(&in_place, "var/lib/nodeswap/state", rec);
        put(&in_place, "sys/fs/cgroup/system.slice/io.latency", "254:0 target=25000\n");
        load(&in_place, VAR_FILE);
        run(&in_place, NULL);
        assert_null(io_action(&in_place.plan));
        done(&in_place);

        PlanOptions rv = { .revert = true };
        const char *policies[] = { VAR_FILE, VAR_FILE "IOLatencyTargetSec=no\n",
                                   "[Swap]\nBackend=file\n[File]\nPath=/var/lib/nodeswap/swapfile\nSize=1G\n"
                                   "[Kubelet]\nSwapBehavior=NoSwap\n" };
        const char *why[] = { "nodeswap revert", "[Kubelet] IOLatencyTargetSec=no", "pods get no swap" };
        for (size_t i = 0; i < ELEMENTSOF(policies); i++) {
                Case c = {};
                fixture_copy(&c, "iolatency");
                put(&c, "var/lib/nodeswap/state", rec);
                put(&c, "sys/fs/cgroup/system.slice/io.latency", "254:0 target=25000\n");
                load(&c, policies[i]);
                if (i == 0)
                        c.policy.backends = 0;  /* what cli_load does for revert */
                run(&c, i == 0 ? &rv : NULL);
                const Action *a = io_action(&c.plan);
                assert_non_null(a);
                assert_true(a->io_latency.restore);
                assert_int_equal(a->io_latency.major, 254);
                assert_int_equal(a->io_latency.minor, 0);
                assert_string_equal(a->now, "254:0 target=25ms");
                assert_string_equal(a->want, "no target on 254:0");
                assert_string_equal(a->reason, why[i]);
                done(&c);
        }

        Case moved = {};
        fixture_copy(&moved, "iolatency");
        put(&moved, "var/lib/nodeswap/state", "reverted=no\nio_latency=8:0 25000\n");
        load(&moved, VAR_FILE);
        run(&moved, NULL);
        int first = find(&moved.plan, ACTION_IO_LATENCY, NULL);
        assert_true(first >= 0);
        assert_true(moved.plan.actions[first].io_latency.restore);
        assert_int_equal(moved.plan.actions[first].io_latency.major, 8);
        assert_false(moved.plan.actions[first + 1].io_latency.restore);
        assert_int_equal(moved.plan.actions[first + 1].kind, ACTION_IO_LATENCY);
        assert_int_equal(moved.plan.actions[first + 1].io_latency.major, 254);
        done(&moved);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_disk_through_dm_crypt_and_loop),
                cmocka_unit_test(test_shared_or_not),
                cmocka_unit_test(test_unsupported),
                cmocka_unit_test(test_recorded),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
