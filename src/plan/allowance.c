/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/allowance.h"
#include "shared/string-table.h"

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
