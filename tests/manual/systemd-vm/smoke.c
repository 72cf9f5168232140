/* SPDX-License-Identifier: GPL-2.0-or-later */
/* src/probe/systemd.c against a real PID 1, run inside the VM by runner.sh (see vm.sh). Expects the
 * generator to have masked the default [Conflicts] units and started nodeswap.service, and the
 * units smoke-ok/-fail/-slow.service in /lib/systemd/system plus smoke-etc.service in /etc. */
#include <stdio.h>
#include "execute/systemd-jobs.h"

static int failed;
#define CHECK(cond, ...) do { printf((cond) ? "PASS " : "FAIL "); if (!(cond)) failed = 1; \
                              printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

/* A unit's LoadState, asked with libsystemd itself (nodeswap has no use for it). */
static int load_state(sd_bus *b, const char *unit, char **ret) {
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *path;
        int r = sd_bus_call_method(b, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE, "LoadUnit", &error,
                                   &reply, "s", unit);
        if (r >= 0)
                r = sd_bus_message_read(reply, "o", &path);
        if (r >= 0)
                r = sd_bus_get_property_string(b, SYSTEMD_DEST, path, SYSTEMD_UNIT_IFACE, "LoadState", &error, ret);
        sd_bus_message_unref(reply);
        sd_bus_error_free(&error);
        return r;
}

static void jobs(sd_bus *b, const char *tag) {
        char *s = NULL;
        int r;
        r = systemd_start_unit(b, "smoke-ok.service", 30000000, &s);
        CHECK(r == 0 && streq_ptr(s, "done"), "%s start smoke-ok: r=%d result=%s", tag, r, strempty(s)); free(s); s = NULL;
        r = systemd_start_unit(b, "smoke-fail.service", 30000000, &s);
        CHECK(r == 0 && streq_ptr(s, "failed"), "%s start smoke-fail: r=%d result=%s", tag, r, strempty(s)); free(s); s = NULL;
        r = systemd_restart_unit(b, "smoke-ok.service", 30000000, &s);
        CHECK(r == 0 && streq_ptr(s, "done"), "%s restart smoke-ok: r=%d result=%s", tag, r, strempty(s)); free(s); s = NULL;
        r = systemd_stop_unit(b, "smoke-ok.service", 30000000, &s);
        CHECK(r == 0 && streq_ptr(s, "done"), "%s stop smoke-ok: r=%d result=%s", tag, r, strempty(s)); free(s); s = NULL;
        r = systemd_start_unit(b, "smoke-slow.service", 1000000, &s);
        CHECK(r == -ETIMEDOUT && !s, "%s start smoke-slow with 1 s timeout: r=%d", tag, r);
        r = systemd_stop_unit(b, "smoke-slow.service", 30000000, &s);
        CHECK(r == 0 && streq_ptr(s, "done"), "%s stop smoke-slow: r=%d result=%s", tag, r, strempty(s)); free(s); s = NULL;
        r = systemd_start_unit(b, "no-such-unit.service", 30000000, &s);
        CHECK(r == -ENOENT, "%s start no-such-unit: r=%d (%s)", tag, r, strerror(-r));
}

int main(void) {
        sd_bus *b = NULL;
        char *s = NULL;
        uint64_t t1 = 0, t2 = 0, t3 = 0;
        char *units[] = { (char *) "smoke-ok.service", NULL };
        int r;

        r = systemd_open("/srv", &b);
        CHECK(r == -EOPNOTSUPP, "open below /srv: %d", r);
        r = systemd_open("/", &b);
        CHECK(r == 0, "open: r=%d", r);
        if (r < 0)
                return 1;
        printf("INFO connected, bus client=%d (0 = private socket)\n", sd_bus_is_bus_client(b));

        r = load_state(b, "dev-zram0.swap", &s);
        CHECK(r == 0 && streq_ptr(s, "masked"), "dev-zram0.swap load state: r=%d %s", r, strempty(s)); free(s); s = NULL;
        r = load_state(b, "rpi-zram-writeback.timer", &s);
        CHECK(r == 0 && streq_ptr(s, "masked"), "rpi-zram-writeback.timer load state: r=%d %s", r, strempty(s)); free(s); s = NULL;
        r = systemd_unit_active(b, "nodeswap.service", &s);
        CHECK(r == 0 && streq_ptr(s, "active"), "nodeswap.service active state: r=%d %s", r, strempty(s)); free(s); s = NULL;
        r = load_state(b, "no-such-unit.service", &s);
        CHECK(r == 0 && streq_ptr(s, "not-found"), "no-such-unit load state: r=%d %s", r, strempty(s)); free(s); s = NULL;
        r = systemd_unit_active(b, "no-such-unit.service", &s);
        CHECK(r == 0 && streq_ptr(s, "inactive"), "no-such-unit active state: r=%d %s", r, strempty(s)); free(s); s = NULL;

        r = systemd_unit_timestamp(b, "nodeswap.service", "ActiveEnterTimestamp", &t1);
        int r2 = systemd_unit_timestamp(b, "sysinit.target", "ActiveEnterTimestamp", &t2);
        int r3 = systemd_unit_timestamp(b, "nodeswap.service", "ExecMainStartTimestamp", &t3);
        CHECK(r == 0 && r2 == 0 && r3 == 0 && t1 > 0 && t3 > 0 && t3 <= t1 && t1 <= t2,
              "nodeswap.service active at %llu (main start %llu), sysinit.target at %llu (r=%d,%d,%d)",
              (unsigned long long) t1, (unsigned long long) t3, (unsigned long long) t2, r, r2, r3);
        r = systemd_unit_timestamp(b, "k3s-agent.service", "ExecMainStartTimestamp", &t2);
        CHECK(r == 0 && t2 > t1, "k3s-agent main start %llu after nodeswap %llu (r=%d)",
              (unsigned long long) t2, (unsigned long long) t1, r);

        r = systemd_mask_runtime(b, units);
        CHECK(r >= 1, "mask smoke-ok at runtime: %d changes", r);
        r = systemd_mask_runtime(b, units);
        CHECK(r >= 0, "mask again (force): r=%d", r);
        r = systemd_reload(b);
        CHECK(r == 0, "reload: r=%d", r);
        r = load_state(b, "smoke-ok.service", &s);
        CHECK(r == 0 && streq_ptr(s, "masked"), "smoke-ok after mask+reload: r=%d %s", r, strempty(s)); free(s); s = NULL;
        r = systemd_start_unit(b, "smoke-ok.service", 30000000, &s);
        CHECK(r < 0, "starting a masked unit fails: r=%d (%s)", r, strerror(-r)); free(s); s = NULL;
        {
                char *etc[] = { (char *) "smoke-etc.service", NULL };
                r = systemd_mask_runtime(b, etc);
                CHECK(r >= 1, "mask smoke-etc (unit file in /etc) at runtime: %d changes", r);
                systemd_reload(b);
                r = load_state(b, "smoke-etc.service", &s);
                printf("INFO runtime mask of a unit in /etc/systemd/system: load state %s (r=%d)\n", strempty(s), r);
                free(s); s = NULL;
                systemd_unmask_runtime(b, etc);
        }
        r = systemd_unmask_runtime(b, units);
        CHECK(r >= 1, "unmask smoke-ok: %d changes", r);
        r = systemd_reload(b);
        CHECK(r == 0, "reload: r=%d", r);
        r = load_state(b, "smoke-ok.service", &s);
        CHECK(r == 0 && streq_ptr(s, "loaded"), "smoke-ok after unmask+reload: r=%d %s", r, strempty(s)); free(s); s = NULL;

        jobs(b, "private:");
        sd_bus_flush_close_unref(b);

        b = NULL;
        r = sd_bus_open_system(&b);
        if (r < 0)
                printf("SKIP system bus: %s\n", strerror(-r));
        else {
                printf("INFO system bus client=%d\n", sd_bus_is_bus_client(b));
                jobs(b, "system bus:");
                r = systemd_mask_runtime(b, units);
                CHECK(r >= 1, "system bus: mask: %d", r);
                r = systemd_unmask_runtime(b, units);
                CHECK(r >= 1, "system bus: unmask: %d", r);
                r = systemd_reload(b);
                CHECK(r == 0, "system bus: reload: r=%d", r);
                sd_bus_flush_close_unref(b);
        }
        printf(failed ? "SMOKE FAILED\n" : "SMOKE OK\n");
        return failed;
}
