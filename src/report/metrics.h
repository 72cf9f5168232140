/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/plan.h"
#include "probe/pods.h"

/* The node's swap in the Prometheus text exposition format (version 0.0.4): every family has its
 * # HELP and # TYPE lines, names end in the base unit (_bytes, _seconds, _ratio), counters in
 * _total, constant label sets in _info. Label values are escaped as the format says (backslash,
 * double quote, newline). Pure: everything comes from what probe(), plan() and pods_probe()
 * found; nothing is read here. nodeswap(8) lists the families. */

typedef struct MetricsInput {
        const Policy *policy;           /* NULL: the policy could not be read (nodeswap_up 0) */
        const HostState *host;          /* NULL: the host could not be probed (nodeswap_up 0) */
        const Plan *plan;               /* NULL: no plan was made (no policy) */
        const Findings *findings;       /* the verdict: the policy's and the plan's findings, or NULL */
        const char *error;              /* why policy or host is NULL, for nodeswap_up's HELP */
        bool pods;                      /* --pods: the container families */
        const PodSwap *pod_swaps;
        size_t n_pod_swaps;
        int pods_error;                 /* -errno from pods_probe(), 0 */
} MetricsInput;

/* Escape a label value: \ -> \\, " -> \", newline -> \n. malloc'd, NULL on ENOMEM. */
char *metrics_escape_label(const char *s);

/* The container's labels as the kubelet names them, from its cgroup path below the v2 mount:
 * the pod's UID (the systemd driver's kubepods-burstable-pod<uid>.slice with '_' back to '-', or
 * cgroupfs's pod<uid>) and the container ID in the runtime's URI form, as the kubelet reports it in
 * a pod's status (containerd://ID for cri-containerd-ID.scope, cri-o://ID for crio-ID.scope,
 * docker://ID for docker-ID.scope, the bare directory name otherwise). Both malloc'd. */
int metrics_container_labels(const char *cgroup, char **ret_pod_uid, char **ret_container_id);

/* The whole exposition. Returns 0 and a malloc'd NUL-terminated text, or -ENOMEM. */
int metrics_render(const MetricsInput *in, char **ret);

/* Write text to path atomically (write_file_atomic(): the temporary name does not end in .prom, so
 * node-exporter's textfile collector never reads it half-written), mode 0644 so that
 * node-exporter's user reads it. */
int metrics_write_file(const char *path, const char *text);
