/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/context.h"

/* Revert marks the node reverted in nodeswap's state (the generator then masks nothing); apply
 * ends a revert. First in the plan, before the masks change. */
int plan_state(PlanContext *c);
