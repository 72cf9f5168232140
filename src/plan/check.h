/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/host.h"
#include "plan/plan.h"
#include "plan/verdict.h"

/* nodeswap check: what is wrong or risky with this node's swap, from Policy and HostState alone
 * (pure, no I/O). Each finding has a stable id that scripts may match on; nodeswap(8) lists them. */

/* The rules of check.c, in their fixed order, appended to fs. pl is the plan for (p, h): the rules
 * look at the swap it leaves, and skip what the plan reports already. */
int check_rules(const Policy *p, const HostState *h, const Plan *pl, Findings *fs);

/* The one verdict on (p, h): plan() with opts, then the rules of check.c appended to the plan's
 * findings (a rule whose id the plan reported already is skipped). plan, apply, check and status
 * all use it, so they agree. Revert plans get no rules (they only go back). */
int verdict_plan(const Policy *p, const HostState *h, const PlanOptions *opts, Plan *ret);

/* The swapBehavior the rules look at: the policy's when it sets one (apply will write it),
 * else the kubelet's effective one (every file it reads, merged). */
SwapBehavior check_swap_behavior(const Policy *p, const HostState *h);
