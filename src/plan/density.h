/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/kubelet-config.h"
#include "probe/trial.h"

/* nodeswap trial --density's decisions (issue 39), pure like plan/trial.c: the swap a replica
 * gets, the count the arithmetic predicts, the search for the largest count that holds, the
 * judgement of one point, and the scheduler's view of the same request.
 *
 * A density point is N replicas of the command started together, each in its own transient unit
 * with MemoryMax= the limit and MemorySwapMax= 0 (the series without swap) or the replica's
 * allowance (the series with swap). It holds when, after every replica settled and the hold:
 *   - every replica is alive, or exited 0;
 *   - none was OOM-killed (its memory.events oom_kill, or systemd's Result oom-kill), none exited
 *     non-zero or was killed;
 *   - every replica settled (its memory.current stopped growing, or it exited 0) within
 *     DENSITY_SLOWDOWN_MAX times the lone replica's settle time of the same trial (at least
 *     DENSITY_SETTLE_FLOOR_USEC), times the
 *     replicas per online CPU when there are more replicas than CPUs (N replicas started together
 *     share the CPUs: their start-up's CPU time alone makes them N / CPUs times as slow);
 *   - the node's full memory stall (/proc/pressure/memory "full" total=) over the hold stayed
 *     under DENSITY_STALL_MAX percent of it: check's thrashing threshold (plan/pressure.h). */

/* A replica settled when its memory.current moved by less than DENSITY_SETTLE_BAND of itself (and
 * less than DENSITY_SETTLE_SLACK bytes) for DENSITY_SETTLE_USEC. */
#define DENSITY_SETTLE_USEC (2 * USEC_PER_SEC)
#define DENSITY_SETTLE_BAND 0.02
#define DENSITY_SETTLE_SLACK (512 * 1024)
#define DENSITY_SLOWDOWN_MAX 3.0
/* The lone replica's settle time counts as at least this: below it the 250 ms polls and the
 * settle window's own timing are most of it (a lone idle replica settled in 0.28 s in the e2e VM,
 * and 9 of them, started together, in 4.7 s: "slow" by noise alone). */
#define DENSITY_SETTLE_FLOOR_USEC USEC_PER_SEC
#define DENSITY_STALL_MAX 10.0          /* percent: PRESSURE_FULL_AVG60_WARN */
#define DENSITY_HOLD_DEFAULT_USEC (10 * USEC_PER_SEC)
#define DENSITY_SETTLE_TIMEOUT_DEFAULT_USEC (300 * USEC_PER_SEC)
#define DENSITY_REPLICAS_MAX_DEFAULT 64u
#define DENSITY_REPLICAS_MAX_LIMIT 1000u

/* Why a point did not hold: the measure that gave out first, in this order. */
typedef enum DensityGaveOut {
        DENSITY_HELD = 0,
        DENSITY_GAVE_OUT_OOM,           /* a replica was OOM-killed */
        DENSITY_GAVE_OUT_EXIT,          /* a replica exited non-zero or was killed */
        DENSITY_GAVE_OUT_SETTLE,        /* a replica did not settle within the timeout */
        DENSITY_GAVE_OUT_SLOW,          /* a replica settled later than DENSITY_SLOWDOWN_MAX × the lone one */
        DENSITY_GAVE_OUT_STALL,         /* the node's full stall over the hold reached DENSITY_STALL_MAX */
        _DENSITY_GAVE_OUT_MAX,
        _DENSITY_GAVE_OUT_INVALID = -1,
} DensityGaveOut;
/* "held", "oom", "exit", "settle", "slow", "stall" */
const char *density_gave_out_to_string(DensityGaveOut g);

/* What one point's replicas did (cli/trial.c fills it from the units and the cgroups). */
typedef struct DensityOutcome {
        unsigned replicas;
        unsigned cpus;                  /* online CPUs (0: taken as 1) */
        unsigned oom;                   /* OOM-killed */
        unsigned failed;                /* exited non-zero, killed, or timed out by RuntimeMaxSec= */
        unsigned unsettled;             /* did not settle before the settle timeout */
        uint64_t settle_max_usec;       /* the slowest settled replica's settle time */
        uint64_t hold_usec;             /* how long the hold lasted (0: none, it ended before) */
        uint64_t stall_full_usec;       /* the node's full stall during the hold; TRIAL_MISSING */
} DensityOutcome;

/* The judgement of o against the lone replica's settle time (0: unknown, no slowdown test). */
DensityGaveOut density_judge(const DensityOutcome *o, uint64_t lone_settle_usec);

/* The swap the kubelet gives a Burstable container with request and limit on a node whose kubelet
 * read mem_total and swap_total at its start: allowance_compute() (the kubelet's
 * calcSwapForBurstablePods, int64(float64(request) / float64(MemTotal) × float64(SwapTotal))),
 * rounded down to whole pages, as the kernel keeps memory.swap.max. 0 and *ret_reason (a static
 * sentence) when it gives none: no swap, a request of zero, equal to the limit, above MemTotal.
 * -EINVAL for mem_total 0 or a request above the limit. */
int density_allowance(uint64_t mem_total, uint64_t swap_total, uint64_t page_size, uint64_t request,
                      uint64_t limit, uint64_t *ret_swap, const char **ret_reason);

/* The count the arithmetic predicts from a lone replica's footprint (its memory.current once
 * settled; at most the limit): without swap, what fits in MemAvailable; with swap, each replica
 * needs at least footprint - allowance of RAM (at least one page) and all together at most
 * MemAvailable + SwapFree, so it is the smaller of the two. At least 1, at most max. */
unsigned density_predict(uint64_t mem_available, uint64_t swap_free, uint64_t footprint, uint64_t allowance,
                         uint64_t page_size, bool swap, unsigned max);

/* The search for the largest count that holds, fed with outcomes like the floor search
 * (plan/trial.h): it starts at the prediction; while the points hold it goes up by 1, 2, 4 ...
 * replicas, while they do not it goes down the same way, and once it has a count that holds below
 * one that does not it bisects between them. It ends when they are next to each other, when it
 * held at max, or when it would pass start + around (around > 0: the e2e's "±2 steps"; the
 * density is then "at least" that). It assumes that a count that does not hold is not followed by
 * a higher one that does. */
typedef struct DensitySearch {
        unsigned start, max, around;
        unsigned held;                  /* the largest count that held so far; 0: none */
        unsigned failed;                /* the smallest count that did not; 0: none */
        unsigned step;
        unsigned current;               /* the point being run; 0: none */
        bool done;
        bool at_least;                  /* it stopped at max or at start + around while holding */
} DensitySearch;

void density_search_init(DensitySearch *s, unsigned start, unsigned max, unsigned around);
/* 1 and *ret the next count to run; 0: done. */
int density_search_next(DensitySearch *s, unsigned *ret);
/* The current point held (all its repeats) or not. -EINVAL without a current point. */
int density_search_feed(DensitySearch *s, bool held);

/* --- The scheduler's view ------------------------------------------------------------------------
 *
 * The node's allocatable memory is its capacity (MemTotal, as cAdvisor reads it for the kubelet)
 * minus kubeReserved's and systemReserved's memory and the hard memory.available eviction
 * threshold (kubernetes/kubernetes pkg/kubelet/cm/node_container_manager_linux.go
 * GetNodeAllocatableAbsolute: capacity - reservation, where the reservation adds
 * hardEvictionReservation); the scheduler admits a pod while the requests of the pods on the node
 * plus its own stay within it (NodeResourcesFit) and the node has fewer than maxPods pods. */
typedef struct DensityScheduler {
        uint64_t capacity;              /* MemTotal */
        uint64_t kube_reserved, system_reserved;        /* memory; 0: none */
        uint64_t eviction_hard;         /* memory.available in bytes; 0: none */
        uint64_t allocatable;           /* capacity minus the three (0 when they exceed it) */
        uint64_t requests_on_node;      /* the memory requests of the pods already on the node */
        unsigned pods_on_node;
        unsigned max_pods;              /* the kubelet's maxPods (its default 110) */
        unsigned admitted;              /* pods of the request the scheduler would still admit */
        bool by_max_pods;               /* maxPods, not the memory, is what limits admitted */
} DensityScheduler;


/* Fill s's derived fields (allocatable, admitted, by_max_pods) for request (> 0). -EINVAL for 0. */
int density_scheduler(DensityScheduler *s, uint64_t request);
/* The largest request (rounded down to whole MiB, a quantity "NNNMi") at which the scheduler
 * admits n more pods on s's node; 0 when it admits none (no room, or maxPods). */
uint64_t density_request_for(const DensityScheduler *s, unsigned n);
/* memory.available as the kubelet reads it ("100Mi", "5%" of capacity) in bytes. -EINVAL. */
int density_eviction_bytes(const char *threshold, uint64_t capacity, uint64_t *ret);
