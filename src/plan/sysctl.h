/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/context.h"

/* vm.swappiness and vm.page-cluster where they differ from the policy's (apply; -1: left alone)
 * or from the values saved before nodeswap's first change (revert); vm.min_free_kbytes and
 * vm.watermark_scale_factor the same, with [Sysctl] MinFreeKbytes=auto and
 * WatermarkScaleFactor=auto following reclaim_rule() (plan/reclaim.h) when pods get swap. */
int plan_sysctls(PlanContext *c);
