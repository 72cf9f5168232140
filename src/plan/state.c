/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap's state file's part of the plan: the revert mark the generator reads. */
#include "plan/state.h"

#include "plan/context.h"

int plan_state(PlanContext *c) {
        const HostState *h = c->h;
        if (c->o->revert) {
                if (!h->state.reverted && !plan_add(c->plan, ACTION_MARK_REVERTED, STATE_PERSISTENT_PATH, NULL,
                                                    "reverted", "the generator masks nothing until the next apply"))
                        return -ENOMEM;
                return 0;
        }
        if (h->state.reverted &&
            !plan_add(c->plan, ACTION_CLEAR_REVERTED, STATE_PERSISTENT_PATH, "reverted", "applied",
                      "nodeswap apply ends a revert"))
                return -ENOMEM;
        return 0;
}
