/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The systemd manager calls that change something: runtime masks, daemon-reload, and start, stop
 * and restart jobs waited for to the end. */
#include "execute/systemd-jobs.h"

#include "shared/clock.h"

#include <stdarg.h>
#include <time.h>

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
        r = systemd_bus_ready(b);
        if (r < 0)
                return r;

        r = sym_sd_bus_message_new_method_call(b, &m, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE, method);
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

int systemd_set_unit_property(sd_bus *b, const char *unit, const char *property, const char *signature, ...) {
        _cleanup_bus_message_ sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        va_list ap;
        int r;

        if (!unit || !*unit || !property || !signature)
                return -EINVAL;
        r = systemd_bus_ready(b);
        if (r < 0)
                return r;
        r = sym_sd_bus_message_new_method_call(b, &m, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE,
                                               "SetUnitProperties");
        if (r < 0)
                return r;
        /* runtime=true: below /run, so a boot without nodeswap's generator starts from the unit's own files. */
        r = sym_sd_bus_message_append(m, "sb", unit, 1);
        if (r >= 0)
                r = sym_sd_bus_message_open_container(m, 'a', "(sv)");
        if (r >= 0)
                r = sym_sd_bus_message_open_container(m, 'r', "sv");
        if (r >= 0)
                r = sym_sd_bus_message_append(m, "s", property);
        if (r >= 0)
                r = sym_sd_bus_message_open_container(m, 'v', signature);
        if (r >= 0) {
                va_start(ap, signature);
                r = sym_sd_bus_message_appendv(m, signature, ap);
                va_end(ap);
        }
        for (int i = 0; i < 3 && r >= 0; i++)
                r = sym_sd_bus_message_close_container(m);
        if (r < 0)
                return r;
        r = sym_sd_bus_call(b, m, 0, &error, &reply);
        return r < 0 ? r : 0;
}

int systemd_reload(sd_bus *b) {
        _cleanup_bus_message_ sd_bus_message *m = NULL, *reply = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;

        r = systemd_bus_ready(b);
        if (r < 0)
                return r;
        r = sym_sd_bus_message_new_method_call(b, &m, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE, "Reload");
        if (r < 0)
                return r;
        r = sym_sd_bus_call(b, m, SYSTEMD_RELOAD_TIMEOUT_USEC, &error, &reply);
        return r < 0 ? r : 0;
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

        r = sym_sd_bus_call_method(b, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE, "Subscribe", &error, NULL, NULL);
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
        r = systemd_bus_ready(b);
        if (r < 0)
                return r;

        /* Match first, then call: the job may finish before the method reply is even read. On
         * the system bus only PID 1 may be the sender; a direct connection has no senders. */
        r = sym_sd_bus_match_signal(b, &slot, sym_sd_bus_is_bus_client(b) > 0 ? SYSTEMD_DEST : NULL,
                                SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE, "JobRemoved", on_job_removed, &w);
        if (r < 0)
                return r;
        r = subscribe(b);
        if (r < 0)
                return r;

        if (timeout_usec != 0 && timeout_usec != UINT64_MAX)
                deadline = now_monotonic_usec() + timeout_usec;

        r = sym_sd_bus_call_method(b, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE, method, &error, &reply,
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

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
        bool *changed = userdata;
        *changed = true;
        return 0;
}

static int unit_active_state(sd_bus *b, const char *path, char **ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        return sym_sd_bus_get_property_string(b, SYSTEMD_DEST, path, SYSTEMD_UNIT_IFACE, "ActiveState", &error, ret);
}

/* As systemd's bus-wait-for-units does: match the unit's PropertiesChanged, then read its state,
 * then wait on the bus, reading it again only when a signal says it changed. */
int systemd_wait_unit_settled(sd_bus *b, const char *unit, uint64_t settle_usec, uint64_t timeout_usec,
                              char **ret_state) {
        _cleanup_bus_slot_ sd_bus_slot *slot = NULL;
        _cleanup_free_ char *path = NULL, *state = NULL;
        bool changed = true;    /* nothing read yet */
        int r;

        r = systemd_unit_object_path(b, unit, &path);
        if (r < 0)
                return r;
        r = sym_sd_bus_match_signal(b, &slot, sym_sd_bus_is_bus_client(b) > 0 ? SYSTEMD_DEST : NULL, path,
                                    "org.freedesktop.DBus.Properties", "PropertiesChanged", on_properties_changed,
                                    &changed);
        if (r < 0)
                return r;
        /* PID 1 sends a unit's PropertiesChanged only to clients that subscribed. */
        r = subscribe(b);
        if (r < 0)
                return r;

        uint64_t start = now_monotonic_usec();
        uint64_t settled = start + settle_usec, deadline = start + timeout_usec;
        for (;;) {
                if (changed) {
                        changed = false;
                        free(state);
                        state = NULL;
                        r = unit_active_state(b, path, &state);
                        if (r < 0)
                                break;
                }
                if (!systemd_active_state_up(state)) {
                        r = -EIO;
                        break;
                }
                bool active = streq(state, "active");
                uint64_t n = now_monotonic_usec();
                if (active && n >= settled) {
                        r = 0;
                        break;
                }
                if (n >= deadline) {
                        r = -ETIMEDOUT;
                        break;
                }
                r = sym_sd_bus_process(b, NULL);
                if (r < 0)
                        break;
                if (r > 0)
                        continue;
                /* Woken by a signal, or when the active unit has lasted the settle time. */
                r = sym_sd_bus_wait(b, (active && settled < deadline ? settled : deadline) - n);
                if (r < 0)
                        break;
        }
        if (ret_state)
                *ret_state = TAKE_PTR(state);
        return r;
}
