/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report.h"

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
                return a->now ? strdup_printf("replacing swap file %s: %s -> %s (%s)", t, now, want, why)
                              : strdup_printf("creating swap file %s: %s", t, want);
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

static json_object *strv_to_json(char *const *l) {
        json_object *a = json_object_new_array();
        for (; l && *l; l++)
                json_object_array_add(a, json_object_new_string(*l));
        return a;
}

json_object *plan_to_json(const Plan *p) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "changed", json_object_new_boolean(plan_changes(p)));
        json_object *arr = json_object_new_array();
        for (size_t i = 0; i < p->n_actions; i++) {
                const Action *a = &p->actions[i];
                json_object *j = json_object_new_object();
                json_object_object_add(j, "kind", json_object_new_string(action_kind_to_string(a->kind)));
                json_object_object_add(j, "target", json_string_or_null(a->target));
                json_object_object_add(j, "now", json_string_or_null(a->now));
                json_object_object_add(j, "want", json_string_or_null(a->want));
                json_object_object_add(j, "reason", json_string_or_null(a->reason));
                json_object_array_add(arr, j);
        }
        json_object_object_add(o, "actions", arr);
        json_object_object_add(o, "warnings", strv_to_json(p->warnings));
        json_object_object_add(o, "errors", strv_to_json(p->errors));
        json_object *t = json_object_new_object();
        json_object_object_add(t, "now", json_object_new_int64((int64_t) p->swap_total_now));
        json_object_object_add(t, "after", json_object_new_int64((int64_t) p->swap_total_after));
        json_object_object_add(o, "swap_total", t);
        return o;
}

void plan_print(FILE *f, const Plan *p, bool color) {
        const char *warn = color ? "\033[33m" : "", *err = color ? "\033[31m" : "", *off = color ? "\033[0m" : "";
        if (!plan_changes(p))
                fprintf(f, "Nothing to do: the node matches the policy.\n");
        for (size_t i = 0; i < p->n_actions; i++) {
                _cleanup_free_ char *s = action_describe(&p->actions[i]);
                fprintf(f, "%2zu. %s\n", i + 1, s ?: "(out of memory)");
        }
        for (char **w = p->warnings; w && *w; w++)
                fprintf(f, "%swarning:%s %s\n", warn, off, *w);
        for (char **e = p->errors; e && *e; e++)
                fprintf(f, "%serror:%s %s\n", err, off, *e);
}
