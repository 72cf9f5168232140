/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "cli/cli.h"

/* Carry out a plan, in order: the only code in nodeswap that changes the host. Prints one line per
 * action as it happens (or, with --json, the plan with each action's result at the end), keeps
 * nodeswap's state file current after every step, and returns an exit code. */
int execute_plan(const CliContext *c, const Policy *p, const HostState *h, const Plan *pl);
