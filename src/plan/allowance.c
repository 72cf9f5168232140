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
        [ALLOWANCE_CRITICAL] =
                "system-node-critical and system-cluster-critical pods get no swap",
        [ALLOWANCE_QOS_GUARANTEED] = "Guaranteed pods get no swap, only Burstable ones do",
        [ALLOWANCE_QOS_BEST_EFFORT] =
                "BestEffort pods (no memory request) get no swap, only Burstable ones do",
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

static AllowanceReason allowance_reason(const AllowanceInput *in) {
        if (in->behavior == SWAP_BEHAVIOR_UNSET)
                return ALLOWANCE_BEHAVIOR_UNSET;
        if (in->behavior != SWAP_BEHAVIOR_LIMITED_SWAP)
                return ALLOWANCE_NO_SWAP;
        if (cgroup_mode_is_v1(in->cgroup))
                return ALLOWANCE_CGROUP_V1;
        if (in->critical)
                return ALLOWANCE_CRITICAL;
        if (in->qos == POD_QOS_GUARANTEED)
                return ALLOWANCE_QOS_GUARANTEED;
        if (in->qos == POD_QOS_BEST_EFFORT || (!in->has_request && !in->has_limit))
                return ALLOWANCE_QOS_BEST_EFFORT;
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
                /* request <= mem_total here, so the quotient is at most swap_total */
                swap = (uint64_t) ((unsigned __int128) in->request * in->swap_total / in->mem_total);

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
