/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/host.h"
#include "probe/pods.h"
#include "plan/verdict.h"

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

/* allowance_compute() for a Burstable container with this request and limit on a cgroup v2 node
 * whose kubelet runs LimitedSwap (what trial and trial --density run a workload as): nothing but
 * the formula and the node's totals decide. */
int allowance_burstable(uint64_t mem_total, uint64_t swap_total, uint64_t request, uint64_t limit,
                        uint64_t *ret_swap, AllowanceReason *ret_reason);

/* The formula with the numbers, for people:
 *   "256.0 MiB request / 15.8 GiB MemTotal × 16.0 GiB SwapTotal = 258.6 MiB (101.0 % of the request)"
 * NULL on ENOMEM. */
char *allowance_formula(const AllowanceInput *in, uint64_t swap);

/* --- What the running containers' swap says about their requests (issue 26) ------------------- */

/* Where a container stands against its allowance (memory.swap.max). */
typedef enum ContainerSwapState {
        CONTAINER_SWAP_NO_ALLOWANCE,    /* not Burstable, or memory.swap.max is 0, "max" or absent */
        CONTAINER_SWAP_BELOW,           /* never reached it (as far as the kernel's files tell) */
        CONTAINER_SWAP_AT,              /* reached it: memory.swap.events max > 0, or the peak (now,
                                         * without memory.swap.peak) is the allowance */
        CONTAINER_SWAP_OVER,            /* has more in swap than it: the limit was lowered under it */
        _CONTAINER_SWAP_STATE_MAX,
} ContainerSwapState;
/* "none", "below", "at", "over" */
const char *container_swap_state_to_string(ContainerSwapState s);

typedef struct ContainerNeed {
        ContainerSwapState state;
        uint64_t allowance;             /* memory.swap.max, bytes (0 with NO_ALLOWANCE) */
        bool request_known;
        uint64_t request;               /* its memory request: memory.min where the kubelet keeps it,
                                         * else the request the kubelet derived memory.swap.max from
                                         * (a whole MiB when one fits, as requests are written) */
        const char *request_source;     /* "memory.min" | "memory.swap.max" */
        bool need_known;                /* AT or OVER, and the figures below are known: */
        uint64_t need_swap;             /* the swap it used: memory.swap.peak (else .current) */
        bool need_at_least;             /* it hit its limit, so it would have used more than that */
        uint64_t need_request;          /* the request whose allowance covers need_swap, rounded up
                                         * to a whole MiB (a quantity "NNNMi"); what the scheduler
                                         * reserves of the node's RAM for it */
        uint64_t need_allowance;        /* the allowance that request gives */
        bool need_over_memtotal;        /* it is above MemTotal: no request gives that much swap */
} ContainerNeed;

/* The figures for container c on a node with mem_total and swap_total (the capacities the
 * kubelet computed its allowances from) and the kernel's page_size: the kernel keeps
 * memory.swap.max in whole pages, rounding the kubelet's bytes down (seen on the e2e's real node:
 * 8702803 asked, 8699904 kept), so the request is looked for among those whose allowance lies
 * in [memory.swap.max, memory.swap.max + page_size); page_size 0 takes memory.swap.max as the
 * kubelet's exact bytes. Pure; -EINVAL when mem_total is 0. */
int allowance_container(const PodSwap *c, uint64_t mem_total, uint64_t swap_total, uint64_t page_size,
                        ContainerNeed *ret);

/* The node's density: how much of its swap the running containers' allowances take, and how many
 * times what fits in RAM alone its pods can hold at most. The allowances add up to SwapTotal only
 * when requests fill the node's RAM, so pods use at most RAM + swap: 1 + swap/RAM. zram's
 * compressed pages stay in RAM: a full zram device of size Z at ratio R takes Z/R of it, so its
 * part is Z × (1 - 1/R) / RAM. */
typedef struct Density {
        size_t n_containers;            /* Burstable containers with an allowance */
        uint64_t allowances;            /* the sum of their memory.swap.max */
        uint64_t swap_total;            /* SwapTotal */
        double ceiling;                 /* 1 + SwapTotal / MemTotal */
        bool zram;                      /* some of the swap is zram: */
        uint64_t zram_size;             /*   bytes of zram swap */
        bool zram_ratio_known;          /*   it holds pages, so its ratio is known: */
        double zram_ratio;              /*   orig_data_size / compr_data_size over every zram device */
        double ceiling_zram;            /*   the ceiling with zram's pages in RAM at that ratio */
} Density;
int allowance_density(const HostState *h, const PodSwap *pods, size_t n_pods, Density *ret);

/* check's finding on the running containers: container-swap-fail for each container whose
 * memory.swap.events counts failed swap-outs ("fail": at its memory.swap.max, or the node's swap
 * full), whose pages then stay in RAM until its memory.max makes the OOM killer end it. Pure. */
int allowance_check_containers(const PodSwap *pods, size_t n_pods, uint64_t mem_total, uint64_t swap_total,
                               uint64_t page_size, Findings *fs);
