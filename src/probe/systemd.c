/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/systemd.h"
#include "probe/probe.h"

#include <ctype.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "shared/clock.h"
#include "shared/sd-dl.h"

/* Every call with a bus: the bus may come from a caller that links libsystemd itself (the unit
 * tests), so make sure the pointers are resolved (a no-op after the first time). */
int systemd_bus_ready(sd_bus *b) {
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

int systemd_unit_object_path(sd_bus *b, const char *unit, char **ret) {
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        const char *path;
        int r;

        if (!unit || !*unit)
                return -EINVAL;
        r = systemd_bus_ready(b);
        if (r < 0)
                return r;
        r = sym_sd_bus_call_method(b, SYSTEMD_DEST, SYSTEMD_MANAGER_PATH, SYSTEMD_MANAGER_IFACE, "LoadUnit", &error, &reply,
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
        r = systemd_unit_object_path(b, unit, &path);
        if (r < 0)
                return r;
        r = sym_sd_bus_get_property_string(b, SYSTEMD_DEST, path, SYSTEMD_UNIT_IFACE, property, &error, &value);
        if (r < 0)
                return r;
        *ret = value;
        return 0;
}

int systemd_unit_active(sd_bus *b, const char *unit, char **ret_active_state) {
        return unit_string_property(b, unit, "ActiveState", ret_active_state);
}

/* "foo.service" -> "org.freedesktop.systemd1.Service", "x.automount" -> "...Automount". */
static char *type_interface(const char *unit) {
        const char *dot = strrchr(unit, '.');

        if (!dot || !dot[1])
                return NULL;
        char *s = strdup_printf(SYSTEMD_DEST ".%s", dot + 1);
        if (!s)
                return NULL;
        char *t = s + strlen(SYSTEMD_DEST ".");
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
        r = systemd_unit_object_path(b, unit, &path);
        if (r < 0)
                return r;

        r = sym_sd_bus_get_property_trivial(b, SYSTEMD_DEST, path, SYSTEMD_UNIT_IFACE, property, &error, 't', &t);
        if (r < 0 && sym_sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_PROPERTY)) {
                iface = type_interface(unit);
                if (!iface)
                        return -ENOMEM;
                sym_sd_bus_error_free(&error);
                r = sym_sd_bus_get_property_trivial(b, SYSTEMD_DEST, path, iface, property, &error, 't', &t);
        }
        if (r < 0)
                return r;
        *ret_usec = t;
        return 0;
}

int systemd_unit_swap_max(sd_bus *b, const char *unit, uint64_t *ret_max, char **ret_cgroup) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL, *iface = NULL;
        char *cgroup = NULL;
        uint64_t t;
        int r;

        if (!ret_max || !ret_cgroup)
                return -EINVAL;
        r = systemd_unit_object_path(b, unit, &path);
        if (r < 0)
                return r;
        iface = type_interface(unit);
        if (!iface)
                return -ENOMEM;
        r = sym_sd_bus_get_property_trivial(b, SYSTEMD_DEST, path, iface, "MemorySwapMax", &error, 't', &t);
        if (r < 0)
                return r;
        sym_sd_bus_error_free(&error);
        r = sym_sd_bus_get_property_string(b, SYSTEMD_DEST, path, iface, "ControlGroup", &error, &cgroup);
        if (r < 0)
                return r;
        *ret_max = t;
        *ret_cgroup = cgroup;
        return 0;
}

/* 1 when the unit is up (systemd_active_state_up()), 0 when not, -1 when systemd did not say. */
static int unit_up(sd_bus *b, const char *unit) {
        _cleanup_free_ char *state = NULL;
        if (systemd_unit_active(b, unit, &state) < 0)
                return -1;
        return systemd_active_state_up(state);
}

/* Which units are active (the conflict units and nodeswap's writeback timer), and when the
 * kubelet last started (its swap capacity is read then). */
void probe_systemd(const char *root, HostState *h) {
        sd_bus *b = NULL;
        if (!h->systemd_booted || systemd_open(root, &b) < 0)
                return;
        for (size_t i = 0; i < h->n_units; i++)
                h->units[i].active = unit_up(b, h->units[i].name);
        h->writeback_timer_active = unit_up(b, NODESWAP_WRITEBACK_TIMER);
        /* What systemd says of each NoSwapUnits= unit: its property, and where its cgroup is (then
         * read again there: a unit with Slice= is not in system.slice). */
        for (size_t i = 0; i < h->n_no_swap_units; i++) {
                NoSwapUnit *u = &h->no_swap_units[i];
                _cleanup_free_ char *load = NULL;
                char *cgroup = NULL;
                uint64_t max;
                if (unit_string_property(b, u->name, "LoadState", &load) >= 0)
                        u->loaded = !streq(load, "not-found");
                if (systemd_unit_swap_max(b, u->name, &max, &cgroup) < 0)
                        continue;
                u->property_known = true;
                u->property = max;
                if (cgroup && *cgroup) {
                        free(u->cgroup);
                        u->cgroup = strdup(cgroup + (*cgroup == '/'));
                        no_swap_read_cgroup(root, u);
                }
                free(cgroup);
        }
        if (h->kubelet_unit) {
                uint64_t t;
                h->kubelet_active = unit_up(b, h->kubelet_unit);
                if (systemd_unit_timestamp(b, h->kubelet_unit, "ActiveEnterTimestamp", &t) >= 0)
                        h->kubelet_started_usec = t;
        }
        sym_sd_bus_flush_close_unref(b);
}
