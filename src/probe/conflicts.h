/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"
#include "probe/rpiswap.h"

/* The units nodeswap masks: [Conflicts] Units= first, then the units rpi-swap's generator makes
 * from its configuration, and rpi-swap's remove service for the policy's [File] Path=, so rpi-swap
 * can neither bring its swap back nor delete, resize or loop-mount nodeswap's file. Used by probe()
 * and by nodeswap-generator, so both mask the same set. rpi NULL: [Conflicts] Units= only. In a
 * file of its own so that the generator links it without probe()'s readers of sysfs. */
int conflict_units_compute(const Policy *policy, const RpiSwapConfig *rpi, char ***ret);
