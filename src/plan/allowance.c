/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/allowance.h"
#include "shared/string-table.h"

#include <inttypes.h>

static const char *const reason_table[_ALLOWANCE_REASON_MAX] = {
        [ALLOWANCE_GRANTED] = NULL,
        [ALLOWANCE_BEHAVIOR_UNSET] =
                "the kubelet has no swapBehavior, and its default NoSwap gives containers no swap",
        [ALLOWANCE_NO_SWAP] = "the kubelet's swapBehavior is NoSwap",
        [ALLOWANCE_CGROUP_V1] =
                "LimitedSwap needs cgroup v2 and this node runs cgroup v1 or hybrid "
                "(since Kubernetes 1.35 the kubelet refuses it)",
        [ALLOWANCE_NO_SWAP_CONTROLLER] =
                "the kubelet's cgroup has no memory.swap.max (swap accounting is off), so the kubelet "
                "sets no swap limit: nothing it grants is enforced, and the container may swap without one",
        [ALLOWANCE_STATIC_POD] =
                "static pods and their mirror pods are critical to the kubelet and get no swap",
        [ALLOWANCE_CRITICAL] =
                "pods whose priority is at least system-cluster-critical's (2000000000: "
                "system-cluster-critical and system-node-critical) are critical and get no swap",
        [ALLOWANCE_QOS_GUARANTEED] = "Guaranteed pods get no swap, only Burstable ones do",
        [ALLOWANCE_QOS_BEST_EFFORT] =
                "BestEffort pods (no memory request) get no swap, only Burstable ones do",
        [ALLOWANCE_NO_MEMORY_REQUEST] =
                "a container with neither a memory request nor a memory limit gets no swap, "
                "even in a Burstable pod",
        [ALLOWANCE_LIMIT_WITHOUT_REQUEST] =
                "a memory limit without a request makes the request equal to the limit, "
                "and such a container gets no swap",
        [ALLOWANCE_REQUEST_EQUALS_LIMIT] =
                "the memory request equals the limit, and such a container gets no swap",
        [ALLOWANCE_NODE_WITHOUT_SWAP] = "the node has no swap (SwapTotal is 0)",
        [ALLOWANCE_REQUEST_OVER_MEMTOTAL] =
                "the memory request is larger than the node's MemTotal, and the kubelet "
                "computes no swap limit for it",
};

DEFINE_STRING_TABLE_TO_STRING(allowance_reason, AllowanceReason, reason_table);

/* The number the kubelet writes into memory.swap.max, to the byte. kubernetes/kubernetes
 * pkg/kubelet/kuberuntime/kuberuntime_container_linux.go, calcSwapForBurstablePods(): the request's
 * share of the node's memory capacity as a float64 quotient, times the swap capacity as a float64,
 * truncated to int64 (capacities are cadvisor's MemTotal and SwapTotal, kB × 1024: google/cadvisor
 * machine/machine.go, which probe/meminfo.c reads the same way). The float64 product can fall one
 * byte short of the exact quotient, e.g. on a node whose swap equals its RAM. request <= mem here,
 * so the result is at most swap, well inside both int64 and double's exact range for the cast. */
static uint64_t allowance_kubelet_swap(uint64_t request, uint64_t mem, uint64_t swap) {
        double proportion = (double) request / (double) mem;
        double allocation = proportion * (double) swap;
        return allocation > 0 ? (uint64_t) allocation : 0;
}

static AllowanceReason allowance_reason(const AllowanceInput *in) {
        if (in->behavior == SWAP_BEHAVIOR_UNSET)
                return ALLOWANCE_BEHAVIOR_UNSET;
        if (in->behavior != SWAP_BEHAVIOR_LIMITED_SWAP)
                return ALLOWANCE_NO_SWAP;
        if (cgroup_mode_is_v1(in->cgroup))
                return ALLOWANCE_CGROUP_V1;
        if (in->no_swap_controller)
                return ALLOWANCE_NO_SWAP_CONTROLLER;
        if (in->static_pod)
                return ALLOWANCE_STATIC_POD;
        if (in->critical || (in->has_priority && in->priority >= KUBELET_SYSTEM_CRITICAL_PRIORITY))
                return ALLOWANCE_CRITICAL;
        if (in->qos == POD_QOS_GUARANTEED)
                return ALLOWANCE_QOS_GUARANTEED;
        if (in->qos == POD_QOS_BEST_EFFORT)
                return ALLOWANCE_QOS_BEST_EFFORT;
        if (!in->has_request && !in->has_limit)
                return ALLOWANCE_NO_MEMORY_REQUEST;
        if (!in->has_request)
                return ALLOWANCE_LIMIT_WITHOUT_REQUEST;
        if (in->has_limit && in->limit == in->request)
                return ALLOWANCE_REQUEST_EQUALS_LIMIT;
        if (in->swap_total == 0)
                return ALLOWANCE_NODE_WITHOUT_SWAP;
        if (in->request > in->mem_total)
                return ALLOWANCE_REQUEST_OVER_MEMTOTAL;
        return ALLOWANCE_GRANTED;
}

int allowance_compute(const AllowanceInput *in, uint64_t *ret_swap, AllowanceReason *ret_reason) {
        if (in->mem_total == 0)
                return -EINVAL;
        if (in->has_request && in->has_limit && in->request > in->limit)
                return -EINVAL;

        AllowanceReason reason = allowance_reason(in);
        uint64_t swap = 0;
        if (reason == ALLOWANCE_GRANTED)
                swap = allowance_kubelet_swap(in->request, in->mem_total, in->swap_total);

        *ret_swap = swap;
        *ret_reason = reason;
        return 0;
}

char *allowance_formula(const AllowanceInput *in, uint64_t swap) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX];
        double pct = in->request > 0 ? 100.0 * (double) swap / (double) in->request : 0.0;

        return strdup_printf("%s request / %s MemTotal \u00d7 %s SwapTotal = %s (%.1f %% of the request)",
                             format_bytes(a, sizeof a, in->request),
                             format_bytes(b, sizeof b, in->mem_total),
                             format_bytes(c, sizeof c, in->swap_total),
                             format_bytes(d, sizeof d, swap),
                             pct);
}

/* --- What the running containers' swap says about their requests (issue 26) ------------------- */

static const char *const container_swap_state_table[_CONTAINER_SWAP_STATE_MAX] = {
        [CONTAINER_SWAP_NO_ALLOWANCE] = "none",
        [CONTAINER_SWAP_BELOW] = "below",
        [CONTAINER_SWAP_AT] = "at",
        [CONTAINER_SWAP_OVER] = "over",
};

DEFINE_STRING_TABLE_TO_STRING(container_swap_state, ContainerSwapState, container_swap_state_table);

/* The loops below step over the float64 rounding of allowance_kubelet_swap(): a few bytes, or
 * MemTotal/SwapTotal bytes of request per byte of swap on a node with little swap. */
#define INVERSE_STEPS_MAX (UINT64_C(1) << 20)

/* The smallest request whose allowance is at least swap (request <= mem), or mem + 1 when none is.
 * The exact quotient first, in 128 bits, then the kubelet's own arithmetic decides. */
static uint64_t request_for_swap(uint64_t swap, uint64_t mem, uint64_t swap_total) {
        unsigned __int128 q = ((unsigned __int128) swap * mem + swap_total - 1) / swap_total;
        uint64_t r = q > mem ? mem : (uint64_t) q;
        for (uint64_t i = 0; i < INVERSE_STEPS_MAX && r > 0 &&
                             allowance_kubelet_swap(r - 1, mem, swap_total) >= swap; i++)
                r--;
        for (uint64_t i = 0; i < INVERSE_STEPS_MAX && r <= mem &&
                             allowance_kubelet_swap(r, mem, swap_total) < swap; i++)
                r++;
        return r;
}

int allowance_container(const PodSwap *c, uint64_t mem_total, uint64_t swap_total, uint64_t page_size,
                        ContainerNeed *ret) {
        if (mem_total == 0)
                return -EINVAL;
        ContainerNeed n = {};
        bool limited = c->qos == POD_QOS_BURSTABLE && c->swap_max != CGROUP_VALUE_MAX &&
                       c->swap_max != CGROUP_VALUE_UNKNOWN && c->swap_max > 0;

        if (c->memory_min != CGROUP_VALUE_UNKNOWN && c->memory_min != CGROUP_VALUE_MAX && c->memory_min > 0) {
                n.request_known = true;
                n.request = c->memory_min;
                n.request_source = "memory.min";
        } else if (limited && swap_total > 0) {
                /* Every request in [lo, hi] gives this memory.swap.max: the kubelet's bytes
                 * (calcSwapForBurstablePods) anywhere in [swap_max, swap_max + page), which the
                 * kernel rounds down to whole pages (mm/memcontrol.c swap_max_write() parses it
                 * with page_counter_memparse(), bytes / PAGE_SIZE). Requests are written in whole
                 * MiB as a rule, so one of those is the likeliest. */
                uint64_t lo = request_for_swap(c->swap_max, mem_total, swap_total);
                uint64_t hi = request_for_swap(c->swap_max + (page_size ?: 1), mem_total, swap_total) - 1;
                if (lo <= mem_total) {
                        uint64_t mi = (lo + MiB - 1) / MiB * MiB;
                        n.request_known = true;
                        n.request = mi <= hi ? mi : lo;
                        n.request_source = "memory.swap.max";
                }
        }
        if (!limited) {
                *ret = n;
                return 0;
        }

        n.allowance = c->swap_max;
        bool peak_known = c->swap_peak != CGROUP_VALUE_UNKNOWN && c->swap_peak != CGROUP_VALUE_MAX;
        bool current_known = c->swap_current != CGROUP_VALUE_UNKNOWN && c->swap_current != CGROUP_VALUE_MAX;
        uint64_t used = peak_known ? c->swap_peak : current_known ? c->swap_current : 0;
        if (current_known && c->swap_current > used)
                used = c->swap_current;
        if (current_known && c->swap_current > c->swap_max)
                n.state = CONTAINER_SWAP_OVER;
        else if ((c->swap_events && c->swap_max_hits > 0) || ((peak_known || current_known) && used >= c->swap_max))
                n.state = CONTAINER_SWAP_AT;
        else
                n.state = CONTAINER_SWAP_BELOW;

        if (n.state != CONTAINER_SWAP_BELOW && swap_total > 0 && (peak_known || current_known)) {
                n.need_known = true;
                n.need_swap = used;
                n.need_at_least = c->swap_events && c->swap_max_hits > 0 && used <= c->swap_max;
                uint64_t r = request_for_swap(used, mem_total, swap_total);
                uint64_t mi = (r + MiB - 1) / MiB * MiB;
                n.need_over_memtotal = r > mem_total;
                n.need_request = n.need_over_memtotal ? r : mi;
                n.need_allowance = allowance_kubelet_swap(n.need_request > mem_total ? mem_total : n.need_request,
                                                          mem_total, swap_total);
        }
        *ret = n;
        return 0;
}

int allowance_density(const HostState *h, const PodSwap *pods, size_t n_pods, Density *ret) {
        if (h->mem_total == 0)
                return -EINVAL;
        Density d = { .swap_total = h->swap_total };
        for (size_t i = 0; i < n_pods; i++) {
                const PodSwap *c = &pods[i];
                if (c->qos != POD_QOS_BURSTABLE || c->swap_max == CGROUP_VALUE_MAX ||
                    c->swap_max == CGROUP_VALUE_UNKNOWN || c->swap_max == 0)
                        continue;
                d.n_containers++;
                d.allowances += c->swap_max;
        }
        d.ceiling = 1.0 + (double) h->swap_total / (double) h->mem_total;

        uint64_t orig = 0, compr = 0;
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                const ZramDevice *z = s->kind == SWAP_KIND_ZRAM ? host_find_zram(h, s->zram_id) : NULL;
                if (s->kind != SWAP_KIND_ZRAM)
                        continue;
                d.zram = true;
                d.zram_size += s->size;
                if (z) {
                        orig += z->orig_data_size;
                        compr += z->compr_data_size;
                }
        }
        if (d.zram && compr > 0 && orig > 0) {
                d.zram_ratio_known = true;
                d.zram_ratio = (double) orig / (double) compr;
                uint64_t other = h->swap_total > d.zram_size ? h->swap_total - d.zram_size : 0;
                d.ceiling_zram = 1.0 + ((double) other + (double) d.zram_size * (1.0 - 1.0 / d.zram_ratio)) /
                                       (double) h->mem_total;
        }
        *ret = d;
        return 0;
}

int allowance_check_containers(const PodSwap *pods, size_t n_pods, uint64_t mem_total, uint64_t swap_total,
                               uint64_t page_size, Findings *fs) {
        for (size_t i = 0; i < n_pods; i++) {
                const PodSwap *c = &pods[i];
                if (!c->swap_events || c->swap_fail == 0)
                        continue;
                ContainerNeed n = {};
                if (mem_total > 0 && allowance_container(c, mem_total, swap_total, page_size, &n) < 0)
                        return -EINVAL;
                char a[FORMAT_BYTES_MAX];
                bool at = c->swap_max_hits > 0 && n.state != CONTAINER_SWAP_NO_ALLOWANCE;
                char *hint = at && n.request_known
                        ? strdup_printf("raise its memory request above %" PRIu64 "Mi (nodeswap status --pods shows "
                                        "what its peak needed), or lower its memory use", (n.request + MiB - 1) / MiB)
                        : strdup("give the node more swap, or see nodeswap status --pods");
                if (findings_add(fs, VERDICT_CONTAINER_SWAP_FAIL,
                                 strdup_printf("%s: %" PRIu64 " swap-out%s failed (memory.swap.events fail), %" PRIu64
                                               " at its limit (max)%s%s: its pages stayed in RAM",
                                               c->name, c->swap_fail, c->swap_fail == 1 ? "" : "s", c->swap_max_hits,
                                               at ? ", its allowance " : "",
                                               at ? format_bytes(a, sizeof a, n.allowance) : ""),
                                 hint) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int allowance_burstable(uint64_t mem_total, uint64_t swap_total, uint64_t request, uint64_t limit,
                        uint64_t *ret_swap, AllowanceReason *ret_reason) {
        AllowanceInput in = {
                .has_request = true,
                .request = request,
                .has_limit = true,
                .limit = limit,
                .qos = POD_QOS_BURSTABLE,
                .behavior = SWAP_BEHAVIOR_LIMITED_SWAP,
                .cgroup = CGROUP_V2,
                .mem_total = mem_total,
                .swap_total = swap_total,
        };
        return allowance_compute(&in, ret_swap, ret_reason);
}
