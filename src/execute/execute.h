/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/result.h"

/* Carrying out a plan: the only code in nodeswap that changes the host. It knows nothing of the
 * command line: it takes options, returns one ActionResult per action (plan/result.h), and leaves
 * rendering them (report/) and the exit code (cli/) to its callers. Nothing here logs. */

typedef struct ExecuteOptions {
        const char *root;       /* the host ("/") or a fixture tree */
        /* Called as soon as action i has its result (several times for the same i never), e.g.
         * to log each step as it happens; may be NULL. */
        void (*progress)(const Action *a, const ActionResult *r, void *userdata);
        void *userdata;
} ExecuteOptions;

/* Carry out pl's actions in order (pl planned from p and h). A failure stops the run before
 * anything is swapped off, so a node always keeps working swap (make before break), and a rerun
 * converges because plan() starts again from what the host shows. nodeswap's state file is kept
 * current after every step.
 *
 * Returns 0 when the run took place, whatever became of its actions (*ret says, see
 * plan_result_failed()); -errno, *ret untouched, when it could not start: nodeswap's state file
 * unreadable, or out of memory. */
int execute_plan(const Plan *pl, const Policy *p, const HostState *h, const ExecuteOptions *o, PlanResult *ret);
