/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/pressure.h"
#include "shared/util.h"

/* The QoS class of a container: what the kubelet derives from requests and limits, and what a
 * pod's cgroup path says (kubepods-burstable..., kubepods-besteffort..., else guaranteed). */
typedef enum PodQos {
        POD_QOS_AUTO = 0,       /* not given: derived from request and limit of this container */
        POD_QOS_BURSTABLE,
        POD_QOS_GUARANTEED,
        POD_QOS_BEST_EFFORT,
        _POD_QOS_MAX,
} PodQos;
/* "burstable", "guaranteed", "besteffort" (also "BestEffort" etc., case-insensitive); -EINVAL else. */
int pod_qos_from_string(const char *s, PodQos *ret);
const char *pod_qos_to_string(PodQos q);

/* The swap each Kubernetes container has, from the kubelet's cgroup v2 tree (read only).
 *
 * The tree is kubepods.slice (systemd cgroup driver) or kubepods (cgroupfs driver) under
 * /sys/fs/cgroup, or under /sys/fs/cgroup/unified on a hybrid host, with pods at the top or in
 * the burstable and besteffort sub-slices; each directory below a pod is one container (the
 * sandbox "pause" container included). */

#define CGROUP_VALUE_MAX UINT64_MAX             /* "max": no limit */
#define CGROUP_VALUE_UNKNOWN (UINT64_MAX - 1)   /* the file is absent (e.g. no swap accounting) */

typedef struct PodSwap {
        char *name;             /* the container's cgroup, relative to the v2 mount:
                                 * kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod….slice/cri-containerd-….scope */
        PodQos qos;             /* from the path: burstable, besteffort, else guaranteed */
        uint64_t memory_max;    /* memory.max */
        uint64_t memory_current;/* memory.current */
        uint64_t swap_max;      /* memory.swap.max */
        uint64_t swap_current;  /* memory.swap.current */
        uint64_t zswap_current; /* memory.zswap.current (kernels with zswap accounting) */
        CgroupPressure pressure;/* memory.pressure, the pod's memory.pressure, memory.stat's swap
                                 * traffic (pressure.h) */

        /* What the container's swap did (issue 26); each CGROUP_VALUE_UNKNOWN when the kernel has
         * no such file (Documentation/admin-guide/cgroup-v2.rst): */
        uint64_t swap_peak;     /* memory.swap.peak: the most it had in swap (kernels from 6.5) */
        uint64_t memory_min;    /* memory.min: its memory request, where the kubelet keeps it there
                                 * (the MemoryQoS feature gate); 0 otherwise */
        bool swap_events;       /* memory.swap.events was read: */
        uint64_t swap_high;     /*   "high": times its swap use went over memory.swap.high */
        uint64_t swap_max_hits; /*   "max": times a swap-out was refused because it was at memory.swap.max */
        uint64_t swap_fail;     /*   "fail": swap-outs that failed, its limit or the node's swap full */
} PodSwap;

void pod_swaps_free(PodSwap *p, size_t n);

/* Every container cgroup below root, sorted by name. No kubelet tree: 0 and *ret_n = 0. */
int pods_probe(const char *root, PodSwap **ret, size_t *ret_n);
