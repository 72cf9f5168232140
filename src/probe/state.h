/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/host.h"

/* nodeswap's own records (NodeswapState is defined in host.h).
 *
 * Two files below the root, each of simple "key=value" lines, one value per line, "#" starts a
 * comment line, unknown keys and malformed values are ignored (a damaged record must never stop
 * nodeswap from running; the affected value simply reads as "not saved"):
 *
 *   /var/lib/nodeswap/state   survives reboots
 *       saved_swappiness=60           vm.swappiness before nodeswap first changed it
 *       saved_page_cluster=3          vm.page-cluster before nodeswap first changed it
 *       reverted=yes|no               "nodeswap revert" ran last
 *       stopped_unit=var-swap.swap    repeated, one per conflict unit nodeswap stopped
 *       swap_changed_usec=N           CLOCK_REALTIME µs of the last swap change nodeswap made
 *       swap_file=/var/lib/nodeswap/swapfile
 *                                     repeated, one per swap file nodeswap created and has not
 *                                     deleted (only absolute paths are accepted). Recorded before
 *                                     the file is created, forgotten when nodeswap deletes it or
 *                                     finds it gone. Such a file is nodeswap's even when the
 *                                     policy's [File] Path= has moved elsewhere.
 *       last_run=apply|revert         the last apply or revert that wrote this file (one that
 *       last_run_usec=N               changed nothing writes nothing), when it ended
 *       last_run_result=ok|failed     (CLOCK_REALTIME µs) and whether an action of it failed
 *
 *   /run/nodeswap-state/state this boot only
 *       zram_id=1                     repeated, one per zram device nodeswap created
 */

#define STATE_PERSISTENT_PATH "/var/lib/nodeswap/state"
/* Not below /run/nodeswap: that is a policy directory (DESIGN.md), read by every user's status and
 * check, and nodeswap never writes into a policy directory. */
#define STATE_RUNTIME_PATH "/run/nodeswap-state/state"

/* Initialise to the empty state: nothing saved, no units, no zram ids. */
void nodeswap_state_init(NodeswapState *s);
void nodeswap_state_done(NodeswapState *s);

/* Missing files read as the empty state; so do files this user may not read (EACCES, EPERM: a
 * non-root status), which are listed in ret->unreadable. ret is written only on success. */
int state_load(const char *root, NodeswapState *ret);

/* Write both files atomically (temp file in the same directory, rename); creates
 * /var/lib/nodeswap and /run/nodeswap-state (0700) when missing. The persistent file is fsync'ed before
 * the rename and its directory after it (it must survive a power cut) whenever it, or the file it
 * replaces, holds a record a later run needs (saved sysctl values, reverted=yes, stopped units,
 * swap files); bookkeeping alone (swap_changed_usec, last_run*) is not fsync'ed. The runtime file,
 * which only matters until the next boot, is not fsync'ed, and is not created while it would
 * record nothing. A file whose contents would not change is left untouched. */
int state_save(const char *root, const NodeswapState *s);
/* Only the runtime file (/run/nodeswap-state/state), as state_save() writes it: for a change that only
 * touches it (a zram device added or removed), without rewriting and fsync'ing the persistent one. */
int state_save_runtime(const char *root, const NodeswapState *s);

/* Render the two files' contents (exposed for tests and for "plan" to show what would change). */
char *state_format_persistent(const NodeswapState *s);
char *state_format_runtime(const NodeswapState *s);

/* Record / forget a zram device id (no duplicates). Return 0, or 1 when nothing changed. */
int state_add_zram_id(NodeswapState *s, int id);
int state_remove_zram_id(NodeswapState *s, int id);
bool state_has_zram_id(const NodeswapState *s, int id);

/* Record / forget a swap file nodeswap created (an absolute path, no duplicates). Return 0, or 1
 * when nothing changed; -EINVAL for a path that is not absolute. */
int state_add_swap_file(NodeswapState *s, const char *path);
int state_remove_swap_file(NodeswapState *s, const char *path);
bool state_has_swap_file(const NodeswapState *s, const char *path);
