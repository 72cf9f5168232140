/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemons' I/O: system.slice's io.latency target (plan/iolatency.h has the sources). */
#include "plan/iolatency.h"

#include <inttypes.h>

#include "probe/iolatency.h"

uint64_t io_latency_wanted(const Policy *p, const HostState *h) {
        const IoLatencyState *s = &h->io_latency;
        if (p->io_latency_usec == IO_LATENCY_NO || !s->shared_disk)
                return 0;
        if (p->io_latency_usec != IO_LATENCY_AUTO)
                return p->io_latency_usec;
        return s->rotational == 1 ? IO_LATENCY_AUTO_ROTATIONAL_USEC : IO_LATENCY_AUTO_USEC;
}

static char *target_words(unsigned major, unsigned minor, uint64_t usec) {
        if (usec == 0)
                return strdup_printf("no target on %u:%u", major, minor);
        if (usec % 1000 == 0)
                return strdup_printf("%u:%u target=%" PRIu64 "ms", major, minor, usec / 1000);
        return strdup_printf("%u:%u target=%" PRIu64 "us", major, minor, usec);
}

static int add(PlanContext *c, unsigned major, unsigned minor, uint64_t now, uint64_t usec, bool restore,
               const char *reason) {
        _cleanup_free_ char *n = target_words(major, minor, now);
        _cleanup_free_ char *w = target_words(major, minor, restore ? 0 : usec);
        if (!n || !w)
                return -ENOMEM;
        Action *a = plan_add(c->plan, ACTION_IO_LATENCY, IO_LATENCY_SLICE, n, w, reason);
        if (!a)
                return -ENOMEM;
        a->io_latency = (ActionIoLatency) { .major = major, .minor = minor, .usec = usec, .restore = restore };
        return 0;
}

int plan_io_latency(PlanContext *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        const IoLatencyState *s = &h->io_latency;
        const NodeswapState *st = &h->state;
        bool pods_swap = !c->o->revert && p->swap_behavior == SWAP_BEHAVIOR_LIMITED_SWAP &&
                         c->plan->swap_total_after > 0;
        uint64_t want = pods_swap ? io_latency_wanted(p, h) : 0;
        int r;

        if (!s->probed)
                return 0;
        if (want && (h->cgroup != CGROUP_V2 || !s->io_controller || s->kernel == 0)) {
                bool no_kernel = h->cgroup == CGROUP_V2 && s->io_controller;
                _cleanup_free_ char *why = no_kernel
                        ? strdup_printf("this kernel has no io.latency (CONFIG_BLK_CGROUP_IOLATENCY is not set, as "
                                        "in Debian's kernels; %s says so)", s->kernel_from)
                        : strdup(h->cgroup == CGROUP_V2 ? "the io controller is not in /sys/fs/cgroup/cgroup.controllers"
                                 : h->cgroup == CGROUP_UNKNOWN ? "no cgroup file system is mounted at /sys/fs/cgroup"
                                                               : "this node runs cgroup v1 (io.latency is cgroup v2's)");
                if (!why)
                        return -ENOMEM;
                r = plan_find(c->plan, VERDICT_IO_LATENCY_UNSUPPORTED, p, POLICY_KEY_KUBELET_IO_LATENCY_TARGET_SEC,
                              NULL, strdup(no_kernel ? "boot a kernel built with CONFIG_BLK_CGROUP_IOLATENCY=y, or set "
                                                       "IOLatencyTargetSec=no"
                                                     : "boot with cgroup v2 (systemd.unified_cgroup_hierarchy=1) and the "
                                                       "io controller, or set IOLatencyTargetSec=no"),
                              "swap is on %s, which %s is on too, but %s: system.slice gets no io.latency target",
                              s->shared_disk, s->shared_path, why);
                if (r < 0)
                        return r;
                want = 0;
        }

        uint64_t now = 0;
        bool recorded = st->io_latency_usec > 0;
        bool same_disk = recorded && st->io_latency_major == s->major && st->io_latency_minor == s->minor;
        if (want) {
                if (s->current && io_latency_parse(s->current, s->major, s->minor, &now) < 0)
                        now = 0;
                if (same_disk && st->io_latency_usec == want && now == want)
                        return 0;
        }
        if (recorded && !(want && same_disk)) {
                uint64_t then = 0;
                if (s->current && io_latency_parse(s->current, st->io_latency_major, st->io_latency_minor, &then) < 0)
                        then = 0;
                r = add(c, st->io_latency_major, st->io_latency_minor, then, st->io_latency_usec, true,
                        c->o->revert                             ? "nodeswap revert"
                        : want                                   ? "swap and the daemons now share another disk"
                        : p->io_latency_usec == IO_LATENCY_NO    ? "[Kubelet] IOLatencyTargetSec=no"
                        : !pods_swap                             ? "pods get no swap"
                                                                 : "swap no longer shares a disk with the daemons");
                if (r < 0)
                        return r;
        }
        if (!want)
                return 0;
        _cleanup_free_ char *why = strdup_printf(
                "[Kubelet] IOLatencyTargetSec=%s: swap and %s share %s, so pods' swap I/O would queue before the "
                "daemons' (Kubernetes' \"Swap memory management\")",
                p->io_latency_usec != IO_LATENCY_AUTO ? "(a value)"
                : s->rotational == 1                   ? "auto, 250ms for a rotational disk"
                                                       : "auto, 25ms",
                s->shared_path, s->shared_disk);
        if (!why)
                return -ENOMEM;
        return add(c, s->major, s->minor, now, want, false, why);
}
