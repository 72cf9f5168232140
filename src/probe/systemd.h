/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <systemd/sd-bus.h>

#include "shared/sd-dl.h"
#include "shared/util.h"

/* A thin sd-bus client for PID 1 (org.freedesktop.systemd1(5)): the connection and the queries
 * (execute/systemd-jobs.h has the calls that change something).
 *
 * Like systemctl run as root, it talks to the manager's private socket /run/systemd/private
 * first, so it works before dbus-daemon is up and where the system bus is broken, and falls
 * back to the system bus. Every function returns >= 0 on success or -errno; none of them logs.
 * D-Bus errors from PID 1 come back as the errno sd-bus maps them to (e.g. -ENOENT for
 * org.freedesktop.systemd1.NoSuchUnit). */

#define SYSTEMD_PRIVATE_ADDRESS "unix:path=/run/systemd/private"
#define SYSTEMD_DEST "org.freedesktop.systemd1"
#define SYSTEMD_MANAGER_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER_IFACE "org.freedesktop.systemd1.Manager"
#define SYSTEMD_UNIT_IFACE "org.freedesktop.systemd1.Unit"

/* Through sd-dl.h: nodeswap does not link libsystemd, it loads it on first use. */
#define _cleanup_bus_close_ _cleanup_(sym_sd_bus_flush_close_unrefp)
#define _cleanup_bus_message_ _cleanup_(sym_sd_bus_message_unrefp)
#define _cleanup_bus_slot_ _cleanup_(sym_sd_bus_slot_unrefp)
#define _cleanup_bus_error_ _cleanup_(sym_sd_bus_error_freep)

/* Every call with a bus: the bus may come from a caller that links libsystemd itself (the unit
 * tests), so make sure the pointers are resolved (a no-op after the first time). -EINVAL for no bus. */
int systemd_bus_ready(sd_bus *b);

/* Connect to PID 1. Returns -EOPNOTSUPP when root is not the host root (callers report the
 * systemd steps as "skipped under --root"), -EHOSTDOWN when the host was not booted with
 * systemd (sd_booted(3)), otherwise the -errno of the last connection attempt when neither the
 * private socket nor the system bus works. */
int systemd_open(const char *root, sd_bus **ret);

/* Unit properties. The unit is loaded if it is not (Manager.LoadUnit), so a unit without a unit
 * file gives load state "not-found" and active state "inactive" instead of an error.
 * ret_active_state: "active", "reloading", "inactive", "failed", "activating", "deactivating". */
int systemd_unit_active(sd_bus *b, const char *unit, char **ret_active_state);
/* Manager.LoadUnit: the unit's object path (malloc'd), loading the unit when it is not yet. */
int systemd_unit_object_path(sd_bus *b, const char *unit, char **ret);
/* Whether an ActiveState counts as up: running, starting or reloading. */
static inline bool systemd_active_state_up(const char *state) {
        return streq_ptr(state, "active") || streq_ptr(state, "activating") || streq_ptr(state, "reloading");
}
/* A "t" timestamp property in µs (CLOCK_REALTIME; 0 = never), e.g. "ActiveEnterTimestamp" from
 * org.freedesktop.systemd1.Unit or "ExecMainStartTimestamp" from the type-specific interface
 * (org.freedesktop.systemd1.Service for a .service): the Unit interface is asked first, the
 * type-specific one when the Unit interface does not have the property. */
int systemd_unit_timestamp(sd_bus *b, const char *unit, const char *property, uint64_t *ret_usec);
/* The unit's MemorySwapMax property ("t", UINT64_MAX for infinity) and its ControlGroup ("s",
 * e.g. "/system.slice/k3s-agent.service"; "" when the unit has no cgroup now), both from the
 * type-specific interface (org.freedesktop.systemd1.Service, .Slice, .Scope: systemd's
 * bus_cgroup_vtable and bus_unit_cgroup_vtable live there, src/core/dbus-cgroup.c, dbus-unit.c). */
int systemd_unit_swap_max(sd_bus *b, const char *unit, uint64_t *ret_max, char **ret_cgroup);
