/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/context.h"

/* The policy's zram device (.areas of plan.c's backend table): one of nodeswap's that matches
 * stays on, one that matches but is off is swapped on, else a new one is made; the algorithm is
 * the first of [Zram] Algorithm= the kernel offers (zram-algorithm-unavailable when none). */
int plan_zram(PlanContext *c);

/* What zram leaves behind (.leftovers): nodeswap's zram devices that are off and not swapped on
 * again, then the [Zram] Writeback= files nodeswap made that the policy no longer names (revert
 * --purge: all), once no loop device holds them. */
int plan_zram_leftovers(PlanContext *c);
