/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/context.h"

/* [Kubelet] NoSwapUnits=: MemorySwapMax=0 on each listed unit while the policy gives pods swap,
 * and taken away again (revert, a policy without pod swap, a unit no longer listed). Each unit's
 * value as it is and as the plan wants it, one unit-swap-max action per unit that changes. */
int plan_no_swap(PlanContext *c);

/* Whether nodeswap keeps u out of swap under this policy (not on revert): listed, not reported
 * not-found by systemd, and no MemorySwapMax= of the operator's own in the unit's files (that one
 * is honoured). */
bool no_swap_wanted(const Policy *p, const PlanOptions *o, const NoSwapUnit *u);

/* The unit's memory.swap.max (or, without a cgroup, its property) in words: "memory.swap.max max",
 * "memory.swap.max 0", "MemorySwapMax=0, no cgroup", "no cgroup". The caller frees it; NULL on ENOMEM. */
char *no_swap_now(const NoSwapUnit *u);
