/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/plan.h"
#include "plan/result.h"

/* Whether stdout goes to the journal (JOURNAL_STREAM names it, as systemd sets it for services). */
bool log_stdout_is_journal(void);

/* One line for an action as it happens: to the journal with a priority and structured fields
 * (NODESWAP_ACTION, NODESWAP_TARGET, NODESWAP_RESULT, and NODESWAP_UNIT or NODESWAP_DEVICE), or to
 * stdout for people, coloured on a terminal: the action in words, its result and message. */
void log_action(const Action *a, const ActionResult *r);
