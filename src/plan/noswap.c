/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The system daemons' part of the plan: the kubelet's unit (and NoSwapUnits='s other units) out of
 * swap while pods swap (probe/noswap.h has the facts from systemd's source).
 *
 * The way back. Two ways were possible: SetUnitProperties again with the value the unit had before
 * (kept in nodeswap's state), or removing the control drop-in nodeswap's SetUnitProperties wrote and
 * reloading systemd. nodeswap does the second: the first leaves a 50-MemorySwapMax.conf behind for
 * ever (with the old value in it, above every unit file, so a MemorySwapMax= the operator writes
 * into the unit later would silently lose against it) and restores a value that may no longer be
 * what the unit's files say. After a daemon-reload systemd re-reads the unit's files and applies
 * their cgroup settings to the running unit again (src/core/unit-serialize.c,
 * unit_deserialize_state(): "everything that is deserialized also gets any potential new cgroup
 * settings applied", the cgroup is invalidated and realized anew), so the cgroup gets back what
 * the operator configured, or systemd's default "max". The reload also runs the generator again,
 * which then writes no drop-in for the unit. Only the control drop-in nodeswap recorded
 * (no_swap_unit=) is removed: one an operator made with "systemctl set-property --runtime" is
 * theirs, and so is any MemorySwapMax= in the unit's own files, which nodeswap never overrides. */
#include "plan/noswap.h"

#include <inttypes.h>

/* A unit systemd reports not-found is left out: SetUnitProperties refuses it (src/core/dbus-manager.c,
 * method_set_unit_properties(): GENERIC_UNIT_LOAD|GENERIC_UNIT_VALIDATE_LOADED, "only change
 * properties on fully loaded units"), and a unit that is not there runs nothing. */
bool no_swap_wanted(const Policy *p, const PlanOptions *o, const NoSwapUnit *u) {
        return !o->revert && u->listed && policy_wants_no_swap_units(p) && !u->operator_where && u->loaded != 0;
}

static char *value_words(uint64_t v) {
        if (v == NO_SWAP_MAX)
                return strdup("max");
        return strdup_printf("%" PRIu64, v);
}

char *no_swap_now(const NoSwapUnit *u) {
        _cleanup_free_ char *v = NULL;
        if (u->cgroup_read == 1) {
                v = value_words(u->cgroup_swap_max);
                return v ? strdup_printf("memory.swap.max %s", v) : NULL;
        }
        if (u->property_known) {
                v = value_words(u->property);
                return v ? strdup_printf("MemorySwapMax=%s, no cgroup", v) : NULL;
        }
        if (u->generator_dropin || (u->recorded && u->control_zero))
                return strdup("MemorySwapMax=0, no cgroup");
        return strdup("no cgroup");
}

int plan_no_swap(PlanContext *c) {
        const HostState *h = c->h;
        for (size_t i = 0; i < h->n_no_swap_units; i++) {
                const NoSwapUnit *u = &h->no_swap_units[i];
                /* nodeswap's setting is in effect: its control drop-in (recorded as nodeswap's) or
                 * the generator's drop-in of this boot. */
                bool ours = (u->recorded && u->control_zero) || u->generator_dropin;
                _cleanup_free_ char *now = no_swap_now(u);
                if (!now)
                        return -ENOMEM;

                if (no_swap_wanted(c->p, c->o, u)) {
                        bool cgroup_ok = u->cgroup_read != 1 || u->cgroup_swap_max == 0;
                        bool property_ok = !u->property_known || u->property == 0;
                        if (u->recorded && ours && cgroup_ok && property_ok)
                                continue;
                        Action *a = plan_add(c->plan, ACTION_UNIT_SWAP_MAX, u->name, now, "MemorySwapMax=0",
                                             u->kubelet ? "[Kubelet] NoSwapUnits=: the kubelet and its runtime stay "
                                                          "out of swap while pods swap (KEP-2400)"
                                                        : "[Kubelet] NoSwapUnits=: a system unit stays out of swap "
                                                          "while pods swap (KEP-2400)");
                        if (!a)
                                return -ENOMEM;
                        continue;
                }
                /* Not (or no longer) wanted: take away what is nodeswap's, nothing else. */
                if (!u->recorded && !u->generator_dropin)
                        continue;
                _cleanup_free_ char *want = u->operator_where
                                                    ? strdup_printf("MemorySwapMax=%s of %s", u->operator_value,
                                                                    u->operator_where)
                                                    : strdup("MemorySwapMax as its unit files say (max)");
                if (!want)
                        return -ENOMEM;
                Action *a = plan_add(c->plan, ACTION_UNIT_SWAP_MAX, u->name, now, want,
                                     c->o->revert ? "nodeswap revert"
                                     : u->operator_where ? "the unit's own MemorySwapMax= is honoured"
                                     : !policy_wants_no_swap_units(c->p) ? "the policy gives pods no swap"
                                                                         : "no longer in [Kubelet] NoSwapUnits=");
                if (!a)
                        return -ENOMEM;
                a->unit_swap_max.restore = true;
                a->unit_swap_max.remove_control = u->recorded && u->control_dropin;
        }
        return 0;
}
