/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap-generator NORMAL EARLY LATE (systemd.generator(7))
 *
 * Runs at boot and on every daemon-reload. When a nodeswap policy exists and "nodeswap revert"
 * is not in effect, it
 *   - pulls nodeswap.service into the boot (NORMAL/sysinit.target.wants/nodeswap.service),
 *   - adds NORMAL/nodeswap.service.d/50-requires-mounts.conf for a swap file,
 *   - adds NORMAL/nodeswap.service.d/50-zram-module.conf for a zram backend,
 *   - masks every conflict unit when Backend= is set (EARLY/UNIT -> /dev/null; the early
 *     directory beats even /etc/systemd/system): [Conflicts] Units=, and what Raspberry Pi OS's
 *     rpi-swap-generator makes from /etc/rpi/swap.conf (its zram, writeback timer, loop device,
 *     resize and remove services; rpi-remove-swap-file@ for the policy's [File] Path= too), the
 *     same set "nodeswap apply" masks (conflict_units_compute()).
 * It only reads files and writes below its output directories: no D-Bus, no sysfs writes, no
 * child processes. A policy with errors makes it write nothing at all and exit 1, so the
 * distribution's swap stays as it was; each error is logged once.
 *
 * Environment: NODESWAP_ROOT=DIR reads the policy, /proc/meminfo (and proc/self/smaps for the page
 * size, see page_size_read()), /etc/initrd-release and
 * nodeswap's state below DIR (tests). SYSTEMD_LOG_TARGET=console (or stderr) logs to stderr
 * instead of /dev/kmsg. */

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "probe/conflicts.h"
#include "probe/meminfo.h"
#include "probe/state.h"
#include "shared/unit-name.h"

#ifndef NODESWAP_UNITDIR
#error "NODESWAP_UNITDIR must be defined by the build"
#endif

#define PROGRAM "nodeswap-generator"
#define SERVICE "nodeswap.service"
#define WANTED_BY "sysinit.target"

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

static bool in_initrd(const char *root) {
        _cleanup_free_ char *path = path_join_root(root, "/etc/initrd-release");
        return path && access(path, F_OK) == 0;
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

        if (p->backend_set && (p->backends & BACKEND_FILE) && p->file.path) {
                _cleanup_free_ char *dir = NULL, *body = NULL;
                r = mounts_for_value(p->file.path, &dir);
                if (r == -ENOMEM)
                        return log_error("Out of memory."), r;
                if (r < 0) {
                        log_error("[File] Path=%s: cannot be written as RequiresMountsFor=, not adding it.",
                                  p->file.path);
                        ret = r;
                } else {
                        body = strdup_printf("RequiresMountsFor=%s\n", dir);
                        if (!body)
                                return log_error("Out of memory."), -ENOMEM;
                        r = write_dropin(normal, "50-requires-mounts.conf", body);
                        if (r < 0)
                                ret = r;
                }
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
                /* Unit names end up as file names in the output directories: only what
                 * systemd allows in a unit name (the policy's own test), so nothing can point
                 * outside them. */
                if (!unit_name_is_valid(*u, UNIT_NAME_ANY)) {
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
        NodeswapState state;
        PolicyContext ctx;
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

        nodeswap_state_init(&state);
        r = probe_context(root, &ctx);
        if (r < 0) {
                log_error("Failed to read the memory size from /proc/meminfo, leaving systemd's units as they are: %s",
                          strerror(-r));
                r = EXIT_FAILURE;
                goto finish;
        }

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

        /* nodeswap's own record, read as every verb reads it (state_load()): a file that cannot be
         * read counts as "not reverted", so the policy still holds. */
        r = state_load(root, &state);
        if (r < 0)
                log_warning("Failed to read nodeswap's state, assuming nodeswap is not reverted: %s", strerror(-r));
        for (char **u = state.unreadable; u && *u; u++)
                if (endswith(*u, STATE_PERSISTENT_PATH))
                        log_warning("Failed to read '%s' (permission denied), assuming nodeswap is not reverted.", *u);
        if (state.reverted) {
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
        nodeswap_state_done(&state);
        strv_free(conflicts);
        rpi_swap_config_done(&rpi);
        policy_done(&policy);
        policy_errors_clear(&errors);
        return r;
}
