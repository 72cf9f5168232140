/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/host.h"
#include "probe/pods.h"

/* The swap a container gets from the kubelet under LimitedSwap (pure, no I/O).
 *
 *   swap = int64(float64(memory request) / float64(MemTotal) × float64(SwapTotal))
 *
 * computed in double precision and truncated, as the kubelet does (calcSwapForBurstablePods), so
 * that the number is the one the kubelet writes, to the byte,
 * and 0 for every container the kubelet gives none: see AllowanceReason. */

/* cgroup v1 or hybrid: the kubelet's memory controller is v1, so no memory.swap.max (LimitedSwap needs v2). */
static inline bool cgroup_mode_is_v1(CgroupMode m) {
        return m == CGROUP_V1 || m == CGROUP_HYBRID;
}


typedef struct AllowanceInput {
        bool has_request;
        uint64_t request;       /* bytes */
        bool has_limit;
        uint64_t limit;         /* bytes */
        PodQos qos;
        bool critical;          /* priority class system-node-critical / system-cluster-critical */
        bool static_pod;        /* a static pod (kubernetes.io/config.source not "api") or its mirror
                                 * pod (annotation kubernetes.io/config.mirror) */
        bool has_priority;
        int64_t priority;       /* the pod's spec.priority, when has_priority */

        SwapBehavior behavior;  /* the kubelet's swapBehavior; UNSET = the kubelet's default, NoSwap */
        CgroupMode cgroup;
        bool no_swap_controller; /* the kubelet's cgroup has no memory.swap.max (swap accounting off) */
        uint64_t mem_total;     /* node MemTotal, bytes */
        uint64_t swap_total;    /* node SwapTotal, bytes */
} AllowanceInput;

/* The kubelet takes a pod as critical, and gives it no swap, when it is a static or mirror pod or
 * its priority is at least system-critical's (kubernetes/kubernetes pkg/kubelet/types
 * pod_update.go IsCriticalPod(), IsCriticalPodBasedOnPriority(): scheduling.SystemCriticalPriority,
 * 2 × the highest user-definable priority 1000000000; system-cluster-critical is 2000000000,
 * system-node-critical 2000001000). */
#define KUBELET_SYSTEM_CRITICAL_PRIORITY INT64_C(2000000000)

/* Why a container gets no swap. The first that applies, in this order (the kubelet's
 * GetContainerSwapBehavior() asks in the same order). */
typedef enum AllowanceReason {
        ALLOWANCE_GRANTED = 0,          /* swap > 0, or 0 only because of rounding */
        ALLOWANCE_BEHAVIOR_UNSET,       /* no swapBehavior: the kubelet defaults to NoSwap */
        ALLOWANCE_NO_SWAP,              /* swapBehavior NoSwap */
        ALLOWANCE_CGROUP_V1,            /* cgroup v1 or hybrid: LimitedSwap needs cgroup v2 */
        ALLOWANCE_NO_SWAP_CONTROLLER,   /* no memory.swap.max in the kubelet's cgroup: no limit set */
        ALLOWANCE_STATIC_POD,           /* a static or mirror pod: critical */
        ALLOWANCE_CRITICAL,             /* system-node-critical / system-cluster-critical, or a
                                         * priority >= KUBELET_SYSTEM_CRITICAL_PRIORITY */
        ALLOWANCE_QOS_GUARANTEED,       /* --qos guaranteed */
        ALLOWANCE_QOS_BEST_EFFORT,      /* --qos besteffort */
        ALLOWANCE_NO_MEMORY_REQUEST,    /* neither request nor limit, in a pod that is not BestEffort */
        ALLOWANCE_LIMIT_WITHOUT_REQUEST,/* the request defaults to the limit */
        ALLOWANCE_REQUEST_EQUALS_LIMIT, /* a Guaranteed-style container */
        ALLOWANCE_NODE_WITHOUT_SWAP,    /* SwapTotal 0 */
        ALLOWANCE_REQUEST_OVER_MEMTOTAL,/* the kubelet refuses to compute a limit */
        _ALLOWANCE_REASON_MAX,
} AllowanceReason;
/* One sentence without a trailing period; NULL for ALLOWANCE_GRANTED. */
const char *allowance_reason_to_string(AllowanceReason r);

/* Compute the allowance. -EINVAL when the input is impossible (mem_total 0, or a request above
 * the limit, which the API server rejects). */
int allowance_compute(const AllowanceInput *in, uint64_t *ret_swap, AllowanceReason *ret_reason);

/* The formula with the numbers, for people:
 *   "256.0 MiB request / 15.8 GiB MemTotal × 16.0 GiB SwapTotal = 258.6 MiB (101.0 % of the request)"
 * NULL on ENOMEM. */
char *allowance_formula(const AllowanceInput *in, uint64_t swap);
