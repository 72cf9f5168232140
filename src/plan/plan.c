/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan(): the decisions. A pure function of (policy, host state, options): it reads nothing and
 * writes nothing, so every decision can be tested against fixture trees. The order of the actions
 * is the order apply executes them in (nodeswap(8), apply: "Carry out the plan, in this order"). */
#include "plan/plan.h"
#include "shared/string-table.h"

#include <inttypes.h>
#include <stdarg.h>

#include "plan/kubelet.h"
#include "plan/placement.h"
#include "plan/zswap.h"
#include "probe/swap.h"
#include "probe/swapfile.h"
#include "probe/zram.h"
#include "plan/zram-knobs.h"

static const char *const action_kind_table[_ACTION_KIND_MAX] = {
        [ACTION_MASK_UNIT] = "mask-unit",
        [ACTION_STOP_UNIT] = "stop-unit",
        [ACTION_ZRAM_CREATE] = "zram-create",
        [ACTION_FILE_CREATE] = "file-create",
        [ACTION_FILE_MKSWAP] = "file-mkswap",
        [ACTION_SWAPON] = "swapon",
        [ACTION_SWAPOFF] = "swapoff",
        [ACTION_ZRAM_REMOVE] = "zram-remove",
        [ACTION_FILE_REMOVE] = "file-remove",
        [ACTION_SYSCTL] = "sysctl",
        [ACTION_ZSWAP_SET] = "zswap-set",
        [ACTION_DROPIN_WRITE] = "dropin-write",
        [ACTION_DROPIN_REMOVE] = "dropin-remove",
        [ACTION_RESTART_UNIT] = "restart-unit",
        [ACTION_UNMASK_UNIT] = "unmask-unit",
        [ACTION_START_UNIT] = "start-unit",
        [ACTION_MARK_REVERTED] = "mark-reverted",
        [ACTION_CLEAR_REVERTED] = "clear-reverted",
};

DEFINE_STRING_TABLE_TO_STRING(action_kind, ActionKind, action_kind_table);

static void action_done(Action *a) {
        free(a->target);
        free(a->now);
        free(a->want);
        free(a->reason);
        free(a->algorithm);
        free(a->content);
}

void plan_done(Plan *p) {
        for (size_t i = 0; i < p->n_actions; i++)
                action_done(&p->actions[i]);
        free(p->actions);
        findings_done(&p->findings);
        *p = (Plan) {};
}

/* Append an action; target/now/want/reason are copied. Returns the new action or NULL. */
static Action *plan_add(Plan *p, ActionKind kind, const char *target, const char *now, const char *want,
                        const char *reason) {
        Action *n = realloc(p->actions, sizeof(Action) * (p->n_actions + 1));
        if (!n)
                return NULL;
        p->actions = n;
        Action *a = &p->actions[p->n_actions];
        *a = (Action) { .kind = kind, .zram_id = -1 };
        if ((target && !(a->target = strdup(target))) || (now && !(a->now = strdup(now))) ||
            (want && !(a->want = strdup(want))) || (reason && !(a->reason = strdup(reason)))) {
                action_done(a);
                return NULL;
        }
        p->n_actions++;
        return a;
}

Action *plan_append(Plan *p, ActionKind kind, const char *target, const char *now, const char *want,
                    const char *reason) {
        return plan_add(p, kind, target, now, want, reason);
}

/* A finding of the plan (verdict.h): the policy key behind it (-1: none) and its value as written,
 * a hint (taken over, may be NULL) and the message. */
static int plan_find(Plan *pl, Verdict v, const Policy *p, int key, const char *value, char *hint,
                     const char *fmt, ...) _printf_(7, 8);
static int plan_find(Plan *pl, Verdict v, const Policy *p, int key, const char *value, char *hint,
                     const char *fmt, ...) {
        va_list ap;
        char *s;
        va_start(ap, fmt);
        int k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0) {
                free(hint);
                return -ENOMEM;
        }
        if (key < 0)
                return findings_add(&pl->findings, v, s, hint);
        return findings_add_at(&pl->findings, v, p, (PolicyKey) key, value, s, hint);
}

/* The hint for an algorithm the kernel does not offer: the offered one nearest to a name asked
 * for, else the first offered. */
static char *algorithm_hint(char **wanted, char **offered, const char *have) {
        const char *near = NULL;
        for (char **w = wanted; w && *w && !near; w++)
                near = policy_suggest(*w, offered);
        if (near)
                return strdup_printf("did you mean %s? This kernel offers %s: write [Zram] Algorithm=%s", near, have,
                                     near);
        return strdup_printf("this kernel offers %s: write [Zram] Algorithm= with one of them, e.g. "
                             "Algorithm=%s", have, offered && offered[0] ? offered[0] : "lz4");
}

/* The largest swap file size that leaves its margin free on free bytes, in whole MiB. */
static uint64_t swapfile_largest_fit(uint64_t free) {
        uint64_t lo = 0, hi = free / MiB;
        while (lo < hi) {
                uint64_t mid = lo + (hi - lo + 1) / 2;
                if (mid * MiB + swapfile_margin(mid * MiB) <= free)
                        lo = mid;
                else
                        hi = mid - 1;
        }
        return lo * MiB;
}

#define B(x) format_bytes((char[FORMAT_BYTES_MAX]) {}, FORMAT_BYTES_MAX, (x))

/* Usable size of a swap area of `size` bytes: the first page holds the header. */
static uint64_t swap_usable(uint64_t size, uint64_t page_size) {
        return size > page_size ? size - page_size : 0;
}

enum {
        KEEP_UNDECIDED = 0,
        KEEP_ON,                /* stays on after the plan */
        KEEP_REPLACED,          /* replaced in place by another action (a resized swap file) */
};

typedef struct Ctx {
        const Policy *p;
        const HostState *h;
        const PlanOptions *o;
        Plan *plan;
        uint8_t *keep;          /* per h->swaps: KEEP_* */
        uint64_t new_swap;      /* usable bytes of swap areas the plan brings up */
        bool swap_changed;
} Ctx;

static int find_action(const Plan *p, ActionKind kind, const char *target) {
        for (size_t i = 0; i < p->n_actions; i++)
                if (p->actions[i].kind == kind && streq_ptr(p->actions[i].target, target))
                        return (int) i;
        return -1;
}

static bool unit_is_swap(const char *u) {
        return endswith(u, ".swap");
}

static const UnitState *host_unit(const HostState *h, const char *name) {
        for (size_t i = 0; i < h->n_units; i++)
                if (streq(h->units[i].name, name))
                        return &h->units[i];
        return NULL;
}

/* Why a conflict unit is masked: from [Conflicts] Units=, or from rpi-swap's configuration. */
static const char *conflict_reason(const Policy *p, const char *name) {
        if (strv_contains(p->conflict_units, name))
                return "[Conflicts] Units=: the distro's swap must not come back";
        if (startswith(name, "rpi-remove-swap-file@"))
                return "rpi-swap would delete this swap file at boot";
        if (startswith(name, "rpi-setup-loop@"))
                return "rpi-swap's loop device on its swap file";
        return "rpi-swap's configuration: its swap must not come back";
}

/* The swap devices nodeswap's backends want to keep, and the actions to bring them up. */
static int plan_zram(Ctx *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        Plan *plan = c->plan;

        if (!h->zram_control && h->n_zrams == 0)
                return plan_find(plan, VERDICT_ZRAM_UNAVAILABLE, p, POLICY_KEY_SWAP_BACKEND, NULL,
                                 strdup("load the zram module (modprobe zram) or use [Swap] Backend=file"),
                                 "[Zram] is wanted but this kernel has no zram (/sys/class/zram-control is "
                                 "missing)");

        /* The kernel's offer is the same for every device; read it off any. */
        char **offered = NULL;
        for (size_t i = 0; i < h->n_zrams; i++)
                if (h->zrams[i].algorithms_offered && h->zrams[i].algorithms_offered[0]) {
                        offered = h->zrams[i].algorithms_offered;
                        break;
                }
        const char *algorithm = NULL;
        _cleanup_free_ char *why = NULL;
        if (offered) {
                int r = zram_pick_algorithm(offered, p->zram.algorithms, &algorithm, &why);
                if (r == -ENOENT) {
                        _cleanup_free_ char *want = strv_join(p->zram.algorithms, " ");
                        _cleanup_free_ char *have = strv_join(offered, " ");
                        if (!want || !have)
                                return -ENOMEM;
                        return plan_find(plan, VERDICT_ZRAM_ALGORITHM_UNAVAILABLE, p, POLICY_KEY_ZRAM_ALGORITHM,
                                         want, algorithm_hint(p->zram.algorithms, offered, have),
                                         "[Zram] Algorithm=%s: none of these is offered by this kernel, which offers '%s'",
                                         want, have);
                }
                if (r < 0)
                        return r;
        }
        int k = zram_knobs_check(p, h, algorithm, &plan->findings);
        if (k != 0)
                return k < 0 ? k : 0;

        /* One of our devices that already matches? */
        const SwapDevice *match = NULL;
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                if (s->kind != SWAP_KIND_ZRAM || s->owner != SWAP_OWNER_NODESWAP || match)
                        continue;
                const ZramDevice *z = host_find_zram(h, s->zram_id);
                if (!z || z->disksize != p->zram.size || s->priority != p->zram.priority ||
                    z->mem_limit != p->zram.mem_limit || !algorithm || !streq_ptr(z->algorithm, algorithm) ||
                    !zram_knobs_match(p, h, z))
                        continue;
                match = s;
                c->keep[i] = KEEP_ON;
        }
        if (match)
                return 0;

        /* Ours, initialised with the wanted settings but swapped off (someone ran swapoff)? */
        for (size_t i = 0; i < h->n_zrams; i++) {
                const ZramDevice *z = &h->zrams[i];
                if (!z->ours || z->swap_on || z->disksize != p->zram.size || z->mem_limit != p->zram.mem_limit ||
                    !algorithm || !streq_ptr(z->algorithm, algorithm) || !zram_knobs_match(p, h, z))
                        continue;
                _cleanup_free_ char *dev = strdup_printf("/dev/zram%d", z->id);
                _cleanup_free_ char *want = strdup_printf("on, priority %d", p->zram.priority);
                if (!dev || !want)
                        return -ENOMEM;
                Action *a = plan_add(plan, ACTION_SWAPON, dev, "off", want,
                                     "nodeswap's zram device is initialised but not swapped on");
                if (!a)
                        return -ENOMEM;
                a->priority = p->zram.priority;
                a->zram_id = z->id;
                c->new_swap += swap_usable(z->disksize, h->page_size);
                c->swap_changed = true;
                return 0;
        }

        _cleanup_free_ char *knobs = zram_knobs_describe(p, algorithm);
        _cleanup_free_ char *want = knobs ? strdup_printf("%s, %s%s, priority %d%s%s", B(p->zram.size),
                                                  algorithm ?: "first offered of the preference list", knobs,
                                                  p->zram.priority, p->zram.mem_limit ? ", mem_limit " : "",
                                                  p->zram.mem_limit ? B(p->zram.mem_limit) : "") : NULL;
        if (!want)
                return -ENOMEM;
        Action *a = plan_add(plan, ACTION_ZRAM_CREATE, "zram", NULL, want, why);
        if (!a)
                return -ENOMEM;
        a->size = p->zram.size;
        a->mem_limit = p->zram.mem_limit;
        a->priority = p->zram.priority;
        if (algorithm && !(a->algorithm = strdup(algorithm)))
                return -ENOMEM;
        c->new_swap += swap_usable(p->zram.size, h->page_size);
        c->swap_changed = true;
        return 0;
}

/* The policy's swap file, created (now == NULL) or replacing the active one (now = what it is). */
static int plan_file_create(Ctx *c, const char *now, const char *reason) {
        const Policy *p = c->p;
        _cleanup_free_ char *want = strdup_printf("%s, priority %d", B(p->file.size), p->file.priority);
        if (!want)
                return -ENOMEM;
        Action *a = plan_add(c->plan, ACTION_FILE_CREATE, p->file.path, now, want, reason);
        if (!a)
                return -ENOMEM;
        a->size = p->file.size;
        a->priority = p->file.priority;
        c->new_swap += swap_usable(p->file.size, c->h->page_size);
        c->swap_changed = true;
        return 0;
}

/* Not enough room for the policy's swap file with have bytes free. */
static int plan_no_space(Ctx *c, uint64_t have, const char *when) {
        const Policy *p = c->p;
        const SwapFileState *f = &c->h->file;
        return plan_find(c->plan, VERDICT_SWAPFILE_NO_SPACE, p, POLICY_KEY_FILE_SIZE, p->file.size_expr,
                         strdup_printf("%s has %s free%s%s; the largest swap file that fits there is %" PRIu64
                                       "M: lower [File] Size= or free space",
                                       f->fs_mount_point, B(have), *when ? " " : "", when,
                                       swapfile_largest_fit(have) / MiB),
                         "%s: needs %s (and %s to spare) but %s has %s free%s%s", p->file.path, B(p->file.size),
                         B(swapfile_margin(p->file.size)), f->fs_mount_point, B(have), *when ? " " : "", when);
}

/* The policy's swap file is on with another size or priority. An active swap file can be neither
 * renamed nor deleted (plan/placement.h), so it is replaced in steps, each an action of its own,
 * with swap room for its pages at every moment:
 *   1. file-create  the bridge DIR/.#NAME.bridge, big enough for the pages the old file holds
 *                   (recorded in the state before it is made, swapped on at the new priority);
 *   2. swapoff      the old file: its pages go to memory or to the bridge;
 *   3. file-remove + file-create  the file at the new size (a new priority alone: swapon);
 *   4. swapoff      the bridge: its pages go to memory or to the new file;
 *   5. file-remove  the bridge.
 * A run stopped between two steps leaves swap on (the old file, the bridge or the new file, or
 * two of them), and the next run plans the remaining steps from what it finds: a bridge that is
 * on is not made again; one that is off is deleted first; a bridge left after the old file is
 * gone is taken down like any swap file nodeswap no longer wants (plan_swapoff(),
 * plan_recorded_files()). Without room for the bridge, apply refuses, and apply --force swaps the
 * old file off without one (its pages must then fit in memory). */
static int plan_file_replace(Ctx *c, const SwapDevice *on) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        const SwapFileState *f = &h->file;
        const char *path = p->file.path;
        bool resize = f->size != p->file.size;
        Action *a;

        _cleanup_free_ char *bridge = swapfile_bridge_path(path);
        if (!bridge)
                return -ENOMEM;
        const SwapDevice *bridge_on = host_find_swap(h, bridge);
        const RecordedSwapFile *bridge_rec = host_find_recorded_file(h, bridge);
        uint64_t bridge_size = swapfile_bridge_size(on->used, h->page_size);

        /* Room: for the bridge beside the old file, then for the new file beside the bridge. */
        uint64_t need = bridge_on ? 0 : bridge_size + swapfile_margin(bridge_size);
        if (resize) {
                uint64_t after = (bridge_on ? 0 : bridge_size) + p->file.size + swapfile_margin(p->file.size);
                after = after > f->allocated ? after - f->allocated : 0;
                need = need > after ? need : after;
        }
        bool bridged = f->fs_free >= need;
        if (!bridged) {
                if (resize && f->fs_free + f->allocated < p->file.size + swapfile_margin(p->file.size))
                        return plan_no_space(c, f->fs_free + f->allocated, "counting the old file's space");
                if (!c->o->force)
                        return plan_find(c->plan, VERDICT_SWAPFILE_NO_SPACE, p, POLICY_KEY_FILE_SIZE,
                                         p->file.size_expr,
                                         strdup("run 'nodeswap apply --force' to swap the old file off first (its "
                                                "pages must fit in memory), or free space"),
                                         "%s: not enough room on %s for both the old file and the bridge that "
                                         "carries its pages while it is replaced (need %s, have %s)",
                                         path, f->fs_mount_point, B(need), B(f->fs_free));
                if (on->used > h->mem_available &&
                    plan_find(c->plan, VERDICT_SWAPOFF_FORCED, p, -1, NULL,
                              strdup("watch for the OOM killer; without --force apply refuses this"),
                              "--force: swapping %s off without a bridge although %s of pages may not fit in "
                              "memory (MemAvailable %s)",
                              path, B(on->used), B(h->mem_available)) < 0)
                        return -ENOMEM;
        }

        if (bridged && !bridge_on && bridge_rec && bridge_rec->exists) {
                /* Left off by an earlier run that was stopped: made anew at the size wanted now. */
                if (!plan_add(c->plan, ACTION_FILE_REMOVE, bridge, "present, off", "deleted",
                              "a bridge left by an earlier run, made anew below"))
                        return -ENOMEM;
        }
        if (bridged && !bridge_on) {
                _cleanup_free_ char *want = strdup_printf("%s, priority %d: the bridge that holds the old file's pages "
                                                          "until the new one is on", B(bridge_size), p->file.priority);
                if (!want)
                        return -ENOMEM;
                a = plan_add(c->plan, ACTION_FILE_CREATE, bridge, NULL, want,
                             "bridge: holds the old file's pages while it is replaced (an active swap file "
                             "cannot be renamed)");
                if (!a)
                        return -ENOMEM;
                a->size = bridge_size;
                a->priority = p->file.priority;
        }
        if (bridge_on)
                c->keep[bridge_on - h->swaps] = KEEP_REPLACED;

        _cleanup_free_ char *now = strdup_printf("on, %s, %s used, priority %d", B(f->size), B(on->used),
                                                 on->priority);
        if (!now)
                return -ENOMEM;
        a = plan_add(c->plan, ACTION_SWAPOFF, path, now, "off",
                     bridged ? "replaced: its pages go to memory or to the bridge"
                             : "replaced, --force without room for a bridge: its pages go to memory");
        if (!a)
                return -ENOMEM;
        a->used = on->used;
        c->swap_changed = true;

        if (resize) {
                _cleanup_free_ char *was = strdup_printf("%s, off", B(f->size));
                if (!was)
                        return -ENOMEM;
                if (!plan_add(c->plan, ACTION_FILE_REMOVE, path, was, "deleted", "size changed: made anew below"))
                        return -ENOMEM;
                int r = plan_file_create(c, NULL, "size changed");
                if (r < 0)
                        return r;
        } else {
                _cleanup_free_ char *want = strdup_printf("on, priority %d", p->file.priority);
                if (!want)
                        return -ENOMEM;
                a = plan_add(c->plan, ACTION_SWAPON, path, "off", want, "priority changed: swapped on again");
                if (!a)
                        return -ENOMEM;
                a->priority = p->file.priority;
                c->new_swap += swap_usable(f->size, h->page_size);
        }

        if (!bridged && !bridge_on)
                return 0;
        _cleanup_free_ char *bnow = bridge_on ? strdup_printf("on, %s used, priority %d", B(bridge_on->used),
                                                              bridge_on->priority)
                                              : strdup("on");
        if (!bnow)
                return -ENOMEM;
        a = plan_add(c->plan, ACTION_SWAPOFF, bridge, bnow, "off",
                     "bridge no longer needed: its pages go to memory or to the new file");
        if (!a)
                return -ENOMEM;
        a->used = bridge_on ? bridge_on->used : 0;
        if (!plan_add(c->plan, ACTION_FILE_REMOVE, bridge, "off", "deleted", "bridge no longer needed"))
                return -ENOMEM;
        return 0;
}

static int plan_file(Ctx *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        const SwapFileState *f = &h->file;
        Plan *plan = c->plan;
        const char *path = p->file.path;

        if (f->unreadable)
                /* A non-root status or check: nothing is known about the file, so nothing is
                 * planned for it (apply runs as root and sees it). */
                return plan_find(plan, VERDICT_HOST_UNREADABLE, p, POLICY_KEY_FILE_PATH, path,
                                 strdup("run as root to judge the swap file"),
                                 "%s: this user may not look at it; the swap file is not judged", path);

        /* The file system and the storage under it, decided as the swap file backend decides. */
        if (!f->fstype || !f->fs_mount_point)
                return plan_find(plan, VERDICT_SWAPFILE_NO_FILESYSTEM, p, POLICY_KEY_FILE_PATH, path,
                                 strdup("mount the file system that should hold it, or choose another [File] Path="),
                                 "%s: no mounted file system found for it", path);
        const FsInfo fs = {
                .mount_point = f->fs_mount_point,
                .fstype = f->fstype,
                .device = f->storage_device,
                .kind = f->storage,
                .free = f->fs_free,
                .read_only = f->fs_read_only,
                .btrfs_multi_device = f->fs_btrfs_multi_device,
                .compressed = f->fs_compressed,
        };
        _cleanup_free_ char *refused = NULL;
        int r = placement_check_fs(&fs, p->file.storage, &refused);
        if (r < 0)
                return r;
        if (r == 0) {
                /* Refused for the storage kind alone (it passes with every kind allowed), or for
                 * the file system. */
                _cleanup_free_ char *fs_refused = NULL;
                int any = placement_check_fs(&fs, ~0u, &fs_refused);
                if (any < 0)
                        return any;
                if (any > 0)
                        return plan_find(plan, VERDICT_SWAPFILE_STORAGE, p, POLICY_KEY_FILE_STORAGE,
                                         NULL, strdup("move [File] Path= to NVMe or SSD storage, or list the kind in "
                                                      "[File] Storage="),
                                         "%s: %s", path, refused);
                return plan_find(plan, VERDICT_SWAPFILE_FILESYSTEM, p, POLICY_KEY_FILE_PATH, path,
                                 strdup("put [File] Path= on a file system that can hold a swap file: ext4, xfs, "
                                        "or btrfs on one device without compression, read-write, on local storage"),
                                 "%s: %s", path, refused);
        }

        if (!f->exists) {
                if (f->fs_free < p->file.size + swapfile_margin(p->file.size))
                        return plan_no_space(c, f->fs_free, "");
                return plan_file_create(c, NULL, "no swap file yet");
        }

        if (!f->is_regular)
                return plan_find(plan, VERDICT_SWAPFILE_NOT_REGULAR, p, POLICY_KEY_FILE_PATH, path,
                                 strdup("remove it or choose another [File] Path="),
                                 "%s: exists and is not a regular file (a symlink?); refusing to use it", path);

        const SwapDevice *on = host_find_swap(h, path);
        if (on) {
                size_t idx = (size_t) (on - h->swaps);
                if (f->size == p->file.size && on->priority == p->file.priority) {
                        c->keep[idx] = KEEP_ON;
                        return 0;
                }
                /* Replaced step by step below (plan_file_replace): no swapoff from plan_swapoff(). */
                c->keep[idx] = KEEP_REPLACED;
                return plan_file_replace(c, on);
        }

        /* Exists, off. Reuse it when it is right; rewrite what is wrong. (An active file with a bad
         * mode is left to `nodeswap check`: swapping it off would not make it safer.) */
        if (f->uid != 0 || (f->mode & 0077))
                return plan_find(plan, VERDICT_SWAPFILE_PERMISSIONS, p, POLICY_KEY_FILE_PATH, path,
                                 strdup_printf("chown root:root %s && chmod 0600 %s", path, path),
                                 "%s: owned by uid %u with mode %04o; a swap file must be root's with mode 0600 "
                                 "(others could read swapped-out memory)",
                                 path, f->uid, f->mode);
        if (!f->checked) {
                if (f->path_problem)
                        return plan_find(plan, VERDICT_SWAPFILE_UNSAFE_PATH, p, POLICY_KEY_FILE_PATH, path,
                                         strdup("make every directory above it root's and not writable by group "
                                                "or others, without symlinks, or choose another [File] Path="),
                                         "%s; refusing to swap it on", f->path_problem);
                return -EINVAL;         /* probe() judges every regular file it may open */
        }
        if (!f->has_header)
                return plan_find(plan, VERDICT_SWAPFILE_NOT_SWAP, p, POLICY_KEY_FILE_PATH, path,
                                 strdup("remove it or choose another [File] Path=: nodeswap does not overwrite "
                                        "other data"),
                                 "%s: refusing to use it as swap", strempty(f->header_problem));
        if (f->size != p->file.size) {
                /* The old file goes first: the new one needs room only once it is gone. */
                if (f->fs_free + f->allocated < p->file.size + swapfile_margin(p->file.size))
                        return plan_no_space(c, f->fs_free + f->allocated, "counting the old file's space");
                _cleanup_free_ char *now = strdup_printf("%s, off", B(f->size));
                if (!now)
                        return -ENOMEM;
                if (!plan_add(plan, ACTION_FILE_REMOVE, path, now, NULL, "size changed and the file is not in use"))
                        return -ENOMEM;
                return plan_file_create(c, NULL, "size changed");
        }
        /* A file the kernel would refuse for its blocks is made anew, as for a new size. */
        const char *kernel_refuses = f->allocation_problem ?: f->nocow_problem;
        if (kernel_refuses) {
                if (f->fs_free + f->allocated < p->file.size + swapfile_margin(p->file.size))
                        return plan_no_space(c, f->fs_free + f->allocated, "counting the old file's space");
                _cleanup_free_ char *now = strdup_printf("%s, off", B(f->size));
                _cleanup_free_ char *why = strdup_printf("the kernel would refuse it for swap: %s; made anew below",
                                                         kernel_refuses);
                if (!now || !why)
                        return -ENOMEM;
                if (!plan_add(plan, ACTION_FILE_REMOVE, path, now, NULL, why))
                        return -ENOMEM;
                return plan_file_create(c, NULL, f->allocation_problem ? "the old file had holes or shared extents"
                                                                       : "the old file lacked the No_COW attribute");
        }
        if (f->header_problem) {
                bool pages = f->header_page_size != h->page_size;
                _cleanup_free_ char *now = pages ? strdup_printf("header for %" PRIu64 "-byte pages", f->header_page_size)
                                                 : strdup_printf("header labelled '%s'", strempty(f->label));
                _cleanup_free_ char *want = pages ? strdup_printf("header for %" PRIu64 "-byte pages", h->page_size)
                                                  : strdup("header labelled '" SWAP_LABEL "' covering the file");
                _cleanup_free_ char *why = strdup_printf("%s%s", f->header_problem,
                                                         pages ? ": swapon would fail with EINVAL" : ": rewritten in place");
                if (!now || !want || !why)
                        return -ENOMEM;
                Action *a = plan_add(plan, ACTION_FILE_MKSWAP, path, now, want, why);
                if (!a)
                        return -ENOMEM;
                a->size = f->size;
        }
        _cleanup_free_ char *want = strdup_printf("on, priority %d", p->file.priority);
        if (!want)
                return -ENOMEM;
        Action *a = plan_add(plan, ACTION_SWAPON, path, "off", want, "the swap file exists but is not in use");
        if (!a)
                return -ENOMEM;
        a->priority = p->file.priority;
        c->new_swap += swap_usable(f->size, h->page_size);
        c->swap_changed = true;
        return 0;
}

/* Everything on /proc/swaps not kept goes off: make-before-break, with the fit check. */
static int plan_swapoff(Ctx *c) {
        const HostState *h = c->h;
        const Policy *p = c->p;
        Plan *plan = c->plan;
        uint64_t leaving_used = 0, staying_free = c->new_swap;
        bool any = false;

        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                bool wanted_off;
                if (c->keep[i] == KEEP_REPLACED)
                        continue;
                if (c->keep[i] == KEEP_ON)
                        wanted_off = false;
                else if (c->o->revert)
                        wanted_off = s->owner == SWAP_OWNER_NODESWAP;
                else if (!p->backend_set)
                        wanted_off = false;
                else if (p->backends == 0)
                        wanted_off = true;      /* Backend=none: all swap off */
                else
                        wanted_off = s->owner != SWAP_OWNER_OTHER;
                if (!wanted_off) {
                        c->keep[i] = KEEP_ON;
                        staying_free += s->size > s->used ? s->size - s->used : 0;
                        /* (unknown when nodeswap's records are unreadable: host-unreadable says so) */
                        if (p->backend_set && !c->o->revert && s->owner == SWAP_OWNER_OTHER && p->backends &&
                            !h->state.unreadable)
                                if (plan_find(plan, VERDICT_SWAP_UNMANAGED, p, POLICY_KEY_CONFLICTS_UNITS, NULL,
                                              strdup_printf("add %s to [Conflicts] Units= to replace it", strempty(s->unit)),
                                              "%s: swap not made by nodeswap and not listed in [Conflicts] Units= stays on; "
                                              "add %s to Units= to replace it",
                                              s->path, strempty(s->unit)) < 0)
                                        return -ENOMEM;
                        continue;
                }
                any = true;
                leaving_used += s->used;
        }
        if (!any)
                return 0;

        if (leaving_used > h->mem_available + staying_free) {
                uint64_t missing = leaving_used - h->mem_available - staying_free;
                if (!c->o->force)
                        return plan_find(plan, VERDICT_SWAPOFF_NO_ROOM, p, -1, NULL,
                                         strdup("free memory (or let the swap drain) and run again, or use --force"),
                                         "swapping off would bring back %s of pages, but only %s fit (MemAvailable %s + "
                                         "free swap that stays %s): %s missing; free memory or use --force",
                                         B(leaving_used), B(h->mem_available + staying_free), B(h->mem_available),
                                         B(staying_free), B(missing));
                if (plan_find(plan, VERDICT_SWAPOFF_FORCED, p, -1, NULL,
                              strdup("watch for the OOM killer; without --force apply refuses this"),
                              "--force: swapping off although %s of pages may not fit in memory", B(missing)) < 0)
                        return -ENOMEM;
        }

        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                if (c->keep[i] != KEEP_UNDECIDED)
                        continue;
                c->swap_changed = true;
                _cleanup_free_ char *now = strdup_printf("on, %s used, priority %d", B(s->used), s->priority);
                if (!now)
                        return -ENOMEM;
                if (s->owner == SWAP_OWNER_CONFLICT && s->unit) {
                        /* Stopping the masked unit swaps it off and keeps systemd's view right. */
                        Action *a = plan_add(c->plan, ACTION_STOP_UNIT, s->unit, now, "stopped",
                                             "its swap conflicts with the policy");
                        if (!a)
                                return -ENOMEM;
                        a->used = s->used;
                        continue;
                }
                bool old_file = s->kind == SWAP_KIND_FILE && s->owner == SWAP_OWNER_NODESWAP &&
                                host_find_recorded_file(h, s->path) && !streq_ptr(s->path, c->p->file.path);
                Action *a = plan_add(c->plan, ACTION_SWAPOFF, s->path, now, "off",
                                     c->o->revert ? "nodeswap revert"
                                     : old_file   ? "created by nodeswap, no longer the policy's Path="
                                     : s->owner == SWAP_OWNER_NODESWAP ? "no longer wanted by the policy"
                                                                        : "Backend=none: no swap on this node");
                if (!a)
                        return -ENOMEM;
                a->used = s->used;
                a->zram_id = s->zram_id;
                if (s->kind == SWAP_KIND_ZRAM && s->owner == SWAP_OWNER_NODESWAP) {
                        a = plan_add(c->plan, ACTION_ZRAM_REMOVE, s->path, "initialised", "removed",
                                     "a zram device nodeswap created and no longer uses");
                        if (!a)
                                return -ENOMEM;
                        a->zram_id = s->zram_id;
                }
        }
        return 0;
}

/* Swap files nodeswap created (the state's swap_file= records) at a path the policy's [File] Path=
 * no longer names: apply deletes them after plan_swapoff() has taken them off (make before break,
 * with its fit check), or right away when they are off (after a reboot). The file at the policy's
 * Path= is left as today even when Backend= no longer has `file`: only revert --purge deletes it.
 * revert --purge deletes every recorded file. A file is deleted only while it is a regular file
 * (a symlink is never followed) with nodeswap's swap label; a record whose file is gone is
 * forgotten by execute, with no action. */
static int plan_recorded_files(Ctx *c) {
        const HostState *h = c->h;
        if (c->o->revert ? !c->o->purge : !c->p->backend_set)
                return 0;
        for (size_t i = 0; i < h->n_recorded_files; i++) {
                const RecordedSwapFile *f = &h->recorded_files[i];
                if (!f->exists)
                        continue;
                if (!c->o->revert && streq_ptr(f->path, c->p->file.path))
                        continue;
                if (find_action(c->plan, ACTION_FILE_REMOVE, f->path) >= 0)
                        continue;
                if (!f->is_regular || !f->labelled) {
                        int r = plan_find(c->plan, VERDICT_SWAPFILE_RECORD_LEFT_ALONE, c->p, -1, NULL,
                                          strdup_printf("look at %s and delete it yourself if it is not needed, then "
                                                        "run nodeswap apply (it forgets a record whose file is gone)",
                                                        f->path),
                                          "%s: recorded as a swap file nodeswap created, but it %s; left alone",
                                          f->path,
                                          !f->is_regular ? "is no longer a regular file (a symlink?)"
                                                         : "no longer carries nodeswap's swap label");
                        if (r < 0)
                                return r;
                        continue;
                }
                bool off = find_action(c->plan, ACTION_SWAPOFF, f->path) >= 0;
                if (f->swap_on && !off)
                        continue;       /* stays on (the plan has errors): deleted by a later run */
                if (!plan_add(c->plan, ACTION_FILE_REMOVE, f->path, f->swap_on ? "on, swapped off above" : "present, off",
                              "deleted",
                              c->o->revert ? "revert --purge: created by nodeswap"
                                           : "created by nodeswap, no longer the policy's Path="))
                        return -ENOMEM;
        }
        return 0;
}

/* nodeswap's own zram devices that are not swapped on and that the plan does not swap on again:
 * left behind by a run that stopped between swapoff and the removal (a held device, EBUSY from
 * reset, a kill). Nothing else would ever remove them. */
static int plan_stale_zram(Ctx *c) {
        const HostState *h = c->h;
        if (!c->o->revert && !c->p->backend_set)
                return 0;
        for (size_t i = 0; i < h->n_zrams; i++) {
                const ZramDevice *z = &h->zrams[i];
                if (!z->ours || z->swap_on)
                        continue;
                _cleanup_free_ char *dev = strdup_printf("/dev/zram%d", z->id);
                if (!dev)
                        return -ENOMEM;
                if (find_action(c->plan, ACTION_SWAPON, dev) >= 0 || find_action(c->plan, ACTION_ZRAM_REMOVE, dev) >= 0)
                        continue;
                Action *a = plan_add(c->plan, ACTION_ZRAM_REMOVE, dev, z->disksize > 0 ? "initialised, off" : "reset",
                                     "removed", "a zram device nodeswap created and no longer uses");
                if (!a)
                        return -ENOMEM;
                a->zram_id = z->id;
        }
        return 0;
}

/* Whether the plan lets go of loop device `loop`: it removes the zram device of nodeswap's whose
 * backing device it is (the reset drops zram's hold, and autoclear detaches it). */
static bool plan_frees_loop(const Ctx *c, const char *loop) {
        for (size_t i = 0; i < c->plan->n_actions; i++) {
                const Action *a = &c->plan->actions[i];
                const ZramDevice *z = a->kind == ACTION_ZRAM_REMOVE ? host_find_zram(c->h, a->zram_id) : NULL;
                if (z && streq_ptr(z->wb.backing_dev, loop))
                        return true;
        }
        return false;
}

/* The [Zram] Writeback= files nodeswap created (the state's writeback_file= records), as
 * plan_recorded_files() does for swap files: apply deletes one the policy's Writeback= no longer
 * names once no loop device is on it (after the zram device that held it is removed), revert
 * --purge deletes them all, again after the device. The file the policy's Writeback= names stays
 * even when Backend= no longer has zram: only revert --purge deletes it. A file is deleted only
 * while it is a regular file (a symlink is never followed); a record whose file is gone is
 * forgotten by execute. A file nodeswap did not make is never recorded, so never deleted. */
static int plan_writeback_files(Ctx *c) {
        const HostState *h = c->h;
        if (c->o->revert ? !c->o->purge : !c->p->backend_set)
                return 0;
        for (size_t i = 0; i < h->n_recorded_wb_files; i++) {
                const RecordedWritebackFile *f = &h->recorded_wb_files[i];
                if (!f->exists || (!c->o->revert && streq_ptr(f->path, c->p->zram.writeback)))
                        continue;
                if (find_action(c->plan, ACTION_FILE_REMOVE, f->path) >= 0)
                        continue;
                bool held = f->loop_device && !plan_frees_loop(c, f->loop_device);
                if (!f->is_regular || held) {
                        int r = plan_find(c->plan, VERDICT_SWAPFILE_RECORD_LEFT_ALONE, c->p, -1, NULL,
                                          strdup_printf("look at %s and delete it yourself if it is not needed, then "
                                                        "run nodeswap apply (it forgets a record whose file is gone)",
                                                        f->path),
                                          "%s: recorded as a zram writeback file nodeswap created, but it %s%s; "
                                          "left alone", f->path,
                                          !f->is_regular ? "is no longer a regular file (a symlink?)"
                                                         : "still backs ",
                                          !f->is_regular ? "" : f->loop_device);
                        if (r < 0)
                                return r;
                        continue;
                }
                Action *a = plan_add(c->plan, ACTION_FILE_REMOVE, f->path,
                                     f->loop_device ? "present, its loop device goes with the zram device above"
                                                    : "present, not in use",
                                     "deleted",
                                     c->o->revert ? "revert --purge: zram's writeback file, created by nodeswap"
                                                  : "zram's writeback file, created by nodeswap, no longer the "
                                                    "policy's [Zram] Writeback=");
                if (!a)
                        return -ENOMEM;
                a->value = 1;
        }
        return 0;
}

/* nodeswap-writeback.timer, which the generator pulls into timers.target at boot when the policy
 * asks for a writeback schedule (policy_wants_writeback_timer()): apply starts it when it is not
 * active, so a policy applied without a reboot gets its schedule, and stops it when the policy no
 * longer asks for one; revert stops it. Only what systemd reported is acted on (unknown: nothing).
 * Not with --boot: nodeswap.service runs before sysinit.target and timers.target, so a start job
 * of the timer would wait for nodeswap.service itself; at boot the generator's link starts it. */
static int plan_writeback_timer(Ctx *c, bool start) {
        const HostState *h = c->h;
        bool want = !c->o->revert && policy_wants_writeback_timer(c->p);
        if (start != want)
                return 0;
        if (!h->systemd_booted) {
                if (!want)
                        return 0;
                return plan_find(c->plan, VERDICT_SYSTEMD_NOT_RUNNING, c->p, POLICY_KEY_ZRAM_WRITEBACK_INTERVAL,
                                 NULL,
                                 strdup("run 'nodeswap writeback' from the node's own scheduler, or set "
                                        "[Zram] WritebackInterval=0"),
                                 "systemd is not running: " NODESWAP_WRITEBACK_TIMER " is not started and "
                                 "nothing writes back on the policy's schedule");
        }
        if (c->o->boot)
                return 0;
        if (want && h->writeback_timer_active == 0 &&
            !plan_add(c->plan, ACTION_START_UNIT, NODESWAP_WRITEBACK_TIMER, "inactive", "active",
                      "the policy asks for writeback or recompression on a schedule ([Zram] WritebackInterval=)"))
                return -ENOMEM;
        if (!want && h->writeback_timer_active == 1 &&
            !plan_add(c->plan, ACTION_STOP_UNIT, NODESWAP_WRITEBACK_TIMER, "active", "stopped",
                      c->o->revert ? "nodeswap revert" : "the policy asks for no writeback schedule"))
                return -ENOMEM;
        return 0;
}

static int plan_sysctl(Ctx *c, const char *name, int now, int want) {
        if (want < 0 || now == want)
                return 0;
        char n[16], w[16];
        snprintf(n, sizeof n, "%d", now);
        snprintf(w, sizeof w, "%d", want);
        Action *a = plan_add(c->plan, ACTION_SYSCTL, name, now >= 0 ? n : NULL, w,
                             c->o->revert ? "restoring the value from before nodeswap" : "policy [Sysctl]");
        if (!a)
                return -ENOMEM;
        a->value = want;
        return 0;
}

static int plan_kubelet(Ctx *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        Plan *plan = c->plan;
        bool dropin_changed = false;

        const KubeletConfigFile *cur = kubelet_config_find(&h->kubelet, p->dropin);
        const char *now = !h->dropin ? NULL
                : cur && cur->swap_behavior_field == KUBELET_FIELD_SET && cur->swap_behavior_value[0]
                ? cur->swap_behavior_value : "other content";
        _cleanup_(kubelet_config_file_done) KubeletConfigFile ours = {};
        KubeletEffective after;
        int r = kubelet_effective_with_dropin(&h->kubelet, p->dropin, c->o->revert ? SWAP_BEHAVIOR_UNSET
                                              : p->swap_behavior, &ours, &after);
        if (r < 0)
                return r;
        const char *after_value = after.swap_behavior_unknown ? after.swap_behavior_value
                : swap_behavior_to_string(after.swap_behavior == SWAP_BEHAVIOR_UNSET ? SWAP_BEHAVIOR_NO_SWAP
                                                                                      : after.swap_behavior);
        _cleanup_free_ char *after_src = kubelet_source(after.swap_behavior_from, after.swap_behavior_from ?
                                                        after.swap_behavior_from->swap_behavior_line : 0);
        if (!after_src)
                return -ENOMEM;
        if (after.first_invalid && (c->o->revert || p->swap_behavior != SWAP_BEHAVIOR_UNSET)) {
                _cleanup_free_ char *src = kubelet_source(after.first_invalid, after.first_invalid->invalid_line);
                if (!src)
                        return -ENOMEM;
                if (plan_find(plan, VERDICT_KUBELET_CONFIG_INVALID,
                              p, -1, NULL,
                              strdup_printf("fix %s (apiVersion: kubelet.config.k8s.io/v1beta1, kind: "
                                            "KubeletConfiguration) or remove it", after.first_invalid->path),
                              "%s: %s: the kubelet refuses it and does not start until it is fixed",
                              src, after.first_invalid->invalid_reason) < 0)
                        return -ENOMEM;
        }

        if (c->o->revert) {
                if (h->dropin) {
                        _cleanup_free_ char *want = after.swap_behavior_from
                                ? strdup_printf("absent (%s from %s)", after_value, after_src)
                                : strdup("absent (NoSwap, the default)");
                        if (!want)
                                return -ENOMEM;
                        if (!plan_add(plan, ACTION_DROPIN_REMOVE, p->dropin, now ?: "present", want,
                                      "nodeswap revert"))
                                return -ENOMEM;
                        dropin_changed = true;
                }
                if (after.swap_behavior == SWAP_BEHAVIOR_LIMITED_SWAP)
                        if (plan_find(plan, VERDICT_REVERT_LIMITEDSWAP_KEPT, p, -1, NULL,
                                      strdup_printf("remove swapBehavior from %s for NoSwap", after_src),
                                      "%s still sets swapBehavior LimitedSwap: after the revert the kubelet keeps "
                                      "giving pods swap; remove it for NoSwap", after_src) < 0)
                                return -ENOMEM;
        } else if (p->swap_behavior != SWAP_BEHAVIOR_UNSET) {
                _cleanup_free_ char *content = kubelet_render_dropin(p->swap_behavior);
                if (!content)
                        return -ENOMEM;
                if (!streq_ptr(h->dropin, content)) {
                        Action *a = plan_add(plan, ACTION_DROPIN_WRITE, p->dropin, now,
                                             swap_behavior_to_string(p->swap_behavior), "policy [Kubelet] SwapBehavior=");
                        if (!a)
                                return -ENOMEM;
                        a->content = content;
                        content = NULL;
                        dropin_changed = true;
                }
                if (!kubelet_config_reads(&h->kubelet, p->dropin)) {
                        if (plan_find(plan, VERDICT_DROPIN_OVERRIDDEN, p, POLICY_KEY_KUBELET_DROPIN, p->dropin,
                                      strdup_printf("set [Kubelet] DropIn= to a file in %s",
                                                    strempty(h->kubelet.config_dir)),
                                      "the kubelet does not read %s: its drop-in directory is %s (%s); set [Kubelet] "
                                      "DropIn= to a file there",
                                      p->dropin, strempty(h->kubelet.config_dir),
                                      strempty(h->kubelet.config_dir_source)) < 0)
                                return -ENOMEM;
                } else if (after.swap_behavior_from != &ours &&
                           (after.swap_behavior_unknown || after.swap_behavior != p->swap_behavior) &&
                           !(after.swap_behavior == SWAP_BEHAVIOR_UNSET && p->swap_behavior == SWAP_BEHAVIOR_NO_SWAP)) {
                        if (plan_find(plan, VERDICT_DROPIN_OVERRIDDEN, p, POLICY_KEY_KUBELET_SWAP_BEHAVIOR,
                                      swap_behavior_to_string(p->swap_behavior),
                                      strdup_printf("remove swapBehavior from %s (or the file), or set [Kubelet] "
                                                    "SwapBehavior=%s", after_src, after_value),
                                      "%s sets swapBehavior %s and is merged after %s: the kubelet would run with %s, "
                                      "not the policy's %s; remove it (or its swapBehavior), or set [Kubelet] "
                                      "SwapBehavior=%s",
                                      after_src, after_value, p->dropin, after_value,
                                      swap_behavior_to_string(p->swap_behavior), after_value) < 0)
                                return -ENOMEM;
                }
                if (after.fail_swap_on && kubelet_fail_swap_on_foreign(&after, &ours) &&
                    plan->swap_total_after > 0) {
                        _cleanup_free_ char *src = kubelet_fail_swap_on_source(&after);
                        if (!src)
                                return -ENOMEM;
                        const KubeletFlag *flag = after.fail_swap_on_flag;
                        if (plan_find(plan, VERDICT_KUBELET_FAIL_SWAP_ON, p, -1, NULL,
                                      flag ? strdup_printf("remove --%s from %s or make it false", flag->name, flag->file)
                                           : strdup_printf("set failSwapOn: false in %s or remove it",
                                                           after.fail_swap_on_from->path),
                                      flag ? "%s: the kubelet applies its flags over every file, %s too, and would "
                                             "refuse to start on this node with swap"
                                           : "%s sets failSwapOn: true and is merged after %s: the kubelet would refuse to "
                                             "start on this node with swap; set failSwapOn: false there or remove it",
                                      src, p->dropin) < 0)
                                return -ENOMEM;
                }
                /* The drop-in's name and the cgroup version are judged by the rules of check.c
                 * (dropin-order, cgroup-v1-limitedswap), which verdict_plan() adds. */
        } else
                return 0;       /* the kubelet is left alone */

        bool swap_total_changed = plan->swap_total_after != plan->swap_total_now;
        if (!dropin_changed && !swap_total_changed)
                return 0;
        if (!h->kubelet_unit) {
                if (dropin_changed)
                        if (plan_find(plan, VERDICT_KUBELET_UNIT_MISSING, p, POLICY_KEY_KUBELET_UNIT, NULL,
                                      strdup("restart the kubelet yourself, or name its unit in [Kubelet] Unit="),
                                      "no kubelet unit found (tried k3s-agent, k3s, rke2-agent, rke2-server, kubelet): "
                                      "restart the kubelet yourself for the change to take effect") < 0)
                                return -ENOMEM;
                return 0;
        }
        if (c->o->boot || h->kubelet_active == 0)
                return 0;       /* it reads the new settings when it starts */

        _cleanup_free_ char *why = NULL;
        if (swap_total_changed)
                why = strdup_printf("node swap %s -> %s%s", B(plan->swap_total_now), B(plan->swap_total_after),
                                    dropin_changed ? ", drop-in changed" : "");
        else
                why = strdup("drop-in changed");
        if (!why)
                return -ENOMEM;
        if (!plan_add(plan, ACTION_RESTART_UNIT, h->kubelet_unit,
                      h->kubelet_active > 0 ? "active" : NULL, "restarted", why))
                return -ENOMEM;
        return 0;
}

static int plan_masks(Ctx *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;

        if (c->o->revert) {
                if (!h->state.reverted && !plan_add(c->plan, ACTION_MARK_REVERTED, "/var/lib/nodeswap/state", NULL,
                                                    "reverted", "the generator masks nothing until the next apply"))
                        return -ENOMEM;
                for (size_t i = 0; i < h->n_units; i++)
                        if (h->units[i].masked_runtime &&
                            !plan_add(c->plan, ACTION_UNMASK_UNIT, h->units[i].name, "masked", "unmasked",
                                      "nodeswap revert"))
                                return -ENOMEM;
                /* The distro's swap comes back before nodeswap's goes: make before break. Timers
                 * last, once what they trigger is up again. */
                for (int timers = 0; timers <= 1; timers++)
                        for (char **u = h->state.stopped_units; u && *u; u++) {
                                const UnitState *us = host_unit(h, *u);
                                if ((us && us->active == 1) || endswith(*u, ".timer") != (timers == 1))
                                        continue;
                                if (!plan_add(c->plan, ACTION_START_UNIT, *u, NULL, "started",
                                              "the distro's swap nodeswap had stopped"))
                                        return -ENOMEM;
                        }
                return 0;
        }

        if (h->state.reverted &&
            !plan_add(c->plan, ACTION_CLEAR_REVERTED, "/var/lib/nodeswap/state", "reverted", "applied",
                      "nodeswap apply ends a revert"))
                return -ENOMEM;
        if (!p->backend_set)
                return 0;
        if (!h->systemd_booted) {
                /* Nothing could start those units again, and nobody to ask to mask them. */
                if (h->n_units > 0)
                        if (plan_find(c->plan, VERDICT_SYSTEMD_NOT_RUNNING, p, -1, NULL,
                                      strdup("nothing brings those units up without systemd; on a systemd node "
                                             "apply masks them"),
                                      "systemd is not running: the [Conflicts] units are not masked") < 0)
                                return -ENOMEM;
                return 0;
        }
        /* Timers stop first, before anything is masked: a timer whose unit to trigger is masked
         * under it by the reload fails ("Unit to trigger vanished") and stays failed for the rest
         * of the boot. Swap units go off only after the new swap is up (plan_swapoff()), then the
         * services (plan_stop_services()): stopping systemd-zram-setup@zram0.service would stop
         * dev-zram0.swap, which requires it. */
        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                if (u->active == 1 && endswith(u->name, ".timer") &&
                    !plan_add(c->plan, ACTION_STOP_UNIT, u->name, "active", "stopped",
                              "a conflict unit: it could bring the distro's swap back"))
                        return -ENOMEM;
        }
        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                if (!u->masked && !plan_add(c->plan, ACTION_MASK_UNIT, u->name, "unmasked", "masked (runtime)",
                                            conflict_reason(p, u->name)))
                        return -ENOMEM;
        }
        return 0;
}

/* Masked, a service has no ExecStop= left: stopping it only marks it inactive, so that revert can
 * start it again and it sets its device up anew (for a zram device, execute resets it after the
 * swapoff, as the service's own stop would have). */
static int plan_stop_services(Ctx *c) {
        const HostState *h = c->h;
        if (c->o->revert || !c->p->backend_set || !h->systemd_booted)
                return 0;
        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                if (u->active != 1 || unit_is_swap(u->name) || endswith(u->name, ".timer") ||
                    find_action(c->plan, ACTION_STOP_UNIT, u->name) >= 0)
                        continue;
                _cleanup_free_ char *why = NULL;
                if (rpi_swap_loop_unit(&h->rpi_swap, u->name))
                        why = strdup_printf("rpi-swap's loop device on %s: nodeswap detaches it (the masked unit "
                                            "has no ExecStop= left)", h->rpi_swap.path);
                if (!plan_add(c->plan, ACTION_STOP_UNIT, u->name, "active", "stopped",
                              why ?: "a conflict unit: it could bring the distro's swap back"))
                        return -ENOMEM;
        }
        return 0;
}

int plan(const Policy *policy, const HostState *host, const PlanOptions *opts, Plan *ret) {
        static const PlanOptions no_opts = {};
        Plan plan = {};
        _cleanup_free_ uint8_t *keep = calloc(host->n_swaps + 1, sizeof(uint8_t));
        if (!keep)
                return -ENOMEM;
        Ctx c = { .p = policy, .h = host, .o = opts ?: &no_opts, .plan = &plan, .keep = keep };
        int r;

        for (size_t i = 0; i < host->n_swaps; i++)
                plan.swap_total_now += host->swaps[i].size;

        /* The writeback timer stops before its device goes. */
        r = plan_writeback_timer(&c, false);
        if (r >= 0)
                r = plan_masks(&c);
        if (r < 0)
                goto fail;

        if (!c.o->revert && policy->backend_set) {
                if (policy->backends & BACKEND_ZRAM) {
                        r = plan_zram(&c);
                        if (r < 0)
                                goto fail;
                }
                if (policy->backends & BACKEND_FILE) {
                        r = plan_file(&c);
                        if (r < 0)
                                goto fail;
                }
        }
        r = plan_swapoff(&c);
        if (r >= 0)
                r = plan_recorded_files(&c);
        if (r >= 0)
                r = plan_stale_zram(&c);
        if (r >= 0)
                r = plan_writeback_files(&c);
        if (r >= 0)
                r = plan_stop_services(&c);
        if (r >= 0)
                r = plan_zswap(policy, host, c.o->revert, &plan);
        if (r < 0)
                goto fail;

        if (c.o->revert) {
                if (c.o->purge && host->file.exists && host->file.is_regular && host->file.label &&
                    streq(host->file.label, SWAP_LABEL) &&
                    find_action(&plan, ACTION_FILE_REMOVE, policy->file.path) < 0 &&
                    !plan_add(&plan, ACTION_FILE_REMOVE, policy->file.path, "present", "deleted", "revert --purge")) {
                        r = -ENOMEM;
                        goto fail;
                }
                r = plan_sysctl(&c, "vm.swappiness", host->swappiness, host->state.saved_swappiness);
                if (r >= 0)
                        r = plan_sysctl(&c, "vm.page-cluster", host->page_cluster, host->state.saved_page_cluster);
        } else {
                r = plan_sysctl(&c, "vm.swappiness", host->swappiness, policy->swappiness);
                if (r >= 0)
                        r = plan_sysctl(&c, "vm.page-cluster", host->page_cluster, policy->page_cluster);
        }
        if (r < 0)
                goto fail;

        plan.swap_total_after = c.new_swap;
        for (size_t i = 0; i < host->n_swaps; i++)
                if (keep[i] == KEEP_ON)
                        plan.swap_total_after += host->swaps[i].size;
        /* Creating an area with the same size as the one it replaces does not change the total. */

        r = plan_writeback_timer(&c, true);
        if (r >= 0)
                r = plan_kubelet(&c);
        if (r < 0)
                goto fail;

        /* LimitedSwap with little or no swap after the plan is the rule limitedswap-little-swap. */

        *ret = plan;
        return 0;
fail:
        plan_done(&plan);
        return r;
}
