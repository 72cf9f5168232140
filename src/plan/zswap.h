/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/plan.h"

/* zswap's part of the plan (pure; .finish of plan.c's backend table, plan/context.h): the
 * ACTION_ZSWAP_SET actions and zswap's findings.
 *
 * With Backend=zswap file: each parameter the policy sets ([Zswap] keys, the first offered
 * Compressor=, enabled=Y) that differs from the kernel's value, enabled last. A parameter named on
 * the kernel command line is never written: a zswap-cmdline warning when the command line's value
 * differs from the policy's. A key the kernel lacks is zswap-parameter-unavailable (error); a
 * kernel without zswap is zswap-unavailable (error); no offered compressor is
 * zswap-compressor-unavailable (error).
 *
 * With revert, or a Backend= set without zswap: every parameter nodeswap saved in its state is
 * written back where it differs (enabled first, so zswap stops before its settings change),
 * except one the command line names. */
typedef struct PlanContext PlanContext;
int plan_zswap(PlanContext *c);

/* Whether zswap is on after the plan: the policy's Backend=zswap (unless the command line turns it
 * off), else the value a revert writes back, else the kernel's. */
bool zswap_on_after(const Policy *p, const HostState *h, bool revert);
