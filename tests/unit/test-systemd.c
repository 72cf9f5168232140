/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd.c against a fake PID 1.
 *
 * PID 1 on the build machine is not systemd, so the calls are checked against a small
 * org.freedesktop.systemd1 stand-in served over a socketpair from a thread: it implements the
 * documented signatures (org.freedesktop.systemd1(5)) of the methods systemd.c uses, records
 * what it was asked, and emits JobRemoved the way PID 1 does. The real PID 1 is exercised by
 * the e2e scenarios in a systemd VM (tests/e2e). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/socket.h>
#include <cmocka.h>

#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>

#include "execute/systemd-jobs.h"
#include "shared/clock.h"

#define UNIT_PREFIX "/org/freedesktop/systemd1/unit"

/* What the fake manager saw. Written by the server thread before it replies. */
typedef struct Seen {
        pthread_mutex_t lock;
        char last_method[64];
        char units[256];        /* the "as" argument, joined with ' ' */
        int runtime, force;     /* -1: argument absent */
        char mode[32];
        unsigned reloads, subscribes;
        unsigned active_state_gets;     /* reads of a unit's ActiveState */
        bool flaky_failed;              /* flaky.service failed after its restart */
        char props[128];                /* SetUnitProperties: "NAME=SIGNATURE:VALUE ..." */
} Seen;

static Seen seen = { .lock = PTHREAD_MUTEX_INITIALIZER };
static uint32_t next_job = 100;

static void seen_method(const char *method) {
        pthread_mutex_lock(&seen.lock);
        snprintf(seen.last_method, sizeof(seen.last_method), "%s", method);
        pthread_mutex_unlock(&seen.lock);
}

static int read_units(sd_bus_message *m, char ***ret) {
        return sd_bus_message_read_strv(m, ret);
}

static int reply_changes(sd_bus_message *m, char **units, const char *type) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r = sd_bus_message_new_method_return(m, &reply);
        if (r < 0)
                return r;
        r = sd_bus_message_open_container(reply, 'a', "(sss)");
        if (r < 0)
                return r;
        for (char **u = units; u && *u; u++) {
                _cleanup_free_ char *p = strdup_printf("/run/systemd/system/%s", *u);
                r = sd_bus_message_append(reply, "(sss)", type, p, streq(type, "symlink") ? "/dev/null" : "");
                if (r < 0)
                        return r;
        }
        r = sd_bus_message_close_container(reply);
        if (r < 0)
                return r;
        return sd_bus_send(NULL, reply, NULL);
}

static int method_mask(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_strv_free_ char **units = NULL;
        int runtime, force, r;

        r = read_units(m, &units);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "bb", &runtime, &force);
        if (r < 0)
                return r;
        _cleanup_free_ char *j = strv_join(units, " ");
        pthread_mutex_lock(&seen.lock);
        snprintf(seen.last_method, sizeof(seen.last_method), "MaskUnitFiles");
        snprintf(seen.units, sizeof(seen.units), "%s", strempty(j));
        seen.runtime = runtime;
        seen.force = force;
        pthread_mutex_unlock(&seen.lock);
        return reply_changes(m, units, "symlink");
}

static int method_unmask(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_strv_free_ char **units = NULL;
        int runtime, r;

        r = read_units(m, &units);
        if (r < 0)
                return r;
        r = sd_bus_message_read(m, "b", &runtime);
        if (r < 0)
                return r;
        _cleanup_free_ char *j = strv_join(units, " ");
        pthread_mutex_lock(&seen.lock);
        snprintf(seen.last_method, sizeof(seen.last_method), "UnmaskUnitFiles");
        snprintf(seen.units, sizeof(seen.units), "%s", strempty(j));
        seen.runtime = runtime;
        seen.force = -1;
        pthread_mutex_unlock(&seen.lock);
        return reply_changes(m, units, "unlink");
}

static int method_reload(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        pthread_mutex_lock(&seen.lock);
        seen.reloads++;
        pthread_mutex_unlock(&seen.lock);
        seen_method("Reload");
        return sd_bus_reply_method_return(m, NULL);
}

/* SetUnitProperties(s name, b runtime, a(sv) properties), as org.freedesktop.systemd1(5) has it:
 * records the unit, runtime and each property with its signature and (for "t") its value. */
static int method_set_properties(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *unit, *prop, *sig;
        int runtime, r;
        char buf[128] = "";

        r = sd_bus_message_read(m, "sb", &unit, &runtime);
        if (r < 0)
                return r;
        r = sd_bus_message_enter_container(m, 'a', "(sv)");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
                r = sd_bus_message_read(m, "s", &prop);
                if (r < 0)
                        return r;
                r = sd_bus_message_peek_type(m, NULL, &sig);
                if (r < 0)
                        return r;
                char one[64];
                if (streq(sig, "t")) {
                        uint64_t v;
                        r = sd_bus_message_read(m, "v", "t", &v);
                        snprintf(one, sizeof one, "%s%s=t:%" PRIu64, *buf ? " " : "", prop, v);
                } else if (streq(sig, "a(st)")) {
                        /* the device list of IODeviceLatencyTargetUSec and the other IODevice* */
                        const char *path;
                        uint64_t v;
                        snprintf(one, sizeof one, "%s%s=a(st):", *buf ? " " : "", prop);
                        r = sd_bus_message_enter_container(m, 'v', "a(st)");
                        if (r >= 0)
                                r = sd_bus_message_enter_container(m, 'a', "(st)");
                        while (r >= 0 && (r = sd_bus_message_read(m, "(st)", &path, &v)) > 0) {
                                size_t len = strlen(one);
                                snprintf(one + len, sizeof one - len, "[%s %" PRIu64 "]", path, v);
                        }
                        if (r >= 0)
                                r = sd_bus_message_exit_container(m);
                        if (r >= 0)
                                r = sd_bus_message_exit_container(m);
                } else {
                        r = sd_bus_message_skip(m, "v");
                        snprintf(one, sizeof one, "%s%s=%s:?", *buf ? " " : "", prop, sig);
                }
                if (r < 0)
                        return r;
                strncat(buf, one, sizeof buf - strlen(buf) - 1);
                r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
        if (r < 0)
                return r;
        r = sd_bus_message_exit_container(m);
        if (r < 0)
                return r;
        pthread_mutex_lock(&seen.lock);
        snprintf(seen.last_method, sizeof(seen.last_method), "SetUnitProperties");
        snprintf(seen.units, sizeof(seen.units), "%s", unit);
        seen.runtime = runtime;
        snprintf(seen.props, sizeof(seen.props), "%s", buf);
        pthread_mutex_unlock(&seen.lock);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        pthread_mutex_lock(&seen.lock);
        seen.subscribes++;
        pthread_mutex_unlock(&seen.lock);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_load_unit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *path = NULL;
        const char *name;
        int r;

        r = sd_bus_message_read(m, "s", &name);
        if (r < 0)
                return r;
        r = sd_bus_path_encode(UNIT_PREFIX, name, &path);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, "o", path);
}

static int emit_job_removed(sd_bus *bus, uint32_t id, const char *job, const char *unit, const char *result) {
        return sd_bus_emit_signal(bus, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                                  "JobRemoved", "uoss", id, job, unit, result);
}

/* Units whose name says how their job goes:
 *   fail.service   JobRemoved result "failed"
 *   early.service  JobRemoved sent before the method reply
 *   hang.service   no JobRemoved at all
 *   missing.service  org.freedesktop.systemd1.NoSuchUnit
 *   flaky.service  "done", then it fails: ActiveState "failed" and its PropertiesChanged
 *   anything else  "done", after an unrelated JobRemoved for another job */
static int method_job(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        sd_bus *bus = sd_bus_message_get_bus(m);
        const char *unit, *mode;
        char job[64], other[64];
        int r;

        r = sd_bus_message_read(m, "ss", &unit, &mode);
        if (r < 0)
                return r;
        pthread_mutex_lock(&seen.lock);
        snprintf(seen.last_method, sizeof(seen.last_method), "%s", sd_bus_message_get_member(m));
        snprintf(seen.units, sizeof(seen.units), "%s", unit);
        snprintf(seen.mode, sizeof(seen.mode), "%s", mode);
        pthread_mutex_unlock(&seen.lock);

        if (streq(unit, "missing.service"))
                return sd_bus_error_setf(error, "org.freedesktop.systemd1.NoSuchUnit", "Unit %s not found.", unit);

        uint32_t id = next_job++;
        snprintf(job, sizeof(job), "/org/freedesktop/systemd1/job/%u", id);
        snprintf(other, sizeof(other), "/org/freedesktop/systemd1/job/%u", id + 1000);

        if (streq(unit, "early.service")) {
                r = emit_job_removed(bus, id, job, unit, "done");
                if (r < 0)
                        return r;
                return sd_bus_reply_method_return(m, "o", job);
        }
        r = sd_bus_reply_method_return(m, "o", job);
        if (r < 0)
                return r;
        if (streq(unit, "hang.service"))
                return 1;
        r = emit_job_removed(bus, id + 1000, other, "unrelated.service", "failed");
        if (r < 0)
                return r;
        r = emit_job_removed(bus, id, job, unit, streq(unit, "fail.service") ? "failed" : "done");
        if (r < 0 || !streq(unit, "flaky.service"))
                return r;
        _cleanup_free_ char *path = NULL;
        r = sd_bus_path_encode(UNIT_PREFIX, unit, &path);
        if (r < 0)
                return r;
        pthread_mutex_lock(&seen.lock);
        seen.flaky_failed = true;
        pthread_mutex_unlock(&seen.lock);
        return sd_bus_emit_properties_changed(bus, path, "org.freedesktop.systemd1.Unit", "ActiveState", NULL);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("MaskUnitFiles", "asbb", "a(sss)", method_mask, 0),
        SD_BUS_METHOD("UnmaskUnitFiles", "asb", "a(sss)", method_unmask, 0),
        SD_BUS_METHOD("Reload", "", "", method_reload, 0),
        SD_BUS_METHOD("SetUnitProperties", "sba(sv)", "", method_set_properties, 0),
        SD_BUS_METHOD("Subscribe", "", "", method_subscribe, 0),
        SD_BUS_METHOD("LoadUnit", "s", "o", method_load_unit, 0),
        SD_BUS_METHOD("StartUnit", "ss", "o", method_job, 0),
        SD_BUS_METHOD("StopUnit", "ss", "o", method_job, 0),
        SD_BUS_METHOD("RestartUnit", "ss", "o", method_job, 0),
        SD_BUS_SIGNAL("JobRemoved", "uoss", 0),
        SD_BUS_VTABLE_END,
};

static int unit_name_of(const char *path, char **ret) {
        return sd_bus_path_decode(path, UNIT_PREFIX, ret);
}

/* kubelet.service is active since 1700000000 s; nothing.service is not-found/inactive;
 * slow.service stays activating; flaky.service is failed once restarted; everything else is
 * loaded and active. */
static int property_unit(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *name = NULL;
        int r = unit_name_of(path, &name);
        if (r <= 0)
                return r < 0 ? r : -ENOENT;
        bool found = !streq(name, "nothing.service");

        if (streq(property, "ActiveState")) {
                pthread_mutex_lock(&seen.lock);
                seen.active_state_gets++;
                bool failed = seen.flaky_failed && streq(name, "flaky.service");
                pthread_mutex_unlock(&seen.lock);
                return sd_bus_message_append(reply, "s", !found ? "inactive" : failed ? "failed"
                                                         : streq(name, "slow.service") ? "activating" : "active");
        }
        if (streq(property, "LoadState"))
                return sd_bus_message_append(reply, "s", found ? "loaded" : "not-found");
        if (streq(property, "ActiveEnterTimestamp"))
                return sd_bus_message_append(reply, "t", found ? UINT64_C(1700000000000000) : UINT64_C(0));
        if (streq(property, "ExecMainStartTimestamp"))
                return sd_bus_message_append(reply, "t", UINT64_C(1700000001000000));
        /* kept.service is out of swap and running; nothing.service has no cgroup and infinity */
        if (streq(property, "MemorySwapMax"))
                return sd_bus_message_append(reply, "t", streq(name, "kept.service") ? UINT64_C(0) : UINT64_MAX);
        if (streq(property, "ControlGroup"))
                return sd_bus_message_append(reply, "s", found ? "/system.slice/kept.service" : "");
        return -EINVAL;
}

static const sd_bus_vtable unit_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("ActiveState", "s", property_unit, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("LoadState", "s", property_unit, 0, 0),
        SD_BUS_PROPERTY("ActiveEnterTimestamp", "t", property_unit, 0, 0),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable service_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("ExecMainStartTimestamp", "t", property_unit, 0, 0),
        SD_BUS_PROPERTY("MemorySwapMax", "t", property_unit, 0, 0),
        SD_BUS_PROPERTY("ControlGroup", "s", property_unit, 0, 0),
        SD_BUS_VTABLE_END,
};

static void *serve(void *arg) {
        int fd = *(int *) arg;
        sd_bus *bus = NULL;
        sd_id128_t id;
        int r;

        if (sd_bus_new(&bus) < 0 || sd_id128_randomize(&id) < 0 ||
            sd_bus_set_fd(bus, fd, fd) < 0 || sd_bus_set_server(bus, 1, id) < 0 ||
            sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1",
                                     "org.freedesktop.systemd1.Manager", manager_vtable, NULL) < 0 ||
            sd_bus_add_fallback_vtable(bus, NULL, UNIT_PREFIX, "org.freedesktop.systemd1.Unit",
                                       unit_vtable, NULL, NULL) < 0 ||
            sd_bus_add_fallback_vtable(bus, NULL, UNIT_PREFIX, "org.freedesktop.systemd1.Service",
                                       service_vtable, NULL, NULL) < 0 ||
            sd_bus_start(bus) < 0) {
                fprintf(stderr, "fake manager failed to start\n");
                abort();
        }
        for (;;) {
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        break;
                if (r > 0)
                        continue;
                if (sd_bus_wait(bus, UINT64_MAX) < 0)
                        break;
        }
        sd_bus_flush_close_unref(bus);
        return NULL;
}

typedef struct Fixture {
        sd_bus *client;
        pthread_t server;
        int server_fd;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(*f));
        int fds[2];

        assert_non_null(f);
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        f->server_fd = fds[1];
        assert_int_equal(pthread_create(&f->server, NULL, serve, &f->server_fd), 0);
        assert_int_equal(sd_bus_new(&f->client), 0);
        assert_int_equal(sd_bus_set_fd(f->client, fds[0], fds[0]), 0);
        assert_int_equal(sd_bus_start(f->client), 0);
        memset(seen.last_method, 0, sizeof(seen.last_method));
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        sd_bus_flush_close_unref(f->client);    /* the server sees the hang-up and ends */
        pthread_join(f->server, NULL);
        free(f);
        return 0;
}

/* --- systemd_open: what can be checked without systemd as PID 1 --- */

static void open_below_a_root_is_not_supported(void **state) {
        sd_bus *b = NULL;
        assert_int_equal(systemd_open("/tmp/fixture-root", &b), -EOPNOTSUPP);
        assert_null(b);
        assert_int_equal(systemd_open("/srv", &b), -EOPNOTSUPP);
        assert_null(b);
}

static void open_the_host_without_systemd_fails_cleanly(void **state) {
        const char *roots[] = { NULL, "", "/" };

        if (sd_booted() > 0)
                skip();     /* this machine runs systemd: nothing to check here */
        for (size_t i = 0; i < ELEMENTSOF(roots); i++) {
                sd_bus *b = NULL;
                assert_int_equal(systemd_open(roots[i], &b), -EHOSTDOWN);
                assert_null(b);
        }
}

static void functions_refuse_a_missing_bus_or_unit(void **state) {
        char *s = NULL;
        uint64_t t = 7;
        char *units[] = { (char *) "a.service", NULL };

        assert_int_equal(systemd_open("/", NULL), -EINVAL);
        assert_int_equal(systemd_mask_runtime(NULL, units), -EINVAL);
        assert_int_equal(systemd_unmask_runtime(NULL, units), -EINVAL);
        assert_int_equal(systemd_reload(NULL), -EINVAL);
        assert_int_equal(systemd_unit_active(NULL, "a.service", &s), -EINVAL);
        assert_int_equal(systemd_unit_timestamp(NULL, "a.service", "ActiveEnterTimestamp", &t), -EINVAL);
        assert_int_equal(systemd_start_unit(NULL, "a.service", 0, &s), -EINVAL);
        assert_int_equal(systemd_restart_unit(NULL, "a.service", 0, &s), -EINVAL);
        assert_null(s);
        assert_int_equal(t, 7);
}

/* --- against the fake manager --- */

static void mask_runtime_sends_units_runtime_and_force(void **state) {
        Fixture *f = *state;
        char *units[] = { (char *) "dev-zram0.swap", (char *) "var-swap.swap", NULL };

        assert_int_equal(systemd_mask_runtime(f->client, units), 2);
        assert_string_equal(seen.last_method, "MaskUnitFiles");
        assert_string_equal(seen.units, "dev-zram0.swap var-swap.swap");
        assert_int_equal(seen.runtime, 1);
        assert_int_equal(seen.force, 1);
}

/* [Kubelet] NoSwapUnits=: SetUnitProperties(unit, runtime=true, [("MemorySwapMax", t 0)]); the
 * daemons' I/O: [("IODeviceLatencyTargetUSec", a(st) [(device, usec)])] on system.slice, the
 * signatures systemd's bus_cgroup_set_property() reads. */
static void set_unit_property_sends_runtime_and_signature(void **state) {
        Fixture *f = *state;
        assert_int_equal(systemd_set_unit_property(f->client, "k3s-agent.service", "MemorySwapMax", "t", UINT64_C(0)), 0);
        assert_string_equal(seen.last_method, "SetUnitProperties");
        assert_string_equal(seen.units, "k3s-agent.service");
        assert_int_equal(seen.runtime, 1);
        assert_string_equal(seen.props, "MemorySwapMax=t:0");
        assert_int_equal(systemd_set_unit_property(f->client, "system.slice", "IODeviceLatencyTargetUSec", "a(st)",
                                                   (unsigned) 1, "/dev/block/254:0", UINT64_C(25000)),
                         0);
        assert_string_equal(seen.units, "system.slice");
        assert_string_equal(seen.props, "IODeviceLatencyTargetUSec=a(st):[/dev/block/254:0 25000]");
        assert_int_equal(systemd_set_unit_property(f->client, "", "MemorySwapMax", "t", UINT64_C(0)), -EINVAL);
}

/* ... and the property and the cgroup read back from the Service interface. */
static void unit_swap_max_reads_property_and_cgroup(void **state) {
        Fixture *f = *state;
        uint64_t v = 7;
        char *cg = NULL;
        assert_int_equal(systemd_unit_swap_max(f->client, "kept.service", &v, &cg), 0);
        assert_true(v == 0);
        assert_string_equal(cg, "/system.slice/kept.service");
        free(cg);
        cg = NULL;
        assert_int_equal(systemd_unit_swap_max(f->client, "nothing.service", &v, &cg), 0);
        assert_true(v == UINT64_MAX);
        assert_string_equal(cg, "");
        free(cg);
}

static void unmask_runtime_sends_units_and_runtime(void **state) {
        Fixture *f = *state;
        char *units[] = { (char *) "dphys-swapfile.service", NULL };

        assert_int_equal(systemd_unmask_runtime(f->client, units), 1);
        assert_string_equal(seen.last_method, "UnmaskUnitFiles");
        assert_string_equal(seen.units, "dphys-swapfile.service");
        assert_int_equal(seen.runtime, 1);
}

static void an_empty_unit_list_is_not_sent(void **state) {
        Fixture *f = *state;
        char *none[] = { NULL };

        assert_int_equal(systemd_mask_runtime(f->client, none), 0);
        assert_int_equal(systemd_unmask_runtime(f->client, NULL), 0);
        assert_string_equal(seen.last_method, "");
}

static void reload_waits_for_the_reply(void **state) {
        Fixture *f = *state;
        unsigned before = seen.reloads;

        assert_int_equal(systemd_reload(f->client), 0);
        assert_int_equal(seen.reloads, before + 1);
}

static void unit_states_and_timestamps(void **state) {
        Fixture *f = *state;
        char *s = NULL;
        uint64_t t = 0;

        assert_int_equal(systemd_unit_active(f->client, "k3s-agent.service", &s), 0);
        assert_string_equal(s, "active");
        free(s);
        assert_int_equal(systemd_unit_active(f->client, "nothing.service", &s), 0);
        assert_string_equal(s, "inactive");
        free(s);

        assert_int_equal(systemd_unit_timestamp(f->client, "k3s.service", "ActiveEnterTimestamp", &t), 0);
        assert_int_equal(t, UINT64_C(1700000000000000));
        /* Not on the Unit interface: asked on org.freedesktop.systemd1.Service. */
        assert_int_equal(systemd_unit_timestamp(f->client, "k3s.service", "ExecMainStartTimestamp", &t), 0);
        assert_int_equal(t, UINT64_C(1700000001000000));
        t = 5;
        assert_true(systemd_unit_timestamp(f->client, "k3s.service", "NoSuchTimestamp", &t) < 0);
        assert_int_equal(t, 5);
}

typedef struct JobCase {
        const char *what;
        int (*call)(sd_bus *, const char *, uint64_t, char **);
        const char *method;
        const char *unit;
        uint64_t timeout_usec;
        int ret;
        const char *result;     /* NULL: *ret_result untouched */
} JobCase;

static const JobCase job_cases[] = {
        { "start, done",                  systemd_start_unit,   "StartUnit",   "k3s-agent.service", 0,          0, "done" },
        { "stop, done",                   systemd_stop_unit,    "StopUnit",    "var-swap.swap",     UINT64_MAX, 0, "done" },
        { "restart, failed",              systemd_restart_unit, "RestartUnit", "fail.service",      5000000,    0, "failed" },
        { "JobRemoved before the reply",  systemd_restart_unit, "RestartUnit", "early.service",     5000000,    0, "done" },
        { "no JobRemoved: timeout",       systemd_start_unit,   "StartUnit",   "hang.service",      200000,     -ETIMEDOUT, NULL },
        { "no such unit",                 systemd_start_unit,   "StartUnit",   "missing.service",   5000000,    -ENOENT, NULL },
};

static void jobs_wait_for_their_own_job_removed(void **state) {
        Fixture *f = *state;

        for (size_t i = 0; i < ELEMENTSOF(job_cases); i++) {
                const JobCase *c = &job_cases[i];
                char *result = NULL;

                print_message("case: %s\n", c->what);
                assert_int_equal(c->call(f->client, c->unit, c->timeout_usec, &result), c->ret);
                assert_string_equal(seen.last_method, c->method);
                assert_string_equal(seen.units, c->unit);
                assert_string_equal(seen.mode, "replace");
                if (c->result)
                        assert_string_equal(result, c->result);
                else
                        assert_null(result);
                free(result);
        }
        assert_true(seen.subscribes >= 1);
}

static void job_result_may_be_ignored(void **state) {
        Fixture *f = *state;
        assert_int_equal(systemd_start_unit(f->client, "k3s.service", 0, NULL), 0);
}

/* A unit that stays active: read once, then nothing until the settle time has passed. */
static void settled_unit_is_read_once(void **state) {
        Fixture *f = *state;
        char *s = NULL;
        pthread_mutex_lock(&seen.lock);
        seen.active_state_gets = 0;
        pthread_mutex_unlock(&seen.lock);
        uint64_t t0 = now_monotonic_usec();
        assert_int_equal(systemd_wait_unit_settled(f->client, "k3s-agent.service", 300000, 5000000, &s), 0);
        assert_true(now_monotonic_usec() - t0 >= 300000);
        assert_string_equal(s, "active");
        assert_int_equal(seen.active_state_gets, 1);
        assert_true(seen.subscribes >= 1);
        free(s);
}

/* A unit that fails after its restart job is done: its PropertiesChanged ends the wait at once,
 * long before the settle time. */
static void unit_failing_after_restart_ends_the_wait(void **state) {
        Fixture *f = *state;
        char *s = NULL;
        assert_int_equal(systemd_restart_unit(f->client, "flaky.service", 5000000, &s), 0);
        assert_string_equal(s, "done");
        free(s);
        s = NULL;
        uint64_t t0 = now_monotonic_usec();
        assert_int_equal(systemd_wait_unit_settled(f->client, "flaky.service", 3000000, 10000000, &s), -EIO);
        assert_true(now_monotonic_usec() - t0 < 3000000);
        assert_string_equal(s, "failed");
        free(s);
}

/* A unit that never gets to active: -ETIMEDOUT at the timeout, with the state it is in. */
static void unit_never_active_times_out(void **state) {
        Fixture *f = *state;
        char *s = NULL;
        uint64_t t0 = now_monotonic_usec();
        assert_int_equal(systemd_wait_unit_settled(f->client, "slow.service", 100000, 300000, &s), -ETIMEDOUT);
        assert_true(now_monotonic_usec() - t0 >= 300000);
        assert_string_equal(s, "activating");
        free(s);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(open_below_a_root_is_not_supported),
                cmocka_unit_test(open_the_host_without_systemd_fails_cleanly),
                cmocka_unit_test(functions_refuse_a_missing_bus_or_unit),
                cmocka_unit_test_setup_teardown(mask_runtime_sends_units_runtime_and_force, setup, teardown),
                cmocka_unit_test_setup_teardown(unmask_runtime_sends_units_and_runtime, setup, teardown),
                cmocka_unit_test_setup_teardown(an_empty_unit_list_is_not_sent, setup, teardown),
                cmocka_unit_test_setup_teardown(reload_waits_for_the_reply, setup, teardown),
                cmocka_unit_test_setup_teardown(unit_states_and_timestamps, setup, teardown),
                cmocka_unit_test_setup_teardown(jobs_wait_for_their_own_job_removed, setup, teardown),
                cmocka_unit_test_setup_teardown(job_result_may_be_ignored, setup, teardown),
                cmocka_unit_test_setup_teardown(settled_unit_is_read_once, setup, teardown),
                cmocka_unit_test_setup_teardown(unit_failing_after_restart_ends_the_wait, setup, teardown),
                cmocka_unit_test_setup_teardown(unit_never_active_times_out, setup, teardown),
                cmocka_unit_test_setup_teardown(set_unit_property_sends_runtime_and_signature, setup, teardown),
                cmocka_unit_test_setup_teardown(unit_swap_max_reads_property_and_cgroup, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
