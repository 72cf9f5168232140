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

/* The bridge of a make-before-break: a swap file of nodeswap's (recorded in the state, as any
 * file-create does) that holds the pages of a swap area while that area is taken down and made
 * anew, for the swap file's replacement (plan_file_replace(): a new size, priority or Encrypt=)
 * and zram's rebuild when its device must be reset (plan/zram.c: a writeback backing device that
 * changes, WritebackEncrypt=). plan_bridge_up(): the bridge at path bridge (swapfile_bridge_path()
 * of the area's file) made with size bytes at priority, encrypted or not, unless it is on already
 * (then kept as it is); a bridge left off by a stopped run is deleted first. holds and reason say
 * what it carries, for the action's texts. The caller has checked the room for it.
 * plan_bridge_down(): once the new area is on, the bridge swapped off (its pages go to memory or
 * to `to`) and deleted. */
int plan_bridge_up(PlanContext *c, const char *bridge, uint64_t size, int priority, bool encrypt, const char *holds,
                   const char *reason);
int plan_bridge_down(PlanContext *c, const char *bridge, bool encrypt, const char *to);

/* revert --purge (.finish): the file at the policy's [File] Path=, when it is nodeswap's. */
int plan_file_purge(PlanContext *c);
