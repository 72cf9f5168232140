/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/context.h"

/* vm.swappiness and vm.page-cluster where they differ from the policy's (apply; -1: left alone)
 * or from the values saved before nodeswap's first change (revert); vm.min_free_kbytes and
 * vm.watermark_scale_factor the same, with [Sysctl] MinFreeKbytes=auto and
 * WatermarkScaleFactor=auto following reclaim_rule() (plan/reclaim.h) when pods get swap. */
int plan_sysctls(PlanContext *c);

/* On revert, the memory the restored reclaim sysctls give back to MemAvailable: the sum of the
 * zones' high watermarks for the values now less that for the values saved before nodeswap
 * (watermarks_compute()), 0 when they would not fall or a value is unknown. The kernel takes the
 * high watermarks out of MemAvailable (mm/show_mem.c, si_mem_available(): totalreserve_pages, the
 * zones' high watermarks and lowmem reserves, calculate_totalreserve_pages()), so the 2000 of
 * WatermarkScaleFactor=auto with a swap file hides some 40 % of RAM there: revert writes the
 * sysctls back before its swapoffs, and counts this in the room for the pages coming back. Only the
 * high watermarks are counted: MemAvailable also leaves out up to the low watermark of the page
 * cache, so the real gain is at least this. */
uint64_t plan_sysctls_revert_room(const PlanContext *c);
