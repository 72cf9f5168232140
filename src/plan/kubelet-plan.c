/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kubelet's part of the plan: nodeswap's drop-in, the findings on what the kubelet would run
 * with, and its restart. Apart from plan/kubelet.c (the drop-in's text and the merge around it),
 * so that the kubelet-config fuzz harness links what it exercises without the whole plan. */
#include "plan/kubelet.h"

#include "plan/context.h"

/* The kubelet's hard memory.available threshold under LimitedSwap: written into the drop-in
 * (memory_available, what kubelet_dropin_memory_eviction() decided) when nothing else sets one; a
 * --eviction-hard flag without it is an error, because the flags win over every file. */
static int plan_memory_eviction(PlanContext *c, const KubeletEffective *after, const char *memory_available,
                                char **ret_why) {
        const Policy *p = c->p;
        const HostState *h = c->h;

        *ret_why = NULL;
        if (p->swap_behavior != SWAP_BEHAVIOR_LIMITED_SWAP || !p->memory_eviction)
                return 0;
        if (after->eviction_hard_flag && !after->memory_available) {
                _cleanup_free_ char *src = kubelet_flag_source(after->eviction_hard_flag);
                if (!src)
                        return -ENOMEM;
                return plan_find(c->plan, VERDICT_MEMORY_EVICTION_FLAG, p, POLICY_KEY_KUBELET_MEMORY_EVICTION,
                                 p->memory_eviction,
                                 strdup_printf("add memory.available<%s to --%s in %s (or remove the flag), or set "
                                               "[Kubelet] MemoryEviction=off", p->memory_eviction,
                                               after->eviction_hard_flag->name, after->eviction_hard_flag->file),
                                 "%s sets evictionHard without memory.available: the kubelet applies its flags over "
                                 "every file, so nodeswap's drop-in cannot add the policy's memory.available<%s, and "
                                 "pods that swap have no memory-pressure eviction", src, p->memory_eviction);
        }
        if (!memory_available) {
                /* another file or flag sets it: left alone, and said where it comes from */
                if (!after->memory_available)
                        return 0;
                _cleanup_free_ char *src = kubelet_memory_eviction_source(after);
                if (!src)
                        return -ENOMEM;
                *ret_why = strdup_printf("policy [Kubelet] SwapBehavior= (evictionHard memory.available %s from %s: "
                                         "nodeswap's drop-in sets none)", after->memory_available, src);
                return *ret_why ? 0 : -ENOMEM;
        }
        /* what the kubelet runs with now, for the action's reason */
        KubeletEffective now;
        kubelet_config_effective(&h->kubelet, NULL, NULL, &now);
        _cleanup_free_ char *src = kubelet_memory_eviction_source(&now);
        if (!src)
                return -ENOMEM;
        *ret_why = now.memory_available
                ? strdup_printf("policy [Kubelet] SwapBehavior= and MemoryEviction=%s (memory.available now %s "
                                "from nodeswap's drop-in)", memory_available, now.memory_available)
                : strdup_printf("policy [Kubelet] SwapBehavior= and MemoryEviction=%s: the kubelet has no hard "
                                "memory.available threshold now (%s sets evictionHard without it)",
                                memory_available, src);
        return *ret_why ? 0 : -ENOMEM;
}

/* Apply with [Kubelet] SwapBehavior=: the drop-in written when its bytes change, and the findings
 * on what the kubelet would run with instead (after: what it reads once the drop-in is there, ours
 * the drop-in in it). */
static int plan_kubelet_dropin(PlanContext *c, const KubeletEffective *after, const KubeletConfigFile *ours,
                               const char *now, const char *after_src, const char *after_value,
                               const char *memory_available, bool *dropin_changed) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        Plan *plan = c->plan;

        _cleanup_free_ char *why = NULL;
        int r = plan_memory_eviction(c, after, memory_available, &why);
        if (r < 0)
                return r;
        _cleanup_free_ char *content = kubelet_render_dropin(p->swap_behavior, memory_available);
        if (!content)
                return -ENOMEM;
        if (!streq_ptr(h->dropin, content)) {
                const KubeletConfigFile *cur = kubelet_config_find(&h->kubelet, p->dropin);
                _cleanup_free_ char *now_text = now && cur && cur->memory_available_field == KUBELET_FIELD_SET
                        ? strdup_printf("%s, evictionHard memory.available %s", now, cur->memory_available_value)
                        : NULL;
                _cleanup_free_ char *want = memory_available
                        ? strdup_printf("%s, evictionHard memory.available %s",
                                        swap_behavior_to_string(p->swap_behavior), memory_available)
                        : strdup(swap_behavior_to_string(p->swap_behavior));
                if (!want || (now && cur && cur->memory_available_field == KUBELET_FIELD_SET && !now_text))
                        return -ENOMEM;
                Action *a = plan_add(plan, ACTION_DROPIN_WRITE, p->dropin, now_text ?: now, want,
                                     why ?: "policy [Kubelet] SwapBehavior=");
                if (!a)
                        return -ENOMEM;
                a->dropin_write.content = content;
                content = NULL;
                *dropin_changed = true;
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
        } else if (after->swap_behavior_from != ours &&
                   (after->swap_behavior_unknown || after->swap_behavior != p->swap_behavior) &&
                   !(after->swap_behavior == SWAP_BEHAVIOR_UNSET && p->swap_behavior == SWAP_BEHAVIOR_NO_SWAP)) {
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
        if (after->fail_swap_on && kubelet_fail_swap_on_foreign(after, ours) && plan->swap_total_after > 0) {
                _cleanup_free_ char *src = kubelet_fail_swap_on_source(after);
                if (!src)
                        return -ENOMEM;
                const KubeletFlag *flag = after->fail_swap_on_flag;
                if (plan_find(plan, VERDICT_KUBELET_FAIL_SWAP_ON, p, -1, NULL,
                              flag ? strdup_printf("remove --%s from %s or make it false", flag->name, flag->file)
                                   : strdup_printf("set failSwapOn: false in %s or remove it",
                                                   after->fail_swap_on_from->path),
                              flag ? "%s: the kubelet applies its flags over every file, %s too, and would "
                                     "refuse to start on this node with swap"
                                   : "%s sets failSwapOn: true and is merged after %s: the kubelet would refuse to "
                                     "start on this node with swap; set failSwapOn: false there or remove it",
                              src, p->dropin) < 0)
                        return -ENOMEM;
        }
        /* The drop-in's name and the cgroup version are judged by the rules of check.c
         * (dropin-order, cgroup-v1-limitedswap), which verdict_plan() adds. */
        return 0;
}

/* The kubelet's restart, when its drop-in or the node's total swap changed and its unit is
 * active (not with --boot: it reads the new settings when it starts). */
static int plan_kubelet_restart(PlanContext *c, bool dropin_changed) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        Plan *plan = c->plan;

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

int plan_kubelet(PlanContext *c) {
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
        const char *memory_available = NULL;
        int r = c->o->revert ? 0 : kubelet_dropin_memory_eviction(p, &h->kubelet, p->dropin, &memory_available);
        if (r < 0)
                return r;
        r = kubelet_effective_with_dropin(&h->kubelet, p->dropin, c->o->revert ? SWAP_BEHAVIOR_UNSET
                                              : p->swap_behavior, memory_available, &ours, &after);
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
                r = plan_kubelet_dropin(c, &after, &ours, now, after_src, after_value, memory_available,
                                        &dropin_changed);
                if (r < 0)
                        return r;
        } else
                return 0;       /* the kubelet is left alone */

        return plan_kubelet_restart(c, dropin_changed);
}
