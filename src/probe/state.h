/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/zswap.h"
#include "shared/util.h"

/* nodeswap's own records.
 *
 * Two files below the root, each of simple "key=value" lines, one value per line, "#" starts a
 * comment line, unknown keys and malformed values are ignored (a damaged record must never stop
 * nodeswap from running; the affected value simply reads as "not saved"):
 *
 *   /var/lib/nodeswap/state   survives reboots
 *       saved_swappiness=60           vm.swappiness before nodeswap first changed it
 *       saved_page_cluster=3          vm.page-cluster before nodeswap first changed it
 *       saved_min_free_kbytes=67584   vm.min_free_kbytes before nodeswap first changed it
 *       saved_watermark_scale_factor=10  vm.watermark_scale_factor likewise
 *       set_min_free_kbytes=524288    the vm.min_free_kbytes apply last wrote (khugepaged may
 *                                     raise it after a THP change: mm/khugepaged.c)
 *       saved_zswap_enabled=N         each zswap parameter (saved_zswap_compressor=lzo,
 *                                     saved_zswap_max_pool_percent=20, ...) before nodeswap
 *                                     first wrote it, exactly as the kernel showed it (without
 *                                     its newline; printable, no white space)
 *       reverted=yes|no               "nodeswap revert" ran last
 *       stopped_unit=var-swap.swap    repeated, one per conflict unit nodeswap stopped
 *       no_swap_unit=k3s-agent.service
 *                                     repeated, one per unit of [Kubelet] NoSwapUnits= nodeswap
 *                                     gave MemorySwapMax=0 (SetUnitProperties, runtime): the
 *                                     control drop-in systemd wrote for it is nodeswap's to remove.
 *                                     Recorded before the call, forgotten once it is removed.
 *       io_latency=8:0 25000          the io.latency target (µs) nodeswap gave system.slice on that
 *                                     disk (MAJ:MIN), [Kubelet] IOLatencyTargetSec=: recorded before
 *                                     the SetUnitProperties call, so that revert takes it away and
 *                                     nodeswap-generator(8) writes it for the boot; forgotten once
 *                                     taken away
 *       swap_changed_usec=N           CLOCK_REALTIME µs of the last swap change nodeswap made
 *       swap_file=/var/lib/nodeswap/swapfile
 *                                     repeated, one per swap file nodeswap created and has not
 *                                     deleted (only absolute paths are accepted). Recorded before
 *                                     the file is created, forgotten when nodeswap deletes it or
 *                                     finds it gone. Such a file is nodeswap's even when the
 *                                     policy's [File] Path= has moved elsewhere.
 *       writeback_file=/var/lib/nodeswap/zram-writeback
 *                                     repeated, one per file nodeswap created for [Zram]
 *                                     Writeback= and has not deleted, recorded and forgotten as
 *                                     swap_file= is. Only such a file is ever deleted by nodeswap
 *                                     (revert --purge, or an apply whose Writeback= no longer
 *                                     names it); a file the operator made is not recorded.
 *       last_run=apply|revert         the last apply or revert that wrote this file (one that
 *       last_run_usec=N               changed nothing writes nothing), when it ended
 *       last_run_result=ok|failed     (CLOCK_REALTIME µs) and whether an action of it failed
 *
 *   /run/nodeswap-state/state this boot only
 *       zram_id=1                     repeated, one per zram device nodeswap created
 */

/* The two files' contents (state.c). */
typedef struct NodeswapState {
        int saved_swappiness;   /* -1: not saved */
        int saved_page_cluster; /* -1: not saved */
        int saved_min_free_kbytes;      /* -1: not saved */
        int saved_watermark_scale_factor; /* -1: not saved */
        int set_min_free_kbytes;        /* the vm.min_free_kbytes apply last wrote, -1: none */
        bool reverted;          /* "nodeswap revert" ran last */
        char **stopped_units;   /* conflict units nodeswap stopped, to start again on revert */
        char **no_swap_units;   /* units nodeswap set MemorySwapMax=0 on (no_swap_unit=) */
        unsigned io_latency_major, io_latency_minor; /* io_latency=: the disk of system.slice's target */
        uint64_t io_latency_usec;       /* ... and the target, 0: none recorded */
        int *zram_ids;          /* zram devices nodeswap created this boot */
        size_t n_zram_ids;
        uint64_t swap_changed_usec; /* CLOCK_REALTIME of the last swap change nodeswap made, 0 none */
        char **swap_files;      /* absolute paths of the swap files nodeswap created and has not deleted */
        char **writeback_files; /* absolute paths of the [Zram] Writeback= files nodeswap created */
        uint64_t last_run_usec; /* CLOCK_REALTIME µs of the last apply or revert that wrote the state, 0 none */
        bool last_run_revert;   /* that run was a revert */
        bool last_run_failed;   /* ... and an action of it failed */
        char **unreadable;      /* state files this user may not read (read as empty) */
        char *saved_zswap[_ZSWAP_PARAM_MAX]; /* each zswap parameter before nodeswap first wrote it,
                                              * as the kernel showed it; NULL: not saved */
} NodeswapState;

#define STATE_PERSISTENT_PATH "/var/lib/nodeswap/state"
/* Not below /run/nodeswap: that is a policy directory (nodeswap.conf(5)), read by every user's status and
 * check, and nodeswap never writes into a policy directory. */
#define STATE_RUNTIME_PATH "/run/nodeswap-state/state"

/* Initialise to the empty state: nothing saved, no units, no zram ids. */
void nodeswap_state_init(NodeswapState *s);
void nodeswap_state_done(NodeswapState *s);

/* A deep copy of s into *ret (written only on success): execute works on a copy of what probe()
 * read, so that the plan and its execution start from one reading of the files. */
int nodeswap_state_copy(const NodeswapState *s, NodeswapState *ret);

/* The one reader of both files, for probe() and nodeswap-generator (which reads reverted=).
 * Missing files read as the empty state; so do files this user may not read (EACCES, EPERM: a
 * non-root status), which are listed in ret->unreadable. ret is written only on success. */
int state_load(const char *root, NodeswapState *ret);

/* The longest zswap parameter value kept (a crypto API name has at most 128 bytes). */
#define STATE_ZSWAP_VALUE_MAX 128
/* A value the state file can hold byte for byte on one line: printable, no white space. */
bool state_zswap_value_valid(const char *v);
/* Keep a zswap parameter's value from before nodeswap's first write: 0, 1 when one is kept already
 * (the older stays), -EINVAL for a value state_zswap_value_valid() refuses. */
int state_save_zswap(NodeswapState *s, ZswapParam p, const char *value);
void state_forget_zswap(NodeswapState *s, ZswapParam p);
/* Only the persistent file, for the writer's durability rule (execute/state-save.c). */
int state_load_persistent(const char *root, NodeswapState *ret);
/* Whether s holds a record a later run needs: the sysctl and zswap values revert puts back,
 * "reverted", the units nodeswap stopped, the swap files that are nodeswap's. The rest of the
 * persistent file (swap_changed_usec, last_run*) only says when nodeswap last ran and changed swap;
 * after a power cut the boot's apply writes it anew, and the kubelet, started after that apply,
 * has seen the swap anyway. */
bool state_has_records(const NodeswapState *s);

/* Record / forget a zram device id (no duplicates). Return 0, or 1 when nothing changed. */
int state_add_zram_id(NodeswapState *s, int id);
int state_remove_zram_id(NodeswapState *s, int id);
bool state_has_zram_id(const NodeswapState *s, int id);

/* Record / forget a swap file nodeswap created (an absolute path, no duplicates). Return 0, or 1
 * when nothing changed; -EINVAL for a path that is not absolute. */
int state_add_swap_file(NodeswapState *s, const char *path);
int state_remove_swap_file(NodeswapState *s, const char *path);
/* Record / forget a unit nodeswap gave MemorySwapMax=0 (no_swap_unit=): 0, 1 when nothing
 * changed, -EINVAL for a name systemd would refuse. */
int state_add_no_swap_unit(NodeswapState *s, const char *unit);
int state_remove_no_swap_unit(NodeswapState *s, const char *unit);
/* The same for a [Zram] Writeback= file nodeswap created (writeback_file=). */
int state_add_writeback_file(NodeswapState *s, const char *path);
int state_remove_writeback_file(NodeswapState *s, const char *path);
