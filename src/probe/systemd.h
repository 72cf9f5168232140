/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <systemd/sd-bus.h>

#include "shared/sd-dl.h"
#include "shared/util.h"

/* A thin sd-bus client for PID 1 (org.freedesktop.systemd1(5)).
 *
 * Like systemctl run as root, it talks to the manager's private socket /run/systemd/private
 * first, so it works before dbus-daemon is up and where the system bus is broken, and falls
 * back to the system bus. Every function returns >= 0 on success or -errno; none of them logs.
 * D-Bus errors from PID 1 come back as the errno sd-bus maps them to (e.g. -ENOENT for
 * org.freedesktop.systemd1.NoSuchUnit). */

#define SYSTEMD_PRIVATE_ADDRESS "unix:path=/run/systemd/private"

/* Through sd-dl.h: nodeswap does not link libsystemd, it loads it on first use. */
#define _cleanup_bus_close_ _cleanup_(sym_sd_bus_flush_close_unrefp)

/* Connect to PID 1. Returns -EOPNOTSUPP when root is not the host root (callers report the
 * systemd steps as "skipped under --root"), -EHOSTDOWN when the host was not booted with
 * systemd (sd_booted(3)), otherwise the -errno of the last connection attempt when neither the
 * private socket nor the system bus works. */
int systemd_open(const char *root, sd_bus **ret);

/* Manager.MaskUnitFiles(units, runtime=true, force=true): symlinks to /dev/null below
 * /run/systemd/system. Manager.UnmaskUnitFiles(units, runtime=true) removes them again. Neither
 * reloads the manager: call systemd_reload() afterwards. An empty or NULL list is a no-op. */
int systemd_mask_runtime(sd_bus *b, char *const *units);
int systemd_unmask_runtime(sd_bus *b, char *const *units);

/* Manager.Reload() (daemon-reload). PID 1 replies once the reload is done; this waits for that
 * reply (up to SYSTEMD_RELOAD_TIMEOUT_USEC), so generators have run again when it returns. */
#define SYSTEMD_RELOAD_TIMEOUT_USEC (UINT64_C(5) * 60 * 1000 * 1000)
int systemd_reload(sd_bus *b);

/* Unit properties. The unit is loaded if it is not (Manager.LoadUnit), so a unit without a unit
 * file gives load state "not-found" and active state "inactive" instead of an error.
 * ret_active_state: "active", "reloading", "inactive", "failed", "activating", "deactivating".
 * ret_load_state: "loaded", "not-found", "masked", "bad-setting", "error", ... */
int systemd_unit_active(sd_bus *b, const char *unit, char **ret_active_state);
int systemd_unit_load_state(sd_bus *b, const char *unit, char **ret_load_state);
/* A "t" timestamp property in µs (CLOCK_REALTIME; 0 = never), e.g. "ActiveEnterTimestamp" from
 * org.freedesktop.systemd1.Unit or "ExecMainStartTimestamp" from the type-specific interface
 * (org.freedesktop.systemd1.Service for a .service): the Unit interface is asked first, the
 * type-specific one when the Unit interface does not have the property. */
int systemd_unit_timestamp(sd_bus *b, const char *unit, const char *property, uint64_t *ret_usec);

/* StartUnit / StopUnit / RestartUnit with mode "replace", then wait for Manager.JobRemoved of
 * the job that call queued (the match is installed and Manager.Subscribe called before the method
 * call, so the signal cannot be missed). On 0, *ret_result (may be NULL) is the job result:
 * "done", "canceled", "timeout", "failed", "dependency" or "skipped"; the caller decides whether
 * it is good enough. -ETIMEDOUT when timeout_usec passes first (the job is left queued in PID 1).
 * timeout_usec == 0 or UINT64_MAX waits without a limit. */
int systemd_start_unit(sd_bus *b, const char *unit, uint64_t timeout_usec, char **ret_result);
int systemd_stop_unit(sd_bus *b, const char *unit, uint64_t timeout_usec, char **ret_result);
int systemd_restart_unit(sd_bus *b, const char *unit, uint64_t timeout_usec, char **ret_result);
