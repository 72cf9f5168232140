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
 *     same set "nodeswap apply" masks (conflict_units_compute()),
 *   - keeps the units of [Kubelet] NoSwapUnits= out of swap when the policy gives pods swap
 *     (SwapBehavior=LimitedSwap): NORMAL/UNIT.d/50-nodeswap-no-swap.conf with MemorySwapMax=0, so
 *     it holds before the unit first starts (probe/noswap.h); "kubelet" is the kubelet's unit as
 *     [Kubelet] Unit= resolves it (kubelet_unit_find()). A unit whose own files set
 *     MemorySwapMax= is left alone, as "nodeswap apply" leaves it,
 *   - gives system.slice the io.latency target "nodeswap apply" set on the disk swap shares with the
 *     daemons ([Kubelet] IOLatencyTargetSec=, plan/iolatency.h), from nodeswap's state (io_latency=):
 *     NORMAL/system.slice.d/50-nodeswap-io-latency.conf with IODeviceLatencyTargetSec=/dev/block/MAJ:MIN,
 *     so that it holds from the slice's first realization at boot, before nodeswap.service runs.
 *     The disk comes from the record because finding it takes sysfs; systemd parses /dev/block/MAJ:MIN
 *     without a device node (src/core/cgroup.c, lookup_block_device()), so it applies before udev.
 * It only reads files and writes below its output directories: no D-Bus, no sysfs writes, no
 * child processes. A policy with errors makes it write nothing at all and exit 1, so the
 * distribution's swap stays as it was; each error is logged once.
 *
 * Environment: NODESWAP_ROOT=DIR reads the policy, /proc/meminfo (and proc/self/smaps for the page
 * size, see page_size_read()), /etc/initrd-release and
 * nodeswap's state below DIR (tests). SYSTEMD_LOG_TARGET=console (or stderr) logs to stderr
 * instead of /dev/kmsg. */

#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "probe/conflicts.h"
#include "probe/meminfo.h"
#include "probe/host.h"
#include "probe/noswap.h"
#include "probe/kubelet-unit.h"
#include "probe/state.h"
#include "report/log.h"
#include "shared/unit-name.h"

#ifndef NODESWAP_UNITDIR
#error "NODESWAP_UNITDIR must be defined by the build"
#endif

#define PROGRAM "nodeswap-generator"
#define SERVICE "nodeswap.service"
#define WANTED_BY "sysinit.target"


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
                return log_oom();
        if (sub) {
                r = mkdir_if_missing(d);
                if (r < 0)
                        return log_error_errno(r, "Failed to create directory '%s': %m", d);
        }
        p = strdup_printf("%s/%s", d, name);
        if (!p)
                return log_oom();
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
                return log_error_errno(r, "Failed to create symlink '%s' -> '%s': %m", p, target);
        }
        return 0;
}

static int write_dropin(const char *normal, const char *name, const char *body) {
        _cleanup_free_ char *d = strdup_printf("%s/" SERVICE ".d", normal);
        _cleanup_free_ char *p = NULL, *content = NULL;
        int r;

        if (!d)
                return log_oom();
        r = mkdir_if_missing(d);
        if (r < 0)
                return log_error_errno(r, "Failed to create directory '%s': %m", d);
        p = strdup_printf("%s/%s", d, name);
        content = strdup_printf("# Automatically generated by " PROGRAM "\n\n[Unit]\n%s", body);
        if (!p || !content)
                return log_oom();
        r = write_new_file(p, content);
        if (r < 0)
                return log_error_errno(r, "Failed to write '%s': %m", p);
        return 0;
}

/* NORMAL/UNIT.d/NO_SWAP_GENERATOR_DROPIN: MemorySwapMax=0 in the section of the unit's type. */
static int write_no_swap_dropin(const char *normal, const char *unit) {
        const char *section = endswith(unit, ".slice") ? "Slice" : endswith(unit, ".scope") ? "Scope" : "Service";
        _cleanup_free_ char *d = strdup_printf("%s/%s.d", normal, unit);
        _cleanup_free_ char *p = NULL, *content = NULL;
        int r;

        if (!d)
                return log_oom();
        r = mkdir_if_missing(d);
        if (r < 0)
                return log_error_errno(r, "Failed to create directory '%s': %m", d);
        p = strdup_printf("%s/" NO_SWAP_GENERATOR_DROPIN, d);
        content = strdup_printf("# Automatically generated by " PROGRAM "\n"
                                "# [Kubelet] NoSwapUnits=: out of swap while pods swap (nodeswap.conf(5))\n\n"
                                "[%s]\nMemorySwapMax=0\n", section);
        if (!p || !content)
                return log_oom();
        r = write_new_file(p, content);
        if (r < 0)
                return log_error_errno(r, "Failed to write '%s': %m", p);
        return 0;
}

/* [Kubelet] NoSwapUnits=, from the policy, the unit files and nodeswap's state (whose record says
 * whether a control drop-in of this boot is nodeswap's own). */
static int generate_no_swap(const char *root, const Policy *p, const NodeswapState *state, const char *normal) {
        _cleanup_strv_free_ char **units = NULL;
        int ret = 0, r;

        if (!policy_wants_no_swap_units(p))
                return 0;
        r = no_swap_units_resolve(p->no_swap_units, kubelet_unit_find(root, p), &units);
        if (r < 0)
                return log_oom();
        for (char **u = units; u && *u; u++) {
                _cleanup_free_ char *where = NULL, *value = NULL;
                /* A name from the policy or the kubelet's list: still checked, it becomes a directory name. */
                if (!unit_name_is_valid(*u, UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE)) {
                        log_error("NoSwapUnits= unit %s: not a valid unit name, not keeping it out of swap.", *u);
                        ret = -EINVAL;
                        continue;
                }
                r = no_swap_operator_setting(root, *u, strv_contains(state->no_swap_units, *u), &where, &value);
                if (r == -ENOMEM)
                        return log_oom();
                if (where) {
                        log_info("%s: MemorySwapMax=%s is set in %s, leaving it.", *u, value, where);
                        continue;
                }
                r = write_no_swap_dropin(normal, *u);
                if (r < 0)
                        ret = r;
        }
        return ret;
}

/* NORMAL/system.slice.d/IO_LATENCY_GENERATOR_DROPIN from the state's io_latency= record. */
#define IO_LATENCY_GENERATOR_DROPIN "50-nodeswap-io-latency.conf"
static int generate_io_latency(const NodeswapState *state, const char *normal) {
        if (state->io_latency_usec == 0)
                return 0;
        _cleanup_free_ char *d = strdup_printf("%s/" IO_LATENCY_SLICE ".d", normal);
        _cleanup_free_ char *p = NULL, *content = NULL;
        int r;

        if (!d)
                return log_oom();
        r = mkdir_if_missing(d);
        if (r < 0)
                return log_error_errno(r, "Failed to create directory '%s': %m", d);
        p = strdup_printf("%s/" IO_LATENCY_GENERATOR_DROPIN, d);
        content = strdup_printf("# Automatically generated by " PROGRAM "\n"
                                "# [Kubelet] IOLatencyTargetSec=: the daemons' I/O while pods swap (nodeswap.conf(5))\n\n"
                                "[Slice]\nIODeviceLatencyTargetSec=/dev/block/%u:%u %" PRIu64 "us\n",
                                state->io_latency_major, state->io_latency_minor, state->io_latency_usec);
        if (!p || !content)
                return log_oom();
        r = write_new_file(p, content);
        if (r < 0)
                return log_error_errno(r, "Failed to write '%s': %m", p);
        return 0;
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

static int generate(const char *root, const Policy *p, const NodeswapState *state, char *const *conflicts,
                    const char *normal, const char *early) {
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
                        return log_oom();
                if (r < 0) {
                        log_error("%s=%s: cannot be written as RequiresMountsFor=, not adding it.",
                                  i == 0 ? "[File] Path" : "[Zram] Writeback", mounts[i]);
                        ret = r;
                        continue;
                }
                char *b = strdup_printf("%sRequiresMountsFor=%s\n", strempty(body), dir);
                if (!b)
                        return log_oom();
                free(body);
                body = b;
        }
        if (body) {
                r = write_dropin(normal, "50-requires-mounts.conf", body);
                if (r < 0)
                        ret = r;
        }

        if (policy_wants_writeback_timer(p)) {
                r = make_symlink(normal, "timers.target.wants", NODESWAP_WRITEBACK_TIMER,
                                 NODESWAP_UNITDIR "/" NODESWAP_WRITEBACK_TIMER);
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

        r = generate_no_swap(root, p, state, normal);
        if (r < 0)
                ret = r;

        r = generate_io_latency(state, normal);
        if (r < 0)
                ret = r;

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

        log_setup(PROGRAM, LOG_TARGET_KMSG);

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
                log_error_errno(r, "Failed to read the memory size from /proc/meminfo, leaving systemd's units as they are: %m");
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
                log_error_errno(r, "Failed to read the nodeswap policy: %m");
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
                log_warning_errno(r, "Failed to read nodeswap's state, assuming nodeswap is not reverted: %m");
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
                log_warning_errno(r, "Failed to read rpi-swap's configuration, masking [Conflicts] Units= only: %m");
        r = conflict_units_compute(&policy, r >= 0 ? &rpi : NULL, &conflicts);
        if (r < 0) {
                log_oom();
                r = EXIT_FAILURE;
                goto finish;
        }

        r = generate(root, &policy, &state, conflicts, argv[1], argv[2]) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;

finish:
        nodeswap_state_done(&state);
        strv_free(conflicts);
        rpi_swap_config_done(&rpi);
        policy_done(&policy);
        policy_errors_clear(&errors);
        return r;
}
