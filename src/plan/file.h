/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/context.h"

/* The policy's swap file (.areas of plan.c's backend table): where it may go, and what is done to
 * the file at [File] Path=: kept, swapped on, its header rewritten, made anew, or replaced in steps
 * through a bridge when it is on with another size or priority. */
int plan_file(PlanContext *c);

/* What the file backend leaves behind (.leftovers): the swap files nodeswap made at a path the
 * policy no longer names (revert --purge: all), after they are off. */
int plan_recorded_files(PlanContext *c);

/* revert --purge (.finish): the file at the policy's [File] Path=, when it is nodeswap's. */
int plan_file_purge(PlanContext *c);
