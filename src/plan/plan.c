/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan(): the decisions. A pure function of (policy, host state, options): it reads nothing and
 * writes nothing, so every decision can be tested against fixture trees. The order of the actions
 * is the order apply executes them in (nodeswap(8), apply: "Carry out the plan, in this order"). */
#include "plan/plan.h"
#include "shared/string-table.h"

#include <stdarg.h>

#include "plan/context.h"
#include "plan/file.h"
#include "plan/kubelet.h"
#include "plan/noswap.h"
#include "plan/iolatency.h"
#include "plan/state.h"
#include "plan/sysctl.h"
#include "plan/units.h"
#include "plan/zram.h"
#include "plan/zswap.h"

static const char *const action_kind_table[_ACTION_KIND_MAX] = {
#define ACTION_KIND_NAME(K, name, string) [ACTION_##K] = string,
        FOREACH_ACTION_KIND(ACTION_KIND_NAME)
#undef ACTION_KIND_NAME
};

DEFINE_STRING_TABLE_TO_STRING(action_kind, ActionKind, action_kind_table);

/* What a kind's payload owns. */
static void action_done(Action *a) {
        free(a->target);
        free(a->now);
        free(a->want);
        free(a->reason);
        switch (a->kind) {
        case ACTION_ZRAM_CREATE:
                free(a->zram_create.algorithm);
                break;
        case ACTION_ZSWAP_SET:
                free(a->zswap_set.value);
                break;
        case ACTION_DROPIN_WRITE:
                free(a->dropin_write.content);
                break;
        case ACTION_FEATURES_WRITE:
                feature_input_done(&a->features_write.in);
                break;
        case ACTION_MASK_UNIT:
        case ACTION_STOP_UNIT:
        case ACTION_FILE_CREATE:
        case ACTION_FILE_MKSWAP:
        case ACTION_SWAPON:
        case ACTION_SWAPOFF:
        case ACTION_ZRAM_REMOVE:
        case ACTION_FILE_REMOVE:
        case ACTION_SYSCTL:
        case ACTION_DROPIN_REMOVE:
        case ACTION_RESTART_UNIT:
        case ACTION_UNMASK_UNIT:
        case ACTION_START_UNIT:
        case ACTION_MARK_REVERTED:
        case ACTION_CLEAR_REVERTED:
        case ACTION_UNIT_SWAP_MAX:
        case ACTION_IO_LATENCY:
        case ACTION_FEATURES_REMOVE:
        case _ACTION_KIND_MAX:
                break;
        }
}

void plan_done(Plan *p) {
        for (size_t i = 0; i < p->n_actions; i++)
                action_done(&p->actions[i]);
        free(p->actions);
        findings_done(&p->findings);
        *p = (Plan) {};
}

Action *plan_add(Plan *p, ActionKind kind, const char *target, const char *now, const char *want,
                 const char *reason) {
        Action *n = realloc(p->actions, sizeof(Action) * (p->n_actions + 1));
        if (!n)
                return NULL;
        p->actions = n;
        Action *a = &p->actions[p->n_actions];
        *a = (Action) { .kind = kind };
        if ((target && !(a->target = strdup(target))) || (now && !(a->now = strdup(now))) ||
            (want && !(a->want = strdup(want))) || (reason && !(a->reason = strdup(reason)))) {
                action_done(a);
                return NULL;
        }
        p->n_actions++;
        return a;
}

int plan_find(Plan *pl, Verdict v, const Policy *p, int key, const char *value, char *hint,
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

int plan_find_action(const Plan *p, ActionKind kind, const char *target) {
        for (size_t i = 0; i < p->n_actions; i++)
                if (p->actions[i].kind == kind && streq_ptr(p->actions[i].target, target))
                        return (int) i;
        return -1;
}

/* Everything on /proc/swaps not kept goes off: make-before-break, with the fit check. */
static int plan_swapoff(PlanContext *c) {
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

        /* On revert the reclaim sysctls are written back before the swapoffs (plan()): the
         * watermarks they lower give their memory back to MemAvailable first. */
        uint64_t restored = plan_sysctls_revert_room(c);
        uint64_t room = h->mem_available + restored + staying_free;
        if (leaving_used > room) {
                uint64_t missing = leaving_used - room;
                _cleanup_free_ char *given = restored ? strdup_printf(" + %s the restored watermarks give back",
                                                                      B(restored))
                                                      : strdup("");
                if (!given)
                        return -ENOMEM;
                if (!c->o->force)
                        return plan_find(plan, VERDICT_SWAPOFF_NO_ROOM, p, -1, NULL,
                                         strdup("free memory (or let the swap drain) and run again, or use --force"),
                                         "swapping off would bring back %s of pages, but only %s fit (MemAvailable %s%s + "
                                         "free swap that stays %s): %s missing; free memory or use --force",
                                         B(leaving_used), B(room), B(h->mem_available), given,
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
                _cleanup_free_ char *now = strdup_printf("on, %s used, priority %d", B(s->used), s->priority);
                if (!now)
                        return -ENOMEM;
                if (s->owner == SWAP_OWNER_CONFLICT && s->unit) {
                        /* Stopping the masked unit swaps it off and keeps systemd's view right. */
                        Action *a = plan_add(c->plan, ACTION_STOP_UNIT, s->unit, now, "stopped",
                                             "its swap conflicts with the policy");
                        if (!a)
                                return -ENOMEM;
                        a->stop_unit.used = s->used;
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
                a->swapoff.used = s->used;
                a->swapoff.encrypted = s->encrypted;
                if (s->kind == SWAP_KIND_ZRAM && s->owner == SWAP_OWNER_NODESWAP) {
                        a = plan_add(c->plan, ACTION_ZRAM_REMOVE, s->path, "initialised", "removed",
                                     "a zram device nodeswap created and no longer uses");
                        if (!a)
                                return -ENOMEM;
                        a->zram_remove.zram_id = s->zram_id;
                }
        }
        return 0;
}

/* The backends, in the order their swap areas come up. Each decides in up to three places of the
 * plan: .areas when the policy's Backend= names it, on apply (what it keeps on and brings up,
 * before anything goes off); .leftovers after the swapoffs (what it made and no longer needs);
 * .finish after the conflict services are stopped (kernel parameters, revert --purge). The hooks
 * after the swapoffs run in the reverse order of the table, as a teardown does. A hook may be
 * NULL; each but .areas decides itself whether it has anything to do on this plan. */
typedef struct PlanBackend {
        unsigned backend;       /* its BACKEND_* bit of [Swap] Backend= */
        int (*areas)(PlanContext *c);
        int (*leftovers)(PlanContext *c);
        int (*finish)(PlanContext *c);
} PlanBackend;

static const PlanBackend plan_backends[] = {
        { BACKEND_ZRAM, plan_zram, plan_zram_leftovers, NULL },
        { BACKEND_FILE, plan_file, plan_recorded_files, plan_file_purge },
        { BACKEND_ZSWAP, NULL, NULL, plan_zswap },
};

int plan(const Policy *policy, const HostState *host, const PlanOptions *opts, Plan *ret) {
        static const PlanOptions no_opts = {};
        Plan plan = { .revert = opts && opts->revert };
        _cleanup_free_ uint8_t *keep = calloc(host->n_swaps + 1, sizeof(uint8_t));
        if (!keep)
                return -ENOMEM;
        PlanContext c = { .p = policy, .h = host, .o = opts ?: &no_opts, .plan = &plan, .keep = keep };
        bool areas = !c.o->revert && policy->backend_set;
        int r;

        for (size_t i = 0; i < host->n_swaps; i++)
                plan.swap_total_now += host->swaps[i].size;

        /* The writeback timer stops before its device goes. */
        r = plan_writeback_timer(&c, false);
        if (r >= 0)
                r = plan_state(&c);
        if (r >= 0)
                r = plan_masks(&c);
        for (size_t i = 0; r >= 0 && i < ELEMENTSOF(plan_backends); i++)
                if (areas && plan_backends[i].areas && (policy->backends & plan_backends[i].backend))
                        r = plan_backends[i].areas(&c);
        /* revert: the reclaim sysctls go back before anything goes off, so that the watermarks
         * WatermarkScaleFactor=auto raised (some 40 % of RAM with a swap file) are memory again when
         * the pages come back (plan_sysctls_revert_room()). */
        if (r >= 0 && c.o->revert)
                r = plan_sysctls(&c);
        if (r >= 0)
                r = plan_swapoff(&c);
        for (size_t i = ELEMENTSOF(plan_backends); r >= 0 && i > 0; i--)
                if (plan_backends[i - 1].leftovers)
                        r = plan_backends[i - 1].leftovers(&c);
        if (r >= 0)
                r = plan_stop_services(&c);
        for (size_t i = ELEMENTSOF(plan_backends); r >= 0 && i > 0; i--)
                if (plan_backends[i - 1].finish)
                        r = plan_backends[i - 1].finish(&c);
        if (r < 0)
                goto fail;

        plan.swap_total_after = c.new_swap;
        for (size_t i = 0; i < host->n_swaps; i++)
                if (keep[i] == KEEP_ON)
                        plan.swap_total_after += host->swaps[i].size;
        /* Creating an area with the same size as the one it replaces does not change the total. */

        /* After the total: the reclaim headroom's rule applies when pods get swap. */
        if (!c.o->revert)
                r = plan_sysctls(&c);
        if (r >= 0)
                r = plan_writeback_timer(&c, true);
        /* Before the kubelet's restart: the kubelet and its runtime are out of swap before pods get any. */
        if (r >= 0)
                r = plan_no_swap(&c);
        if (r >= 0)
                r = plan_io_latency(&c);
        if (r >= 0)
                r = plan_kubelet(&c);
        /* Last: the labels say what the node is after every other step. */
        if (r >= 0)
                r = plan_features(&c);
        if (r < 0)
                goto fail;

        /* LimitedSwap with little or no swap after the plan is the rule limitedswap-little-swap. */

        *ret = plan;
        return 0;
fail:
        plan_done(&plan);
        return r;
}
