/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/context.h"

/* vm.swappiness and vm.page-cluster where they differ from the policy's (apply; -1: left alone)
 * or from the values saved before nodeswap's first change (revert). */
int plan_sysctls(PlanContext *c);
