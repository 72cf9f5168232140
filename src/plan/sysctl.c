/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sysctls' part of the plan: vm.swappiness and vm.page-cluster, the policy's on apply and the
 * values from before nodeswap on revert. */
#include "plan/sysctl.h"

#include "plan/context.h"
#include "shared/string-table.h"

static const char *const plan_sysctl_table[_PLAN_SYSCTL_MAX] = {
        [PLAN_SYSCTL_SWAPPINESS] = "vm.swappiness",
        [PLAN_SYSCTL_PAGE_CLUSTER] = "vm.page-cluster",
};

DEFINE_PRIVATE_STRING_TABLE_TO_STRING(plan_sysctl, PlanSysctl, plan_sysctl_table);

static int plan_sysctl(PlanContext *c, PlanSysctl name, int now, int want) {
        if (want < 0 || now == want)
                return 0;
        char n[16], w[16];
        snprintf(n, sizeof n, "%d", now);
        snprintf(w, sizeof w, "%d", want);
        Action *a = plan_add(c->plan, ACTION_SYSCTL, plan_sysctl_to_string(name), now >= 0 ? n : NULL, w,
                             c->o->revert ? "restoring the value from before nodeswap" : "policy [Sysctl]");
        if (!a)
                return -ENOMEM;
        a->sysctl = (ActionSysctl) { .name = name, .value = want };
        return 0;
}

int plan_sysctls(PlanContext *c) {
        const HostState *h = c->h;
        bool revert = c->o->revert;
        int r = plan_sysctl(c, PLAN_SYSCTL_SWAPPINESS, h->swappiness,
                            revert ? h->state.saved_swappiness : c->p->swappiness);
        if (r >= 0)
                r = plan_sysctl(c, PLAN_SYSCTL_PAGE_CLUSTER, h->page_cluster,
                                revert ? h->state.saved_page_cluster : c->p->page_cluster);
        return r;
}
