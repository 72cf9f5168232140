/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <json-c/json.h>

#include "plan.h"

/* One action in words, for people: "restarting k3s-agent.service: node swap 2.0 GiB -> 16.0 GiB". */
char *action_describe(const Action *a);

/* One action as a compact line: "mask-unit dev-zram0.swap: unmasked -> masked (runtime) (why)". */
char *action_format(const Action *a);

/* The plan as JSON: {"changed": bool, "actions": [...], "warnings": [...], "errors": [...],
 * "swap_total": {"now": bytes, "after": bytes}}. Each action: {"kind", "target", "now", "want",
 * "reason"} plus "done" / "result" when results is not NULL (apply). */
json_object *plan_to_json(const Plan *p);

/* Print the plan as text. */
void plan_print(FILE *f, const Plan *p, bool color);
