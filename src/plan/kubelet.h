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

/* Where the effective failSwapOn comes from: the --fail-swap-on flag and the file that carries it
 * (kubelet_flag_source()), else FILE:LINE of the file that wins, else "the kubelet's default".
 * malloc'd. */
char *kubelet_fail_swap_on_source(const KubeletEffective *e);

/* Whether failSwapOn is decided by another than nodeswap's drop-in ours: a flag, or another file. */
bool kubelet_fail_swap_on_foreign(const KubeletEffective *e, const KubeletConfigFile *ours);

/* The kubelet flags that decide what nodeswap reports (--fail-swap-on, --config, --config-dir) and
 * the memory eviction flags (--eviction-hard, --eviction-soft, ...): for each that is given, the
 * one that wins, as kubelet_flag_source() names it. *ret NULL when none. Pure. */
int kubelet_decided_flags(const KubeletConfig *c, char ***ret);

/* Whether the kubelet still works with an old swap capacity: 1 when its unit last started before
 * nodeswap's last swap change (the kubelet reads SwapTotal when it starts), 0 when after (or no
 * change), -1 when unknown (no start time: systemd not asked). */
int kubelet_capacity_stale(const HostState *h);

typedef struct PlanContext PlanContext;
/* The kubelet's part of the plan (plan/context.h): the drop-in written for [Kubelet]
 * SwapBehavior= (removed on revert), the findings on what the kubelet would run with instead, and
 * the restart of its unit when the drop-in or the node's total swap changed. Last in the plan. */
int plan_kubelet(PlanContext *c);
