/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execute/trial.c's StartTransientUnit and cleanup, probe/trial.c's reading of the service's
 * state, against a stand-in for PID 1 served over a socketpair from a thread (as
 * test-systemd.c does): it decodes the call with the signatures org.freedesktop.systemd1(5)
 * documents (StartTransientUnit(in s name, in s mode, in a(sv) properties, in a(sa(sv)) aux,
 * out o job); ExecStart a(sasb); the Service interface's Result s, ExecMainCode i,
 * ExecMainStatus i, ExecMain{Start,Exit}TimestampMonotonic t) and records what it was sent. A
 * property of the wrong type or a malformed ExecStart fails the call, as PID 1 would. The real
 * PID 1 runs these in the e2e VM. */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/socket.h>
#include <cmocka.h>

#include <systemd/sd-id128.h>

#include "execute/trial.h"
#include "probe/systemd.h"

#define UNIT_PREFIX "/org/freedesktop/systemd1/unit"

typedef struct Seen {
        pthread_mutex_t lock;
        char name[128], mode[16];
        char props[2048];       /* "NAME=SIG:VALUE" separated by ' ', in the order sent */
        char exec[256];         /* ExecStart: "PATH|ARG|ARG...|ignore" */
        char calls[512];        /* the methods after StartTransientUnit: "Stop:UNIT ResetFailed:UNIT ..." */
        unsigned n_aux;
} Seen;
static Seen seen = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void append(char *buf, size_t size, const char *s) {
        strncat(buf, s, size - strlen(buf) - 1);
}

static int read_exec(sd_bus_message *m) {
        int r = sd_bus_message_enter_container(m, 'v', "a(sasb)");
        if (r <= 0)
                return r < 0 ? r : -EINVAL;
        if ((r = sd_bus_message_enter_container(m, 'a', "(sasb)")) <= 0)
                return r < 0 ? r : -EINVAL;
        while ((r = sd_bus_message_enter_container(m, 'r', "sasb")) > 0) {
                const char *path;
                char **argv = NULL;
                int ignore;
                if ((r = sd_bus_message_read(m, "s", &path)) < 0 || (r = sd_bus_message_read_strv(m, &argv)) < 0 ||
                    (r = sd_bus_message_read(m, "b", &ignore)) < 0)
                        return r;
                append(seen.exec, sizeof seen.exec, path);
                for (char **a = argv; *a; a++) {
                        append(seen.exec, sizeof seen.exec, "|");
                        append(seen.exec, sizeof seen.exec, *a);
                }
                append(seen.exec, sizeof seen.exec, ignore ? "|ignore" : "|check");
                strv_free(argv);
                if ((r = sd_bus_message_exit_container(m)) < 0)
                        return r;
        }
        if (r < 0)
                return r;
        if ((r = sd_bus_message_exit_container(m)) < 0)
                return r;
        return sd_bus_message_exit_container(m);
}

static int method_start_transient(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *name, *mode, *prop, *sig;
        int r;
        pthread_mutex_lock(&seen.lock);
        seen.props[0] = seen.exec[0] = 0;
        if ((r = sd_bus_message_read(m, "ss", &name, &mode)) < 0)
                goto done;
        snprintf(seen.name, sizeof seen.name, "%s", name);
        snprintf(seen.mode, sizeof seen.mode, "%s", mode);
        if ((r = sd_bus_message_enter_container(m, 'a', "(sv)")) < 0)
                goto done;
        while ((r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
                char one[320];
                if ((r = sd_bus_message_read(m, "s", &prop)) < 0 || (r = sd_bus_message_peek_type(m, NULL, &sig)) < 0)
                        goto done;
                if (streq(prop, "ExecStart")) {
                        if ((r = read_exec(m)) < 0)
                                goto done;
                        snprintf(one, sizeof one, "ExecStart=%s", sig);
                } else if (streq(sig, "t")) {
                        uint64_t v;
                        r = sd_bus_message_read(m, "v", "t", &v);
                        snprintf(one, sizeof one, "%s=t:%" PRIu64, prop, v);
                } else if (streq(sig, "s")) {
                        const char *v;
                        r = sd_bus_message_read(m, "v", "s", &v);
                        snprintf(one, sizeof one, "%s=s:%s", prop, v);
                } else if (streq(sig, "b")) {
                        int v;
                        r = sd_bus_message_read(m, "v", "b", &v);
                        snprintf(one, sizeof one, "%s=b:%d", prop, v);
                } else {
                        r = sd_bus_message_skip(m, "v");
                        snprintf(one, sizeof one, "%s=%s:?", prop, sig);
                }
                if (r < 0 || (r = sd_bus_message_exit_container(m)) < 0)
                        goto done;
                if (*seen.props)
                        append(seen.props, sizeof seen.props, " ");
                append(seen.props, sizeof seen.props, one);
        }
        if (r < 0 || (r = sd_bus_message_exit_container(m)) < 0)
                goto done;
        if ((r = sd_bus_message_enter_container(m, 'a', "(sa(sv))")) < 0)
                goto done;
        seen.n_aux = 0;
        while ((r = sd_bus_message_skip(m, "(sa(sv))")) > 0)
                seen.n_aux++;
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
done:
        pthread_mutex_unlock(&seen.lock);
        if (r < 0)
                return r;
        if (streq(name, "refused.service"))
                return sd_bus_error_setf(error, "org.freedesktop.DBus.Error.InvalidArgs",
                                         "Unit refused.service already exists.");
        return sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/job/7");
}

static int method_load_unit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *path = NULL;
        const char *name;
        int r = sd_bus_message_read(m, "s", &name);
        if (r < 0 || (r = sd_bus_path_encode(UNIT_PREFIX, name, &path)) < 0)
                return r;
        return sd_bus_reply_method_return(m, "o", path);
}

static void seen_call(const char *what, const char *unit) {
        pthread_mutex_lock(&seen.lock);
        if (*seen.calls)
                append(seen.calls, sizeof seen.calls, " ");
        append(seen.calls, sizeof seen.calls, what);
        append(seen.calls, sizeof seen.calls, ":");
        append(seen.calls, sizeof seen.calls, unit);
        pthread_mutex_unlock(&seen.lock);
}

static int method_stop(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *unit, *mode;
        int r = sd_bus_message_read(m, "ss", &unit, &mode);
        if (r < 0)
                return r;
        seen_call("Stop", unit);
        r = sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/job/8");
        if (r < 0)
                return r;
        return sd_bus_emit_signal(sd_bus_message_get_bus(m), "/org/freedesktop/systemd1",
                                  "org.freedesktop.systemd1.Manager", "JobRemoved", "uoss", 8,
                                  "/org/freedesktop/systemd1/job/8", unit, "done");
}

static int method_reset_failed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        const char *unit;
        int r = sd_bus_message_read(m, "s", &unit);
        if (r < 0)
                return r;
        seen_call("ResetFailed", unit);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        return sd_bus_reply_method_return(m, NULL);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("StartTransientUnit", "ssa(sv)a(sa(sv))", "o", method_start_transient, 0),
        SD_BUS_METHOD("LoadUnit", "s", "o", method_load_unit, 0),
        SD_BUS_METHOD("StopUnit", "ss", "o", method_stop, 0),
        SD_BUS_METHOD("ResetFailedUnit", "s", "", method_reset_failed, 0),
        SD_BUS_METHOD("Subscribe", "", "", method_subscribe, 0),
        SD_BUS_SIGNAL("JobRemoved", "uoss", 0),
        SD_BUS_VTABLE_END,
};

/* oom.service: failed, oom-kill, killed by signal 9; ok.service: active (exited), exit 0 after
 * 12.5 s; anything else: activating, not started yet */
static int property(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error) {
        _cleanup_free_ char *name = NULL;
        int r = sd_bus_path_decode(path, UNIT_PREFIX, &name);
        if (r <= 0)
                return r < 0 ? r : -ENOENT;
        bool oom = streq(name, "oom.service"), ok = streq(name, "ok.service");
        if (streq(property, "ActiveState"))
                return sd_bus_message_append(reply, "s", oom ? "failed" : ok ? "active" : "activating");
        if (streq(property, "SubState"))
                return sd_bus_message_append(reply, "s", oom ? "failed" : ok ? "exited" : "start");
        if (streq(property, "Result"))
                return sd_bus_message_append(reply, "s", oom ? "oom-kill" : "success");
        if (streq(property, "ExecMainCode"))
                return sd_bus_message_append(reply, "i", oom ? 2 : ok ? 1 : 0);
        if (streq(property, "ExecMainStatus"))
                return sd_bus_message_append(reply, "i", oom ? 9 : 0);
        if (streq(property, "ExecMainStartTimestampMonotonic"))
                return sd_bus_message_append(reply, "t", oom || ok ? UINT64_C(1000000) : UINT64_C(0));
        if (streq(property, "ExecMainExitTimestampMonotonic"))
                return sd_bus_message_append(reply, "t", ok ? UINT64_C(13500000) : oom ? UINT64_C(4000000) : UINT64_C(0));
        return -EINVAL;
}

static const sd_bus_vtable unit_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("ActiveState", "s", property, 0, 0),
        SD_BUS_PROPERTY("SubState", "s", property, 0, 0),
        SD_BUS_VTABLE_END,
};
static const sd_bus_vtable service_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Result", "s", property, 0, 0),
        SD_BUS_PROPERTY("ExecMainCode", "i", property, 0, 0),
        SD_BUS_PROPERTY("ExecMainStatus", "i", property, 0, 0),
        SD_BUS_PROPERTY("ExecMainStartTimestampMonotonic", "t", property, 0, 0),
        SD_BUS_PROPERTY("ExecMainExitTimestampMonotonic", "t", property, 0, 0),
        SD_BUS_VTABLE_END,
};

static void *serve(void *arg) {
        int fd = *(int *) arg;
        sd_bus *bus = NULL;
        sd_id128_t id;
        if (sd_bus_new(&bus) < 0 || sd_id128_randomize(&id) < 0 || sd_bus_set_fd(bus, fd, fd) < 0 ||
            sd_bus_set_server(bus, 1, id) < 0 ||
            sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                                     manager_vtable, NULL) < 0 ||
            sd_bus_add_fallback_vtable(bus, NULL, UNIT_PREFIX, "org.freedesktop.systemd1.Unit", unit_vtable, NULL,
                                       NULL) < 0 ||
            sd_bus_add_fallback_vtable(bus, NULL, UNIT_PREFIX, "org.freedesktop.systemd1.Service", service_vtable,
                                       NULL, NULL) < 0 ||
            sd_bus_start(bus) < 0)
                abort();
        for (;;) {
                int r = sd_bus_process(bus, NULL);
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
        Fixture *f = calloc(1, sizeof *f);
        int fds[2];
        assert_non_null(f);
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
        f->server_fd = fds[1];
        assert_int_equal(pthread_create(&f->server, NULL, serve, &f->server_fd), 0);
        assert_int_equal(sd_bus_new(&f->client), 0);
        assert_int_equal(sd_bus_set_fd(f->client, fds[0], fds[0]), 0);
        assert_int_equal(sd_bus_start(f->client), 0);
        seen.calls[0] = 0;
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        sd_bus_flush_close_unref(f->client);
        pthread_join(f->server, NULL);
        free(f);
        return 0;
}

static void start_sends_the_properties(void **state) {
        Fixture *f = *state;
        char *argv[] = { (char *) "/usr/local/lib/nodeswap-e2e/hotcold", (char *) "--hot", (char *) "32M", NULL };
        TrialUnitSpec s = {
                .service = "nodeswap-trial-X-1.service", .slice = "nodeswap_trial_X_1.slice",
                .description = "nodeswap trial X run 1", .argv = argv, .cwd = "/root",
                .log = "/var/lib/nodeswap/trials/X/run-1.log", .memory_max = 48 * MiB, .swap_max = 47 * MiB,
                .cpus = 2, .timeout_usec = 90 * USEC_PER_SEC,
        };
        char *err = NULL;
        assert_int_equal(trial_unit_start(f->client, &s, &err), 0);
        assert_null(err);
        pthread_mutex_lock(&seen.lock);
        assert_string_equal(seen.name, "nodeswap-trial-X-1.service");
        assert_string_equal(seen.mode, "fail");
        assert_int_equal(seen.n_aux, 0);
        assert_string_equal(seen.exec, "/usr/local/lib/nodeswap-e2e/hotcold|/usr/local/lib/nodeswap-e2e/hotcold|--hot|32M|check");
        const char *want[] = {
                "Slice=s:nodeswap_trial_X_1.slice", "Type=s:exec", "RemainAfterExit=b:1", "OOMPolicy=s:stop",
                "WorkingDirectory=s:/root", "StandardOutputFileToAppend=s:/var/lib/nodeswap/trials/X/run-1.log",
                "StandardErrorFileToAppend=s:/var/lib/nodeswap/trials/X/run-1.log", "MemoryAccounting=b:1",
                "CPUAccounting=b:1", "IOAccounting=b:1", "MemoryMax=t:50331648", "MemorySwapMax=t:49283072",
                "CPUQuotaPerSecUSec=t:2000000", "RuntimeMaxUSec=t:90000000", "ExecStart=a(sasb)",
        };
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                if (!strstr(seen.props, want[i]))
                        fail_msg("%s not in %s", want[i], seen.props);
        pthread_mutex_unlock(&seen.lock);

        /* no limit, no swap, no quota, no timeout: MemoryMax infinity, MemorySwapMax 0, nothing else */
        s.memory_max = TRIAL_MISSING;
        s.swap_max = 0;
        s.cpus = 0;
        s.timeout_usec = 0;
        assert_int_equal(trial_unit_start(f->client, &s, NULL), 0);
        pthread_mutex_lock(&seen.lock);
        assert_non_null(strstr(seen.props, "MemoryMax=t:18446744073709551615"));
        assert_non_null(strstr(seen.props, "MemorySwapMax=t:0"));
        assert_null(strstr(seen.props, "CPUQuotaPerSecUSec"));
        assert_null(strstr(seen.props, "RuntimeMaxUSec"));
        pthread_mutex_unlock(&seen.lock);
}

static void start_refused_says_pid1s_words(void **state) {
        Fixture *f = *state;
        char *argv[] = { (char *) "/bin/true", NULL };
        TrialUnitSpec s = { .service = "refused.service", .slice = "x.slice", .description = "d", .argv = argv,
                            .cwd = "/", .log = "/l", .memory_max = 48 * MiB };
        char *err = NULL;
        assert_true(trial_unit_start(f->client, &s, &err) < 0);
        assert_string_equal(err, "Unit refused.service already exists.");
        free(err);
        /* a relative path is never sent */
        char *rel[] = { (char *) "true", NULL };
        s.argv = rel;
        assert_int_equal(trial_unit_start(f->client, &s, NULL), -EINVAL);
}

static void unit_state_read_and_ended(void **state) {
        Fixture *f = *state;
        _cleanup_free_ char *path = NULL;
        TrialUnitState st;
        assert_int_equal(systemd_unit_object_path(f->client, "oom.service", &path), 0);
        assert_int_equal(trial_unit_read(f->client, path, &st), 0);
        assert_string_equal(st.result, "oom-kill");
        assert_int_equal(st.exec_main_code, 2);
        assert_int_equal(st.exec_main_status, 9);
        assert_true(trial_unit_ended(&st));
        trial_unit_state_done(&st);
        free(path);
        path = NULL;

        assert_int_equal(systemd_unit_object_path(f->client, "ok.service", &path), 0);
        assert_int_equal(trial_unit_read(f->client, path, &st), 0);
        assert_true(trial_unit_ended(&st));             /* active (exited): RemainAfterExit= */
        assert_true(st.exit_usec - st.start_usec == 12500000);
        trial_unit_state_done(&st);
        free(path);
        path = NULL;

        assert_int_equal(systemd_unit_object_path(f->client, "starting.service", &path), 0);
        assert_int_equal(trial_unit_read(f->client, path, &st), 0);
        assert_false(trial_unit_ended(&st));
        assert_true(st.start_usec == 0);
        trial_unit_state_done(&st);
}

/* trial --density's budget (issue 39): a transient slice with MemoryMax=, no aux units; stopped
 * alone by trial_unit_cleanup() without a service */
static void budget_slice_start_and_stop(void **state) {
        Fixture *f = *state;
        char *err = NULL;
        assert_int_equal(trial_slice_start(f->client, "nodeswap_trial_X.slice", "nodeswap trial X: the replicas' budget",
                                           400 * MiB, &err), 0);
        assert_null(err);
        pthread_mutex_lock(&seen.lock);
        assert_string_equal(seen.name, "nodeswap_trial_X.slice");
        assert_string_equal(seen.mode, "fail");
        assert_int_equal(seen.n_aux, 0);
        assert_string_equal(seen.props, "Description=s:nodeswap trial X: the replicas' budget MemoryAccounting=b:1 "
                                        "MemoryMax=t:419430400");
        seen.calls[0] = 0;
        pthread_mutex_unlock(&seen.lock);
        assert_int_equal(trial_unit_cleanup(f->client, NULL, "nodeswap_trial_X.slice"), 0);
        pthread_mutex_lock(&seen.lock);
        assert_string_equal(seen.calls, "Stop:nodeswap_trial_X.slice");
        pthread_mutex_unlock(&seen.lock);
}

static void cleanup_stops_service_resets_and_stops_slice(void **state) {
        Fixture *f = *state;
        assert_int_equal(trial_unit_cleanup(f->client, "nodeswap-trial-X-1.service", "nodeswap_trial_X_1.slice"), 0);
        pthread_mutex_lock(&seen.lock);
        assert_string_equal(seen.calls, "Stop:nodeswap-trial-X-1.service ResetFailed:nodeswap-trial-X-1.service "
                                        "Stop:nodeswap_trial_X_1.slice");
        pthread_mutex_unlock(&seen.lock);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(start_sends_the_properties, setup, teardown),
                cmocka_unit_test_setup_teardown(start_refused_says_pid1s_words, setup, teardown),
                cmocka_unit_test_setup_teardown(unit_state_read_and_ended, setup, teardown),
                cmocka_unit_test_setup_teardown(cleanup_stops_service_resets_and_stops_slice, setup, teardown),
                cmocka_unit_test_setup_teardown(budget_slice_start_and_stop, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
