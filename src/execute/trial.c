/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "execute/trial.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "execute/systemd-jobs.h"
#include "shared/clock.h"
#include "shared/path-util.h"

/* The manager's answers while the trial has the node swapping: a method call may wait this long
 * (sd-bus's default is 25 s), a stop job this long an attempt, the whole cleanup this long. */
#define TRIAL_BUS_TIMEOUT_USEC (120 * USEC_PER_SEC)
#define TRIAL_STOP_JOB_USEC (60 * USEC_PER_SEC)
#define TRIAL_CLEANUP_USEC (300 * USEC_PER_SEC)

int trial_dir_prepare(const char *root, const char *id, char **ret_reason) {
        _cleanup_free_ char *p = strdup_printf(TRIAL_DIR "/%s", id), *name = NULL;
        if (!p)
                return -ENOMEM;
        _cleanup_close_ int dfd = -EBADF;
        *ret_reason = NULL;
        int r = path_open_parent_secure(root, p, true, "a trial's directory", &dfd, &name, ret_reason);
        if (r < 0)
                return r;
        /* the trial's own directory, made here or refused: another trial of the same second */
        if (mkdirat(dfd, name, 0700) < 0)
                return -errno;
        return 0;
}

int trial_log_create(const char *root, const char *id, unsigned n, char **ret_path) {
        _cleanup_free_ char *host = strdup_printf(TRIAL_DIR "/%s/run-%u.log", id, n), *name = NULL, *why = NULL;
        if (!host)
                return -ENOMEM;
        _cleanup_close_ int dfd = -EBADF;
        int r = path_open_parent_secure(root, host, false, "a trial's log", &dfd, &name, &why);
        if (r < 0)
                return r;
        _cleanup_close_ int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0)
                return -errno;
        *ret_path = TAKE_PTR(host);
        return 0;
}

int trial_record_write(const char *root, const char *id, const char *json_text, char **ret_path) {
        _cleanup_free_ char *host = strdup_printf(TRIAL_DIR "/%s.json", id), *name = NULL, *why = NULL;
        if (!host)
                return -ENOMEM;
        _cleanup_close_ int dfd = -EBADF;
        int r = path_open_parent_secure(root, host, true, "a trial record", &dfd, &name, &why);
        if (r < 0)
                return r;
        _cleanup_free_ char *full = path_join_root(root, host);
        if (!full)
                return -ENOMEM;
        r = write_file_atomic(full, json_text, 0600);
        if (r < 0)
                return r;
        *ret_path = TAKE_PTR(host);
        return 0;
}

int trial_chart_write(const char *path, const char *svg) {
        return write_file_atomic(path, svg, 0600);
}

/* The properties, each with the D-Bus name and type of org.freedesktop.systemd1(5) (systemd's
 * src/core/dbus-execute.c, dbus-cgroup.c, dbus-service.c, dbus-unit.c; systemd.io/TRANSIENT-SETTINGS):
 *   Description s, Slice s (a slice that does not exist is created: src/core/slice.c's
 *   slice_load() calls unit_load_fragment_and_dropin() with fragment_required false), Type s
 *   "exec" (the start job fails when the command cannot be executed), RemainAfterExit b (the
 *   service stays "active (exited)" after a successful exit, so its ExecMainStatus can be read
 *   before systemd unloads it; systemd-run --wait pins the unit with AddRef instead, which "only
 *   works if we talk via the bus" (src/run/run.c), and nodeswap talks to PID 1's private socket
 *   first: probe/systemd.h), OOMPolicy s "stop" (a kernel OOM kill
 *   of any of its processes stops the unit, Result "oom-kill": the whole container dies, as with
 *   the kubelet's memory.oom.group), ExecStart a(sasb), WorkingDirectory s,
 *   StandardOutputFileToAppend s / StandardErrorFileToAppend s ("append:PATH", systemd 240),
 *   MemoryAccounting b, CPUAccounting b, IOAccounting b, MemoryMax t, MemorySwapMax t,
 *   CPUQuotaPerSecUSec t (CPUQuota=N×100 %), RuntimeMaxUSec t (RuntimeMaxSec=: Result "timeout"). */
static int append_properties(sd_bus_message *m, const TrialUnitSpec *s) {
        int r;
#define APPEND(...)                                                   \
        do {                                                          \
                r = sym_sd_bus_message_append(m, __VA_ARGS__);        \
                if (r < 0)                                            \
                        return r;                                     \
        } while (0)
        APPEND("(sv)", "Description", "s", s->description);
        APPEND("(sv)", "Slice", "s", s->slice);
        APPEND("(sv)", "Type", "s", "exec");
        APPEND("(sv)", "RemainAfterExit", "b", 1);
        APPEND("(sv)", "OOMPolicy", "s", "stop");
        APPEND("(sv)", "WorkingDirectory", "s", s->cwd);
        APPEND("(sv)", "StandardOutputFileToAppend", "s", s->log);
        APPEND("(sv)", "StandardErrorFileToAppend", "s", s->log);
        APPEND("(sv)", "MemoryAccounting", "b", 1);
        APPEND("(sv)", "CPUAccounting", "b", 1);
        APPEND("(sv)", "IOAccounting", "b", 1);
        APPEND("(sv)", "MemoryMax", "t", s->memory_max == TRIAL_MISSING ? UINT64_MAX : s->memory_max);
        APPEND("(sv)", "MemorySwapMax", "t", s->swap_max);
        if (s->cpus > 0)
                APPEND("(sv)", "CPUQuotaPerSecUSec", "t", (uint64_t) s->cpus * USEC_PER_SEC);
        if (s->timeout_usec > 0)
                APPEND("(sv)", "RuntimeMaxUSec", "t", s->timeout_usec);
#undef APPEND

        /* ExecStart: a(sasb) = [(path, argv, ignore-failure)] */
        if ((r = sym_sd_bus_message_open_container(m, 'r', "sv")) < 0 ||
            (r = sym_sd_bus_message_append(m, "s", "ExecStart")) < 0 ||
            (r = sym_sd_bus_message_open_container(m, 'v', "a(sasb)")) < 0 ||
            (r = sym_sd_bus_message_open_container(m, 'a', "(sasb)")) < 0 ||
            (r = sym_sd_bus_message_open_container(m, 'r', "sasb")) < 0 ||
            (r = sym_sd_bus_message_append(m, "s", s->argv[0])) < 0 ||
            (r = sym_sd_bus_message_append_strv(m, (char **) s->argv)) < 0 ||
            (r = sym_sd_bus_message_append(m, "b", 0)) < 0 ||
            (r = sym_sd_bus_message_close_container(m)) < 0 ||
            (r = sym_sd_bus_message_close_container(m)) < 0 ||
            (r = sym_sd_bus_message_close_container(m)) < 0 ||
            (r = sym_sd_bus_message_close_container(m)) < 0)
                return r;
        return 0;
}

int trial_unit_start(sd_bus *b, const TrialUnitSpec *s, char **ret_error) {
        _cleanup_bus_message_ sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
        if (ret_error)
                *ret_error = NULL;
        if (!s->argv || !s->argv[0] || s->argv[0][0] != '/')
                return -EINVAL;
        int r = systemd_bus_ready(b);
        if (r < 0)
                return r;
        if ((r = sym_sd_bus_message_new_method_call(b, &m, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE,
                                                    "StartTransientUnit")) < 0 ||
            (r = sym_sd_bus_message_append(m, "ss", s->service, "fail")) < 0 ||
            (r = sym_sd_bus_message_open_container(m, 'a', "(sv)")) < 0 ||
            (r = append_properties(m, s)) < 0 ||
            (r = sym_sd_bus_message_close_container(m)) < 0 ||
            /* no auxiliary units: a(sa(sv)) */
            (r = sym_sd_bus_message_open_container(m, 'a', "(sa(sv))")) < 0 ||
            (r = sym_sd_bus_message_close_container(m)) < 0)
                return r;
        r = sym_sd_bus_call(b, m, TRIAL_BUS_TIMEOUT_USEC, &e, &reply);
        if (r < 0 && ret_error && e.message)
                *ret_error = strdup(e.message);
        return r < 0 ? r : 0;
}

int trial_slice_start(sd_bus *b, const char *slice, const char *description, uint64_t memory_max, char **ret_error) {
        _cleanup_bus_message_ sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
        if (ret_error)
                *ret_error = NULL;
        int r = systemd_bus_ready(b);
        if (r < 0)
                return r;
        if ((r = sym_sd_bus_message_new_method_call(b, &m, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE,
                                                    "StartTransientUnit")) < 0 ||
            (r = sym_sd_bus_message_append(m, "ss", slice, "fail")) < 0 ||
            (r = sym_sd_bus_message_append(m, "a(sv)", 3, "Description", "s", description, "MemoryAccounting", "b", 1,
                                           "MemoryMax", "t", memory_max)) < 0 ||
            (r = sym_sd_bus_message_append(m, "a(sa(sv))", 0)) < 0)
                return r;
        r = sym_sd_bus_call(b, m, TRIAL_BUS_TIMEOUT_USEC, &e, &reply);
        if (r < 0 && ret_error && e.message)
                *ret_error = strdup(e.message);
        return r < 0 ? r : 0;
}

/* Stop unit, again while the manager does not answer in time (-ETIMEDOUT: the method call's or
 * the job's), until deadline: a StopUnit for a unit already stopping joins its job. */
static int stop_until(sd_bus *b, const char *unit, uint64_t deadline) {
        for (;;) {
                _cleanup_free_ char *res = NULL;
                int r = systemd_stop_unit(b, unit, TRIAL_STOP_JOB_USEC, &res);
                if (r != -ETIMEDOUT || now_monotonic_usec() >= deadline)
                        return r;
        }
}

/* ResetFailedUnit: a failed transient unit stays loaded until reset. NoSuchUnit or "not failed"
 * is no error here (the unit may already be gone); a manager that does not answer in time is
 * asked again until deadline. */
static void reset_failed_until(sd_bus *b, const char *unit, uint64_t deadline) {
        for (;;) {
                _cleanup_bus_message_ sd_bus_message *m = NULL, *reply = NULL;
                _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
                int r = sym_sd_bus_message_new_method_call(b, &m, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH,
                                                           SYSTEMD_MANAGER_IFACE, "ResetFailedUnit");
                if (r >= 0)
                        r = sym_sd_bus_message_append(m, "s", unit);
                if (r >= 0)
                        r = sym_sd_bus_call(b, m, TRIAL_BUS_TIMEOUT_USEC, &e, &reply);
                if (r != -ETIMEDOUT || now_monotonic_usec() >= deadline)
                        return;
        }
}

int trial_unit_cleanup(sd_bus *b, const char *service, const char *slice) {
        /* The trial drives the node into swap on purpose: on a thrashing node (a TCG VM swapping to
         * a disk, seen in the e2e's density trial) PID 1 took longer than sd-bus's default 25 s to
         * answer, and a cleanup that gave up left the replicas' units and a failed unit behind. */
        uint64_t deadline = now_monotonic_usec() + TRIAL_CLEANUP_USEC;
        int first = 0, r;

        if (service) {
                r = stop_until(b, service, deadline);
                if (r < 0 && r != -ENOENT)
                        first = r;
                reset_failed_until(b, service, deadline);
        }
        r = stop_until(b, slice, deadline);
        if (r < 0 && r != -ENOENT && first == 0)
                first = r;
        return first;
}
