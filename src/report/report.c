/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report/report.h"

#define T(a) strempty((a)->target)
#define WHY(a) strempty((a)->reason)
#define NOW(a) ((a)->now ?: "none")
#define WANT(a) ((a)->want ?: "none")

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

static int json_stop_unit(const Action *a, json_object *j) {
        return json_add_u64(j, "used", a->stop_unit.used);
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

static int json_zram_create(const Action *a, json_object *j) {
        return json_add_u64(j, "size", a->zram_create.size) < 0 ||
               json_add_u64(j, "mem_limit", a->zram_create.mem_limit) < 0 ||
               json_add_int(j, "priority", a->zram_create.priority) < 0 ||
               json_add_string(j, "algorithm", a->zram_create.algorithm) < 0 ? -ENOMEM : 0;
}

static char *describe_file_create(const Action *a) {
        /* (a swap file that is on is replaced in steps, plan/: there is never a now) */
        return strdup_printf("creating swap file %s: %s", T(a), WANT(a));
}

static int json_file_create(const Action *a, json_object *j) {
        return json_add_u64(j, "size", a->file_create.size) < 0 ||
               json_add_int(j, "priority", a->file_create.priority) < 0 ||
               json_add_bool(j, "encrypted", a->file_create.encrypt) < 0 ? -ENOMEM : 0;
}

static char *describe_file_mkswap(const Action *a) {
        return strdup_printf("rewriting the swap header of %s: %s -> %s (%s)", T(a), NOW(a), WANT(a), WHY(a));
}

static int json_file_mkswap(const Action *a, json_object *j) {
        return json_add_u64(j, "size", a->file_mkswap.size);
}

static char *describe_swapon(const Action *a) {
        return strdup_printf("swapping on %s: %s (%s)", T(a), WANT(a), WHY(a));
}

static int json_swapon(const Action *a, json_object *j) {
        return json_add_int(j, "priority", a->swapon.priority) < 0 ||
               json_add_bool(j, "encrypted", a->swapon.encrypted) < 0 ? -ENOMEM : 0;
}

static char *describe_swapoff(const Action *a) {
        return strdup_printf("swapping off %s: %s (%s)", T(a), NOW(a), WHY(a));
}

static int json_swapoff(const Action *a, json_object *j) {
        return json_add_u64(j, "used", a->swapoff.used) < 0 ||
               json_add_bool(j, "encrypted", a->swapoff.encrypted) < 0 ? -ENOMEM : 0;
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

static int json_sysctl(const Action *a, json_object *j) {
        int now;
        return json_add_int(j, "value", a->sysctl.value) < 0 ||
               (a->now && safe_atoi(a->now, &now) >= 0 ? json_add_int(j, "value_now", now)
                                                       : json_add_null(j, "value_now")) < 0 ? -ENOMEM : 0;
}

static char *describe_zswap_set(const Action *a) {
        return describe_sysctl(a);
}

static int json_zswap_set(const Action *a, json_object *j) {
        /* the bytes written to /sys/module/zswap/parameters/NAME; restore: nodeswap's saved value */
        return json_add_string(j, "value", a->zswap_set.value) < 0 ||
               json_add_bool(j, "restore", a->zswap_set.restore) < 0 ? -ENOMEM : 0;
}

static char *describe_dropin_write(const Action *a) {
        return strdup_printf("writing %s: swapBehavior %s -> %s", T(a), NOW(a), WANT(a));
}

static char *describe_dropin_remove(const Action *a) {
        return strdup_printf("removing %s: swapBehavior %s -> %s", T(a), NOW(a), WANT(a));
}

static char *describe_features_write(const Action *a) {
        return strdup_printf("writing %s: labels %s -> %s", T(a), NOW(a), WANT(a));
}

static char *describe_features_remove(const Action *a) {
        return strdup_printf("removing %s (%s)", T(a), WHY(a));
}

/* labels: the value of each label the file carries, by its name after the prefix */
static int json_features_write(const Action *a, json_object *j) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        for (FeatureLabel l = 0; l < _FEATURE_LABEL_MAX; l++) {
                bool oom;
                _cleanup_free_ char *v = feature_label_value(&a->features_write.in, l, &oom);
                if (oom || (v && json_add_string(o, feature_label_to_string(l), v) < 0))
                        return -ENOMEM;
        }
        return json_add_string(j, "prefix", NODESWAP_LABEL_PREFIX) < 0 ||
               json_add(j, "labels", TAKE_PTR(o)) < 0 ? -ENOMEM : 0;
}

static char *describe_mark_reverted(const Action *a) {
        return strdup_printf("marking the node reverted (%s)", WHY(a));
}

static char *describe_clear_reverted(const Action *a) {
        return strdup_printf("ending the revert (%s)", WHY(a));
}

static char *describe_unit_swap_max(const Action *a) {
        return strdup_printf("%s %s %s: %s -> %s (%s)", a->unit_swap_max.restore ? "letting" : "keeping", T(a),
                             a->unit_swap_max.restore ? "swap again" : "out of swap", NOW(a), WANT(a), WHY(a));
}

static char *describe_io_latency(const Action *a) {
        return strdup_printf("%s the daemons' I/O on %s: io.latency %s -> %s (%s)",
                             a->io_latency.restore ? "no longer protecting" : "protecting", T(a), NOW(a), WANT(a), WHY(a));
}

static int json_io_latency(const Action *a, json_object *j) {
        char dev[32];
        snprintf(dev, sizeof dev, "%u:%u", a->io_latency.major, a->io_latency.minor);
        int r = json_add_string(j, "device", dev);
        if (r >= 0)
                r = json_add_u64(j, "target_usec", a->io_latency.restore ? 0 : a->io_latency.usec);
        if (r >= 0)
                r = json_add_bool(j, "restore", a->io_latency.restore);
        return r;
}

static int json_unit_swap_max(const Action *a, json_object *j) {
        return json_add_bool(j, "restore", a->unit_swap_max.restore);
}

/* Kinds whose JSON has the common fields only. */
#define JSON_COMMON_FIELDS_ONLY(name)                                                           \
        static int json_##name(const Action *a, json_object *j) {                               \
                return 0;                                                                       \
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
JSON_COMMON_FIELDS_ONLY(features_remove)

typedef struct ActionRender {
        char *(*describe)(const Action *a);
        int (*json)(const Action *a, json_object *j);    /* -ENOMEM when an allocation failed */
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
        _cleanup_json_ json_object *j = json_object_new_object();
        _cleanup_free_ char *id = action_id(a);
        if (!j || !id ||
            json_add_string(j, "id", id) < 0 ||
            json_add_string(j, "kind", action_kind_to_string(a->kind)) < 0 ||
            json_add_string(j, "target", a->target) < 0 ||
            json_add_string(j, "now", a->now) < 0 ||
            json_add_string(j, "want", a->want) < 0 ||
            json_add_string(j, "reason", a->reason) < 0 ||
            action_render[a->kind].json(a, j) < 0)
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
