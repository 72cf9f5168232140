/* SPDX-License-Identifier: GPL-2.0-or-later */
/* execute: the one place that writes. Each action is carried out in plan order; a failure stops
 * the run before anything is swapped off, so a node always keeps working swap (make before
 * break), and a rerun converges because plan() starts again from what the host shows. */
#include "execute/execute.h"

#include <signal.h>
#include <time.h>

#include "plan/kubelet.h"
#include "report/log.h"
#include "report/report.h"
#include "shared/sd-dl.h"
#include "probe/state.h"
#include "probe/swap.h"
#include "probe/swapfile.h"
#include "probe/systemd.h"
#include "probe/zram.h"
#include "execute/zram-writeback.h"
#include "plan/zram-knobs.h"

typedef enum Result {
        RESULT_PENDING,
        RESULT_DONE,
        RESULT_SKIPPED,         /* not needed after all, or not possible under --root */
        RESULT_NOT_DONE,        /* could not be done, apply goes on (systemd unreachable) */
        RESULT_FAILED,
} Result;

static const char *const result_names[] = {
        [RESULT_PENDING] = "pending", [RESULT_DONE] = "done",     [RESULT_SKIPPED] = "skipped",
        [RESULT_NOT_DONE] = "not-done", [RESULT_FAILED] = "failed",
};

typedef struct Exec {
        const CliContext *c;
        const Policy *p;
        const HostState *h;
        const Plan *pl;
        Result *results;
        char **messages;        /* per action, may be NULL */
        NodeswapState state;
        sd_bus *bus;
        int bus_error;          /* 0 not tried, < 0 unreachable, 1 open */
        bool reverting;
} Exec;

static uint64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* The node's swap changed just now. Stamped when it happens, not at the end of the run: the
 * kubelet restart comes later in the same run, and "stale" means the kubelet started before the
 * last change. */
static void swap_changed(Exec *e) {
        e->state.swap_changed_usec = now_usec();
}

static void say(Exec *e, size_t i) {
        /* -q: only what failed */
        if (e->c->json || (e->c->verbosity < 0 && e->results[i] != RESULT_FAILED))
                return;
        log_action(&e->pl->actions[i], result_names[e->results[i]], e->messages[i]);
}

static void set_result(Exec *e, size_t i, Result r, char *message) {
        e->results[i] = r;
        free(e->messages[i]);
        e->messages[i] = message;
        say(e, i);
}

static int save_state(Exec *e) {
        int r = state_save(e->c->root, &e->state);
        if (r < 0)
                fprintf(stderr, "Failed to save nodeswap's state below '%s': %s\n", e->c->root, strerror(-r));
        return r;
}

/* For the zram ids only, which live in /run/nodeswap-state/state: no fsync'ed persistent write. */
static int save_runtime_state(Exec *e) {
        int r = state_save_runtime(e->c->root, &e->state);
        if (r < 0)
                fprintf(stderr, "Failed to save nodeswap's state below '%s': %s\n", e->c->root, strerror(-r));
        return r;
}

/* systemd: opened on first use. Returns the bus or NULL with a reason in *why. */
static sd_bus *bus_get(Exec *e, char **why) {
        if (e->bus_error == 0) {
                int r = systemd_open(e->c->root, &e->bus);
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
                set_result(e, i, RESULT_NOT_DONE, why);
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
                if (e->pl->actions[i].kind == kind && e->results[i] == RESULT_PENDING)
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
                if (e->pl->actions[i].kind == kind && e->results[i] == RESULT_PENDING)
                        set_result(e, i, why ? RESULT_NOT_DONE : RESULT_DONE, why ? strdup(why) : NULL);
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
                r = swap_off(e->c->root, s->path);
                if (r < 0 && r != -EOPNOTSUPP) {
                        set_result(e, i, RESULT_FAILED,
                                   strdup_printf("Failed to swap off '%s': %s", s->path, strerror(-r)));
                        return r;
                }
                if (r == -EOPNOTSUPP)
                        why = strdup("swapoff skipped under --root");
                else if (s->kind == SWAP_KIND_ZRAM && s->zram_id >= 0) {
                        /* What the distro's own stop (zram-generator --reset-device) would do, lost
                         * to the mask: give the device's memory back, and leave it ready for the
                         * distro's setup when revert starts it again. */
                        r = zram_reset(e->c->root, s->zram_id);
                        if (r < 0)
                                why = strdup_printf("swapped off; resetting %s failed: %s", s->path, strerror(-r));
                }
        } else {
                sd_bus *b = bus_for_action(e, i);
                if (!b)
                        return 0;
                _cleanup_free_ char *result = NULL;
                r = systemd_stop_unit(b, a->target, 90 * 1000000ULL, &result);
                if (r < 0 || !streq_ptr(result, "done")) {
                        set_result(e, i, RESULT_FAILED,
                                   strdup_printf("Failed to stop %s: %s", a->target,
                                                 r < 0 ? strerror(-r) : strempty(result)));
                        return -EIO;
                }
                if (rpi_swap_loop_unit(&e->h->rpi_swap, a->target)) {
                        /* Masked, rpi-setup-loop@ lost its ExecStop= (losetup -d): detach its loop
                         * device on rpi-swap's file as that would have. zram0, its only user, was
                         * reset when it went off. revert starts the unit, which attaches it anew. */
                        r = loop_detach_file(e->c->root, e->h->rpi_swap.path);
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
        set_result(e, i, RESULT_DONE, TAKE_PTR(why));
        return 0;
}

static int do_start_unit(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        sd_bus *b = bus_for_action(e, i);
        if (!b)
                return 0;
        _cleanup_free_ char *result = NULL;
        int r = systemd_start_unit(b, a->target, 90 * 1000000ULL, &result);
        if (r < 0 || !streq_ptr(result, "done")) {
                set_result(e, i, RESULT_FAILED,
                           strdup_printf("Failed to start %s: %s", a->target, r < 0 ? strerror(-r) : strempty(result)));
                return -EIO;
        }
        swap_changed(e);
        set_result(e, i, RESULT_DONE, NULL);
        return 0;
}

static int swap_result(Exec *e, size_t i, int r, const char *what) {
        if (r == -EOPNOTSUPP || r > 0) {
                set_result(e, i, RESULT_DONE, strdup("swapon/swapoff skipped under --root"));
                return 0;
        }
        if (r < 0) {
                set_result(e, i, RESULT_FAILED, strdup_printf("Failed to %s: %s", what, strerror(-r)));
                return r;
        }
        swap_changed(e);
        set_result(e, i, RESULT_DONE, NULL);
        return 0;
}

static int do_zram_create(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        const Policy *p = e->p;
        _cleanup_free_ char *chosen = NULL, *reason = NULL, *params = NULL;
        _cleanup_(zram_backing_done) ZramBacking backing = ZRAM_BACKING_NULL;
        const char *algorithm = a->algorithm;
        int id = -1, r;

        /* The backing device first: the kernel takes backing_dev only before disksize. */
        bool loop_skipped = false;
        if (p->zram.writeback) {
                r = zram_backing_prepare(e->c->root, p->zram.writeback, policy_writeback_is_file(p), a->size,
                                         &backing, &reason);
                loop_skipped = r == -EOPNOTSUPP;
                if (r < 0 && !loop_skipped) {
                        set_result(e, i, RESULT_FAILED,
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
        r = zram_provision_ex(e->c->root, algorithm, p->zram.algorithms, params, &extra, a->mem_limit, a->size,
                              a->priority, e->h->page_size, &id, &chosen);
        if (!algorithm)
                algorithm = chosen;
        if (r < 0) {
                set_result(e, i, RESULT_FAILED,
                           strdup_printf("Failed to set up a zram device (%s): %s", a->want, strerror(-r)));
                return r;
        }
        /* Saved right away (to /run, no fsync): killed before the end of the run, the next run must
         * still know the device is nodeswap's, or it would count it as the distro's swap. */
        state_add_zram_id(&e->state, id);
        save_runtime_state(e);
        swap_changed(e);
        int k = p->zram.writeback ? zram_writeback_started(e->c->root, id, &backing, p->zram.writeback_limit) : 0;
        set_result(e, i, k < 0 ? RESULT_FAILED : RESULT_DONE,
                   strdup_printf("/dev/zram%d, %s%s%s%s%s%s", id, algorithm, backing.dev ? ", backing_dev " : "",
                                 strempty(backing.dev), loop_skipped ? ", loop device skipped under --root" : "",
                                 r > 0 ? ", swapon skipped under --root" : "",
                                 k < 0 ? ", but its writeback limit or record could not be written" : ""));
        return k < 0 ? k : 0;
}

static int do_file_create(Exec *e, size_t i) {
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
        int discard = swap_discard_flags(e->p->file.discard);
        if (a->now)     /* an active file is replaced: make before break */
                r = swapfile_resize_flags(e->c->root, a->target, a->size, e->h->page_size, a->priority, discard,
                                          e->p->file.storage, &reason);
        else
                r = swapfile_create_flags(e->c->root, a->target, a->size, e->h->page_size, a->priority, discard,
                                          e->p->file.storage, &reason);
        if (r < 0) {
                /* swapfile_create() leaves nothing behind on failure, and an -EEXIST file is not
                 * ours: the record made above goes again. */
                if (recorded && !a->now && state_remove_swap_file(&e->state, a->target) == 0)
                        (void) save_state(e);
                set_result(e, i, RESULT_FAILED,
                           strdup_printf("Failed to create swap file '%s': %s", a->target,
                                         reason ?: strerror(-r)));
                return r;
        }
        swap_changed(e);
        set_result(e, i, RESULT_DONE, r > 0 ? strdup("swapon skipped under --root") : NULL);
        return 0;
}

static int do_sysctl(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        bool swappiness = streq(a->target, "vm.swappiness");
        int *saved = swappiness ? &e->state.saved_swappiness : &e->state.saved_page_cluster;
        int now = swappiness ? e->h->swappiness : e->h->page_cluster;

        /* Keep the value from before nodeswap's first change, for revert. This save must come
         * before the write: killed right after it, the next run would see the new value only and
         * revert could never restore the old one. The other sysctl this run changes later is
         * recorded in the same save (its value is still the old one now), so a run that sets both
         * does one fsync'ed save instead of two. */
        if (!e->reverting && *saved < 0 && now >= 0) {
                *saved = now;
                for (size_t j = i + 1; j < e->pl->n_actions; j++) {
                        const Action *b = &e->pl->actions[j];
                        if (b->kind != ACTION_SYSCTL || e->results[j] != RESULT_PENDING || streq(b->target, a->target))
                                continue;
                        bool other_swappiness = streq(b->target, "vm.swappiness");
                        int *other = other_swappiness ? &e->state.saved_swappiness : &e->state.saved_page_cluster;
                        int other_now = other_swappiness ? e->h->swappiness : e->h->page_cluster;
                        if (*other < 0 && other_now >= 0)
                                *other = other_now;
                }
                int r = save_state(e);
                if (r < 0) {
                        set_result(e, i, RESULT_FAILED, strdup("the old value could not be saved"));
                        return r;
                }
        }
        _cleanup_free_ char *path =
                path_join_root(e->c->root, swappiness ? "/proc/sys/vm/swappiness" : "/proc/sys/vm/page-cluster");
        char v[16];
        snprintf(v, sizeof v, "%d", a->value);
        int r = path ? write_string_file(path, v) : -ENOMEM;
        if (r < 0) {
                set_result(e, i, RESULT_FAILED,
                           strdup_printf("Failed to write '%s' to '%s': %s", v, strempty(path), strerror(-r)));
                return r;
        }
        set_result(e, i, RESULT_DONE, NULL);
        return 0;
}

/* Restart the unit and make sure it stays up: a Type=simple service whose job is "done" can still
 * fail a moment later (the kubelet rejecting its configuration), so watch it for a while. */
#define RESTART_TIMEOUT_USEC (5 * 60 * 1000000ULL)
#define RESTART_SETTLE_USEC (3 * 1000000ULL)
static int systemd_restart_and_verify(sd_bus *b, const char *unit, char **ret_state) {
        _cleanup_free_ char *result = NULL;
        int r = systemd_restart_unit(b, unit, RESTART_TIMEOUT_USEC, &result);
        if (r < 0) {
                *ret_state = strdup_printf("restart failed: %s", strerror(-r));
                return r;
        }
        if (!streq_ptr(result, "done")) {
                *ret_state = strdup_printf("restart job %s", strempty(result));
                return -EIO;
        }
        for (uint64_t waited = 0;; waited += 100000) {
                _cleanup_free_ char *state = NULL;
                r = systemd_unit_active(b, unit, &state);
                if (r < 0) {
                        *ret_state = strdup_printf("state unknown: %s", strerror(-r));
                        return r;
                }
                if (!streq(state, "active") && !streq(state, "activating") && !streq(state, "reloading")) {
                        *ret_state = strdup_printf("%s after the restart", state);
                        return -EIO;
                }
                if (waited >= RESTART_SETTLE_USEC && streq(state, "active"))
                        break;
                if (waited >= RESTART_TIMEOUT_USEC) {
                        *ret_state = strdup_printf("still %s", state);
                        return -ETIMEDOUT;
                }
                usleep(100000);
        }
        *ret_state = strdup("active");
        return 0;
}

/* Restart the kubelet; if it does not come back, put the previous drop-in back and restart again. */
static int do_restart(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        sd_bus *b = bus_for_action(e, i);
        if (!b)
                return 0;
        _cleanup_free_ char *state = NULL;
        int r = systemd_unit_active(b, a->target, &state);
        if (r < 0 || !streq_ptr(state, "active")) {
                set_result(e, i, RESULT_SKIPPED,
                           strdup_printf("%s is %s: it reads the change when it starts", a->target,
                                         state ?: "not loaded"));
                return 0;
        }
        _cleanup_free_ char *result = NULL;
        r = systemd_restart_and_verify(b, a->target, &result);
        if (r >= 0) {
                set_result(e, i, RESULT_DONE, NULL);
                return 0;
        }

        /* Roll back the drop-in to what it was before this run. */
        const char *dropin = e->p->dropin;
        int k = e->h->dropin ? kubelet_write_dropin(e->c->root, dropin, e->h->dropin)
                             : kubelet_remove_dropin(e->c->root, dropin);
        _cleanup_free_ char *again = NULL;
        int k2 = systemd_restart_and_verify(b, a->target, &again);
        set_result(e, i, RESULT_FAILED,
                   strdup_printf("%s did not come back after the restart (%s); %s; restarted again: %s", a->target,
                                 strempty(result),
                                 k < 0 ? "the previous drop-in could NOT be restored" : "the previous drop-in was restored",
                                 k2 >= 0 ? "active" : strempty(again)));
        return -EIO;
}

static int do_action(Exec *e, size_t i) {
        const Action *a = &e->pl->actions[i];
        const char *root = e->c->root;
        int r;

        switch (a->kind) {
        case ACTION_MASK_UNIT:
        case ACTION_UNMASK_UNIT:
                do_mask_group(e, a->kind);
                return 0;
        case ACTION_STOP_UNIT:
                return do_stop_unit(e, i);
        case ACTION_START_UNIT:
                r = do_start_unit(e, i);
                if (r >= 0) {
                        strv_free(e->state.stopped_units);
                        e->state.stopped_units = NULL;
                }
                return r;
        case ACTION_ZRAM_CREATE:
                return do_zram_create(e, i);
        case ACTION_FILE_CREATE:
                return do_file_create(e, i);
        case ACTION_FILE_MKSWAP:
                r = swapfile_rewrite_header(root, a->target, e->h->page_size);
                if (r < 0) {
                        set_result(e, i, RESULT_FAILED,
                                   strdup_printf("Failed to rewrite the header of '%s': %s", a->target, strerror(-r)));
                        return r;
                }
                set_result(e, i, RESULT_DONE, NULL);
                return 0;
        case ACTION_SWAPON:
                return swap_result(e, i,
                                   swap_on_flags(root, a->target, a->priority,
                                                 a->zram_id < 0 && streq_ptr(a->target, e->p->file.path)
                                                         ? swap_discard_flags(e->p->file.discard) : 0),
                                   "swapon");
        case ACTION_SWAPOFF:
                return swap_result(e, i, swap_off(root, a->target), "swapoff");
        case ACTION_ZRAM_REMOVE:
                r = zram_teardown(root, a->zram_id);
                if (r < 0 && r != -EOPNOTSUPP) {
                        set_result(e, i, RESULT_FAILED,
                                   strdup_printf("Failed to remove /dev/zram%d: %s", a->zram_id, strerror(-r)));
                        return r;
                }
                /* Right away too: a stale id would make a device someone else adds later "ours". */
                state_remove_zram_id(&e->state, a->zram_id);
                save_runtime_state(e);
                /* Its loop device, if nodeswap attached one for writeback, goes with it. */
                (void) zram_writeback_forget(root, a->zram_id);
                set_result(e, i, RESULT_DONE, NULL);
                return 0;
        case ACTION_FILE_REMOVE:
                /* A file only the state names as nodeswap's (an earlier Path=) must still carry
                 * nodeswap's label when it is deleted, as plan() saw it. */
                r = streq_ptr(a->target, e->p->file.path) ? swapfile_remove(root, a->target)
                                                          : swapfile_remove_labelled(root, a->target);
                if (r < 0 && r != -EOPNOTSUPP) {
                        set_result(e, i, RESULT_FAILED,
                                   strdup_printf("Failed to remove '%s': %s", a->target, strerror(-r)));
                        return r;
                }
                if (state_remove_swap_file(&e->state, a->target) == 0)
                        (void) save_state(e);
                set_result(e, i, RESULT_DONE, NULL);
                return 0;
        case ACTION_SYSCTL:
                return do_sysctl(e, i);
        case ACTION_DROPIN_WRITE:
                r = kubelet_write_dropin(root, a->target, a->content);
                if (r < 0) {
                        set_result(e, i, RESULT_FAILED,
                                   strdup_printf("Failed to write '%s': %s", a->target, strerror(-r)));
                        return r;
                }
                set_result(e, i, RESULT_DONE, NULL);
                return 0;
        case ACTION_DROPIN_REMOVE:
                r = kubelet_remove_dropin(root, a->target);
                if (r < 0) {
                        set_result(e, i, RESULT_FAILED,
                                   strdup_printf("Failed to remove '%s': %s", a->target, strerror(-r)));
                        return r;
                }
                set_result(e, i, RESULT_DONE, NULL);
                return 0;
        case ACTION_RESTART_UNIT:
                return do_restart(e, i);
        case ACTION_MARK_REVERTED:
        case ACTION_CLEAR_REVERTED: {
                e->state.reverted = a->kind == ACTION_MARK_REVERTED;
                r = save_state(e);
                if (r < 0) {
                        set_result(e, i, RESULT_FAILED, NULL);
                        return r;
                }
                /* After a reboot the masks are the generator's (in /run/systemd/generator.early),
                 * not runtime ones: a reload runs the generator again, which now sees the revert
                 * and masks nothing, so the distro's units can be started. */
                char *why = NULL;
                sd_bus *b = a->kind == ACTION_MARK_REVERTED ? bus_get(e, &why) : NULL;
                if (b && (r = systemd_reload(b)) < 0)
                        why = strdup_printf("Failed to reload systemd: %s", strerror(-r));
                set_result(e, i, RESULT_DONE, why);
                return 0;
        }
        default:
                set_result(e, i, RESULT_FAILED, strdup("unknown action"));
                return -EINVAL;
        }
}

int execute_plan(const CliContext *c, const Policy *p, const HostState *h, const Plan *pl) {
        Exec e = {
                .c = c,
                .p = p,
                .h = h,
                .pl = pl,
                .results = calloc(pl->n_actions + 1, sizeof(Result)),
                .messages = calloc(pl->n_actions + 1, sizeof(char *)),
        };
        int ret = EXIT_OK, r;

        if (!e.results || !e.messages) {
                fprintf(stderr, "Out of memory.\n");
                free(e.results);
                free(e.messages);
                return EXIT_FAIL;
        }
        for (size_t i = 0; i < pl->n_actions; i++)
                if (pl->actions[i].kind == ACTION_MARK_REVERTED || pl->actions[i].kind == ACTION_DROPIN_REMOVE)
                        e.reverting = true;
        r = state_load(c->root, &e.state);
        if (r < 0) {
                fprintf(stderr, "Failed to read nodeswap's state below '%s': %s\n", c->root, strerror(-r));
                ret = EXIT_FAIL;
                goto finish;
        }
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
        if (!c->json && c->verbosity >= 0 && pl->n_actions == 0)
                printf("Nothing to do: the node matches the policy.\n");

        /* Fault-injection hook for the robustness tests: die by SIGKILL right after action N (1-based)
         * has run, the way a power cut or the OOM killer would stop apply. */
        const char *kill_after = getenv("NODESWAP_TEST_KILL_AFTER");
        int kill_n = -1;
        if (kill_after && safe_atoi(kill_after, &kill_n) < 0)
                kill_n = -1;

        for (size_t i = 0; i < pl->n_actions; i++) {
                if (e.results[i] != RESULT_PENDING)
                        continue;
                r = do_action(&e, i);
                if (kill_n >= 0 && (size_t) kill_n == i + 1) {
                        fflush(NULL);
                        raise(SIGKILL);
                }
                if (r < 0) {
                        ret = EXIT_FAIL;
                        break;
                }
        }
        if (ret == EXIT_OK && e.reverting) {
                /* Back to before nodeswap: the next apply saves the values anew. */
                e.state.saved_swappiness = -1;
                e.state.saved_page_cluster = -1;
        }
        /* A run that changed nothing (every action failed, was skipped or not done) leaves the
         * state file as it was, or absent. */
        bool any_done = false;
        for (size_t i = 0; i < pl->n_actions; i++)
                any_done = any_done || e.results[i] == RESULT_DONE;
        if (any_done || e.reverting || forgot) {
                e.state.last_run_usec = now_usec();
                e.state.last_run_revert = e.reverting;
                e.state.last_run_failed = ret != EXIT_OK;
                save_state(&e);
        }

        if (!c->json)
                plan_print_findings(stderr, pl, colors_enabled(STDERR_FILENO), c->verbosity > 0);

        /* Under systemd (NotifyAccess=main), the unit's status line says what was applied. */
        if (getenv("NOTIFY_SOCKET")) {
                size_t done = 0, failed = SIZE_MAX;
                for (size_t i = 0; i < pl->n_actions; i++) {
                        done += e.results[i] == RESULT_DONE;
                        if (e.results[i] == RESULT_FAILED && failed == SIZE_MAX)
                                failed = i;
                }
                char now[FORMAT_BYTES_MAX], after[FORMAT_BYTES_MAX];
                format_bytes(now, sizeof now, pl->swap_total_now);
                format_bytes(after, sizeof after, pl->swap_total_after);
                if (failed != SIZE_MAX)
                        (void) sd_dl_notifyf("STATUS=Failed: %s %s: %s",
                                             action_kind_to_string(pl->actions[failed].kind),
                                             strempty(pl->actions[failed].target), strempty(e.messages[failed]));
                else if (pl->n_actions == 0)
                        (void) sd_dl_notifyf("STATUS=Node matches the policy; swap %s", now);
                else
                        (void) sd_dl_notifyf("STATUS=%s: %zu change(s) done; swap %s -> %s",
                                             e.reverting ? "Reverted" : "Applied", done, now, after);
        }

        if (c->json) {
                json_object *o = plan_to_json(pl);
                json_object *arr = json_object_object_get(o, "actions");
                bool changed = false;
                for (size_t i = 0; i < pl->n_actions; i++) {
                        json_object *j = json_object_array_get_idx(arr, i);
                        json_object_object_add(j, "result", json_object_new_string(result_names[e.results[i]]));
                        json_object_object_add(j, "message",
                                               e.messages[i] ? json_object_new_string(e.messages[i]) : NULL);
                        changed = changed || e.results[i] == RESULT_DONE;
                }
                json_object_object_add(o, "changed", json_object_new_boolean(changed));
                json_object_object_add(o, "ok", json_object_new_boolean(ret == EXIT_OK));
                printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
                json_object_put(o);
        }
finish:
        for (size_t i = 0; i < pl->n_actions; i++)
                free(e.messages[i]);
        free(e.messages);
        free(e.results);
        nodeswap_state_done(&e.state);
        if (e.bus)
                sym_sd_bus_flush_close_unref(e.bus);
        return ret;
}
