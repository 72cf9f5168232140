/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <json-c/json.h>

#include "plan.h"

/* One action as a line for people: "mask-unit dev-zram0.swap: unmasked -> masked (runtime) (why)". */
char *action_format(const Action *a);

/* The plan as JSON: {"changed": bool, "actions": [...], "warnings": [...], "errors": [...],
 * "swap_total": {"now": bytes, "after": bytes}}. Each action: {"kind", "target", "now", "want",
 * "reason"} plus "done" / "result" when results is not NULL (apply). */
json_object *plan_to_json(const Plan *p);

/* Print the plan as text. */
void plan_print(FILE *f, const Plan *p, bool color);
