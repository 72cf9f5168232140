/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The reclaim headroom (issue 38): the kernel's watermarks for given sysctls, and nodeswap's rule
 * for vm.min_free_kbytes and vm.watermark_scale_factor when pods get swap. Pure. */

#include "probe/host.h"
#include "plan/plan.h"
#include "plan/verdict.h"

/* The sums over the zones of the min, low and high watermarks, in bytes. */
typedef struct Watermarks {
        uint64_t min, low, high;
} Watermarks;

/* The watermarks the kernel sets for min_free_kbytes and watermark_scale_factor on zones (their
 * managed pages; mm/page_alloc.c, __setup_per_zone_wmarks()); without zones, one zone of ram. */
void watermarks_compute(const ZoneWatermarks *zones, size_t n, uint64_t page_size, uint64_t ram,
                        int min_free_kbytes, int watermark_scale_factor, Watermarks *ret);

/* nodeswap's rule for pods that swap (nodeswap.conf(5), "Reclaim headroom"), for a node with h's
 * zones and RAM, the backends, and the kubelet's hard memory.available threshold (bytes, 0: none):
 * min_free_kbytes the study's 1/16 of RAM up to 1 GiB but at most half the threshold, so the
 * kubelet's threshold lies above the OOM point; watermark_scale_factor the backend's (2000 with a
 * swap file, 200 with zram alone), raised until the low watermarks lie above the threshold and an
 * eighth, at most the kernel's bound; the factor for the min_free_kbytes in effect after the plan:
 * min_free_fixed when it is not the rule's (a policy's value, or keep: the node's), -1 for the
 * rule's (or the node's, when higher). */
typedef struct ReclaimRule {
        int min_free_kbytes;
        int watermark_scale_factor;
        int wsf_base;           /* the backend's factor, before any raise */
        bool wsf_capped;        /* even the kernel's bound leaves low below the threshold */
} ReclaimRule;
void reclaim_rule(const HostState *h, unsigned backends, uint64_t threshold, int min_free_fixed, ReclaimRule *ret);

/* A memory.available threshold as the kubelet reads it ("100Mi", "1.5G", "5%" of ram) in bytes.
 * -EINVAL when it is neither. */
int memory_available_bytes(const char *q, uint64_t ram, uint64_t *ret);

/* The kubelet's effective hard memory.available threshold once apply wrote p's drop-in (the
 * files as they are when p leaves the kubelet alone), in bytes; 0 when there is none or it cannot
 * be read. */
uint64_t memory_available_after(const Policy *p, const HostState *h);

/* check's findings on the threshold among the watermarks the plan pl leaves (eviction-after-oom,
 * eviction-before-swap, eviction-ramp, eviction-zram): b is the swapBehavior the rules look at. */
int check_reclaim(const Policy *p, const HostState *h, const Plan *pl, SwapBehavior b, Findings *fs);
