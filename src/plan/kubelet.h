/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/host.h"
#include "probe/kubelet-config.h"

/* The first line of every drop-in nodeswap writes. */
#define KUBELET_DROPIN_HEADER "# Written by nodeswap; changes are overwritten. See nodeswap.conf(5).\n"

/* The drop-in nodeswap writes for a behaviour (malloc'd); NULL for SWAP_BEHAVIOR_UNSET or on ENOMEM. */
char *kubelet_render_dropin(SwapBehavior b);

/* What the kubelet reads once nodeswap has written its drop-in at path for b (b UNSET: once it has
 * removed it): c merged with that drop-in in its place. *ours receives nodeswap's file, which
 * ret points into: free it with kubelet_config_file_done() after ret's last use. Pure. */
int kubelet_effective_with_dropin(const KubeletConfig *c, const char *path, SwapBehavior b,
                                  KubeletConfigFile *ours, KubeletEffective *ret);

/* "FILE:LINE" (or FILE when line is 0), "the kubelet's default" for f NULL. malloc'd. */
char *kubelet_source(const KubeletConfigFile *f, unsigned line);

/* Whether the kubelet still works with an old swap capacity: 1 when its unit last started before
 * nodeswap's last swap change (the kubelet reads SwapTotal when it starts), 0 when after (or no
 * change), -1 when unknown (no start time: systemd not asked). */
int kubelet_capacity_stale(const HostState *h);

typedef struct PlanContext PlanContext;
/* The kubelet's part of the plan (plan/context.h): the drop-in written for [Kubelet]
 * SwapBehavior= (removed on revert), the findings on what the kubelet would run with instead, and
 * the restart of its unit when the drop-in or the node's total swap changed. Last in the plan. */
int plan_kubelet(PlanContext *c);
