/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/plan.h"
#include "plan/result.h"
#include "report/json.h"

/* One action in words, for people: "restarting k3s-agent.service: node swap 2.0 GiB -> 16.0 GiB". */
char *action_describe(const Action *a);

/* "KIND:TARGET", the action's id in JSON. */
char *action_id(const Action *a);

/* One action as JSON: {"id", "kind", "target", "now", "want", "reason"} and the numbers behind the
 * text: "size", "mem_limit", "used" (bytes), "priority", "algorithm", "value", "value_now".
 * These and the two below return NULL on ENOMEM (report/json.h: no member is left null). */
json_object *action_to_json(const Action *a);

/* The plan as JSON: {"version", "changed", "actions": [...], "findings": [...], "errors": N,
 * "warnings": N, "swap_total": {"now": bytes, "after": bytes}} (nodeswap(8), JSON OUTPUT). */
json_object *plan_to_json(const Plan *p);

/* The plan's actions as text; "Nothing to do" only for a plan without actions and errors. */
void plan_print(FILE *f, const Plan *p, bool color);
/* The plan's findings as text (finding_print()), info ones only with with_info. */
void plan_print_findings(FILE *f, const Plan *p, bool color, bool with_info);

/* A carried-out plan as JSON: plan_to_json() with each action's "result" (action_status_to_string())
 * and "message" (null when none), "changed" (an action is done) and "ok" (none failed). */
json_object *plan_result_to_json(const Plan *p, const PlanResult *r);

/* The sd_notify STATUS= text for a carried-out plan: the first failure, "Node matches the policy;
 * swap X", or "Applied|Reverted: N change(s) done; swap X -> Y". malloc'd; NULL on ENOMEM. */
char *plan_result_status(const Plan *p, const PlanResult *r);
