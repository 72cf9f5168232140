/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The swap file's part of the plan: the policy's [File] Path= (made, reused, rewritten, or
 * replaced step by step through a bridge), the swap files nodeswap made at other paths, and revert
 * --purge. */
#include "plan/file.h"

#include "plan/context.h"
#include "plan/placement.h"
#include "probe/swap.h"
#include "probe/swapfile.h"

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

/* A swap file's deletion: the policy's own, or one only the state names as nodeswap's (checked
 * for nodeswap's label again when it is deleted). */
static Action *plan_add_swap_file_remove(Plan *plan, const Policy *p, const char *target, const char *now,
                                         const char *want, const char *reason) {
        Action *a = plan_add(plan, ACTION_FILE_REMOVE, target, now, want, reason);
        if (a) {
                a->file_remove.role = streq_ptr(target, p->file.path) ? ACTION_FILE_POLICY_SWAP_FILE
                                                                      : ACTION_FILE_RECORDED_SWAP_FILE;
                /* Under Encrypt=yes no page stays behind in clear: execute overwrites a file
                 * that is not encrypted before it unlinks it (an encrypted one needs nothing). */
                a->file_remove.overwrite = p->file.encrypt;
        }
        return a;
}

/* The policy's swap file, created (now == NULL) or replacing the active one (now = what it is). */
static int plan_file_create(PlanContext *c, const char *now, const char *reason) {
        const Policy *p = c->p;
        _cleanup_free_ char *want = strdup_printf("%s, priority %d%s", B(p->file.size), p->file.priority,
                                                  p->file.encrypt ? ", encrypted" : "");
        if (!want)
                return -ENOMEM;
        Action *a = plan_add(c->plan, ACTION_FILE_CREATE, p->file.path, now, want, reason);
        if (!a)
                return -ENOMEM;
        a->file_create.size = p->file.size;
        a->file_create.priority = p->file.priority;
        a->file_create.encrypt = p->file.encrypt;
        c->new_swap += swap_usable(p->file.size, c->h->page_size);
        return 0;
}

/* Not enough room for the policy's swap file with have bytes free. */
static int plan_no_space(PlanContext *c, uint64_t have, const char *when) {
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

int plan_bridge_up(PlanContext *c, const char *bridge, uint64_t size, int priority, bool encrypt, const char *holds,
                   const char *reason) {
        const HostState *h = c->h;
        const SwapDevice *bridge_on = host_find_swap(h, bridge);
        const RecordedSwapFile *bridge_rec = host_find_recorded_file(h, bridge);
        if (bridge_on) {
                c->keep[bridge_on - h->swaps] = KEEP_REPLACED;
                return 0;
        }
        if (bridge_rec && bridge_rec->exists) {
                /* Left off by an earlier run that was stopped: made anew at the size wanted now. */
                if (!plan_add_swap_file_remove(c->plan, c->p, bridge, "present, off", "deleted",
                              "a bridge left by an earlier run, made anew below"))
                        return -ENOMEM;
        }
        _cleanup_free_ char *want = strdup_printf("%s, priority %d: the bridge that holds %s until the new one is on",
                                                  B(size), priority, holds);
        _cleanup_free_ char *why = strdup_printf("bridge: holds %s", reason);
        if (!want || !why)
                return -ENOMEM;
        Action *a = plan_add(c->plan, ACTION_FILE_CREATE, bridge, NULL, want, why);
        if (!a)
                return -ENOMEM;
        a->file_create.size = size;
        a->file_create.priority = priority;
        a->file_create.encrypt = encrypt;
        return 0;
}

int plan_bridge_down(PlanContext *c, const char *bridge, bool encrypt, const char *to) {
        const SwapDevice *bridge_on = host_find_swap(c->h, bridge);
        _cleanup_free_ char *bnow = bridge_on ? strdup_printf("on, %s used, priority %d", B(bridge_on->used),
                                                              bridge_on->priority)
                                              : strdup("on");
        _cleanup_free_ char *why = strdup_printf("bridge no longer needed: its pages go to memory or to %s", to);
        if (!bnow || !why)
                return -ENOMEM;
        Action *a = plan_add(c->plan, ACTION_SWAPOFF, bridge, bnow, "off", why);
        if (!a)
                return -ENOMEM;
        a->swapoff.used = bridge_on ? bridge_on->used : 0;
        /* The bridge made by plan_bridge_up() is encrypted as asked; one found on, as it is. */
        a->swapoff.encrypted = bridge_on ? bridge_on->encrypted : encrypt;
        if (!plan_add_swap_file_remove(c->plan, c->p, bridge, "off", "deleted", "bridge no longer needed"))
                return -ENOMEM;
        return 0;
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
static int plan_file_replace(PlanContext *c, const SwapDevice *on) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        const SwapFileState *f = &h->file;
        const char *path = p->file.path;
        /* A new size or a change of [File] Encrypt= makes the file anew. */
        bool resize = f->size != p->file.size || f->encrypted != p->file.encrypt;
        Action *a;

        _cleanup_free_ char *bridge = swapfile_bridge_path(path);
        if (!bridge)
                return -ENOMEM;
        const SwapDevice *bridge_on = host_find_swap(h, bridge);
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

        if (bridged) {
                int r = plan_bridge_up(c, bridge, bridge_size, p->file.priority, p->file.encrypt, "the old file's pages",
                                       "the old file's pages while it is replaced (an active swap file cannot be "
                                       "renamed)");
                if (r < 0)
                        return r;
        } else if (bridge_on)
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
        a->swapoff.used = on->used;
        a->swapoff.encrypted = on->encrypted;

        if (resize) {
                const char *why = f->size != p->file.size ? "size changed"
                                  : p->file.encrypt       ? "[File] Encrypt=yes and the file is not encrypted"
                                                          : "[File] Encrypt=no and the file is encrypted";
                _cleanup_free_ char *was = strdup_printf("%s%s, off", B(f->size), f->encrypted ? ", encrypted" : "");
                _cleanup_free_ char *gone = strdup_printf("%s: made anew below", why);
                if (!was || !gone)
                        return -ENOMEM;
                if (!plan_add_swap_file_remove(c->plan, c->p, path, was, "deleted", gone))
                        return -ENOMEM;
                int r = plan_file_create(c, NULL, why);
                if (r < 0)
                        return r;
        } else {
                _cleanup_free_ char *want = strdup_printf("on, priority %d", p->file.priority);
                if (!want)
                        return -ENOMEM;
                a = plan_add(c->plan, ACTION_SWAPON, path, "off", want, "priority changed: swapped on again");
                if (!a)
                        return -ENOMEM;
                a->swapon = (ActionSwapon) { .priority = p->file.priority, .policy_file = true,
                                             .encrypted = f->encrypted };
                c->new_swap += swap_usable(f->size, h->page_size);
        }

        if (!bridged && !bridge_on)
                return 0;
        /* The bridge made above is encrypted as the policy says; one found on, as it is. */
        return plan_bridge_down(c, bridge, p->file.encrypt, "the new file");
}

/* Whether [File] Path= is on a file system and storage that may hold a swap file, decided as the
 * swap file backend decides: > 0 yes, 0 no (a finding says why), -errno. */
static int plan_file_placement(PlanContext *c) {
        const Policy *p = c->p;
        const SwapFileState *f = &c->h->file;
        Plan *plan = c->plan;
        const char *path = p->file.path;

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
        if (r != 0)
                return r;

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

/* The policy's swap file exists and is off: reused when it is right, rewritten or made anew where
 * it is wrong. */
static int plan_file_off(PlanContext *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        const SwapFileState *f = &h->file;
        Plan *plan = c->plan;
        const char *path = p->file.path;

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
        if (f->encrypted != p->file.encrypt || (f->encrypted && f->header_problem)) {
                /* Encrypted or not as [File] Encrypt= says: made anew (the old one goes first). */
                if (f->fs_free + f->allocated < p->file.size + swapfile_margin(p->file.size))
                        return plan_no_space(c, f->fs_free + f->allocated, "counting the old file's space");
                _cleanup_free_ char *now = strdup_printf("%s%s, off", B(f->size), f->encrypted ? ", encrypted" : "");
                const char *why = f->encrypted && f->header_problem ? f->header_problem
                                  : p->file.encrypt ? "[File] Encrypt=yes and the file is not encrypted"
                                                    : "[File] Encrypt=no and the file is encrypted";
                if (!now)
                        return -ENOMEM;
                if (!plan_add_swap_file_remove(plan, p, path, now, NULL, why))
                        return -ENOMEM;
                return plan_file_create(c, NULL, why);
        }
        if (f->size != p->file.size) {
                /* The old file goes first: the new one needs room only once it is gone. */
                if (f->fs_free + f->allocated < p->file.size + swapfile_margin(p->file.size))
                        return plan_no_space(c, f->fs_free + f->allocated, "counting the old file's space");
                _cleanup_free_ char *now = strdup_printf("%s, off", B(f->size));
                if (!now)
                        return -ENOMEM;
                if (!plan_add_swap_file_remove(plan, p, path, now, NULL, "size changed and the file is not in use"))
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
                if (!plan_add_swap_file_remove(plan, p, path, now, NULL, why))
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
                a->file_mkswap.size = f->size;
        }
        _cleanup_free_ char *want = strdup_printf("on, priority %d", p->file.priority);
        if (!want)
                return -ENOMEM;
        Action *a = plan_add(plan, ACTION_SWAPON, path, "off", want,
                             f->encrypted ? "the encrypted swap file exists but is not in use: mapped with a new key"
                                          : "the swap file exists but is not in use");
        if (!a)
                return -ENOMEM;
        a->swapon = (ActionSwapon) { .priority = p->file.priority, .policy_file = true, .encrypted = f->encrypted };
        c->new_swap += swap_usable(f->size, h->page_size);
        return 0;
}

int plan_file(PlanContext *c) {
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

        int r = plan_file_placement(c);
        if (r <= 0)
                return r;

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
                if (f->size == p->file.size && on->priority == p->file.priority && on->encrypted == p->file.encrypt) {
                        c->keep[idx] = KEEP_ON;
                        return 0;
                }
                /* Replaced step by step below (plan_file_replace): no swapoff from plan_swapoff(). */
                c->keep[idx] = KEEP_REPLACED;
                return plan_file_replace(c, on);
        }

        return plan_file_off(c);
}

/* Swap files nodeswap created (the state's swap_file= records) at a path the policy's [File] Path=
 * no longer names: apply deletes them after plan_swapoff() has taken them off (make before break,
 * with its fit check), or right away when they are off (after a reboot). The file at the policy's
 * Path= is left as today even when Backend= no longer has `file`: only revert --purge deletes it.
 * revert --purge deletes every recorded file. A file is deleted only while it is a regular file
 * (a symlink is never followed) with nodeswap's swap label; a record whose file is gone is
 * forgotten by execute, with no action. */
int plan_recorded_files(PlanContext *c) {
        const HostState *h = c->h;
        if (c->o->revert ? !c->o->purge : !c->p->backend_set)
                return 0;
        for (size_t i = 0; i < h->n_recorded_files; i++) {
                const RecordedSwapFile *f = &h->recorded_files[i];
                if (!f->exists)
                        continue;
                if (!c->o->revert && streq_ptr(f->path, c->p->file.path))
                        continue;
                if (plan_find_action(c->plan, ACTION_FILE_REMOVE, f->path) >= 0)
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
                bool off = plan_find_action(c->plan, ACTION_SWAPOFF, f->path) >= 0;
                if (f->swap_on && !off)
                        continue;       /* stays on (the plan has errors): deleted by a later run */
                if (!plan_add_swap_file_remove(c->plan, c->p, f->path, f->swap_on ? "on, swapped off above" : "present, off",
                              "deleted",
                              c->o->revert ? "revert --purge: created by nodeswap"
                                           : "created by nodeswap, no longer the policy's Path="))
                        return -ENOMEM;
        }
        return 0;
}

int plan_file_purge(PlanContext *c) {
        const Policy *p = c->p;
        const SwapFileState *f = &c->h->file;
        if (!c->o->revert || !c->o->purge || !f->exists || !f->is_regular || !f->label ||
            !streq(f->label, SWAP_LABEL) || plan_find_action(c->plan, ACTION_FILE_REMOVE, p->file.path) >= 0)
                return 0;
        if (!plan_add_swap_file_remove(c->plan, p, p->file.path, "present", "deleted", "revert --purge"))
                return -ENOMEM;
        return 0;
}
