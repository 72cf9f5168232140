/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* Memory pressure and swap traffic, as the kernel counts them (read only).
 *
 * Pressure stall information (Documentation/accounting/psi.rst; the format is psi_show() in
 * kernel/sched/psi.c): /proc/pressure/memory for the node and memory.pressure in every cgroup v2
 * directory (Documentation/admin-guide/cgroup-v2.rst, "PSI - Pressure Stall Information") hold
 * two lines,
 *     some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *     full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * "some": the share of time at least one task was stalled waiting for memory; "full": the share
 * of time all non-idle tasks were stalled at once, in which no work got done: "a workload that
 * spends extended time in this state is considered to be thrashing" (psi.rst). avgN are percents
 * over the last 10, 60 and 300 seconds; total is the stalled time in microseconds, a counter.
 * The files are absent when the kernel has no CONFIG_PSI, when it boots with psi=0 (Debian's
 * kernels enable CONFIG_PSI, and PSI is on unless CONFIG_PSI_DEFAULT_DISABLED: psi=1 turns it on
 * there, e.g. Raspberry Pi OS's kernels), and on cgroup v1.
 *
 * Swap traffic: /proc/vmstat's pswpin and pswpout (pages read from and written to swap devices,
 * zram included) and zswpin and zswpout (pages loaded from and stored into zswap's pool, since
 * Linux 5.19), and the same keys in a cgroup's memory.stat where the kernel keeps them there:
 * zswpin/zswpout since 5.19, pswpin/pswpout only in kernels after 6.12 (commit 15ff4d409e1a,
 * "mm/memcontrol: add per-memcg pgpgin/pswpin counter"; Debian's 6.12 in the e2e VM writes
 * zswpin/zswpout and no pswpin/pswpout). A key the kernel does not write is unknown, never zero. */

typedef struct PressureLine {
        bool present;                   /* the line was in the file */
        double avg10, avg60, avg300;    /* percent of the time */
        uint64_t total_us;              /* microseconds stalled since boot (or the cgroup's creation) */
} PressureLine;

typedef struct Pressure {
        bool present;                   /* the file exists and was read */
        bool malformed;                 /* it exists but is not in psi_show()'s format: unknown */
        PressureLine some, full;
} Pressure;

typedef struct SwapTraffic {
        bool has_pswp;                  /* pswpin and pswpout were there */
        uint64_t pswpin, pswpout;       /* pages */
        bool has_zswp;                  /* zswpin and zswpout were there */
        uint64_t zswpin, zswpout;       /* pages */
} SwapTraffic;

/* A container's pressure, and its pod's (the parent cgroup). */
typedef struct CgroupPressure {
        Pressure container;             /* the container's memory.pressure */
        Pressure pod;                   /* its pod's memory.pressure */
        SwapTraffic traffic;            /* the container's memory.stat */
} CgroupPressure;

/* Parse a PSI file's text. A "some" or "full" line that is not the kernel's format: -EINVAL. */
int pressure_parse(const char *text, Pressure *ret);
/* Read a PSI file; an absent one (ENOENT; EOPNOTSUPP, which a cgroup's file gives when PSI is off
 * for it) is ret->present = false and 0; one not in the kernel's format (a later kernel's, say) is
 * ret->malformed and 0 too: its figures are unknown, and status and check go on without them. */
int pressure_read(const char *path, Pressure *ret);
/* Read pswpin/pswpout/zswpin/zswpout from /proc/vmstat or a memory.stat ("KEY VALUE" lines); an
 * absent file is all unknown and 0. */
int swap_traffic_read(const char *path, SwapTraffic *ret);
/* A container's cgroup directory (host path): its memory.pressure and memory.stat, and its pod's
 * memory.pressure (the parent directory). */
int cgroup_pressure_read(const char *dir, CgroupPressure *ret);

/* The node's: /proc/pressure/memory and /proc/vmstat below root. */
typedef struct NodePressure {
        bool probed;                    /* probe_pressure() ran (status, check, metrics) */
        Pressure memory;
        SwapTraffic traffic;
} NodePressure;

int node_pressure_read(const char *root, NodePressure *ret);
