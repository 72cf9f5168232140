/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/trial.h"

/* nodeswap trial's writers: the trial's directory and record below nodeswap's state directory,
 * each run's log file, and the run's transient units (started over D-Bus as systemd-run starts
 * them; nodeswap forks nothing). Every function returns >= 0 or -errno and never logs. */

/* Make ROOT/var/lib/nodeswap/trials/ID/ (every missing directory root-owned 0700, never through a
 * symlink: path_open_parent_secure()). -EEXIST when ID/ exists (a trial started in the same
 * second: the caller picks another ID). *ret_reason says why on -ELOOP/-EPERM/-ENOTDIR. */
int trial_dir_prepare(const char *root, const char *id, char **ret_reason);
/* Create ROOT/var/lib/nodeswap/trials/ID/run-N.log, 0600, O_EXCL|O_NOFOLLOW; *ret_path the host
 * path (what systemd opens to append to). */
int trial_log_create(const char *root, const char *id, unsigned n, char **ret_path);
/* Write ROOT/var/lib/nodeswap/trials/ID.json atomically, 0600 (write_file_atomic()). */
int trial_record_write(const char *root, const char *id, const char *json_text, char **ret_path);

/* --svg FILE: write the chart svg to path (the operator's, not below a root) atomically, created
 * 0600 without following a symlink (write_file_atomic(): O_EXCL|O_NOFOLLOW, renamed over path, so a
 * symlink at path is replaced, never written through), as the records are. */
int trial_chart_write(const char *path, const char *svg);

typedef struct TrialUnitSpec {
        const char *service;            /* nodeswap-trial-ID-N.service */
        const char *slice;              /* nodeswap_trial_ID_N.slice: created by systemd when named */
        const char *description;
        char *const *argv;              /* argv[0] an absolute path */
        const char *cwd;
        const char *log;                /* host path: StandardOutput=append: and StandardError=append: */
        uint64_t memory_max;            /* TRIAL_MISSING: none (infinity) */
        uint64_t swap_max;              /* MemorySwapMax= */
        unsigned cpus;                  /* 0: no CPUQuota= */
        uint64_t timeout_usec;          /* 0: no RuntimeMaxSec= */
} TrialUnitSpec;

/* Manager.StartTransientUnit(service, "fail", properties, []) with the properties of
 * nodeswap(8) TRIAL; ret_error (may be NULL) gets PID 1's error message on failure. */
int trial_unit_start(sd_bus *b, const TrialUnitSpec *s, char **ret_error);
/* trial --density's budget: Manager.StartTransientUnit(slice, "fail", [Description,
 * MemoryAccounting, MemoryMax]), the parent slice of every replica's slice, capped as
 * kubepods.slice is at the node's allocatable. Stopped with trial_unit_cleanup(b, NULL, slice). */
int trial_slice_start(sd_bus *b, const char *slice, const char *description, uint64_t memory_max, char **ret_error);
/* After a run: stop the service (RemainAfterExit= keeps it active after a successful exit), reset
 * a failed one so that systemd unloads it, and stop the slice, whose cgroup systemd then removes.
 * Every step is tried; the first error is returned. */
int trial_unit_cleanup(sd_bus *b, const char *service, const char *slice);     /* service NULL: the slice alone */
