/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/state.h"

/* Writing nodeswap's state files (their format is described in probe/state.h). */

/* Write both files atomically (temp file in the same directory, rename); creates
 * /var/lib/nodeswap and /run/nodeswap-state (0700) when missing. The persistent file is fsync'ed before
 * the rename and its directory after it (it must survive a power cut) whenever it, or the file it
 * replaces, holds a record a later run needs (state_has_records(): saved sysctl and zswap values,
 * reverted=yes, stopped units, swap files); bookkeeping alone (swap_changed_usec, last_run*) is
 * not fsync'ed. The runtime file, which only matters until the next boot, is not fsync'ed, and is
 * not created while it would record nothing. A file whose contents would not change is left
 * untouched. */
int state_save(const char *root, const NodeswapState *s);
/* Only the runtime file (/run/nodeswap-state/state), as state_save() writes it: for a change that only
 * touches it (a zram device added or removed), without rewriting and fsync'ing the persistent one. */
int state_save_runtime(const char *root, const NodeswapState *s);

/* Render the two files' contents (exposed for tests and for "plan" to show what would change). */
char *state_format_persistent(const NodeswapState *s);
char *state_format_runtime(const NodeswapState *s);
