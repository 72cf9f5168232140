/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/host.h"
#include "probe/kubelet-config.h"

/* The first line of every drop-in nodeswap writes. */
#define KUBELET_DROPIN_HEADER "# Written by nodeswap; changes are overwritten. See nodeswap.conf(5).\n"

/* The drop-in nodeswap writes for a behaviour, with evictionHard memory.available when
 * memory_available is not NULL (malloc'd); NULL for SWAP_BEHAVIOR_UNSET or on ENOMEM. */
char *kubelet_render_dropin(SwapBehavior b, const char *memory_available);

/* What the kubelet reads once nodeswap has written its drop-in at path for b and memory_available
 * (b UNSET: once it has removed it): c merged with that drop-in in its place. *ours receives
 * nodeswap's file, which ret points into: free it with kubelet_config_file_done() after ret's
 * last use. Pure. */
int kubelet_effective_with_dropin(const KubeletConfig *c, const char *path, SwapBehavior b,
                                  const char *memory_available, KubeletConfigFile *ours, KubeletEffective *ret);

/* The memory.available nodeswap's drop-in at path sets, in *ret: the policy's [Kubelet]
 * MemoryEviction= under SwapBehavior=LimitedSwap, when no --eviction-hard flag is given (a drop-in
 * cannot win over it) and the kubelet would otherwise run without a hard memory threshold; NULL
 * otherwise (points into p). Returns 0 or -ENOMEM. Pure. */
int kubelet_dropin_memory_eviction(const Policy *p, const KubeletConfig *c, const char *path, const char **ret);

/* Where the effective memory.available threshold comes from: the --eviction-hard flag, FILE:LINE,
 * or the kubelet's default (and what kept it); with no threshold, the flag or file that set
 * evictionHard without it, or "the kubelet without a --config file" when none did. malloc'd. */
char *kubelet_memory_eviction_source(const KubeletEffective *e);

/* "FILE:LINE" (or FILE when line is 0), "the kubelet's default" for f NULL. malloc'd. */
char *kubelet_source(const KubeletConfigFile *f, unsigned line);

/* Where the effective failSwapOn comes from: the --fail-swap-on flag and the file that carries it
 * (kubelet_flag_source()), else FILE:LINE of the file that wins, else "the kubelet's default".
 * malloc'd. */
char *kubelet_fail_swap_on_source(const KubeletEffective *e);

/* Whether failSwapOn is the kubelet's default (true) because a file's null took the key away and
 * no flag decides it: the file "sets failSwapOn: null", not true. */
bool kubelet_fail_swap_on_null(const KubeletEffective *e);

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
