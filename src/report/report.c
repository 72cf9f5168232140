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

static json_object *json_string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

/* A stable id for an action, the same in plan and apply: "KIND:TARGET" ("mask-unit:dev-zram0.swap"). */
char *action_id(const Action *a) {
        return strdup_printf("%s:%s", action_kind_to_string(a->kind), strempty(a->target));
}

static void add_u64(json_object *o, const char *k, uint64_t v) {
        json_object_object_add(o, k, json_object_new_uint64(v));
}

json_object *action_to_json(const Action *a) {
        json_object *j = json_object_new_object();
        if (!j)
                return NULL;
        _cleanup_free_ char *id = action_id(a);
        json_object_object_add(j, "id", json_string_or_null(id));
        json_object_object_add(j, "kind", json_object_new_string(action_kind_to_string(a->kind)));
        json_object_object_add(j, "target", json_string_or_null(a->target));
        json_object_object_add(j, "now", json_string_or_null(a->now));
        json_object_object_add(j, "want", json_string_or_null(a->want));
        json_object_object_add(j, "reason", json_string_or_null(a->reason));
        /* The numbers behind the display text. */
        switch (a->kind) {
        case ACTION_ZRAM_CREATE:
                add_u64(j, "size", a->size);
                add_u64(j, "mem_limit", a->mem_limit);
                json_object_object_add(j, "priority", json_object_new_int(a->priority));
                json_object_object_add(j, "algorithm", json_string_or_null(a->algorithm));
                break;
        case ACTION_FILE_CREATE:
                add_u64(j, "size", a->size);
                json_object_object_add(j, "priority", json_object_new_int(a->priority));
                break;
        case ACTION_FILE_MKSWAP:
                add_u64(j, "size", a->size);
                break;
        case ACTION_SWAPON:
                json_object_object_add(j, "priority", json_object_new_int(a->priority));
                break;
        case ACTION_SWAPOFF:
        case ACTION_STOP_UNIT:
                add_u64(j, "used", a->used);
                break;
        case ACTION_SYSCTL: {
                int now;
                json_object_object_add(j, "value", json_object_new_int(a->value));
                json_object_object_add(j, "value_now",
                                       a->now && safe_atoi(a->now, &now) >= 0 ? json_object_new_int(now) : NULL);
                break;
        }
        case ACTION_ZSWAP_SET:
                /* the bytes written to /sys/module/zswap/parameters/NAME; restore: nodeswap's saved value */
                json_object_object_add(j, "value", json_string_or_null(a->content));
                json_object_object_add(j, "restore", json_object_new_boolean(a->value));
                break;
        default:
                break;
        }
        return j;
}

json_object *plan_to_json(const Plan *p) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "version", json_object_new_int(NODESWAP_JSON_VERSION));
        json_object_object_add(o, "changed", json_object_new_boolean(plan_changes(p)));
        json_object *arr = json_object_new_array();
        for (size_t i = 0; i < p->n_actions; i++)
                json_object_array_add(arr, action_to_json(&p->actions[i]));
        json_object_object_add(o, "actions", arr);
        json_object_object_add(o, "findings", findings_to_json(&p->findings));
        json_object_object_add(o, "errors", json_object_new_int64((int64_t) findings_count(&p->findings, SEVERITY_ERROR)));
        json_object_object_add(o, "warnings",
                               json_object_new_int64((int64_t) findings_count(&p->findings, SEVERITY_WARNING)));
        json_object *t = json_object_new_object();
        json_object_object_add(t, "now", json_object_new_int64((int64_t) p->swap_total_now));
        json_object_object_add(t, "after", json_object_new_int64((int64_t) p->swap_total_after));
        json_object_object_add(o, "swap_total", t);
        return o;
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
        json_object *o = plan_to_json(p);
        json_object *arr = json_object_object_get(o, "actions");
        for (size_t i = 0; i < p->n_actions && i < r->n_actions; i++) {
                json_object *j = json_object_array_get_idx(arr, i);
                const ActionResult *a = &r->actions[i];
                json_object_object_add(j, "result", json_object_new_string(action_status_to_string(a->status)));
                json_object_object_add(j, "message", a->message ? json_object_new_string(a->message) : NULL);
        }
        json_object_object_add(o, "changed", json_object_new_boolean(plan_result_done_count(r) > 0));
        json_object_object_add(o, "ok", json_object_new_boolean(plan_result_failed(r) == SIZE_MAX));
        return o;
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
