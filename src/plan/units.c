/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The units' part of the plan: the [Conflicts] units masked and stopped (apply) or unmasked and
 * started again (revert), and nodeswap-writeback.timer. */
#include "plan/units.h"

#include "plan/context.h"

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

int plan_masks(PlanContext *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;

        if (c->o->revert) {
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
int plan_stop_services(PlanContext *c) {
        const HostState *h = c->h;
        if (c->o->revert || !c->p->backend_set || !h->systemd_booted)
                return 0;
        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                if (u->active != 1 || unit_is_swap(u->name) || endswith(u->name, ".timer") ||
                    plan_find_action(c->plan, ACTION_STOP_UNIT, u->name) >= 0)
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

/* nodeswap-writeback.timer, which the generator pulls into timers.target at boot when the policy
 * asks for a writeback schedule (policy_wants_writeback_timer()): apply starts it when it is not
 * active, so a policy applied without a reboot gets its schedule, and stops it when the policy no
 * longer asks for one; revert stops it. Only what systemd reported is acted on (unknown: nothing).
 * Not with --boot: nodeswap.service runs before sysinit.target and timers.target, so a start job
 * of the timer would wait for nodeswap.service itself; at boot the generator's link starts it. */
int plan_writeback_timer(PlanContext *c, bool start) {
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
        Action *a = NULL;
        if (want && h->writeback_timer_active == 0) {
                a = plan_add(c->plan, ACTION_START_UNIT, NODESWAP_WRITEBACK_TIMER, "inactive", "active",
                             "the policy asks for writeback or recompression on a schedule ([Zram] WritebackInterval=)");
                if (!a)
                        return -ENOMEM;
                a->start_unit.unit = ACTION_UNIT_WRITEBACK_TIMER;
        }
        if (!want && h->writeback_timer_active == 1) {
                a = plan_add(c->plan, ACTION_STOP_UNIT, NODESWAP_WRITEBACK_TIMER, "active", "stopped",
                             c->o->revert ? "nodeswap revert" : "the policy asks for no writeback schedule");
                if (!a)
                        return -ENOMEM;
                a->stop_unit.unit = ACTION_UNIT_WRITEBACK_TIMER;
        }
        return 0;
}
