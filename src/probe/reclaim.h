/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The kernel's reclaim headroom as nodeswap reads it: the running kernel's bound of
 * vm.watermark_scale_factor, the zones' watermarks in /proc/zoneinfo, and whether transparent
 * huge pages are on (khugepaged then rewrites vm.min_free_kbytes). */

#include "shared/util.h"

/* One zone of /proc/zoneinfo that has managed pages ("Node 0, zone Normal"). */
typedef struct ZoneWatermarks {
        int node;
        char name[16];
        uint64_t free, min, low, high, managed;        /* pages */
} ZoneWatermarks;

/* vm.watermark_scale_factor's upper bound for the kernel release below root
 * (/proc/sys/kernel/osrelease): 3000 from 5.18 on (mm/page_alloc.c's SYSCTL_THREE_THOUSAND), 1000
 * before; 0 when the release is unreadable. */
int reclaim_wsf_max(const char *root);

/* The zones of root's /proc/zoneinfo with managed pages, in the file's order; *ret NULL and *n 0
 * when the file is absent or has none. -ENOMEM only. */
int zoneinfo_read(const char *root, ZoneWatermarks **ret, size_t *n);

/* Whether /sys/kernel/mm/transparent_hugepage/enabled below root selects always or madvise (then
 * khugepaged runs and raises vm.min_free_kbytes: mm/khugepaged.c, set_recommended_min_free_kbytes()):
 * 1; 0 for [never]; -1 unreadable. */
int thp_enabled(const char *root);
