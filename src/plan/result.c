/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/result.h"

static const char *const action_status_names[_ACTION_STATUS_MAX] = {
        [ACTION_STATUS_PENDING] = "pending",
        [ACTION_STATUS_DONE] = "done",
        [ACTION_STATUS_SKIPPED] = "skipped",
        [ACTION_STATUS_NOT_DONE] = "not-done",
        [ACTION_STATUS_FAILED] = "failed",
};

const char *action_status_to_string(ActionStatus s) {
        return s < _ACTION_STATUS_MAX ? action_status_names[s] : NULL;
}

void plan_result_done(PlanResult *r) {
        for (size_t i = 0; i < r->n_actions; i++)
                free(r->actions[i].message);
        free(r->actions);
        *r = (PlanResult) {};
}

size_t plan_result_failed(const PlanResult *r) {
        for (size_t i = 0; i < r->n_actions; i++)
                if (r->actions[i].status == ACTION_STATUS_FAILED)
                        return i;
        return SIZE_MAX;
}

size_t plan_result_done_count(const PlanResult *r) {
        size_t n = 0;
        for (size_t i = 0; i < r->n_actions; i++)
                n += r->actions[i].status == ACTION_STATUS_DONE;
        return n;
}
