/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/systemd.h"

#include <ctype.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "shared/clock.h"
#include "shared/sd-dl.h"

#define DEST "org.freedesktop.systemd1"
#define MANAGER_PATH "/org/freedesktop/systemd1"
#define MANAGER_IFACE "org.freedesktop.systemd1.Manager"
#define UNIT_IFACE "org.freedesktop.systemd1.Unit"

#define _cleanup_bus_message_ _cleanup_(sym_sd_bus_message_unrefp)
#define _cleanup_bus_slot_ _cleanup_(sym_sd_bus_slot_unrefp)
#define _cleanup_bus_error_ _cleanup_(sym_sd_bus_error_freep)

/* Every call with a bus: the bus may come from a caller that links libsystemd itself (the unit
 * tests), so make sure the pointers are resolved (a no-op after the first time). */
static int bus_ready(sd_bus *b) {
        if (!b)
                return -EINVAL;
        return sd_dl_load();
}

/* The private socket is root's alone; make sure root is also what answers on it. */
static int check_peer_is_root(sd_bus *b) {
        struct ucred uc;
        socklen_t l = sizeof(uc);
        int fd = sym_sd_bus_get_fd(b);

        if (fd < 0)
                return fd;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &l) < 0)
                return -errno;
        if (l != sizeof(uc))
                return -EIO;
        return uc.uid == 0 ? 0 : -EPERM;
}

static int open_private(sd_bus **ret) {
        _cleanup_bus_close_ sd_bus *b = NULL;
        int r;

        r = sym_sd_bus_new(&b);
        if (r < 0)
                return r;
        r = sym_sd_bus_set_address(b, SYSTEMD_PRIVATE_ADDRESS);
        if (r < 0)
                return r;
        r = sym_sd_bus_start(b);
        if (r < 0)
                return r;
        r = check_peer_is_root(b);
        if (r < 0)
                return r;
        *ret = b;
        b = NULL;
        return 0;
}

int systemd_open(const char *root, sd_bus **ret) {
        sd_bus *b = NULL;
        int r;

        if (!ret)
                return -EINVAL;
        if (!root_is_host(root))
                return -EOPNOTSUPP;

        /* What sd_booted() and a connect() to the private socket would say, without loading
         * libsystemd: a host without systemd as PID 1 (no /run/systemd/system) and without the
         * private socket gets -EHOSTDOWN as before, and never maps the library. */
        struct stat st;
        if (lstat("/run/systemd/system", &st) < 0 && errno == ENOENT &&
            lstat("/run/systemd/private", &st) < 0 && errno == ENOENT)
                return -EHOSTDOWN;

        r = sd_dl_load();
        if (r < 0)
                return r;

        r = open_private(&b);
        if (r >= 0) {
                *ret = b;
                return 0;
        }

        /* Without systemd as PID 1 a system bus (if any) has no systemd1 on it either: say so
         * rather than fail later with "service unknown". */
        if (sym_sd_booted() <= 0)
                return -EHOSTDOWN;

        r = sym_sd_bus_open_system(&b);
        if (r < 0)
                return r;
        *ret = b;
        return 0;
}

/* MaskUnitFiles and UnmaskUnitFiles reply with the changes made, a(sss): (type, file, target). */
static int count_changes(sd_bus_message *reply) {
        const char *type, *file, *target;
        int n = 0, r;

        r = sym_sd_bus_message_enter_container(reply, 'a', "(sss)");
        if (r < 0)
                return r;
        while ((r = sym_sd_bus_message_read(reply, "(sss)", &type, &file, &target)) > 0)
                n++;
        if (r < 0)
                return r;
        r = sym_sd_bus_message_exit_container(reply);
        if (r < 0)
                return r;
        return n;
}

static int unit_files_call(sd_bus *b, const char *method, char *const *units, bool with_force) {
        _cleanup_bus_message_ sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        if (strv_length(units) == 0)
                return b ? 0 : -EINVAL;
        r = bus_ready(b);
        if (r < 0)
                return r;

        r = sym_sd_bus_message_new_method_call(b, &m, DEST, MANAGER_PATH, MANAGER_IFACE, method);
        if (r < 0)
                return r;
        r = sym_sd_bus_message_append_strv(m, (char **) units);
        if (r < 0)
                return r;
        /* runtime=true: below /run/systemd/system, gone at the next boot. */
        r = sym_sd_bus_message_append(m, "b", 1);
        if (r < 0)
                return r;
        if (with_force) {
                /* force=true: replace a symlink already there instead of failing. */
                r = sym_sd_bus_message_append(m, "b", 1);
                if (r < 0)
                        return r;
        }
        r = sym_sd_bus_call(b, m, 0, &error, &reply);
        if (r < 0)
                return r;
        return count_changes(reply);
}

int systemd_mask_runtime(sd_bus *b, char *const *units) {
        return unit_files_call(b, "MaskUnitFiles", units, true);
}

int systemd_unmask_runtime(sd_bus *b, char *const *units) {
        return unit_files_call(b, "UnmaskUnitFiles", units, false);
}

int systemd_reload(sd_bus *b) {
        _cleanup_bus_message_ sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = bus_ready(b);
        if (r < 0)
                return r;
        r = sym_sd_bus_message_new_method_call(b, &m, DEST, MANAGER_PATH, MANAGER_IFACE, "Reload");
        if (r < 0)
                return r;
        r = sym_sd_bus_call(b, m, SYSTEMD_RELOAD_TIMEOUT_USEC, &error, &reply);
        return r < 0 ? r : 0;
}

/* Manager.LoadUnit: the unit's object path, loading the unit when it is not yet. */
static int unit_path(sd_bus *b, const char *unit, char **ret) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *path;
        int r;

        if (!unit || !*unit)
                return -EINVAL;
        r = bus_ready(b);
        if (r < 0)
                return r;
        r = sym_sd_bus_call_method(b, DEST, MANAGER_PATH, MANAGER_IFACE, "LoadUnit", &error, &reply,
                               "s", unit);
        if (r < 0)
                return r;
        r = sym_sd_bus_message_read(reply, "o", &path);
        if (r < 0)
                return r;
        char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

static int unit_string_property(sd_bus *b, const char *unit, const char *property, char **ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;
        char *value = NULL;
        int r;

        if (!ret)
                return -EINVAL;
        r = unit_path(b, unit, &path);
        if (r < 0)
                return r;
        r = sym_sd_bus_get_property_string(b, DEST, path, UNIT_IFACE, property, &error, &value);
        if (r < 0)
                return r;
        *ret = value;
        return 0;
}

int systemd_unit_active(sd_bus *b, const char *unit, char **ret_active_state) {
        return unit_string_property(b, unit, "ActiveState", ret_active_state);
}

int systemd_unit_load_state(sd_bus *b, const char *unit, char **ret_load_state) {
        return unit_string_property(b, unit, "LoadState", ret_load_state);
}

/* "foo.service" -> "org.freedesktop.systemd1.Service", "x.automount" -> "...Automount". */
static char *type_interface(const char *unit) {
        const char *dot = strrchr(unit, '.');

        if (!dot || !dot[1])
                return NULL;
        char *s = strdup_printf(DEST ".%s", dot + 1);
        if (!s)
                return NULL;
        char *t = s + strlen(DEST ".");
        *t = (char) toupper((unsigned char) *t);
        return s;
}

int systemd_unit_timestamp(sd_bus *b, const char *unit, const char *property, uint64_t *ret_usec) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL, *iface = NULL;
        uint64_t t;
        int r;

        if (!property || !*property || !ret_usec)
                return -EINVAL;
        r = unit_path(b, unit, &path);
        if (r < 0)
                return r;

        r = sym_sd_bus_get_property_trivial(b, DEST, path, UNIT_IFACE, property, &error, 't', &t);
        if (r < 0 && sym_sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_PROPERTY)) {
                iface = type_interface(unit);
                if (!iface)
                        return -ENOMEM;
                sym_sd_bus_error_free(&error);
                r = sym_sd_bus_get_property_trivial(b, DEST, path, iface, property, &error, 't', &t);
        }
        if (r < 0)
                return r;
        *ret_usec = t;
        return 0;
}

typedef struct JobWait {
        char *job;              /* object path the method returned; NULL until then */
        char *result;
        bool done;
        int error;              /* ENOMEM in the callback */
} JobWait;

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        JobWait *w = userdata;
        const char *path, *unit, *result;
        uint32_t id;

        /* JobRemoved(u id, o job, s unit, s result) */
        if (sym_sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
                return 0;
        if (w->done || !w->job || !streq(path, w->job))
                return 0;
        w->result = strdup(result);
        if (!w->result)
                w->error = -ENOMEM;
        w->done = true;
        return 0;
}

static int subscribe(sd_bus *b) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = sym_sd_bus_call_method(b, DEST, MANAGER_PATH, MANAGER_IFACE, "Subscribe", &error, NULL, NULL);
        /* A second Subscribe from the same client on the system bus is refused as such. */
        if (r < 0 && sym_sd_bus_error_has_name(&error, "org.freedesktop.systemd1.AlreadySubscribed"))
                return 0;
        return r;
}

static int unit_job(sd_bus *b, const char *method, const char *unit, uint64_t timeout_usec,
                    char **ret_result) {
        _cleanup_bus_slot_ sd_bus_slot *slot = NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        JobWait w = {};
        const char *job;
        uint64_t deadline = UINT64_MAX;
        int r;

        if (!unit || !*unit)
                return -EINVAL;
        r = bus_ready(b);
        if (r < 0)
                return r;

        /* Match first, then call: the job may finish before the method reply is even read. On
         * the system bus only PID 1 may be the sender; a direct connection has no senders. */
        r = sym_sd_bus_match_signal(b, &slot, sym_sd_bus_is_bus_client(b) > 0 ? DEST : NULL,
                                MANAGER_PATH, MANAGER_IFACE, "JobRemoved", on_job_removed, &w);
        if (r < 0)
                return r;
        r = subscribe(b);
        if (r < 0)
                return r;

        if (timeout_usec != 0 && timeout_usec != UINT64_MAX)
                deadline = now_monotonic_usec() + timeout_usec;

        r = sym_sd_bus_call_method(b, DEST, MANAGER_PATH, MANAGER_IFACE, method, &error, &reply,
                               "ss", unit, "replace");
        if (r < 0)
                return r;
        r = sym_sd_bus_message_read(reply, "o", &job);
        if (r < 0)
                return r;
        w.job = strdup(job);
        if (!w.job)
                return -ENOMEM;

        for (;;) {
                r = sym_sd_bus_process(b, NULL);
                if (r < 0)
                        break;
                if (w.done)
                        break;
                if (r > 0)
                        continue;

                uint64_t left = UINT64_MAX;
                if (deadline != UINT64_MAX) {
                        uint64_t n = now_monotonic_usec();
                        if (n >= deadline) {
                                r = -ETIMEDOUT;
                                break;
                        }
                        left = deadline - n;
                }
                r = sym_sd_bus_wait(b, left);
                if (r < 0)
                        break;
        }

        free(w.job);
        if (r >= 0 && w.error < 0)
                r = w.error;
        if (r < 0) {
                free(w.result);
                return r;
        }
        if (ret_result)
                *ret_result = w.result;
        else
                free(w.result);
        return 0;
}

int systemd_start_unit(sd_bus *b, const char *unit, uint64_t timeout_usec, char **ret_result) {
        return unit_job(b, "StartUnit", unit, timeout_usec, ret_result);
}

int systemd_stop_unit(sd_bus *b, const char *unit, uint64_t timeout_usec, char **ret_result) {
        return unit_job(b, "StopUnit", unit, timeout_usec, ret_result);
}

int systemd_restart_unit(sd_bus *b, const char *unit, uint64_t timeout_usec, char **ret_result) {
        return unit_job(b, "RestartUnit", unit, timeout_usec, ret_result);
}
