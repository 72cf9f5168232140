/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap-generator NORMAL EARLY LATE (systemd.generator(7))
 *
 * Runs at boot and on every daemon-reload. When a nodeswap policy exists and "nodeswap revert"
 * is not in effect, it
 *   - pulls nodeswap.service into the boot (NORMAL/sysinit.target.wants/nodeswap.service),
 *   - adds NORMAL/nodeswap.service.d/50-requires-mounts.conf for a swap file,
 *   - adds NORMAL/nodeswap.service.d/50-zram-module.conf for a zram backend,
 *   - pulls nodeswap-writeback.timer into timers.target when zram writes back or recompresses
 *     ([Zram] Writeback= or RecompressAlgorithm=, WritebackInterval= not 0), and adds the
 *     mounts of a Writeback= file to 50-requires-mounts.conf,
 *   - masks every conflict unit when Backend= is set (EARLY/UNIT -> /dev/null; the early
 *     directory beats even /etc/systemd/system): [Conflicts] Units=, and what Raspberry Pi OS's
 *     rpi-swap-generator makes from /etc/rpi/swap.conf (its zram, writeback timer, loop device,
 *     resize and remove services; rpi-remove-swap-file@ for the policy's [File] Path= too), the
 *     same set "nodeswap apply" masks (conflict_units_compute()).
 * It only reads files and writes below its output directories: no D-Bus, no sysfs writes, no
 * child processes. A policy with errors makes it write nothing at all and exit 1, so the
 * distribution's swap stays as it was; each error is logged once.
 *
 * Environment: NODESWAP_ROOT=DIR reads the policy, /proc/meminfo, /etc/initrd-release and
 * nodeswap's state below DIR (tests). SYSTEMD_LOG_TARGET=console (or stderr) logs to stderr
 * instead of /dev/kmsg. */

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>

#include "probe/host.h"

#ifndef NODESWAP_UNITDIR
#error "NODESWAP_UNITDIR must be defined by the build"
#endif

#define PROGRAM "nodeswap-generator"
#define SERVICE "nodeswap.service"
#define WRITEBACK_TIMER "nodeswap-writeback.timer"
#define WANTED_BY "sysinit.target"
#define STATE_FILE "/var/lib/nodeswap/state"

#define LOG_ERR 3
#define LOG_WARNING 4
#define LOG_INFO 6

static int log_fd = -2;         /* -2: not decided yet, -1: stderr */

static void log_open(void) {
        const char *t = getenv("SYSTEMD_LOG_TARGET");

        if (t && (streq(t, "console") || streq(t, "stderr"))) {
                log_fd = -1;
                return;
        }
        log_fd = open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (log_fd < 0)
                log_fd = -1;
}

static void log_full(int level, const char *fmt, ...) _printf_(2, 3);
static void log_full(int level, const char *fmt, ...) {
        char msg[1024];
        char line[1100];
        va_list ap;
        int saved = errno;

        if (log_fd == -2)
                log_open();

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);

        if (log_fd >= 0) {
                /* One write() is one kernel log record. */
                int n = snprintf(line, sizeof(line), "<%d>" PROGRAM ": %s\n", level, msg);
                if (n > 0 && write(log_fd, line, (size_t) n < sizeof(line) ? (size_t) n : sizeof(line) - 1) >= 0) {
                        errno = saved;
                        return;
                }
        }
        fprintf(stderr, PROGRAM ": %s\n", msg);
        errno = saved;
}

#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)

static uint64_t read_mem_total(const char *root) {
        _cleanup_free_ char *path = path_join_root(root, "/proc/meminfo");
        _cleanup_free_ char *buf = NULL;
        struct sysinfo si;

        if (path && read_full_file(path, 64 * 1024, &buf) >= 0) {
                char *p = strstr(buf, "MemTotal:");
                if (p) {
                        p += strlen("MemTotal:");
                        p += strspn(p, " \t");
                        size_t n = strspn(p, "0123456789");
                        char num[32];
                        uint64_t kib;
                        if (n > 0 && n < sizeof(num)) {
                                memcpy(num, p, n);
                                num[n] = 0;
                                if (safe_atou64(num, &kib) >= 0 && kib <= UINT64_MAX / 1024)
                                        return kib * 1024;
                        }
                }
        }
        if (sysinfo(&si) < 0)
                return 0;
        return (uint64_t) si.totalram * si.mem_unit;
}

/* "nodeswap revert" ran last: reverted=yes in /var/lib/nodeswap/state. A small local reader of
 * the one key needed here, accepting what state.c writes and reads (yes/no, 1/0, true/false);
 * TODO: use state_load() once state.c is in. A missing file is not reverted. */
static int read_reverted(const char *root, bool *ret) {
        _cleanup_free_ char *path = path_join_root(root, STATE_FILE);
        _cleanup_free_ char *buf = NULL;
        bool reverted = false;
        char *save = NULL;
        int r;

        if (!path)
                return -ENOMEM;
        r = read_full_file(path, 1024 * 1024, &buf);
        if (r == -ENOENT) {
                *ret = false;
                return 0;
        }
        if (r < 0)
                return r;

        for (char *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                l = strstrip(l);
                if (*l == '#')
                        continue;
                char *eq = strchr(l, '=');
                if (!eq)
                        continue;
                *eq = 0;
                if (!streq(strstrip(l), "reverted"))
                        continue;
                const char *v = strstrip(eq + 1);
                if (streq(v, "yes") || streq(v, "1") || streq(v, "true"))
                        reverted = true;
                else if (streq(v, "no") || streq(v, "0") || streq(v, "false"))
                        reverted = false;
        }
        *ret = reverted;
        return 0;
}

static bool in_initrd(const char *root) {
        _cleanup_free_ char *path = path_join_root(root, "/etc/initrd-release");
        return path && access(path, F_OK) == 0;
}

/* Unit names end up as file names in the output directories: allow only what systemd allows in
 * a unit name, so nothing can point outside them. */
static bool unit_name_valid(const char *name) {
        static const char *const suffixes[] = {
                ".service", ".socket", ".device", ".mount", ".automount", ".swap",
                ".target", ".path", ".timer", ".slice", ".scope",
        };
        size_t l = strlen(name);

        if (l == 0 || l > 255 || name[0] == '.' || name[0] == '@')
                return false;
        if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:-_.\\@") != l)
                return false;
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++)
                if (endswith(name, suffixes[i]) && l > strlen(suffixes[i]))
                        return true;
        return false;
}

static int mkdir_if_missing(const char *path) {
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

static int write_new_file(const char *path, const char *content) {
        _cleanup_close_ int fd = -1;
        size_t left = strlen(content);

        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return -errno;
        if (fchmod(fd, 0644) < 0)
                return -errno;
        while (left > 0) {
                ssize_t n = write(fd, content, left);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                content += n;
                left -= (size_t) n;
        }
        int r = close(fd);
        fd = -1;
        return r < 0 ? -errno : 0;
}

/* dir/sub/name -> target. An identical symlink already there (a unit listed twice) is fine. */
static int make_symlink(const char *dir, const char *sub, const char *name, const char *target) {
        _cleanup_free_ char *d = sub ? strdup_printf("%s/%s", dir, sub) : strdup(dir);
        _cleanup_free_ char *p = NULL;
        int r;

        if (!d)
                return log_error("Out of memory."), -ENOMEM;
        if (sub) {
                r = mkdir_if_missing(d);
                if (r < 0) {
                        log_error("Failed to create directory '%s': %s", d, strerror(-r));
                        return r;
                }
        }
        p = strdup_printf("%s/%s", d, name);
        if (!p)
                return log_error("Out of memory."), -ENOMEM;
        if (symlink(target, p) < 0) {
                r = -errno;
                if (r == -EEXIST) {
                        char buf[4096];
                        ssize_t n = readlink(p, buf, sizeof(buf) - 1);
                        if (n >= 0) {
                                buf[n] = 0;
                                if (streq(buf, target))
                                        return 0;
                        }
                }
                log_error("Failed to create symlink '%s' -> '%s': %s", p, target, strerror(-r));
                return r;
        }
        return 0;
}

static int write_dropin(const char *normal, const char *name, const char *body) {
        _cleanup_free_ char *d = strdup_printf("%s/" SERVICE ".d", normal);
        _cleanup_free_ char *p = NULL, *content = NULL;
        int r;

        if (!d)
                return log_error("Out of memory."), -ENOMEM;
        r = mkdir_if_missing(d);
        if (r < 0) {
                log_error("Failed to create directory '%s': %s", d, strerror(-r));
                return r;
        }
        p = strdup_printf("%s/%s", d, name);
        content = strdup_printf("# Automatically generated by " PROGRAM "\n\n[Unit]\n%s", body);
        if (!p || !content)
                return log_error("Out of memory."), -ENOMEM;
        r = write_new_file(p, content);
        if (r < 0)
                log_error("Failed to write '%s': %s", p, strerror(-r));
        return r;
}

/* The directory that must be mounted before the swap file can be used, as a unit file value:
 * '%' doubled (specifiers); white space, quotes and backslashes refused rather than quoted. */
static int mounts_for_value(const char *file, char **ret) {
        const char *slash = strrchr(file, '/');
        size_t dl = slash && slash != file ? (size_t) (slash - file) : 1;
        char *v = malloc(dl * 2 + 1), *o = v;

        if (!v)
                return -ENOMEM;
        for (size_t i = 0; i < dl; i++) {
                unsigned char c = (unsigned char) file[i];
                if (c <= ' ' || c == 0x7f || c == '"' || c == '\'' || c == '\\') {
                        free(v);
                        return -EINVAL;
                }
                if (c == '%')
                        *o++ = '%';
                *o++ = (char) c;
        }
        *o = 0;
        *ret = v;
        return 0;
}

static int generate(const Policy *p, char *const *conflicts, const char *normal, const char *early) {
        int ret = 0, r;

        /* Order matters when something fails half way: the service first (at boot it masks the
         * conflict units itself), the masks last. */
        r = make_symlink(normal, WANTED_BY ".wants", SERVICE, NODESWAP_UNITDIR "/" SERVICE);
        if (r < 0)
                ret = r;

        bool zram = p->backend_set && (p->backends & BACKEND_ZRAM);
        const char *mounts[] = {
                p->backend_set && (p->backends & BACKEND_FILE) ? p->file.path : NULL,
                zram && policy_writeback_is_file(p) ? p->zram.writeback : NULL,
        };
        _cleanup_free_ char *body = NULL;
        for (size_t i = 0; i < ELEMENTSOF(mounts); i++) {
                _cleanup_free_ char *dir = NULL;
                if (!mounts[i])
                        continue;
                r = mounts_for_value(mounts[i], &dir);
                if (r == -ENOMEM)
                        return log_error("Out of memory."), r;
                if (r < 0) {
                        log_error("%s=%s: cannot be written as RequiresMountsFor=, not adding it.",
                                  i == 0 ? "[File] Path" : "[Zram] Writeback", mounts[i]);
                        ret = r;
                        continue;
                }
                char *b = strdup_printf("%sRequiresMountsFor=%s\n", strempty(body), dir);
                if (!b)
                        return log_error("Out of memory."), -ENOMEM;
                free(body);
                body = b;
        }
        if (body) {
                r = write_dropin(normal, "50-requires-mounts.conf", body);
                if (r < 0)
                        ret = r;
        }

        if (zram && (p->zram.writeback || p->zram.recompress) && p->zram.writeback_interval > 0) {
                r = make_symlink(normal, "timers.target.wants", WRITEBACK_TIMER, NODESWAP_UNITDIR "/" WRITEBACK_TIMER);
                if (r < 0)
                        ret = r;
        }

        if (p->backend_set && (p->backends & BACKEND_ZRAM)) {
                /* /sys/class/zram-control appears only once the module is loaded. */
                r = write_dropin(normal, "50-zram-module.conf",
                                 "Wants=modprobe@zram.service\nAfter=modprobe@zram.service\n");
                if (r < 0)
                        ret = r;
        }

        /* No Backend= means nodeswap manages no swap: then it masks nothing either. */
        if (!p->backend_set)
                return ret;
        for (char *const *u = conflicts; u && *u; u++) {
                if (!unit_name_valid(*u)) {
                        log_error("Conflict unit %s: not a valid unit name, not masking it.", *u);
                        ret = -EINVAL;
                        continue;
                }
                if (streq(*u, SERVICE)) {
                        log_error("Conflict unit %s: refusing to mask nodeswap itself.", *u);
                        ret = -EINVAL;
                        continue;
                }
                r = make_symlink(early, NULL, *u, "/dev/null");
                if (r < 0)
                        ret = r;
        }
        return ret;
}

int main(int argc, char **argv) {
        PolicyErrors errors = {};
        Policy policy = {};
        RpiSwapConfig rpi = {};
        char **conflicts = NULL;
        const char *root;
        bool reverted = false;
        long ps;
        int r;

        if (argc != 4) {
                log_error("Expected three arguments (normal, early and late output directory), got %d.",
                          argc - 1);
                return EXIT_FAILURE;
        }

        root = getenv("NODESWAP_ROOT");
        if (root && !*root)
                root = NULL;

        /* nodeswap belongs to the host system, not to the initrd. */
        if (in_initrd(root))
                return EXIT_SUCCESS;

        ps = sysconf(_SC_PAGESIZE);
        PolicyContext ctx = {
                .ram = read_mem_total(root),
                .page_size = ps > 0 ? (uint64_t) ps : 4096,
        };

        r = policy_load(root, NULL, &ctx, &policy, &errors);
        if (r == -EINVAL) {
                for (size_t i = 0; i < errors.n; i++) {
                        _cleanup_free_ char *line = policy_error_format(&errors.errors[i]);
                        log_error("%s", line ? line : strempty(errors.errors[i].message));
                }
                log_error("The nodeswap policy has errors, leaving systemd's units as they are.");
                r = EXIT_FAILURE;
                goto finish;
        }
        if (r < 0) {
                log_error("Failed to read the nodeswap policy: %s", strerror(-r));
                r = EXIT_FAILURE;
                goto finish;
        }
        if (!policy.found) {
                /* Installing nodeswap changes nothing until there is a policy. */
                r = EXIT_SUCCESS;
                goto finish;
        }

        r = read_reverted(root, &reverted);
        if (r < 0)
                log_warning("Failed to read '%s', assuming nodeswap is not reverted: %s",
                            STATE_FILE, strerror(-r));
        if (reverted) {
                log_info("'nodeswap revert' is in effect, leaving systemd's units as they are.");
                r = EXIT_SUCCESS;
                goto finish;
        }

        /* rpi-swap's configuration decides which of its units exist; unreadable, nodeswap still
         * masks [Conflicts] Units=. */
        r = rpi_swap_load(root, &rpi);
        if (r < 0)
                log_warning("Failed to read rpi-swap's configuration, masking [Conflicts] Units= only: %s",
                            strerror(-r));
        r = conflict_units_compute(&policy, r >= 0 ? &rpi : NULL, &conflicts);
        if (r < 0) {
                log_error("Out of memory.");
                r = EXIT_FAILURE;
                goto finish;
        }

        r = generate(&policy, conflicts, argv[1], argv[2]) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

finish:
        strv_free(conflicts);
        rpi_swap_config_done(&rpi);
        policy_done(&policy);
        policy_errors_clear(&errors);
        return r;
}
