/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/plan.h"

/* What became of each action of a plan once it was carried out. execute/ fills these in; report/
 * renders them (text, JSON, the sd_notify STATUS line) and the CLI maps them to an exit code. The
 * type lives next to the plan, below both, so that report/ never includes execute/. */

typedef enum ActionStatus {
        ACTION_STATUS_PENDING,          /* not reached: the run stopped at an earlier failure */
        ACTION_STATUS_DONE,
        ACTION_STATUS_SKIPPED,          /* not needed after all, or not possible under --root */
        ACTION_STATUS_NOT_DONE,         /* could not be done, the run goes on (systemd unreachable) */
        ACTION_STATUS_FAILED,           /* the run stops here */
        _ACTION_STATUS_MAX,
} ActionStatus;
/* "pending", "done", "skipped", "not-done", "failed" (the JSON "result" of nodeswap(8)). */
const char *action_status_to_string(ActionStatus s);

typedef struct ActionResult {
        ActionStatus status;
        int error;              /* -errno behind FAILED or NOT_DONE; 0 otherwise */
        char *message;          /* what happened, in words; NULL when there is nothing to add */
} ActionResult;

typedef struct PlanResult {
        ActionResult *actions;  /* one per plan action, in plan order */
        size_t n_actions;
        bool revert;            /* the plan was a revert */
        int state_error;        /* -errno of the last failed write of nodeswap's state file, 0 */
} PlanResult;

void plan_result_done(PlanResult *r);
/* The first failed action's index, or SIZE_MAX when none failed. */
size_t plan_result_failed(const PlanResult *r);
/* How many actions are done. */
size_t plan_result_done_count(const PlanResult *r);
