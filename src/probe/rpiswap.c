/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rpi-swap's configuration and the units its generator makes from it (rpiswap.h). */
#include "probe/rpiswap.h"
#include "probe/host.h"

#include <fcntl.h>
#include <sys/stat.h>

#define RPI_SWAP_DEFAULT_PATH "/var/swap"
#define RPI_SWAP_CONF_MAX (256 * 1024)

static const char *const conf_dirs[] = { "/etc", "/run", "/usr/local/lib", "/usr/lib" };
static const char *const generator_dirs[] = {
        "/etc/systemd/system-generators", "/usr/local/lib/systemd/system-generators",
        "/usr/lib/systemd/system-generators", "/lib/systemd/system-generators",
};

static const char *const mechanism_names[_RPI_SWAP_MECHANISM_MAX] = {
        [RPI_SWAP_AUTO] = "auto",           [RPI_SWAP_SWAPFILE] = "swapfile",
        [RPI_SWAP_SWAPDEV] = "swapdev",     [RPI_SWAP_ZRAM] = "zram",
        [RPI_SWAP_ZRAM_FILE] = "zram+file", [RPI_SWAP_ZRAM_DEVICE] = "zram+device",
        [RPI_SWAP_NONE] = "none",
};

const char *rpi_swap_mechanism_to_string(RpiSwapMechanism m) {
        return m < _RPI_SWAP_MECHANISM_MAX ? mechanism_names[m] : NULL;
}

void rpi_swap_config_done(RpiSwapConfig *c) {
        free(c->mechanism_source);
        free(c->path);
        *c = (RpiSwapConfig) {};
}

static int set_string(char **field, const char *v) {
        char *n = strdup(v);
        if (!n)
                return -ENOMEM;
        free(*field);
        *field = n;
        return 0;
}

/* One file, as systemd's config parser reads it (relaxed: unknown sections and keys ignored).
 * An unreadable file is skipped, as rpi-swap's reader skips it. */
static int parse_file(const char *root, const char *path, RpiSwapConfig *c, char **wb_trigger) {
        _cleanup_free_ char *full = path_join_root(root, path);
        _cleanup_free_ char *buf = NULL;
        _cleanup_free_ char *section = NULL;
        unsigned line = 0;
        int r;

        if (!full)
                return -ENOMEM;
        r = read_full_file(full, RPI_SWAP_CONF_MAX, &buf);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;

        /* strtok_r() would merge empty lines and lose the count: walk the lines by hand. */
        for (char *l = buf, *next; l; l = next) {
                next = strchr(l, '\n');
                if (next)
                        *next++ = 0;
                line++;
                char *s = strstrip(l);
                if (*s == 0 || *s == '#' || *s == ';')
                        continue;
                if (*s == '[') {
                        char *e = strchr(s, ']');
                        free(section);
                        section = e ? strndup(s + 1, (size_t) (e - s - 1)) : NULL;
                        if (e && !section)
                                return -ENOMEM;
                        continue;
                }
                char *eq = strchr(s, '=');
                if (!eq || !section)
                        continue;
                *eq = 0;
                const char *key = strstrip(s), *v = strstrip(eq + 1);
                if (streq(section, "Main") && streq(key, "Mechanism")) {
                        RpiSwapMechanism m = RPI_SWAP_AUTO;     /* empty or unknown: auto */
                        for (size_t i = 0; i < _RPI_SWAP_MECHANISM_MAX; i++)
                                if (streq(v, mechanism_names[i]))
                                        m = (RpiSwapMechanism) i;
                        c->mechanism = m;
                        char *src = strdup_printf("%s:%u", path, line);
                        if (!src)
                                return -ENOMEM;
                        free(c->mechanism_source);
                        c->mechanism_source = src;
                } else if (streq(section, "File") && streq(key, "Path")) {
                        if ((r = set_string(&c->path, *v ? v : RPI_SWAP_DEFAULT_PATH)) < 0)
                                return r;
                } else if (streq(section, "Zram") && streq(key, "WritebackTrigger")) {
                        if ((r = set_string(wb_trigger, v)) < 0)
                                return r;
                }
        }
        return 0;
}

static int name_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The drop-ins in effect: file names sorted, each resolved to the first directory that has it;
 * a /dev/null symlink (or an empty file) masks the name. */
static int collect_dropins(const char *root, char ***ret) {
        _cleanup_strv_free_ char **names = NULL, **paths = NULL;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(conf_dirs); i++) {
                _cleanup_free_ char *rel = strdup_printf("%s/rpi/swap.conf.d", conf_dirs[i]);
                _cleanup_free_ char *dir = rel ? path_join_root(root, rel) : NULL;
                if (!dir)
                        return -ENOMEM;
                _cleanup_(closedirp) DIR *d = opendir(dir);
                if (!d)
                        continue;
                struct dirent *de;
                while ((de = readdir(d))) {
                        if (de->d_name[0] == '.' || !endswith(de->d_name, ".conf") ||
                            strv_contains(names, de->d_name))
                                continue;
                        if ((r = strv_extend(&names, de->d_name)) < 0)
                                return r;
                }
        }
        size_t n = strv_length(names);
        if (n > 1)
                qsort(names, n, sizeof(char *), name_cmp);
        for (size_t k = 0; k < n; k++)
                for (size_t i = 0; i < ELEMENTSOF(conf_dirs); i++) {
                        _cleanup_free_ char *rel = strdup_printf("%s/rpi/swap.conf.d/%s", conf_dirs[i], names[k]);
                        _cleanup_free_ char *full = rel ? path_join_root(root, rel) : NULL;
                        if (!full)
                                return -ENOMEM;
                        struct stat st;
                        if (lstat(full, &st) < 0)
                                continue;
                        char t[16];
                        ssize_t l = S_ISLNK(st.st_mode) ? readlink(full, t, sizeof t - 1) : -1;
                        if (l > 0) {
                                t[l] = 0;
                                if (streq(t, "/dev/null"))
                                        break;          /* masked */
                        }
                        if ((r = strv_push(&paths, TAKE_PTR(rel))) < 0)
                                return r;
                        break;
                }
        *ret = TAKE_PTR(paths);
        return 0;
}

int rpi_swap_load(const char *root, RpiSwapConfig *ret) {
        RpiSwapConfig c = { .mechanism = RPI_SWAP_AUTO };
        _cleanup_free_ char *wb_trigger = NULL;
        _cleanup_strv_free_ char **dropins = NULL;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(generator_dirs) && !c.installed; i++) {
                _cleanup_free_ char *rel = strdup_printf("%s/rpi-swap-generator", generator_dirs[i]);
                _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL;
                if (!p) {
                        r = -ENOMEM;
                        goto fail;
                }
                c.installed = access(p, F_OK) == 0;
        }

        for (size_t i = 0; i < ELEMENTSOF(conf_dirs); i++) {
                _cleanup_free_ char *rel = strdup_printf("%s/rpi/swap.conf", conf_dirs[i]);
                _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL;
                if (!p) {
                        r = -ENOMEM;
                        goto fail;
                }
                if (access(p, F_OK) < 0)
                        continue;
                if ((r = parse_file(root, rel, &c, &wb_trigger)) < 0)
                        goto fail;
                break;
        }
        if ((r = collect_dropins(root, &dropins)) < 0)
                goto fail;
        for (char **d = dropins; d && *d; d++)
                if ((r = parse_file(root, *d, &c, &wb_trigger)) < 0)
                        goto fail;

        if (!c.path && !(c.path = strdup(RPI_SWAP_DEFAULT_PATH))) {
                r = -ENOMEM;
                goto fail;
        }
        c.writeback_timer = !wb_trigger || !streq(wb_trigger, "manual");
        *ret = c;
        return 0;
fail:
        rpi_swap_config_done(&c);
        return r;
}

static int add_unit(char ***units, char *name) {
        if (!name)
                return errno == EINVAL ? 0 : -ENOMEM;  /* a relative Path=: rpi-swap makes no unit of it */
        if (strv_contains(*units, name)) {
                free(name);
                return 0;
        }
        return strv_push(units, name);
}

int rpi_swap_units(const RpiSwapConfig *c, const char *policy_path, char ***units) {
        int r = 0;

        if (!c->installed)
                return 0;

        RpiSwapMechanism m = c->mechanism;
        /* auto is zram+device when a swap partition exists, else zram+file: rpi-swap's generator
         * decides that with blkid at boot. The zram+file set covers both. */
        bool zram = m == RPI_SWAP_AUTO || m == RPI_SWAP_ZRAM || m == RPI_SWAP_ZRAM_FILE || m == RPI_SWAP_ZRAM_DEVICE;
        bool loop_file = m == RPI_SWAP_AUTO || m == RPI_SWAP_ZRAM_FILE;
        bool writeback = (loop_file || m == RPI_SWAP_ZRAM_DEVICE) && c->writeback_timer;

        if (zram) {
                if ((r = add_unit(units, strdup("dev-zram0.swap"))) < 0 ||
                    (r = add_unit(units, strdup("systemd-zram-setup@zram0.service"))) < 0)
                        return r;
        }
        /* The timer first: it is stopped before anything is masked (a timer whose service
         * vanishes under it fails, "Unit to trigger vanished"). */
        if (writeback) {
                if ((r = add_unit(units, strdup("rpi-zram-writeback.timer"))) < 0 ||
                    (r = add_unit(units, strdup("rpi-zram-writeback.service"))) < 0)
                        return r;
        }
        if (loop_file) {
                if ((r = add_unit(units, unit_name_path_instance("rpi-setup-loop", c->path, ".service"))) < 0 ||
                    (r = add_unit(units, strdup("rpi-resize-swap-file.service"))) < 0)
                        return r;
        }
        if (m == RPI_SWAP_SWAPFILE) {
                if ((r = add_unit(units, unit_name_from_path(c->path, ".swap"))) < 0 ||
                    (r = add_unit(units, strdup("rpi-resize-swap-file.service"))) < 0)
                        return r;
        }
        if (m == RPI_SWAP_SWAPDEV && (r = add_unit(units, unit_name_from_path(c->path, ".swap"))) < 0)
                return r;
        if ((m == RPI_SWAP_ZRAM || m == RPI_SWAP_NONE) &&
            (r = add_unit(units, unit_name_path_instance("rpi-remove-swap-file", c->path, ".service"))) < 0)
                return r;
        /* Whatever rpi-swap is set to, its remove service must never run on nodeswap's file. */
        if (policy_path && (r = add_unit(units, unit_name_path_instance("rpi-remove-swap-file", policy_path,
                                                                          ".service"))) < 0)
                return r;
        return 0;
}

bool rpi_swap_loop_unit(const RpiSwapConfig *c, const char *name) {
        if (!c->path || !name)
                return false;
        _cleanup_free_ char *u = unit_name_path_instance("rpi-setup-loop", c->path, ".service");
        return u && streq(u, name);
}

/* Here, not in probe.c: the generator calls it, and linking probe.c's object from the static
 * library would map libmount, libblkid and libyaml into every generator run for nothing. */
int conflict_units_compute(const Policy *policy, const RpiSwapConfig *rpi, char ***ret) {
        _cleanup_strv_free_ char **l = strv_copy(policy->conflict_units);
        int r;
        if (!l)
                return -ENOMEM;
        if (rpi && (r = rpi_swap_units(rpi, policy->file.path, &l)) < 0)
                return r;
        *ret = TAKE_PTR(l);
        return 0;
}
