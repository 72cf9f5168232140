/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/verdict.h"
#include "probe/host.h"

/* The verdict on memory pressure (pure): memory-thrashing when the node's or a pod's full memory
 * stall over the last minute (PSI full avg60) is at or above PRESSURE_FULL_AVG60_WARN percent,
 * naming the pods with the highest stall, their swap and its allowance; memory-stall-zram beside
 * it when the node swaps to zram. Nothing when probe_pressure() did not run (plan, apply).
 *
 * Why full and avg60 at 10 %: "full" is the share of time in which every non-idle task of the
 * node (or the cgroup) waited for memory at once, so no work was done at all; the kernel's PSI
 * documentation calls extended time in that state thrashing. avg60 rather than avg10: a verdict is
 * about sustained stall, not a burst (a start-up reading its files, one container's fill up to
 * its limit). 10 % is six seconds of every minute in which nothing ran: an idle or healthy node
 * shows 0.00, and it is well below systemd-oomd's default kill line (ManagedOOMMemoryPressureLimit=
 * 60 % of full avg10 for 30 s: DEFAULT_MEM_PRESSURE_LIMIT_PERCENT and
 * DEFAULT_MEM_PRESSURE_DURATION_USEC in systemd's src/oom/oomd-manager.h), so the warning comes
 * while there is still time to act. nodeswap(8) says the same. */
#define PRESSURE_FULL_AVG60_WARN 10.0
/* How many pods the finding names, the highest stall first. */
#define PRESSURE_PODS_NAMED 3

int check_memory_pressure(const Policy *p, const HostState *h, Findings *fs);

/* A pod's cgroup (the directory above a container's, below the v2 mount) and the pod's UID as the
 * API shows it (systemd's slice names write its '-' as '_'), from a container's cgroup name; NULL
 * when the name has no pod component. Returns 0 or -ENOMEM. */
int pressure_pod_of(const char *container_cgroup, char **ret_pod_cgroup, char **ret_uid);
