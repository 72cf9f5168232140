/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/context.h"

/* Apply: the [Conflicts] timers that are active stop, then every conflict unit that is not masked
 * is masked (runtime). Revert: the runtime masks go, and the units nodeswap stopped start again
 * (timers last). */
int plan_masks(PlanContext *c);

/* Apply: the conflict services that are still active stop once the new swap is up (masked, they
 * have no ExecStop= left). */
int plan_stop_services(PlanContext *c);

/* nodeswap-writeback.timer: with start false, the stop when the policy asks for no schedule (or on
 * revert), planned before its device goes; with start true, the start when it asks for one. */
int plan_writeback_timer(PlanContext *c, bool start);
