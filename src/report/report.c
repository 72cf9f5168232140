/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report/report.h"

/* "restarting k3s-agent.service: node swap 2.0 GiB -> 16.0 GiB" */
char *action_describe(const Action *a) {
        const char *t = strempty(a->target), *why = strempty(a->reason), *now = a->now ?: "none",
                   *want = a->want ?: "none";
        switch (a->kind) {
        case ACTION_MASK_UNIT:
                return strdup_printf("masking %s (runtime): %s", t, why);
        case ACTION_UNMASK_UNIT:
                return strdup_printf("unmasking %s: %s", t, why);
        case ACTION_STOP_UNIT:
                return strdup_printf("stopping %s: %s", t, why);
        case ACTION_START_UNIT:
                return strdup_printf("starting %s: %s", t, why);
        case ACTION_RESTART_UNIT:
                return strdup_printf("restarting %s: %s", t, why);
        case ACTION_ZRAM_CREATE:
                return strdup_printf("creating zram swap: %s (%s)", want, why);
        case ACTION_FILE_CREATE:
                /* (a swap file that is on is replaced in steps, plan.c: there is never a now) */
                return strdup_printf("creating swap file %s: %s", t, want);
        case ACTION_FILE_MKSWAP:
                return strdup_printf("rewriting the swap header of %s: %s -> %s (%s)", t, now, want, why);
        case ACTION_SWAPON:
                return strdup_printf("swapping on %s: %s (%s)", t, want, why);
        case ACTION_SWAPOFF:
                return strdup_printf("swapping off %s: %s (%s)", t, now, why);
        case ACTION_ZRAM_REMOVE:
                return strdup_printf("removing %s (%s)", t, why);
        case ACTION_FILE_REMOVE:
                return strdup_printf("deleting %s (%s)", t, why);
        case ACTION_SYSCTL:
        case ACTION_ZSWAP_SET:
                return strdup_printf("setting %s: %s -> %s (%s)", t, now, want, why);
        case ACTION_DROPIN_WRITE:
                return strdup_printf("writing %s: swapBehavior %s -> %s", t, now, want);
        case ACTION_DROPIN_REMOVE:
                return strdup_printf("removing %s: swapBehavior %s -> %s", t, now, want);
        case ACTION_MARK_REVERTED:
                return strdup_printf("marking the node reverted (%s)", why);
        case ACTION_CLEAR_REVERTED:
                return strdup_printf("ending the revert (%s)", why);
        default:
                return action_format(a);
        }
}

char *action_format(const Action *a) {
        return strdup_printf("%s %s: %s -> %s%s%s%s", action_kind_to_string(a->kind), strempty(a->target),
                             a->now ?: "(none)", a->want ?: "(none)", a->reason ? " (" : "", strempty(a->reason),
                             a->reason ? ")" : "");
}

/* A stable id for an action, the same in plan and apply: "KIND:TARGET" ("mask-unit:dev-zram0.swap"). */
char *action_id(const Action *a) {
        return strdup_printf("%s:%s", action_kind_to_string(a->kind), strempty(a->target));
}

/* The numbers behind the display text. */
static int action_numbers_to_json(const Action *a, json_object *j) {
        switch (a->kind) {
        case ACTION_ZRAM_CREATE:
                return json_add_u64(j, "size", a->size) < 0 ||
                       json_add_u64(j, "mem_limit", a->mem_limit) < 0 ||
                       json_add_int(j, "priority", a->priority) < 0 ||
                       json_add_string(j, "algorithm", a->algorithm) < 0 ? -ENOMEM : 0;
        case ACTION_FILE_CREATE:
                return json_add_u64(j, "size", a->size) < 0 ||
                       json_add_int(j, "priority", a->priority) < 0 ? -ENOMEM : 0;
        case ACTION_FILE_MKSWAP:
                return json_add_u64(j, "size", a->size);
        case ACTION_SWAPON:
                return json_add_int(j, "priority", a->priority);
        case ACTION_SWAPOFF:
        case ACTION_STOP_UNIT:
                return json_add_u64(j, "used", a->used);
        case ACTION_SYSCTL: {
                int now;
                return json_add_int(j, "value", a->value) < 0 ||
                       (a->now && safe_atoi(a->now, &now) >= 0 ? json_add_int(j, "value_now", now)
                                                               : json_add_null(j, "value_now")) < 0 ? -ENOMEM : 0;
        }
        case ACTION_ZSWAP_SET:
                /* the bytes written to /sys/module/zswap/parameters/NAME; restore: nodeswap's saved value */
                return json_add_string(j, "value", a->content) < 0 ||
                       json_add_bool(j, "restore", a->value) < 0 ? -ENOMEM : 0;
        default:
                return 0;
        }
}

json_object *action_to_json(const Action *a) {
        _cleanup_json_ json_object *j = json_object_new_object();
        _cleanup_free_ char *id = action_id(a);
        if (!j || !id ||
            json_add_string(j, "id", id) < 0 ||
            json_add_string(j, "kind", action_kind_to_string(a->kind)) < 0 ||
            json_add_string(j, "target", a->target) < 0 ||
            json_add_string(j, "now", a->now) < 0 ||
            json_add_string(j, "want", a->want) < 0 ||
            json_add_string(j, "reason", a->reason) < 0 ||
            action_numbers_to_json(a, j) < 0)
                return NULL;
        return TAKE_PTR(j);
}

json_object *plan_to_json(const Plan *p) {
        _cleanup_json_ json_object *o = json_object_new_object(), *arr = json_object_new_array(),
                                   *t = json_object_new_object();
        if (!o || !arr || !t)
                return NULL;
        for (size_t i = 0; i < p->n_actions; i++)
                if (json_append(arr, action_to_json(&p->actions[i])) < 0)
                        return NULL;
        if (json_add_int(t, "now", (int64_t) p->swap_total_now) < 0 ||
            json_add_int(t, "after", (int64_t) p->swap_total_after) < 0 ||
            json_add_int(o, "version", NODESWAP_JSON_VERSION) < 0 ||
            json_add_bool(o, "changed", plan_changes(p)) < 0 ||
            json_add(o, "actions", TAKE_PTR(arr)) < 0 ||
            json_add(o, "findings", findings_to_json(&p->findings)) < 0 ||
            json_add_int(o, "errors", (int64_t) findings_count(&p->findings, SEVERITY_ERROR)) < 0 ||
            json_add_int(o, "warnings", (int64_t) findings_count(&p->findings, SEVERITY_WARNING)) < 0 ||
            json_add(o, "swap_total", TAKE_PTR(t)) < 0)
                return NULL;
        return TAKE_PTR(o);
}

void plan_print(FILE *f, const Plan *p, bool color) {
        if (!plan_changes(p) && plan_errors(p) == 0)
                fprintf(f, "Nothing to do: the node matches the policy.\n");
        for (size_t i = 0; i < p->n_actions; i++) {
                _cleanup_free_ char *s = action_describe(&p->actions[i]);
                fprintf(f, "%2zu. %s\n", i + 1, s ?: "(out of memory)");
        }
}

void plan_print_findings(FILE *f, const Plan *p, bool color, bool with_info) {
        for (size_t i = 0; i < p->findings.n; i++)
                if (with_info || p->findings.f[i].severity != SEVERITY_INFO)
                        finding_print(f, &p->findings.f[i], color);
}

json_object *plan_result_to_json(const Plan *p, const PlanResult *r) {
        _cleanup_json_ json_object *o = plan_to_json(p);
        if (!o)
                return NULL;
        json_object *arr = json_object_object_get(o, "actions");
        for (size_t i = 0; i < p->n_actions && i < r->n_actions; i++) {
                json_object *j = json_object_array_get_idx(arr, i);
                const ActionResult *a = &r->actions[i];
                if (json_add_string(j, "result", action_status_to_string(a->status)) < 0 ||
                    json_add_string(j, "message", a->message) < 0)
                        return NULL;
        }
        if (json_add_bool(o, "changed", plan_result_done_count(r) > 0) < 0 ||
            json_add_bool(o, "ok", plan_result_failed(r) == SIZE_MAX) < 0)
                return NULL;
        return TAKE_PTR(o);
}

char *plan_result_status(const Plan *p, const PlanResult *r) {
        char now[FORMAT_BYTES_MAX], after[FORMAT_BYTES_MAX];
        format_bytes(now, sizeof now, p->swap_total_now);
        format_bytes(after, sizeof after, p->swap_total_after);
        size_t failed = plan_result_failed(r);
        if (failed != SIZE_MAX && failed < p->n_actions)
                return strdup_printf("Failed: %s %s: %s", action_kind_to_string(p->actions[failed].kind),
                                     strempty(p->actions[failed].target), strempty(r->actions[failed].message));
        if (p->n_actions == 0)
                return strdup_printf("Node matches the policy; swap %s", now);
        return strdup_printf("%s: %zu change(s) done; swap %s -> %s", r->revert ? "Reverted" : "Applied",
                             plan_result_done_count(r), now, after);
}
