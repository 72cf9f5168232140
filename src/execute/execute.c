/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execute: the one place that writes. Each action is carried out in plan order; a failure stops
 * the run. plan() swaps nothing off before its replacement is on (make before break; a swap file
 * is replaced through a bridge, step by step), so a node always keeps working swap, and a rerun
 * converges because plan() starts again from what the host shows. */
#include "execute/execute.h"

#include <time.h>

#include "execute/dropin.h"
#include "execute/features.h"
#include "execute/fault.h"
#include "execute/state-save.h"
#include "execute/swapon.h"
#include "execute/sysctl.h"
#include "execute/systemd-jobs.h"
#include "execute/unit-props.h"
#include "execute/zram.h"
#include "execute/swapfile.h"
#include "execute/crypt.h"
#include "shared/clock.h"
#include "shared/sd-dl.h"
#include "execute/zswap.h"
#include "execute/zram-writeback.h"
#include "plan/zram-knobs.h"

/* How long a start or stop job of a conflict unit may take: systemd's own default for a unit's
 * start and stop (DefaultTimeoutStartSec=, DefaultTimeoutStopSec=). */
#define UNIT_JOB_TIMEOUT_USEC (90 * USEC_PER_SEC)

typedef struct Exec {
        const ExecuteOptions *o;
        const char *root;
        const Policy *p;
        const HostState *h;
        const Plan *pl;
        ActionResult *results;  /* per action */
        NodeswapState state;
        int state_error;        /* the last failed state save */
        sd_bus *bus;
        int bus_error;          /* 0 not tried, < 0 unreachable, 1 open */
        bool reverting;
        char *zram_algorithm;   /* the algorithm the kernel chose for a zram device this run made */
} Exec;

/* The node's swap changed just now. Stamped when it happens, not at the end of the run: the
 * kubelet restart comes later in the same run, and "stale" means the kubelet started before the
 * last change. */
static void swap_changed(Exec *e) {
        e->state.swap_changed_usec = now_realtime_usec();
}

/* Action i has its result: r (0 or -errno) and message (taken). */
static void set_result_errno(Exec *e, size_t i, ActionStatus status, int r, char *message) {
        ActionResult *res = &e->results[i];
        res->status = status;
        res->error = r < 0 ? r : 0;
        free(res->message);
        res->message = message;
        if (e->o->progress)
                e->o->progress(&e->pl->actions[i], res, e->o->userdata);
}

static void set_result(Exec *e, size_t i, ActionStatus status, char *message) {
        set_result_errno(e, i, status, 0, message);
}

static int save_state(Exec *e) {
        int r = state_save(e->root, &e->state);
        if (r < 0)
                e->state_error = r;
        return r;
}

/* For the zram ids only, which live in /run/nodeswap-state/state: no fsync'ed persistent write. */
static int save_runtime_state(Exec *e) {
        int r = state_save_runtime(e->root, &e->state);
        if (r < 0)
                e->state_error = r;
        return r;
}

/* systemd: opened on first use. Returns the bus or NULL with a reason in *why. */
static sd_bus *bus_get(Exec *e, char **why) {
        if (e->bus_error == 0) {
                int r = systemd_open(e->root, &e->bus);
                e->bus_error = r < 0 ? r : 1;
        }
        if (e->bus_error > 0)
                return e->bus;
        if (e->bus_error == -EOPNOTSUPP)
                *why = strdup("skipped under --root");
        else if (e->bus_error == -ELIBACC && sd_dl_error())
                *why = strdup_printf("systemd unreachable: %s", sd_dl_error());
        else
                *why = strdup_printf("systemd unreachable: %s", strerror(-e->bus_error));
        return NULL;
}

/* The bus for action i, or NULL after reporting the action as not done (systemd unreachable, or
 * skipped under --root): apply goes on without it. */
static sd_bus *bus_for_action(Exec *e, size_t i) {
        char *why = NULL;
        sd_bus *b = bus_get(e, &why);
        if (!b)
                set_result_errno(e, i, ACTION_STATUS_NOT_DONE, e->bus_error, why);
        return b;
}

static const SwapDevice *swap_of_unit(const HostState *h, const char *unit) {
        for (size_t i = 0; i < h->n_swaps; i++)
                if (streq_ptr(h->swaps[i].unit, unit))
                        return &h->swaps[i];
        return NULL;
}

/* All actions of one kind (masks, unmasks) go to systemd in one call followed by one reload. */
static void do_mask_group(Exec *e, ActionKind kind) {
        _cleanup_strv_free_ char **units = NULL;
        for (size_t i = 0; i < e->pl->n_actions; i++)
                if (e->pl->actions[i].kind == kind && e->results[i].status == ACTION_STATUS_PENDING)
                        if (strv_extend(&units, e->pl->actions[i].target) < 0)
                                return;
        char *why = NULL;
        sd_bus *b = bus_get(e, &why);
        int r = 0;
        if (b) {
                r = kind == ACTION_MASK_UNIT ? systemd_mask_runtime(b, units) : systemd_unmask_runtime(b, units);
                if (r >= 0)
                        r = systemd_reload(b);
                if (r < 0)
                        why = strdup_printf("Failed to %s units over D-Bus: %s",
                                            kind == ACTION_MASK_UNIT ? "mask" : "unmask", strerror(-r));
        }
        for (size_t i = 0; i < e->pl->n_actions; i++)
                if (e->pl->actions[i].kind == kind && e->results[i].status == ACTION_STATUS_PENDING)
                        set_result_errno(e, i, why ? ACTION_STATUS_NOT_DONE : ACTION_STATUS_DONE, b ? r : e->bus_error,
                                         why ? strdup(why) : NULL);
        free(why);
}

/* Stop a conflict unit. A swap unit's device is swapped off directly, after the mask: that is what
 * keeps Raspberry Pi OS's zram off (DOMAIN.md), while a stop job of a masked .swap unit fails in
 * systemd 252. systemd sees the swap go from /proc/swaps and marks the unit inactive. */
static int do_stop_unit(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        const SwapDevice *s = swap_of_unit(e->h, a->target);
        _cleanup_free_ char *why = NULL;
        int r;

        if (s && endswith(a->target, ".swap")) {
                r = swap_off(e->root, s->path);
                if (r < 0 && r != -EOPNOTSUPP) {
                        set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                   strdup_printf("Failed to swap off '%s': %s", s->path, strerror(-r)));
                        return r;
                }
                if (r == -EOPNOTSUPP)
                        why = strdup("swapoff skipped under --root");
                else if (s->kind == SWAP_KIND_ZRAM && s->zram_id >= 0) {
                        /* What the distro's own stop (zram-generator --reset-device) would do, lost
                         * to the mask: give the device's memory back, and leave it ready for the
                         * distro's setup when revert starts it again. */
                        r = zram_reset(e->root, s->zram_id);
                        if (r < 0)
                                why = strdup_printf("swapped off; resetting %s failed: %s", s->path, strerror(-r));
                }
        } else {
                sd_bus *b = bus_for_action(e, i);
                if (!b)
                        return 0;
                _cleanup_free_ char *result = NULL;
                r = systemd_stop_unit(b, a->target, UNIT_JOB_TIMEOUT_USEC, &result);
                if (r < 0 || !streq_ptr(result, "done")) {
                        set_result_errno(e, i, ACTION_STATUS_FAILED, r < 0 ? r : -EIO,
                                   strdup_printf("Failed to stop %s: %s", a->target,
                                                 r < 0 ? strerror(-r) : strempty(result)));
                        return -EIO;
                }
                if (rpi_swap_loop_unit(&e->h->rpi_swap, a->target)) {
                        /* Masked, rpi-setup-loop@ lost its ExecStop= (losetup -d): detach its loop
                         * device on rpi-swap's file as that would have. zram0, its only user, was
                         * reset when it went off. revert starts the unit, which attaches it anew. */
                        r = loop_detach_file(e->root, e->h->rpi_swap.path);
                        if (r == -EOPNOTSUPP)
                                why = strdup("loop device left alone under --root");
                        else if (r < 0)
                                why = strdup_printf("stopped; detaching the loop device on %s failed: %s",
                                                    e->h->rpi_swap.path, strerror(-r));
                        else
                                why = strdup_printf("%d loop device(s) on %s detached", r, e->h->rpi_swap.path);
                }
        }
        /* revert starts it again */
        if (!strv_contains(e->state.stopped_units, a->target)) {
                strv_extend(&e->state.stopped_units, a->target);
                save_state(e);
        }
        if (s)
                swap_changed(e);
        set_result(e, i, ACTION_STATUS_DONE, TAKE_PTR(why));
        return 0;
}

static int do_start_unit(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        sd_bus *b = bus_for_action(e, i);
        if (!b)
                return 0;
        _cleanup_free_ char *result = NULL;
        int r = systemd_start_unit(b, a->target, UNIT_JOB_TIMEOUT_USEC, &result);
        if (r < 0 || !streq_ptr(result, "done")) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r < 0 ? r : -EIO,
                           strdup_printf("Failed to start %s: %s", a->target, r < 0 ? strerror(-r) : strempty(result)));
                return -EIO;
        }
        swap_changed(e);
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

/* nodeswap's own writeback timer: started by apply, stopped by apply or revert. Not a conflict
 * unit, so not recorded in stopped_unit= (revert would start it again). */
static int do_writeback_timer(Exec *e, size_t i, bool start) {
        const Action *a = &e->pl->actions[i];
        sd_bus *b = bus_for_action(e, i);
        if (!b)
                return 0;
        _cleanup_free_ char *result = NULL;
        int r = start ? systemd_start_unit(b, a->target, UNIT_JOB_TIMEOUT_USEC, &result)
                      : systemd_stop_unit(b, a->target, UNIT_JOB_TIMEOUT_USEC, &result);
        if (r < 0 || !streq_ptr(result, "done")) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r < 0 ? r : -EIO,
                                 strdup_printf("Failed to %s %s: %s", start ? "start" : "stop", a->target,
                                               r < 0 ? strerror(-r) : strempty(result)));
                return -EIO;
        }
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

static int swap_result(Exec *e, size_t i, int r, const char *what) {
        if (r == -EOPNOTSUPP || r > 0) {
                set_result(e, i, ACTION_STATUS_DONE, strdup("swapon/swapoff skipped under --root"));
                return 0;
        }
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r, strdup_printf("Failed to %s '%s': %s", what,
                                                                              strempty(e->pl->actions[i].target), strerror(-r)));
                return r;
        }
        swap_changed(e);
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

static int exec_zram_create(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        const Policy *p = e->p;
        _cleanup_free_ char *chosen = NULL, *reason = NULL, *params = NULL;
        _cleanup_(zram_backing_done) ZramBacking backing = ZRAM_BACKING_NULL;
        const ActionZramCreate *z = &a->zram_create;
        const char *algorithm = z->algorithm;
        int id = -1, r;

        /* The backing device first: the kernel takes backing_dev only before disksize. */
        bool loop_skipped = false;
        if (p->zram.writeback) {
                /* A file that is not there yet is nodeswap's: recorded before it is made (fsync'ed,
                 * as a swap file is), so revert --purge finds it even after a kill right after. */
                bool recorded = policy_writeback_is_file(p) && !e->h->writeback.exists &&
                                state_add_writeback_file(&e->state, p->zram.writeback) == 0;
                if (recorded)
                        (void) save_state(e);
                r = zram_backing_prepare(e->root, p->zram.writeback, policy_writeback_is_file(p), z->size,
                                         p->zram.writeback_encrypt, &backing, &reason);
                loop_skipped = r == -EOPNOTSUPP;
                /* Not made now (someone else's after all), or removed again on failure: no record. */
                if (recorded && !((r >= 0 || loop_skipped) && backing.created) &&
                    state_remove_writeback_file(&e->state, p->zram.writeback) == 0)
                        (void) save_state(e);
                if (r < 0 && !loop_skipped) {
                        set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                   strdup_printf("Failed to set up a zram device (%s): %s", a->want,
                                                 reason ?: strerror(-r)));
                        return r;
                }
        }
        const char *par = zram_knobs_params_for(p, algorithm);
        if (par && !(params = strdup_printf("algo=%s %s", algorithm, par)))
                return -ENOMEM;
        ZramSetupExtra extra = {
                .recompress = p->zram.recompress,
                .recompress_params = p->zram.recompress_params,
                .backing_dev = backing.dev,
                .params_of = p->zram.algorithm_params,
        };

        /* With no zram device to read the kernel's offer from, plan() left the choice to the device. */
        r = zram_provision(e->root, algorithm, p->zram.algorithms, params, &extra, z->mem_limit, z->size,
                              z->priority, e->h->page_size, &id, &chosen);
        if (!algorithm)
                algorithm = chosen;
        if (r < 0 && backing.mapped)
                /* zram did not take it: the mapping (and its key) goes again. */
                (void) crypt_unmap_file(e->root, backing.file, NULL);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                           strdup_printf("Failed to set up a zram device (%s): %s", a->want, strerror(-r)));
                return r;
        }
        /* Saved right away (to /run, no fsync): killed before the end of the run, the next run must
         * still know the device is nodeswap's, or it would count it as the distro's swap. */
        state_add_zram_id(&e->state, id);
        save_runtime_state(e);
        swap_changed(e);
        if (algorithm && !e->zram_algorithm)
                e->zram_algorithm = strdup(algorithm);  /* for the labels; none on ENOMEM */
        int k = p->zram.writeback ? zram_writeback_started(e->root, id, &backing, p->zram.writeback_limit) : 0;
        set_result_errno(e, i, k < 0 ? ACTION_STATUS_FAILED : ACTION_STATUS_DONE, k,
                         strdup_printf("/dev/zram%d, %s%s%s%s%s%s", id, algorithm, backing.dev ? ", backing_dev " : "",
                                       strempty(backing.dev), loop_skipped ? ", loop device skipped under --root" : "",
                                       r > 0 ? ", swapon skipped under --root" : "",
                                       k < 0 ? ", but its writeback limit or record could not be written" : ""));
        return k < 0 ? k : 0;
}

static int exec_file_create(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        _cleanup_free_ char *reason = NULL;
        int r;
        /* Recorded before the file exists (fsync'ed, like the sysctl values): killed after the
         * creation or the swapon, the next run still knows the file is nodeswap's, and finds it
         * even after [File] Path= has moved elsewhere. A record whose file never came (a kill
         * before the rename) is forgotten by the next run that finds it gone. */
        bool recorded = state_add_swap_file(&e->state, a->target) == 0;
        if (recorded)
                (void) save_state(e);
        r = (a->file_create.encrypt ? swapfile_create_encrypted : swapfile_create)(
                e->root, a->target, a->file_create.size, e->h->page_size, a->file_create.priority,
                swap_discard_flags(e->p->file.discard), e->p->file.storage, &reason);
        if (r < 0) {
                /* swapfile_create() leaves nothing behind on failure, and an -EEXIST file is not
                 * ours: the record made above goes again. */
                if (recorded && state_remove_swap_file(&e->state, a->target) == 0)
                        (void) save_state(e);
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                           strdup_printf("Failed to create swap file '%s': %s", a->target,
                                         reason ?: strerror(-r)));
                return r;
        }
        swap_changed(e);
        set_result(e, i, ACTION_STATUS_DONE, r > 0 ? strdup("swapon skipped under --root") : NULL);
        return 0;
}

/* A [Zram] Writeback= file nodeswap made: deleted once the zram device before it in the plan is
 * gone, and with it the loop device; then its record goes. */
static int do_writeback_file_remove(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        int r = zram_backing_file_remove(e->root, a->target);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                 strdup_printf("Failed to remove '%s': %s", a->target,
                                               r == -EBUSY ? "a loop device is still backed by it" : strerror(-r)));
                return r;
        }
        if (state_remove_writeback_file(&e->state, a->target) == 0)
                (void) save_state(e);
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

/* Where the state keeps a sysctl's value from before nodeswap, and the value probe() read. */
static int *sysctl_saved(Exec *e, PlanSysctl s) {
        switch (s) {
        case PLAN_SYSCTL_SWAPPINESS:
                return &e->state.saved_swappiness;
        case PLAN_SYSCTL_PAGE_CLUSTER:
                return &e->state.saved_page_cluster;
        case PLAN_SYSCTL_MIN_FREE_KBYTES:
                return &e->state.saved_min_free_kbytes;
        default:
                return &e->state.saved_watermark_scale_factor;
        }
}

static int sysctl_now(const Exec *e, PlanSysctl s) {
        switch (s) {
        case PLAN_SYSCTL_SWAPPINESS:
                return e->h->swappiness;
        case PLAN_SYSCTL_PAGE_CLUSTER:
                return e->h->page_cluster;
        case PLAN_SYSCTL_MIN_FREE_KBYTES:
                return e->h->min_free_kbytes;
        default:
                return e->h->watermark_scale_factor;
        }
}

static int exec_sysctl(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        int *saved = sysctl_saved(e, a->sysctl.name);
        int now = sysctl_now(e, a->sysctl.name);

        /* Keep the value from before nodeswap's first change, for revert. This save must come
         * before the write: killed right after it, the next run would see the new value only and
         * revert could never restore the old one. The other sysctl this run changes later is
         * recorded in the same save (its value is still the old one now), so a run that sets both
         * does one fsync'ed save instead of two. */
        if (!e->reverting && *saved < 0 && now >= 0) {
                *saved = now;
                for (size_t j = i + 1; j < e->pl->n_actions; j++) {
                        const Action *b = &e->pl->actions[j];
                        if (b->kind != ACTION_SYSCTL || e->results[j].status != ACTION_STATUS_PENDING ||
                            b->sysctl.name == a->sysctl.name)
                                continue;
                        int *other = sysctl_saved(e, b->sysctl.name);
                        int other_now = sysctl_now(e, b->sysctl.name);
                        if (*other < 0 && other_now >= 0)
                                *other = other_now;
                }
                int r = save_state(e);
                if (r < 0) {
                        set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                         strdup_printf("the old value could not be saved: %s", strerror(-r)));
                        return r;
                }
        }
        int r = sysctl_write(e->root, a->target, a->sysctl.value);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                           strdup_printf("Failed to set %s to %d: %s", a->target, a->sysctl.value, strerror(-r)));
                return r;
        }
        /* What apply wrote, to notice a later rewrite (khugepaged's after a THP change); saved with
         * the run's state at its end. */
        if (a->sysctl.name == PLAN_SYSCTL_MIN_FREE_KBYTES)
                e->state.set_min_free_kbytes = e->reverting ? -1 : a->sysctl.value;
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

/* A zswap parameter. Before the first write of a run, the value of every parameter this plan
 * sets for the policy is kept in the state (one fsync'ed save), unless one is kept already: killed
 * right after a write, the next run would only see the new value. A write-back of a saved value
 * forgets it once the kernel shows it again. */
static int exec_zswap_set(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        const ActionZswapSet *z = &a->zswap_set;
        ZswapParam p = z->param;
        if (!z->restore) {
                bool changed = false;
                for (size_t j = i; j < e->pl->n_actions; j++) {
                        const Action *b = &e->pl->actions[j];
                        if (b->kind != ACTION_ZSWAP_SET || b->zswap_set.restore ||
                            e->results[j].status != ACTION_STATUS_PENDING || !b->now)
                                continue;
                        int r = state_save_zswap(&e->state, b->zswap_set.param, b->now);
                        if (r == -EINVAL && j == i) {
                                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                           strdup_printf("the kernel's value '%s' cannot be kept for revert; not "
                                                         "changing it", b->now));
                                return r;
                        }
                        if (r == -ENOMEM)
                                return r;
                        changed = changed || r == 0;
                }
                if (changed && save_state(e) < 0) {
                        set_result_errno(e, i, ACTION_STATUS_FAILED, -EIO, strdup("the old value could not be saved"));
                        return -EIO;
                }
        }
        _cleanup_free_ char *shown = NULL;
        int r = zswap_write_param(e->root, p, z->value, &shown);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                           r == -EIO && shown
                                   ? strdup_printf("wrote '%s' to %s/%s, the kernel shows '%s'", z->value,
                                                   ZSWAP_PARAMETERS_DIR, zswap_param_to_string(p), shown)
                                   : strdup_printf("Failed to write '%s' to %s/%s: %s", z->value,
                                                   ZSWAP_PARAMETERS_DIR, zswap_param_to_string(p),
                                                   r == -ENOENT && p == ZSWAP_PARAM_COMPRESSOR
                                                           ? "the kernel's crypto API has no such compressor"
                                                           : strerror(-r)));
                return r;
        }
        if (z->restore) {
                state_forget_zswap(&e->state, p);
                (void) save_state(e);
        }
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

/* Restart the unit and make sure it stays up: a Type=simple service whose job is "done" can still
 * fail a moment later (the kubelet rejecting its configuration), so watch it for a while, by its
 * D-Bus signals (systemd_wait_unit_settled()). */
#define RESTART_TIMEOUT_USEC (5 * 60 * USEC_PER_SEC)
#define RESTART_SETTLE_USEC (3 * USEC_PER_SEC)
static int systemd_restart_and_verify(sd_bus *b, const char *unit, char **ret_state) {
        _cleanup_free_ char *result = NULL, *state = NULL;
        int r = systemd_restart_unit(b, unit, RESTART_TIMEOUT_USEC, &result);
        if (r < 0) {
                *ret_state = strdup_printf("restart failed: %s", strerror(-r));
                return r;
        }
        if (!streq_ptr(result, "done")) {
                *ret_state = strdup_printf("restart job %s", strempty(result));
                return -EIO;
        }
        r = systemd_wait_unit_settled(b, unit, RESTART_SETTLE_USEC, RESTART_TIMEOUT_USEC, &state);
        if (r == -EIO)
                *ret_state = strdup_printf("%s after the restart", strempty(state));
        else if (r == -ETIMEDOUT)
                *ret_state = strdup_printf("still %s", strempty(state));
        else if (r < 0)
                *ret_state = strdup_printf("state unknown: %s", strerror(-r));
        else
                *ret_state = strdup("active");
        return r;
}

/* Restart the kubelet; if it does not come back, put the previous drop-in back and restart again. */
static int exec_restart_unit(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        sd_bus *b = bus_for_action(e, i);
        if (!b)
                return 0;
        _cleanup_free_ char *state = NULL;
        int r = systemd_unit_active(b, a->target, &state);
        if (r < 0 || !streq_ptr(state, "active")) {
                set_result(e, i, ACTION_STATUS_SKIPPED,
                           strdup_printf("%s is %s: it reads the change when it starts", a->target,
                                         state ?: "not loaded"));
                return 0;
        }
        _cleanup_free_ char *result = NULL;
        r = systemd_restart_and_verify(b, a->target, &result);
        if (r >= 0) {
                set_result(e, i, ACTION_STATUS_DONE, NULL);
                return 0;
        }

        /* Roll back the drop-in to what it was before this run. */
        const char *dropin = e->p->dropin;
        int k = e->h->dropin ? kubelet_write_dropin(e->root, dropin, e->h->dropin)
                             : kubelet_remove_dropin(e->root, dropin);
        _cleanup_free_ char *again = NULL;
        int k2 = systemd_restart_and_verify(b, a->target, &again);
        set_result_errno(e, i, ACTION_STATUS_FAILED, -EIO,
                   strdup_printf("%s did not come back after the restart (%s); %s; restarted again: %s", a->target,
                                 strempty(result),
                                 k < 0 ? "the previous drop-in could NOT be restored" : "the previous drop-in was restored",
                                 k2 >= 0 ? "active" : strempty(again)));
        return -EIO;
}

static int exec_mask_unit(Exec *e, size_t i) {
        (void) i;
        do_mask_group(e, ACTION_MASK_UNIT);
        return 0;
}

static int exec_unmask_unit(Exec *e, size_t i) {
        (void) i;
        do_mask_group(e, ACTION_UNMASK_UNIT);
        return 0;
}

static int exec_stop_unit(Exec *e, size_t i) {
        if (e->pl->actions[i].stop_unit.unit == ACTION_UNIT_WRITEBACK_TIMER)
                return do_writeback_timer(e, i, false);
        return do_stop_unit(e, i);
}

static int exec_start_unit(Exec *e, size_t i) {
        if (e->pl->actions[i].start_unit.unit == ACTION_UNIT_WRITEBACK_TIMER)
                return do_writeback_timer(e, i, true);
        int r = do_start_unit(e, i);
        if (r >= 0) {
                strv_free(e->state.stopped_units);
                e->state.stopped_units = NULL;
        }
        return r;
}

static int exec_file_mkswap(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        int r = swapfile_rewrite_header(e->root, a->target, e->h->page_size);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                           strdup_printf("Failed to rewrite the header of '%s': %s", a->target, strerror(-r)));
                return r;
        }
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

/* An encrypted swap file's swapon or swapoff: its mapping made with a new key, or taken away. */
static int crypt_result(Exec *e, size_t i, int r, char *reason, const char *what) {
        if (r < 0 && r != -EOPNOTSUPP) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                 reason ? reason : strdup_printf("Failed to %s '%s': %s", what,
                                                                 e->pl->actions[i].target, strerror(-r)));
                return r;
        }
        free(reason);
        return swap_result(e, i, r < 0 ? r : 0, what);
}

static int exec_swapon(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        if (a->swapon.encrypted) {
                char *reason = NULL;
                int r = crypt_swap_on(e->root, a->target, e->h->page_size, a->swapon.priority,
                                      a->swapon.policy_file ? swap_discard_flags(e->p->file.discard) : 0, &reason);
                return crypt_result(e, i, r, reason, "swapon");
        }
        return swap_result(e, i,
                           swap_on_flags(e->root, a->target, a->swapon.priority,
                                         a->swapon.policy_file ? swap_discard_flags(e->p->file.discard) : 0),
                           "swapon");
}

static int exec_swapoff(Exec *e, size_t i) {
        if (e->pl->actions[i].swapoff.encrypted) {
                char *reason = NULL;
                int r = crypt_swap_off(e->root, e->pl->actions[i].target, &reason);
                return crypt_result(e, i, r, reason, "swapoff");
        }
        return swap_result(e, i, swap_off(e->root, e->pl->actions[i].target), "swapoff");
}

static int exec_zram_remove(Exec *e, size_t i) {
        int id = e->pl->actions[i].zram_remove.zram_id;
        int r = zram_teardown(e->root, id);
        if (r < 0 && r != -EOPNOTSUPP) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                           strdup_printf("Failed to remove /dev/zram%d: %s", id, strerror(-r)));
                return r;
        }
        /* Right away too: a stale id would make a device someone else adds later "ours". */
        state_remove_zram_id(&e->state, id);
        save_runtime_state(e);
        /* Its loop device, if nodeswap attached one for writeback, goes with it. */
        (void) zram_writeback_forget(e->root, id);
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

static int exec_file_remove(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        if (a->file_remove.role == ACTION_FILE_WRITEBACK)
                return do_writeback_file_remove(e, i);
        /* A file only the state names as nodeswap's (an earlier Path=, a bridge) must still carry
         * nodeswap's label when it is deleted, as plan() saw it. */
        bool ow = a->file_remove.overwrite;
        int r = a->file_remove.role == ACTION_FILE_POLICY_SWAP_FILE ? swapfile_remove(e->root, a->target, ow)
                                                                    : swapfile_remove_labelled(e->root, a->target, ow);
        if (r < 0 && r != -EOPNOTSUPP) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                           strdup_printf("Failed to remove '%s': %s", a->target, strerror(-r)));
                return r;
        }
        if (state_remove_swap_file(&e->state, a->target) == 0)
                (void) save_state(e);
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

static int exec_dropin_write(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        int r = kubelet_write_dropin(e->root, a->target, a->dropin_write.content);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                           strdup_printf("Failed to write '%s': %s", a->target, strerror(-r)));
                return r;
        }
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

static int exec_dropin_remove(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        int r = kubelet_remove_dropin(e->root, a->target);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                           strdup_printf("Failed to remove '%s': %s", a->target, strerror(-r)));
                return r;
        }
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

/* The feature file from the plan's labels, with what only this run knows: the algorithm the
 * kernel chose for a zram device it made. A run that fails before it leaves the file as it was,
 * as it leaves everything after the failed step. */
static int exec_features_write(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        _cleanup_(feature_input_done) FeatureInput in = {};
        int r = feature_input_copy(&a->features_write.in, &in);
        if (r < 0)
                return r;
        if (in.zram_algorithm_pending && e->zram_algorithm && !in.zram_algorithm &&
            !(in.zram_algorithm = strdup(e->zram_algorithm)))
                return -ENOMEM;
        _cleanup_free_ char *content = features_render(&in);
        if (!content)
                return -ENOMEM;
        r = features_write(e->root, content);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                 strdup_printf("Failed to write '%s': %s", a->target, strerror(-r)));
                return r;
        }
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

static int exec_features_remove(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        int r = features_remove(e->root);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                 strdup_printf("Failed to remove '%s': %s", a->target, strerror(-r)));
                return r;
        }
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

static int set_reverted(Exec *e, size_t i, bool reverted) {
        e->state.reverted = reverted;
        int r = save_state(e);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                 strdup_printf("Failed to save nodeswap's state: %s", strerror(-r)));
                return r;
        }
        /* After a reboot the masks are the generator's (in /run/systemd/generator.early), not
         * runtime ones: a reload runs the generator again, which now sees the revert and masks
         * nothing, so the distro's units can be started. */
        char *why = NULL;
        sd_bus *b = reverted ? bus_get(e, &why) : NULL;
        if (b && (r = systemd_reload(b)) < 0)
                why = strdup_printf("Failed to reload systemd: %s", strerror(-r));
        set_result(e, i, ACTION_STATUS_DONE, why);
        return 0;
}

static int exec_mark_reverted(Exec *e, size_t i) {
        return set_reverted(e, i, true);
}

static int exec_clear_reverted(Exec *e, size_t i) {
        return set_reverted(e, i, false);
}

/* [Kubelet] NoSwapUnits= (plan/noswap.c). Setting: the unit is recorded as nodeswap's before the
 * call (killed right after it, the next run must still know the control drop-in is nodeswap's to
 * remove), then SetUnitProperties(runtime=true) applies MemorySwapMax=0 to the running cgroup.
 * Taking it away: nodeswap's control drop-in removed and systemd reloaded, which applies the unit's
 * own files to its cgroup again and runs the generator (that no longer writes the unit's drop-in);
 * then forgotten. */
static int exec_unit_swap_max(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        const ActionUnitSwapMax *m = &a->unit_swap_max;
        sd_bus *b = bus_for_action(e, i);
        int r;
        if (!b)
                return 0;
        if (!m->restore) {
                r = state_add_no_swap_unit(&e->state, a->target);
                if (r == 0)
                        r = save_state(e);
                if (r < 0) {
                        set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                         strdup_printf("%s could not be recorded in nodeswap's state: %s", a->target,
                                                       strerror(-r)));
                        return r;
                }
                r = systemd_set_unit_property(b, a->target, "MemorySwapMax", "t", UINT64_C(0));
                if (r < 0) {
                        set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                         strdup_printf("Failed to set MemorySwapMax=0 on %s over D-Bus: %s", a->target,
                                                       strerror(-r)));
                        return r;
                }
                set_result(e, i, ACTION_STATUS_DONE, NULL);
                return 0;
        }
        if (m->remove_control) {
                r = unit_props_remove_control(e->root, a->target, NO_SWAP_CONTROL_DROPIN);
                if (r < 0) {
                        set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                         strdup_printf("Failed to remove " NO_SWAP_CONTROL_DIR "/%s.d/" NO_SWAP_CONTROL_DROPIN
                                                       ": %s", a->target, strerror(-r)));
                        return r;
                }
        }
        r = systemd_reload(b);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                 strdup_printf("Failed to reload systemd after taking MemorySwapMax=0 off %s: %s",
                                               a->target, strerror(-r)));
                return r;
        }
        if (state_remove_no_swap_unit(&e->state, a->target) == 0)
                (void) save_state(e);
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

/* [Kubelet] IOLatencyTargetSec= (plan/iolatency.c). Setting: recorded in the state first (killed
 * right after the call, the next run and the generator must know the target is nodeswap's), then
 * SetUnitProperties(system.slice, runtime=true, IODeviceLatencyTargetUSec=[("/dev/block/MAJ:MIN",
 * µs)]): systemd parses the device from its number without a device node (src/core/cgroup.c,
 * lookup_block_device()) and writes "MAJ:MIN target=µs" into system.slice's io.latency at once.
 * Taking it away: systemd never writes io.latency for a device its configuration no longer names
 * (cgroup_context_apply() writes only the configured ones), so the target is set to infinity first,
 * which systemd writes as "target=max" and the kernel takes as no target; then the record is
 * forgotten (the reload runs the generator, which must no longer write its drop-in), nodeswap's
 * control drop-in removed and systemd reloaded, so system.slice has what its own files say. */
static int exec_io_latency(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        const ActionIoLatency *l = &a->io_latency;
        sd_bus *b = bus_for_action(e, i);
        char dev[64];
        int r;
        if (!b)
                return 0;
        snprintf(dev, sizeof dev, "/dev/block/%u:%u", l->major, l->minor);
        if (!l->restore) {
                e->state.io_latency_major = l->major;
                e->state.io_latency_minor = l->minor;
                e->state.io_latency_usec = l->usec;
                r = save_state(e);
                if (r < 0) {
                        set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                         strdup_printf("The io.latency target could not be recorded in nodeswap's state: %s",
                                                       strerror(-r)));
                        return r;
                }
        }
        r = systemd_set_unit_property(b, IO_LATENCY_SLICE, "IODeviceLatencyTargetUSec", "a(st)", (unsigned) 1, dev,
                                      l->restore ? UINT64_MAX : l->usec);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                 strdup_printf("Failed to set IODeviceLatencyTargetUSec=%s %s on " IO_LATENCY_SLICE
                                               " over D-Bus: %s", dev, l->restore ? "infinity" : a->want, strerror(-r)));
                return r;
        }
        if (!l->restore) {
                set_result(e, i, ACTION_STATUS_DONE, NULL);
                return 0;
        }
        e->state.io_latency_major = e->state.io_latency_minor = 0;
        e->state.io_latency_usec = 0;
        r = save_state(e);
        if (r >= 0)
                r = unit_props_remove_control(e->root, IO_LATENCY_SLICE, IO_LATENCY_CONTROL_DROPIN);
        if (r >= 0)
                r = systemd_reload(b);
        if (r < 0) {
                set_result_errno(e, i, ACTION_STATUS_FAILED, r,
                                 strdup_printf("Failed to take the io.latency target of " IO_LATENCY_SLICE " away: %s",
                                               strerror(-r)));
                return r;
        }
        set_result(e, i, ACTION_STATUS_DONE, NULL);
        return 0;
}

/* Each kind's writer, from the one list of kinds (plan/plan.h): a kind without its exec_ function
 * does not compile. */
static int (*const action_exec[_ACTION_KIND_MAX])(Exec *e, size_t i) = {
#define ACTION_EXEC(K, name, string) [ACTION_##K] = exec_##name,
        FOREACH_ACTION_KIND(ACTION_EXEC)
#undef ACTION_EXEC
};

int execute_plan(const Plan *pl, const Policy *p, const HostState *h, const ExecuteOptions *o, PlanResult *ret) {
        _cleanup_free_ ActionResult *results = calloc(pl->n_actions + 1, sizeof(ActionResult));
        Exec e = {
                .o = o,
                .root = o->root,
                .p = p,
                .h = h,
                .pl = pl,
                .results = results,
                .reverting = pl->revert,
        };
        bool failed = false;
        int r;

        if (!results)
                return -ENOMEM;
        /* The state probe() read (under the lock, so nobody changed it since), not a second reading:
         * the plan was made from this one. */
        r = nodeswap_state_copy(&h->state, &e.state);
        if (r < 0)
                return r;
        /* A recorded swap file that is gone (deleted by hand, or never created by a run that was
         * stopped) is simply forgotten, unless this plan creates it again. */
        bool forgot = false;
        for (size_t i = 0; i < h->n_recorded_files; i++) {
                const char *path = h->recorded_files[i].path;
                bool created = false;
                for (size_t j = 0; j < pl->n_actions; j++)
                        created = created || (pl->actions[j].kind == ACTION_FILE_CREATE &&
                                              streq_ptr(pl->actions[j].target, path));
                if (!h->recorded_files[i].exists && !created && state_remove_swap_file(&e.state, path) == 0)
                        forgot = true;
        }
        /* The same for a recorded writeback file, unless this plan makes a zram device on it. */
        for (size_t i = 0; i < h->n_recorded_wb_files; i++) {
                const char *path = h->recorded_wb_files[i].path;
                bool created = false;
                for (size_t j = 0; j < pl->n_actions; j++)
                        created = created || (pl->actions[j].kind == ACTION_ZRAM_CREATE &&
                                              streq_ptr(p->zram.writeback, path));
                if (!h->recorded_wb_files[i].exists && !created && state_remove_writeback_file(&e.state, path) == 0)
                        forgot = true;
        }

        for (size_t i = 0; i < pl->n_actions; i++) {
                /* An action carried out with an earlier one (masks go to systemd in one call) is
                 * done already; it is still a step of its own for fault injection. */
                r = e.results[i].status == ACTION_STATUS_PENDING ? action_exec[pl->actions[i].kind](&e, i) : 0;
                /* The test build's fault injection (execute/fault.h): nothing in a release build. */
                fault_step(action_kind_to_string(pl->actions[i].kind));
                if (r < 0) {
                        failed = true;
                        break;
                }
        }
        if (!failed && e.reverting) {
                /* Back to before nodeswap: the next apply saves the values anew. */
                e.state.saved_swappiness = -1;
                e.state.saved_page_cluster = -1;
                e.state.saved_min_free_kbytes = -1;
                e.state.saved_watermark_scale_factor = -1;
                e.state.set_min_free_kbytes = -1;
        }
        /* Every zswap value put back, or left to the kernel command line (never written): the
         * next apply with zswap saves them anew. */
        if (!failed && (e.reverting || (p->backend_set && !(p->backends & BACKEND_ZSWAP))))
                for (size_t z = 0; z < _ZSWAP_PARAM_MAX; z++)
                        state_forget_zswap(&e.state, z);
        /* A run that changed nothing (every action failed, was skipped or not done) leaves the
         * state file as it was, or absent; a revert with actions is recorded even when none was
         * done (its mark-reverted may be the one that failed), one without any writes nothing. */
        bool any_done = false;
        for (size_t i = 0; i < pl->n_actions; i++)
                any_done = any_done || e.results[i].status == ACTION_STATUS_DONE;
        if (any_done || (e.reverting && pl->n_actions > 0) || forgot) {
                e.state.last_run_usec = now_realtime_usec();
                e.state.last_run_revert = e.reverting;
                e.state.last_run_failed = failed;
                save_state(&e);
        }

        nodeswap_state_done(&e.state);
        free(e.zram_algorithm);
        if (e.bus)
                sym_sd_bus_flush_close_unref(e.bus);
        *ret = (PlanResult) {
                .actions = TAKE_PTR(results),
                .n_actions = pl->n_actions,
                .revert = e.reverting,
                .state_error = e.state_error,
        };
        return 0;
}
