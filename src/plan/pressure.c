/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/pressure.h"

#include <math.h>
#include <stdlib.h>

int pressure_pod_of(const char *container_cgroup, char **ret_pod_cgroup, char **ret_uid) {
        const char *slash = strrchr(container_cgroup, '/');
        *ret_pod_cgroup = *ret_uid = NULL;
        if (!slash)
                return 0;
        _cleanup_free_ char *pod = strndup(container_cgroup, (size_t) (slash - container_cgroup));
        if (!pod)
                return -ENOMEM;
        const char *last = strrchr(pod, '/');
        last = last ? last + 1 : pod;
        const char *u = NULL;
        size_t len = 0;
        const char *dash = strstr(last, "-pod");
        if (startswith(last, "kubepods") && dash && endswith(last, ".slice")) {
                u = dash + 4;                                   /* kubepods-burstable-pod<uid>.slice */
                len = strlen(u) - strlen(".slice");
        } else if (startswith(last, "pod")) {
                u = last + 3;                                   /* cgroupfs: pod<uid> */
                len = strlen(u);
        }
        if (!u || len == 0)
                return 0;
        char *uid = strndup(u, len);
        if (!uid)
                return -ENOMEM;
        for (char *x = uid; *x; x++)
                if (*x == '_')
                        *x = '-';
        *ret_pod_cgroup = TAKE_PTR(pod);
        *ret_uid = uid;
        return 0;
}

/* A pod, from its containers. */
typedef struct PodStall {
        char *cgroup, *uid;
        PodQos qos;
        double full_avg60;      /* the pod's memory.pressure, else its worst container's; NAN unknown */
        bool from_pod;          /* ... from the pod's own file */
        uint64_t swap_current;  /* summed; CGROUP_VALUE_UNKNOWN when no container has the file */
        uint64_t swap_max;      /* summed; CGROUP_VALUE_MAX when one is unlimited, UNKNOWN absent */
        uint64_t memory_max;    /* the same for memory.max */
} PodStall;

static uint64_t add_value(uint64_t sum, uint64_t v) {
        if (sum == CGROUP_VALUE_MAX || v == CGROUP_VALUE_MAX)
                return CGROUP_VALUE_MAX;
        if (v == CGROUP_VALUE_UNKNOWN)
                return sum;
        if (sum == CGROUP_VALUE_UNKNOWN)
                return v;
        return sum + v;
}

static void pod_stalls_free(PodStall *s, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(s[i].cgroup);
                free(s[i].uid);
        }
        free(s);
}

static int cmp_stall(const void *a, const void *b) {
        const PodStall *x = a, *y = b;
        /* unknown last, then the highest stall first, then by cgroup (stable) */
        bool xu = isnan(x->full_avg60), yu = isnan(y->full_avg60);
        if (xu != yu)
                return xu ? 1 : -1;
        if (!xu && x->full_avg60 != y->full_avg60)
                return x->full_avg60 > y->full_avg60 ? -1 : 1;
        return strcmp(x->cgroup, y->cgroup);
}

/* The pods of h->pressure_pods, highest stall first. */
static int pod_stalls(const HostState *h, PodStall **ret, size_t *ret_n) {
        PodStall *s = NULL;
        size_t n = 0;
        for (size_t i = 0; i < h->n_pressure_pods; i++) {
                const PodSwap *c = &h->pressure_pods[i];
                _cleanup_free_ char *pod = NULL, *uid = NULL;
                if (pressure_pod_of(c->name, &pod, &uid) < 0)
                        goto oom;
                if (!pod)
                        continue;
                PodStall *p = NULL;
                for (size_t j = 0; j < n && !p; j++)
                        if (streq(s[j].cgroup, pod))
                                p = &s[j];
                if (!p) {
                        PodStall *m = realloc(s, sizeof(PodStall) * (n + 1));
                        if (!m)
                                goto oom;
                        s = m;
                        p = &s[n++];
                        *p = (PodStall) { .cgroup = TAKE_PTR(pod), .uid = TAKE_PTR(uid), .qos = c->qos,
                                          .full_avg60 = NAN, .swap_current = CGROUP_VALUE_UNKNOWN,
                                          .swap_max = CGROUP_VALUE_UNKNOWN, .memory_max = CGROUP_VALUE_UNKNOWN };
                }
                const CgroupPressure *cp = &c->pressure;
                if (cp->pod.present && cp->pod.full.present) {
                        p->full_avg60 = cp->pod.full.avg60;
                        p->from_pod = true;
                } else if (!p->from_pod && cp->container.present && cp->container.full.present &&
                           (isnan(p->full_avg60) || cp->container.full.avg60 > p->full_avg60))
                        p->full_avg60 = cp->container.full.avg60;
                p->swap_current = add_value(p->swap_current, c->swap_current);
                p->swap_max = add_value(p->swap_max, c->swap_max);
                p->memory_max = add_value(p->memory_max, c->memory_max);
        }
        if (n > 1)
                qsort(s, n, sizeof(PodStall), cmp_stall);
        *ret = s;
        *ret_n = n;
        return 0;
oom:
        pod_stalls_free(s, n);
        return -ENOMEM;
}

static const char *value_text(char *buf, size_t len, uint64_t v) {
        if (v == CGROUP_VALUE_MAX)
                return "none";
        if (v == CGROUP_VALUE_UNKNOWN)
                return "unknown";
        return format_bytes(buf, len, v);
}

/* "pod UID (QOS, CGROUP): full avg60 X %, swap A of B allowed, memory limit C" */
static char *describe_pod(const PodStall *s) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];
        _cleanup_free_ char *allow = NULL;
        if (s->swap_max == 0)
                allow = strdup("with none allowed (memory.swap.max 0: its stall is page cache reclaimed and read again)");
        else if (s->swap_max == CGROUP_VALUE_MAX)
                allow = strdup("with no swap limit");
        else if (s->swap_max == CGROUP_VALUE_UNKNOWN)
                allow = strdup("with the allowance unknown (no memory.swap.max)");
        else
                allow = strdup_printf("of %s allowed", format_bytes(b, sizeof b, s->swap_max));
        if (!allow)
                return NULL;
        return strdup_printf("pod %s (%s, %s): full avg60 %.2f %%%s, swap %s %s, memory limit %s", s->uid,
                             pod_qos_to_string(s->qos), s->cgroup, s->full_avg60,
                             s->from_pod ? "" : " (its container's; the pod's memory.pressure is missing)",
                             value_text(a, sizeof a, s->swap_current), allow, value_text(c, sizeof c, s->memory_max));
}

static const SwapDevice *zram_swap(const HostState *h) {
        for (size_t i = 0; i < h->n_swaps; i++)
                if (h->swaps[i].kind == SWAP_KIND_ZRAM)
                        return &h->swaps[i];
        return NULL;
}

int check_memory_pressure(const Policy *p, const HostState *h, Findings *fs) {
        (void) p;
        if (!h->pressure.probed)
                return 0;
        const Pressure *node = &h->pressure.memory;
        bool node_known = node->present && node->full.present;
        bool node_high = node_known && node->full.avg60 >= PRESSURE_FULL_AVG60_WARN;

        PodStall *pods = NULL;
        size_t n = 0;
        int r = pod_stalls(h, &pods, &n);
        if (r < 0)
                return r;
        size_t high = 0;
        for (size_t i = 0; i < n; i++)
                if (!isnan(pods[i].full_avg60) && pods[i].full_avg60 >= PRESSURE_FULL_AVG60_WARN)
                        high++;
        if (!node_high && high == 0) {
                pod_stalls_free(pods, n);
                return 0;
        }

        /* The pods named: those at or above the threshold, else (the node stalls, no pod does)
         * the ones with any stall; the highest first, at most PRESSURE_PODS_NAMED. */
        _cleanup_strv_free_ char **named = NULL;
        for (size_t i = 0; i < n && strv_length(named) < PRESSURE_PODS_NAMED; i++) {
                if (isnan(pods[i].full_avg60) || pods[i].full_avg60 <= 0 ||
                    (high > 0 && pods[i].full_avg60 < PRESSURE_FULL_AVG60_WARN))
                        continue;
                char *d = describe_pod(&pods[i]);
                if (!d || strv_push(&named, d) < 0) {
                        pod_stalls_free(pods, n);
                        return -ENOMEM;
                }
        }
        _cleanup_free_ char *list = named ? strv_join(named, "; ") : NULL;
        size_t more = high > PRESSURE_PODS_NAMED ? high - PRESSURE_PODS_NAMED : 0;
        pod_stalls_free(pods, n);
        if (named && !list)
                return -ENOMEM;

        _cleanup_free_ char *node_text =
                !node_known ? strdup("the node's own stall is unknown (no /proc/pressure/memory full line)")
                : strdup_printf("the node's tasks were all stalled on memory %.2f %% of the last minute (full "
                                "avg60; full avg10 %.2f %%, some avg60 %.2f %%)%s",
                                node->full.avg60, node->full.avg10, node->some.present ? node->some.avg60 : 0.0,
                                node_high ? "" : ", under the threshold");
        _cleanup_free_ char *pods_text =
                list ? strdup_printf("%s with the highest stall: %s", high > 0 ? "the pods at or above it"
                                     : "no pod reaches it; the pods", list)
                : strdup(h->pressure_pods_error < 0 ? "the kubelet's cgroups could not be read: no pod is named"
                         : h->n_pressure_pods == 0 ? "no pod's cgroup was found: the stall is outside the kubelet's pods"
                                                   : "no pod's cgroup shows a stall: it is outside the pods (system "
                                                     "services) or the kernel keeps no memory.pressure for them");
        if (!node_text || !pods_text)
                return -ENOMEM;
        _cleanup_free_ char *more_text = more ? strdup_printf(" (and %zu more)", more) : strdup("");
        if (!more_text)
                return -ENOMEM;
        r = findings_add(fs, VERDICT_MEMORY_THRASHING,
                         strdup_printf("memory stall at or above %.0f %% of the last minute (PSI full avg60): %s; "
                                       "%s%s. The kubelet does not see it: swapped-out pages leave the working "
                                       "set, so memory.available stays high while the pods thrash",
                                       PRESSURE_FULL_AVG60_WARN, node_text, pods_text, more_text),
                         strdup("raise these pods' memory requests (the scheduler then leaves them room, and "
                                "LimitedSwap's swap follows the request), or lower their memory limits so the "
                                "kernel stops them at the limit instead of letting them thrash, or give swap a "
                                "faster backend (zram before a disk, NVMe before an SD card)"));
        if (r < 0)
                return r;

        const SwapDevice *z = zram_swap(h);
        if (!z)
                return 0;
        return findings_add(fs, VERDICT_MEMORY_STALL_ZRAM,
                            strdup_printf("this node swaps to zram (%s): PSI counts the time a task spends "
                                          "compressing its pages on the way out and decompressing them on the "
                                          "way in as memory stall, so the figures are higher than the same load "
                                          "shows on a disk (one build: 28.5 s of full stall on zram against 6.2 s "
                                          "on NVMe), though the tasks did wait",
                                          z->path),
                            strdup("compare the swap traffic in nodeswap status (pswpin, pswpout): a stall with "
                                   "much swap traffic is the pods' swap, one without is their page cache"));
}
