/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sysctls' part of the plan: vm.swappiness, vm.page-cluster, vm.min_free_kbytes and
 * vm.watermark_scale_factor, the policy's on apply and the values from before nodeswap on revert. */
#include "plan/sysctl.h"

#include "plan/context.h"
#include "plan/reclaim.h"
#include "shared/string-table.h"

static const char *const plan_sysctl_table[_PLAN_SYSCTL_MAX] = {
        [PLAN_SYSCTL_SWAPPINESS] = "vm.swappiness",
        [PLAN_SYSCTL_PAGE_CLUSTER] = "vm.page-cluster",
        [PLAN_SYSCTL_MIN_FREE_KBYTES] = "vm.min_free_kbytes",
        [PLAN_SYSCTL_WATERMARK_SCALE_FACTOR] = "vm.watermark_scale_factor",
};

DEFINE_PRIVATE_STRING_TABLE_TO_STRING(plan_sysctl, PlanSysctl, plan_sysctl_table);

static int plan_sysctl(PlanContext *c, PlanSysctl name, int now, int want, const char *reason) {
        if (want < 0 || now == want)
                return 0;
        char n[16], w[16];
        snprintf(n, sizeof n, "%d", now);
        snprintf(w, sizeof w, "%d", want);
        Action *a = plan_add(c->plan, ACTION_SYSCTL, plan_sysctl_to_string(name), now >= 0 ? n : NULL, w,
                             reason ?: c->o->revert ? "restoring the value from before nodeswap" : "policy [Sysctl]");
        if (!a)
                return -ENOMEM;
        a->sysctl = (ActionSysctl) { .name = name, .value = want };
        return 0;
}

/* vm.min_free_kbytes is not what apply last wrote: khugepaged raises it to its recommendation when
 * transparent huge pages are enabled or memory is hot-added (mm/khugepaged.c,
 * set_recommended_min_free_kbytes(): only upwards, at most 5 % of low memory), the kernel
 * recomputes its own default on memory hot-plug when that is higher (mm/page_alloc.c,
 * calculate_min_free_kbytes()), or an operator wrote it. A higher value stays (the rule never
 * lowers it), a lower one is written again by the plan. */
static int find_min_free_rewritten(PlanContext *c) {
        const HostState *h = c->h;
        int set = h->state.set_min_free_kbytes, now = h->min_free_kbytes;
        if (set < 0 || now < 0 || now == set)
                return 0;
        return plan_find(c->plan, VERDICT_MIN_FREE_REWRITTEN, c->p, POLICY_KEY_SYSCTL_MIN_FREE_KBYTES, NULL,
                         now > set ? strdup("nothing to do: a higher value keeps more headroom; write "
                                            "[Sysctl] MinFreeKbytes= to pin a value")
                                   : strdup("nodeswap apply sets it again when [Sysctl] MinFreeKbytes= or its "
                                            "rule asks for more"),
                         "vm.min_free_kbytes is %d, nodeswap set %d: %s", now, set,
                         now > set && h->thp_enabled > 0
                         ? "khugepaged raises it when transparent huge pages are enabled (mm/khugepaged.c, "
                           "set_recommended_min_free_kbytes())"
                         : now > set ? "raised since (the kernel on memory hot-plug, or an operator)"
                                     : "lowered since (an operator, or another tool)");
}

static int plan_reclaim(PlanContext *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        const NodeswapState *s = &h->state;
        bool pods_swap = p->swap_behavior == SWAP_BEHAVIOR_LIMITED_SWAP && c->plan->swap_total_after > 0;
        ReclaimRule rule = {};
        _cleanup_free_ char *why_min = NULL, *why_wsf = NULL;
        int r = find_min_free_rewritten(c);
        if (r < 0)
                return r;

        if (pods_swap && (p->min_free_kbytes == SYSCTL_AUTO || p->watermark_scale_factor == SYSCTL_AUTO)) {
                uint64_t threshold = memory_available_after(p, h);
                reclaim_rule(h, p->backends, threshold,
                             p->min_free_kbytes == SYSCTL_AUTO ? -1
                             : p->min_free_kbytes >= 0 ? p->min_free_kbytes : h->min_free_kbytes, &rule);
                why_min = strdup_printf("[Sysctl] MinFreeKbytes=auto, pods get swap: 1/16 of RAM up to 1 GiB, "
                                        "at most half the kubelet's memory.available threshold (%s) and 10%% "
                                        "of RAM", threshold ? B(threshold) : "none");
                why_wsf = strdup_printf("[Sysctl] WatermarkScaleFactor=auto, pods get swap: %d with %s%s",
                                        rule.wsf_base, p->backends & BACKEND_FILE ? "a swap file" : "zram alone",
                                        rule.wsf_capped ? ", the kernel's bound: the low watermarks stay below the "
                                                          "threshold"
                                        : rule.watermark_scale_factor > rule.wsf_base
                                        ? ", raised until the low watermarks lie above the threshold" : "");
                if (!why_min || !why_wsf)
                        return -ENOMEM;
        }

        struct {
                PlanSysctl name;
                int policy, now, saved, rule;
                const char *why;
        } k[] = {
                { PLAN_SYSCTL_MIN_FREE_KBYTES, p->min_free_kbytes, h->min_free_kbytes, s->saved_min_free_kbytes,
                  rule.min_free_kbytes, why_min },
                { PLAN_SYSCTL_WATERMARK_SCALE_FACTOR, p->watermark_scale_factor, h->watermark_scale_factor,
                  s->saved_watermark_scale_factor, rule.watermark_scale_factor, why_wsf },
        };
        for (size_t i = 0; i < ELEMENTSOF(k); i++) {
                if (k[i].policy >= 0)
                        r = plan_sysctl(c, k[i].name, k[i].now, k[i].policy, NULL);
                else if (k[i].policy != SYSCTL_AUTO || k[i].now < 0)
                        r = 0;
                else if (pods_swap)
                        r = k[i].now < k[i].rule ? plan_sysctl(c, k[i].name, k[i].now, k[i].rule, k[i].why) : 0;
                else
                        r = plan_sysctl(c, k[i].name, k[i].now, k[i].saved,
                                        "[Sysctl] auto, pods get no swap: the value from before nodeswap");
                if (r < 0)
                        return r;
        }
        return 0;
}

uint64_t plan_sysctls_revert_room(const PlanContext *c) {
        const HostState *h = c->h;
        const NodeswapState *s = &h->state;
        if (!c->o->revert || h->min_free_kbytes < 0 || h->watermark_scale_factor < 0)
                return 0;
        int min_after = s->saved_min_free_kbytes >= 0 ? s->saved_min_free_kbytes : h->min_free_kbytes;
        int wsf_after = s->saved_watermark_scale_factor >= 0 ? s->saved_watermark_scale_factor
                                                             : h->watermark_scale_factor;
        Watermarks now, after;
        watermarks_compute(h->zones, h->n_zones, h->page_size, h->mem_total, h->min_free_kbytes,
                           h->watermark_scale_factor, &now);
        watermarks_compute(h->zones, h->n_zones, h->page_size, h->mem_total, min_after, wsf_after, &after);
        return now.high > after.high ? now.high - after.high : 0;
}

int plan_sysctls(PlanContext *c) {
        const HostState *h = c->h;
        const NodeswapState *s = &h->state;
        if (c->o->revert) {
                int r = plan_sysctl(c, PLAN_SYSCTL_SWAPPINESS, h->swappiness, s->saved_swappiness, NULL);
                if (r >= 0)
                        r = plan_sysctl(c, PLAN_SYSCTL_PAGE_CLUSTER, h->page_cluster, s->saved_page_cluster, NULL);
                if (r >= 0)
                        r = plan_sysctl(c, PLAN_SYSCTL_MIN_FREE_KBYTES, h->min_free_kbytes, s->saved_min_free_kbytes,
                                        NULL);
                if (r >= 0)
                        r = plan_sysctl(c, PLAN_SYSCTL_WATERMARK_SCALE_FACTOR, h->watermark_scale_factor,
                                        s->saved_watermark_scale_factor, NULL);
                return r;
        }
        int r = plan_sysctl(c, PLAN_SYSCTL_SWAPPINESS, h->swappiness, c->p->swappiness, NULL);
        if (r >= 0)
                r = plan_sysctl(c, PLAN_SYSCTL_PAGE_CLUSTER, h->page_cluster, c->p->page_cluster, NULL);
        if (r >= 0)
                r = plan_reclaim(c);
        return r;
}
