/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report/report.h"

#define T(a) strempty((a)->target)
#define WHY(a) strempty((a)->reason)
#define NOW(a) ((a)->now ?: "none")
#define WANT(a) ((a)->want ?: "none")

static json_object *json_string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

static void add_u64(json_object *o, const char *k, uint64_t v) {
        json_object_object_add(o, k, json_object_new_uint64(v));
}

static void add_int(json_object *o, const char *k, int v) {
        json_object_object_add(o, k, json_object_new_int(v));
}

/* Each kind in words ("restarting k3s-agent.service: node swap 2.0 GiB -> 16.0 GiB"), and the
 * numbers behind the display text that its JSON object carries besides the common fields. */

static char *describe_mask_unit(const Action *a) {
        return strdup_printf("masking %s (runtime): %s", T(a), WHY(a));
}

static char *describe_unmask_unit(const Action *a) {
        return strdup_printf("unmasking %s: %s", T(a), WHY(a));
}

static char *describe_stop_unit(const Action *a) {
        return strdup_printf("stopping %s: %s", T(a), WHY(a));
}

static void json_stop_unit(const Action *a, json_object *j) {
        add_u64(j, "used", a->stop_unit.used);
}

static char *describe_start_unit(const Action *a) {
        return strdup_printf("starting %s: %s", T(a), WHY(a));
}

static char *describe_restart_unit(const Action *a) {
        return strdup_printf("restarting %s: %s", T(a), WHY(a));
}

static char *describe_zram_create(const Action *a) {
        return strdup_printf("creating zram swap: %s (%s)", WANT(a), WHY(a));
}

static void json_zram_create(const Action *a, json_object *j) {
        add_u64(j, "size", a->zram_create.size);
        add_u64(j, "mem_limit", a->zram_create.mem_limit);
        add_int(j, "priority", a->zram_create.priority);
        json_object_object_add(j, "algorithm", json_string_or_null(a->zram_create.algorithm));
}

static char *describe_file_create(const Action *a) {
        /* (a swap file that is on is replaced in steps, plan/: there is never a now) */
        return strdup_printf("creating swap file %s: %s", T(a), WANT(a));
}

static void json_file_create(const Action *a, json_object *j) {
        add_u64(j, "size", a->file_create.size);
        add_int(j, "priority", a->file_create.priority);
}

static char *describe_file_mkswap(const Action *a) {
        return strdup_printf("rewriting the swap header of %s: %s -> %s (%s)", T(a), NOW(a), WANT(a), WHY(a));
}

static void json_file_mkswap(const Action *a, json_object *j) {
        add_u64(j, "size", a->file_mkswap.size);
}

static char *describe_swapon(const Action *a) {
        return strdup_printf("swapping on %s: %s (%s)", T(a), WANT(a), WHY(a));
}

static void json_swapon(const Action *a, json_object *j) {
        add_int(j, "priority", a->swapon.priority);
}

static char *describe_swapoff(const Action *a) {
        return strdup_printf("swapping off %s: %s (%s)", T(a), NOW(a), WHY(a));
}

static void json_swapoff(const Action *a, json_object *j) {
        add_u64(j, "used", a->swapoff.used);
}

static char *describe_zram_remove(const Action *a) {
        return strdup_printf("removing %s (%s)", T(a), WHY(a));
}

static char *describe_file_remove(const Action *a) {
        return strdup_printf("deleting %s (%s)", T(a), WHY(a));
}

static char *describe_sysctl(const Action *a) {
        return strdup_printf("setting %s: %s -> %s (%s)", T(a), NOW(a), WANT(a), WHY(a));
}

static void json_sysctl(const Action *a, json_object *j) {
        int now;
        add_int(j, "value", a->sysctl.value);
        json_object_object_add(j, "value_now", a->now && safe_atoi(a->now, &now) >= 0 ? json_object_new_int(now) : NULL);
}

static char *describe_zswap_set(const Action *a) {
        return describe_sysctl(a);
}

static void json_zswap_set(const Action *a, json_object *j) {
        /* the bytes written to /sys/module/zswap/parameters/NAME; restore: nodeswap's saved value */
        json_object_object_add(j, "value", json_string_or_null(a->zswap_set.value));
        json_object_object_add(j, "restore", json_object_new_boolean(a->zswap_set.restore));
}

static char *describe_dropin_write(const Action *a) {
        return strdup_printf("writing %s: swapBehavior %s -> %s", T(a), NOW(a), WANT(a));
}

static char *describe_dropin_remove(const Action *a) {
        return strdup_printf("removing %s: swapBehavior %s -> %s", T(a), NOW(a), WANT(a));
}

static char *describe_mark_reverted(const Action *a) {
        return strdup_printf("marking the node reverted (%s)", WHY(a));
}

static char *describe_clear_reverted(const Action *a) {
        return strdup_printf("ending the revert (%s)", WHY(a));
}

/* Kinds whose JSON has the common fields only. */
#define JSON_COMMON_FIELDS_ONLY(name)                                                           \
        static void json_##name(const Action *a, json_object *j) {                              \
        }
JSON_COMMON_FIELDS_ONLY(mask_unit)
JSON_COMMON_FIELDS_ONLY(unmask_unit)
JSON_COMMON_FIELDS_ONLY(start_unit)
JSON_COMMON_FIELDS_ONLY(restart_unit)
JSON_COMMON_FIELDS_ONLY(zram_remove)
JSON_COMMON_FIELDS_ONLY(file_remove)
JSON_COMMON_FIELDS_ONLY(dropin_write)
JSON_COMMON_FIELDS_ONLY(dropin_remove)
JSON_COMMON_FIELDS_ONLY(mark_reverted)
JSON_COMMON_FIELDS_ONLY(clear_reverted)

typedef struct ActionRender {
        char *(*describe)(const Action *a);
        void (*json)(const Action *a, json_object *j);
} ActionRender;

/* Each kind's rendering, from the one list of kinds (plan/plan.h): a kind without its describe_
 * and json_ functions does not compile. */
static const ActionRender action_render[_ACTION_KIND_MAX] = {
#define ACTION_RENDER(K, name, string) [ACTION_##K] = { describe_##name, json_##name },
        FOREACH_ACTION_KIND(ACTION_RENDER)
#undef ACTION_RENDER
};

char *action_describe(const Action *a) {
        return action_render[a->kind].describe(a);
}

/* A stable id for an action, the same in plan and apply: "KIND:TARGET" ("mask-unit:dev-zram0.swap"). */
char *action_id(const Action *a) {
        return strdup_printf("%s:%s", action_kind_to_string(a->kind), strempty(a->target));
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
        action_render[a->kind].json(a, j);
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
