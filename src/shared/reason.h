/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* A sentence for the caller to log once: functions that take char **ret_reason store a malloc'd
 * sentence there when they refuse or fail ("/tmp is on tmpfs, which cannot hold a swap file").
 * ret_reason may be NULL. */

/* Format the sentence into *ret_reason (replacing what was there) and return r; -ENOMEM when the
 * sentence cannot be made. %m works as in printf(3) when errno is set by the caller. */
int reason_set(char **ret_reason, int r, const char *fmt, ...) _printf_(3, 4);
