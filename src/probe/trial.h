/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <systemd/sd-bus.h>

#include "probe/host.h"

/* nodeswap trial (issue 27): what a trial's runs are and what was measured, and the readers of
 * everything a trial reads from the node: the run's cgroup after its service ended, the node's
 * swap traffic, the disks' sector counters and zram's memory, the service's state over D-Bus, the
 * executable named on the command line, and the saved records (for --compare).
 *
 * A figure the kernel does not give is TRIAL_MISSING, never 0: rendered as JSON null and "—". */

#define TRIAL_MISSING UINT64_MAX
#define TRIAL_DIR "/var/lib/nodeswap/trials"
#define TRIAL_RECORD_VERSION 1
#define TRIAL_RECORD_MAX (16 * MiB)
#define TRIAL_CGROUP_ROOT "/sys/fs/cgroup"

typedef enum TrialResult {
        TRIAL_RESULT_OK,                /* exit status 0 */
        TRIAL_RESULT_OOM,               /* the kernel's oom_kill > 0, or systemd's Result "oom-kill" */
        TRIAL_RESULT_TIMEOUT,           /* Result "timeout": RuntimeMaxSec= passed */
        TRIAL_RESULT_FAILED,            /* any other end: exit status != 0, a signal */
        _TRIAL_RESULT_MAX,
        _TRIAL_RESULT_INVALID = -1,
} TrialResult;
const char *trial_result_to_string(TrialResult r);
int trial_result_from_string(const char *s, TrialResult *ret);

/* Where the pages swapped out and in were counted. */
typedef enum TrialSwapSource {
        TRIAL_SWAP_SOURCE_NONE,         /* nowhere: missing */
        TRIAL_SWAP_SOURCE_CGROUP,       /* the run's memory.stat pswpout/pswpin (kernels after 6.12) */
        TRIAL_SWAP_SOURCE_VMSTAT,       /* the node's /proc/vmstat delta during the run: every
                                         * process's swap traffic, not only the run's */
        _TRIAL_SWAP_SOURCE_MAX,
        _TRIAL_SWAP_SOURCE_INVALID = -1,
} TrialSwapSource;
/* "none" (JSON null), "memory.stat", "vmstat" */
const char *trial_swap_source_to_string(TrialSwapSource s);
int trial_swap_source_from_string(const char *s, TrialSwapSource *ret);

/* One run: what it was asked (limit, swap) and what was measured. Sizes in bytes, times in µs. */
typedef struct TrialRun {
        unsigned index;                 /* 1-based, in the order run */
        uint64_t limit;                 /* MemoryMax=; TRIAL_MISSING: no limit (find-floor's first run) */
        bool swap;                      /* a run with swap (MemorySwapMax= the allowance) */
        uint64_t swap_max;              /* MemorySwapMax=: 0 for a no-swap run */
        TrialResult result;
        int exit_status;                /* ExecMainStatus when it exited; -1: killed by a signal or unknown */
        uint64_t oom_kills;             /* memory.events oom_kill */
        uint64_t oom_at_usec;           /* since the start, when result is oom (else TRIAL_MISSING) */
        uint64_t wall_usec;
        uint64_t cpu_user_usec, cpu_system_usec;        /* cpu.stat */
        uint64_t memory_peak, swap_peak;                /* memory.peak, memory.swap.peak */
        uint64_t swapped_out, swapped_in;               /* bytes (pages × page size) */
        TrialSwapSource swap_source;
        char *disk;                     /* the disk whose counters are below (NULL: none found) */
        uint64_t disk_written, disk_read;               /* /sys/block/DISK/stat sectors × 512 */
        uint64_t zram_ram, zram_ram_peak;               /* mm_stat mem_used_total: end - start, max - start */
        uint64_t stall_full_usec;                       /* memory.pressure full total= */
        char *log;                      /* the run's log file (host path) */
} TrialRun;
void trial_run_done(TrialRun *r);

/* The node's swap as the trial found it (from probe()). */
typedef struct TrialSwap {
        char *path;
        char *kind;                     /* swap_kind_to_string() */
        uint64_t size;
        char *disk;                     /* the disk under it; a zram device's backing disk; NULL */
} TrialSwap;

typedef struct TrialNode {
        char *backend;                  /* "none", "zram", "file", "partition", or two joined by '+' */
        char *zram_algorithm;           /* the algorithm of the first zram swap device; NULL */
        char *kernel;                   /* /proc/sys/kernel/osrelease; NULL */
        uint64_t mem_total, swap_total, swap_free, page_size;
        TrialSwap *swaps;
        size_t n_swaps;
} TrialNode;

typedef struct TrialRefusal {
        uint64_t limit;
        char *reason;
} TrialRefusal;

/* The floor and the verdict (computed by plan/trial.c from the runs). */
typedef struct TrialGroup {
        uint64_t limit;                 /* TRIAL_MISSING: no limit */
        bool swap;
        uint64_t swap_max;
        unsigned runs, ok;
        TrialResult result;             /* ok when all were, else the first other result */
        uint64_t wall_usec;             /* mean over its ok runs; TRIAL_MISSING */
        double slowdown;                /* mean wall of its ok runs / the roomiest ok run's; NAN */
        uint64_t disk_written_per_run;  /* mean over its runs; TRIAL_MISSING */
        double runs_per_drive_life;     /* --drive-tbw TB × 10^12 / that; NAN */
        double cpu_s_per_gib_out;       /* (its ok runs' CPU - the roomiest no-swap run's) / their GiB
                                         * swapped out; NAN: no ok run swapped, or not above it */
        uint64_t zram_ram_peak;         /* highest of its runs; TRIAL_MISSING */
        uint64_t swapped_out;           /* mean; TRIAL_MISSING */
} TrialGroup;

typedef struct TrialVerdict {
        uint64_t floor_no_swap;         /* the smallest limit whose no-swap runs all finished; TRIAL_MISSING */
        uint64_t floor_swap;            /* the same with swap; TRIAL_MISSING */
        uint64_t roomiest_wall_usec;    /* the ok run at the highest limit (no limit highest); TRIAL_MISSING */
        TrialGroup *groups;             /* by limit (highest first), the no-swap run first */
        size_t n_groups;
} TrialVerdict;

/* --- nodeswap trial --density (issue 39): its points and what they came to (plan/density.h
 * decides, cli/trial.c runs the replicas, report/trial.c renders). */
typedef struct TrialDensityPoint {
        unsigned replicas;
        bool swap;
        unsigned repeat;                /* 1..runs_per_point */
        char *gave_out;                 /* density_gave_out_to_string(): "held", "oom", ... */
        unsigned oom, failed, unsettled;
        uint64_t settle_max_usec;       /* the slowest replica's settle time; TRIAL_MISSING */
        uint64_t settle_mean_usec;      /* over the replicas that settled; TRIAL_MISSING */
        uint64_t hold_usec;             /* 0: no hold (it gave out before) */
        uint64_t stall_full_usec;       /* the node's full stall during the hold; TRIAL_MISSING */
        uint64_t budget_stall_full_usec;/* the budget slice's (all replicas stalled at once); TRIAL_MISSING */
        uint64_t replicas_stall_full_usec; /* the replicas' own full stall (their slices'
                                         * memory.pressure), summed; TRIAL_MISSING */
        uint64_t memory, swapped;       /* the replicas' memory.current and memory.swap.current at the
                                         * end of the hold, summed; TRIAL_MISSING */
        uint64_t swapped_out, swapped_in;       /* the node's /proc/vmstat during the point, bytes */
        uint64_t disk_written;          /* the swap's disk (TrialRun.disk), bytes */
        uint64_t zram_ram_peak;         /* zram's mem_used_total, highest during the point - before */
        uint64_t wall_usec;             /* the point from the first start to the last stop */
} TrialDensityPoint;

typedef struct TrialDensity {
        uint64_t request, limit;        /* --request, --limit */
        uint64_t swap_max;              /* MemorySwapMax= of a replica with swap (density_allowance()) */
        uint64_t kubelet_mem_total, kubelet_swap_total; /* the totals the allowance is computed from */
        unsigned replicas_max, around;
        uint64_t hold_usec, settle_timeout_usec;
        uint64_t mem_available;         /* MemAvailable when the trial started */
        uint64_t budget;                /* MemoryMax= of the replicas' parent slice */
        char *budget_source;            /* "--memory", "MemAvailable less memory.available" */
        uint64_t lone_settle_usec;      /* the lone replica's settle time (the first point) */
        uint64_t lone_footprint;        /* its memory.current + memory.swap.current at the end of its hold */
        unsigned predicted_no_swap, predicted_swap;     /* density_predict() */
        unsigned density_no_swap, density_swap;         /* the largest count that held; 0: none */
        bool at_least_no_swap, at_least_swap;           /* it held at the search's top */
        double ceiling;                 /* 1 + SwapTotal / MemTotal */
        double ceiling_zram;            /* with zram's pages in RAM at its ratio; NAN: no zram or unknown */
        /* the scheduler's view (plan/density.h DensityScheduler) */
        uint64_t allocatable, eviction_hard, requests_on_node;
        uint64_t kube_reserved, system_reserved;        /* their memory; 0: none */
        unsigned pods_on_node, admitted, requests_unknown, max_pods;
        bool by_max_pods;               /* maxPods, not the memory, limits admitted */
        uint64_t request_for_swap;      /* the request at which the scheduler admits density_swap; 0 */
        char *eviction_source;          /* where memory.available comes from, in words */
        char *kube_reserved_source, *system_reserved_source, *max_pods_source; /* the same; NULL: none set */
        TrialDensityPoint *points;
        size_t n_points;
} TrialDensity;
void trial_density_done(TrialDensity *d);

typedef struct TrialRecord {
        char *id;
        uint64_t started_usec;          /* CLOCK_REALTIME */
        char **command;                 /* argv, the resolved path first */
        char *cwd;
        bool find_floor;
        uint64_t seed;
        unsigned runs_per_point;
        unsigned cpus;                  /* 0: no quota */
        uint64_t timeout_usec;          /* 0: none */
        double drive_tbw;               /* TB; 0: not given */
        char *upper_source;             /* find-floor: where the upper bound came from */
        uint64_t search_lower, search_upper;    /* find-floor: the bounds; TRIAL_MISSING */
        uint64_t search_floor_no_swap, search_floor_swap; /* find-floor: its floors; TRIAL_MISSING */
        char *search_end;               /* find-floor: why it ended without a floor; NULL */
        TrialNode node;
        TrialRefusal *refusals;
        size_t n_refusals;
        TrialRun *runs;
        size_t n_runs;
        TrialVerdict verdict;
        TrialDensity *density;          /* --density: its points and figures; NULL otherwise */
        bool density_mode;              /* a density record (read back: --compare leaves it out) */
        char *path;                     /* the file it was read from (--compare) */
} TrialRecord;
void trial_record_done(TrialRecord *t);
void trial_verdict_done(TrialVerdict *v);

/* --- The run's cgroup (Documentation/admin-guide/cgroup-v2.rst) ------------------------------
 *
 * Read from the run's slice after its service ended: every file read here is hierarchical (the
 * slice's page counters and memory.peak include its child's charges; memory.events counts a
 * child's events, memory.events.local only its own; cpu.stat's usage and memory.stat's events
 * keep a removed child's counts; PSI counts a task's stall in every ancestor). */
typedef struct TrialCgroupSample {
        uint64_t memory_peak;           /* memory.peak (Linux 5.19) */
        uint64_t swap_peak;             /* memory.swap.peak (Linux 6.5) */
        uint64_t oom_kill;              /* memory.events oom_kill */
        uint64_t pswpin, pswpout;       /* memory.stat, pages (kernels after 6.12) */
        uint64_t zswpout;               /* memory.stat (5.19) */
        uint64_t user_usec, system_usec;/* cpu.stat */
        uint64_t full_total_usec;       /* memory.pressure "full ... total=" */
} TrialCgroupSample;
/* dir: the cgroup's directory (a full path, root prefix included). Every file absent or without
 * its key leaves its figure TRIAL_MISSING; 0 unless the directory itself is missing (-ENOENT). */
int trial_cgroup_read(const char *dir, TrialCgroupSample *ret);
/* A running cgroup's memory.current and memory.swap.current (TRIAL_MISSING without swap
 * accounting): what a density replica holds now. -ENOENT without memory.current. */
int trial_cgroup_footprint(const char *dir, uint64_t *ret_memory, uint64_t *ret_swap);

/* --- The node --------------------------------------------------------------------------------- */
typedef struct TrialNodeSample {
        uint64_t pswpin, pswpout;       /* /proc/vmstat, pages; TRIAL_MISSING */
        uint64_t disk_read_sectors, disk_written_sectors; /* /sys/block/DISK/stat fields 3 and 7 */
        uint64_t zram_mem_used;         /* the sum of mm_stat mem_used_total over the zram swaps */
} TrialNodeSample;
/* disk may be NULL (its figures missing); zram_ids the zram devices in /proc/swaps. */
int trial_node_read(const char *root, const char *disk, const int *zram_ids, size_t n_zram_ids,
                    TrialNodeSample *ret);
/* /proc/pressure/memory's "full" total= below root, µs: the time every non-idle task of the node
 * stalled on memory at once. TRIAL_MISSING without PSI. */
uint64_t trial_node_stall_full(const char *root);
/* /sys/block/DISK/stat (Documentation/block/stat.rst): read sectors and written sectors, in
 * 512-byte units whatever the device's sector size. -EINVAL when the text has fewer than 7 fields. */
int trial_parse_block_stat(const char *text, uint64_t *ret_read_sectors, uint64_t *ret_written_sectors);

/* The node's swap setup from a probed host: backend, algorithm, sizes, page size, and each swap
 * area's disk (a file's or a partition's disk, a zram device's backing disk). */
int trial_node_describe(const char *root, const HostState *h, TrialNode *ret);
void trial_node_done(TrialNode *n);
/* The disk whose counters a trial reads: the first swap area's disk (TrialNode.swaps), else the
 * disk holding cwd (zram alone: what the workload itself writes). NULL when none. */
int trial_disk_for(const char *root, const TrialNode *n, const char *cwd, char **ret_disk);

/* --- The service over D-Bus (org.freedesktop.systemd1(5)) ------------------------------------ */
typedef struct TrialUnitState {
        char *active_state, *sub_state, *result;
        int exec_main_code;             /* CLD_EXITED 1, CLD_KILLED 2, CLD_DUMPED 3; 0 not yet */
        int exec_main_status;
        uint64_t start_usec, exit_usec; /* ExecMainStartTimestampMonotonic, ExecMainExitTimestampMonotonic */
} TrialUnitState;
void trial_unit_state_done(TrialUnitState *s);
/* path: the unit's object path. 0 or -errno. */
int trial_unit_read(sd_bus *b, const char *path, TrialUnitState *ret);
/* Whether the service has ended: ActiveState inactive or failed, or active with SubState exited
 * (RemainAfterExit=yes). */
bool trial_unit_ended(const TrialUnitState *s);

/* --- The command ------------------------------------------------------------------------------ */
/* name with a '/': made absolute against cwd; else the first executable regular file of that name
 * in path_env's directories (":"-separated; NULL: /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin).
 * -ENOENT (none), -EACCES (not executable), -ENOMEM. */
int trial_find_executable(const char *name, const char *path_env, const char *cwd, char **ret);

/* --- Records ---------------------------------------------------------------------------------- */
/* Parse a record's JSON text. -EINVAL (with *ret_reason: what is wrong) for a document that is not
 * a version-1 record. */
int trial_record_parse(const char *text, TrialRecord *ret, char **ret_reason);
/* Every ROOT/var/lib/nodeswap/trials/ *.json, oldest first (by id). A file that cannot be read or
 * parsed is skipped and named in *ret_skipped ("PATH: why"). No directory: 0 and none. */
int trial_records_read(const char *root, TrialRecord **ret, size_t *ret_n, char ***ret_skipped);
void trial_records_free(TrialRecord *t, size_t n);
