/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/systemd.h"

/* The calls to PID 1 that change something. Every function returns >= 0 on success or -errno;
 * none of them logs. */

/* Manager.MaskUnitFiles(units, runtime=true, force=true): symlinks to /dev/null below
 * /run/systemd/system. Manager.UnmaskUnitFiles(units, runtime=true) removes them again. Neither
 * reloads the manager: call systemd_reload() afterwards. An empty or NULL list is a no-op. */
int systemd_mask_runtime(sd_bus *b, char *const *units);
int systemd_unmask_runtime(sd_bus *b, char *const *units);

/* Manager.SetUnitProperties(unit, runtime=true, [(property, value)]): the value has the D-Bus
 * signature given and the arguments sd_bus_message_append() takes for it ("t", value for
 * MemorySwapMax; "a(st)", n, path, usec, ... for IODeviceLatencyTargetUSec; src/core/dbus-cgroup.c,
 * bus_cgroup_set_property(), reads each property with its own signature). systemd applies it to the
 * unit's cgroup at once, without a restart, and keeps it in
 * /run/systemd/system.control/UNIT.d/50-PROPERTY.conf until the next boot (src/core/unit.c,
 * unit_write_setting(); probe/noswap.h). For MemorySwapMax UINT64_MAX is "infinity". */
int systemd_set_unit_property(sd_bus *b, const char *unit, const char *property, const char *signature, ...);

/* Manager.Reload() (daemon-reload). PID 1 replies once the reload is done; this waits for that
 * reply (up to SYSTEMD_RELOAD_TIMEOUT_USEC), so generators have run again when it returns. */
#define SYSTEMD_RELOAD_TIMEOUT_USEC (UINT64_C(5) * 60 * 1000 * 1000)
int systemd_reload(sd_bus *b);

/* StartUnit / StopUnit / RestartUnit with mode "replace", then wait for Manager.JobRemoved of
 * the job that call queued (the match is installed and Manager.Subscribe called before the method
 * call, so the signal cannot be missed). On 0, *ret_result (may be NULL) is the job result:
 * "done", "canceled", "timeout", "failed", "dependency" or "skipped"; the caller decides whether
 * it is good enough. -ETIMEDOUT when timeout_usec passes first (the job is left queued in PID 1).
 * timeout_usec == 0 or UINT64_MAX waits without a limit. */
int systemd_start_unit(sd_bus *b, const char *unit, uint64_t timeout_usec, char **ret_result);
int systemd_stop_unit(sd_bus *b, const char *unit, uint64_t timeout_usec, char **ret_result);
int systemd_restart_unit(sd_bus *b, const char *unit, uint64_t timeout_usec, char **ret_result);

/* Wait until unit has been "active" for settle_usec, or has gone down, or timeout_usec has
 * passed, whichever comes first (both counted from the call): the way to tell that a restarted
 * Type=simple service stayed up. Waits for the unit's PropertiesChanged signals (the match is
 * installed, and Manager.Subscribe called, before ActiveState is first read, so no change can be
 * missed) and reads ActiveState again after each; it never polls. 0 when it stayed active;
 * -EIO when its ActiveState left active/activating/reloading (systemd_active_state_up());
 * -ETIMEDOUT when it was not active at the end; another -errno when systemd could not be asked.
 * *ret_state (may be NULL) is the last ActiveState read, on success and failure alike (NULL when
 * none could be read). */
int systemd_wait_unit_settled(sd_bus *b, const char *unit, uint64_t settle_usec, uint64_t timeout_usec,
                              char **ret_state);
