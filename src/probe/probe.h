/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/host.h"

/* probe: read the host below a root prefix into a HostState (host.h). Nothing here writes. */

/* Probe the host below root for what the policy needs to know. Never writes. Never talks to
 * systemd: unit activity is left at -1 for probe_systemd() to fill in when running against the host. */
int probe(const char *root, const Policy *policy, HostState *ret);
/* zswap's parameters and debugfs totals into h->zswap (metrics and status; probe() reads only what
 * the policy needs, probe/zswap.h); unreadable = unknown. */
int probe_zswap(const char *root, HostState *h);
/* Memory pressure and swap traffic into h->pressure, and the containers with their stall into
 * h->pressure_pods (status, check and metrics; pressure.c). A missing file is unknown, never 0. */
int probe_pressure(const char *root, HostState *h);
/* On the host (root "/", booted with systemd), ask systemd over D-Bus what the files cannot say:
 * which of h's units are active, and when the kubelet unit last became active. Without systemd
 * the values stay unknown (-1, 0). systemd.c. */
void probe_systemd(const char *root, HostState *h);

/* The units nodeswap masks: [Conflicts] Units= first, then the units rpi-swap's generator makes
 * from its configuration, and rpi-swap's remove service for the policy's [File] Path=, so rpi-swap
 * can neither bring its swap back nor delete, resize or loop-mount nodeswap's file. Used by probe()
 * and by nodeswap-generator, so both mask the same set. */
int conflict_units_compute(const Policy *policy, const RpiSwapConfig *rpi, char ***ret);

/* The .swap unit name systemd uses for a path: /dev/zram0 -> dev-zram0.swap (systemd-escape --path). */
char *swap_unit_name(const char *path);


/* What policy sizes are evaluated against, read before the policy: MemTotal from /proc/meminfo
 * and the kernel page size (on a fixture root, KernelPageSize from proc/self/smaps if present). */
int probe_context(const char *root, PolicyContext *ret);
