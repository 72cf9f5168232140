/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reclaim headroom (issue 38): the kernel's watermarks and nodeswap's rule. */
#include "plan/reclaim.h"

#include "plan/kubelet.h"
#include "policy/size.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

/* mm/vmscan.c's SWAP_CLUSTER_MAX, the floor of a high zone's min watermark */
#define SWAP_CLUSTER_MAX_PAGES 32

/* A zone the kernel treats as high memory for the watermarks: its min is a token, and its pages do
 * not count in the share-out of min_free_kbytes (is_highmem(), ZONE_MOVABLE). */
static bool zone_is_high(const ZoneWatermarks *z) {
        return streq(z->name, "HighMem") || streq(z->name, "Movable");
}

/* __setup_per_zone_wmarks(): min_free_kbytes in pages, shared out over the low zones by their
 * managed pages; a high zone's min is managed/1024 clamped to 32..128 pages; low and high each
 * lie above the one before by the larger of a quarter of the zone's share and
 * watermark_scale_factor/10000 of its managed pages. */
void watermarks_compute(const ZoneWatermarks *zones, size_t n, uint64_t page_size, uint64_t ram,
                        int min_free_kbytes, int watermark_scale_factor, Watermarks *ret) {
        ZoneWatermarks one = { .managed = page_size ? ram / page_size : 0 };
        if (n == 0) {
                snprintf(one.name, sizeof one.name, "Normal");
                zones = &one;
                n = 1;
        }
        uint64_t kib_per_page = page_size >= 1024 ? page_size / 1024 : 1;
        uint64_t pages_min = min_free_kbytes > 0 ? (uint64_t) min_free_kbytes / kib_per_page : 0;
        uint64_t lowmem = 0, min = 0, low = 0, high = 0;
        for (size_t i = 0; i < n; i++)
                if (!zone_is_high(&zones[i]))
                        lowmem += zones[i].managed;
        for (size_t i = 0; i < n; i++) {
                const ZoneWatermarks *z = &zones[i];
                if (z->managed == 0)
                        continue;
                uint64_t share = lowmem ? (uint64_t) ((unsigned __int128) pages_min * z->managed / lowmem) : 0;
                uint64_t zmin = share;
                if (zone_is_high(z)) {
                        zmin = z->managed / 1024;
                        zmin = zmin < SWAP_CLUSTER_MAX_PAGES ? SWAP_CLUSTER_MAX_PAGES : zmin > 128 ? 128 : zmin;
                }
                uint64_t scaled = (uint64_t) ((unsigned __int128) z->managed * (unsigned) watermark_scale_factor / 10000);
                uint64_t d = share / 4 > scaled ? share / 4 : scaled;
                min += zmin;
                low += zmin + d;
                high += zmin + 2 * d;
        }
        *ret = (Watermarks) { min * page_size, low * page_size, high * page_size };
}

/* The rule, with its sources (nodeswap.conf(5) says the same for operators):
 *  - min_free_kbytes: 1/16 of RAM, the 512 MB on 8 GB nodes with which Google's study for the
 *    Kubernetes blog ("Tuning Linux Swap for Kubernetes: A Deep Dive", 2025) saw neither premature
 *    evictions nor OOM kills under a 300-500 MB/s allocation ramp, at most 1 GiB; but at most half
 *    the kubelet's memory.available threshold: free memory falls below min only when reclaim
 *    fails, where the OOM killer acts, and memory.available (capacity less the working set) is
 *    never below free memory, so a threshold at or below min is never crossed before the OOM
 *    killer (Kubernetes' "Swap memory management" page asks for the threshold "slightly lower
 *    than the vm.min_free_kbytes value", reading min_free_kbytes as where reclaim starts; kswapd
 *    starts at the low watermark). The half left between them is what the kubelet, looking every
 *    10 s, has to notice an allocation ramp in. Clamped to 10 % of RAM: "Setting this too high
 *    will OOM your machine instantly" (Documentation/admin-guide/sysctl/vm.rst, min_free_kbytes).
 *  - watermark_scale_factor: the study's 2000 (kswapd wakes a fifth of RAM above min) when a swap
 *    file is among the backends, because a disk swaps out slowly and kswapd needs the lead; 200
 *    with zram alone, which swaps out at memory speed, where a wider gap only keeps kswapd
 *    compressing (bottlerocket-os/bottlerocket#4903: kswapd at 91.7 % CPU with host zram); raised
 *    until the low watermarks lie above the threshold and an eighth, so that kswapd swaps before
 *    the kubelet evicts (kubernetes/kubernetes#120800: evictions while swap was free); at most the
 *    running kernel's bound (1000 before Linux 5.18). */
#define RECLAIM_BASE_DIVISOR 16
#define RECLAIM_BASE_MAX_KB (UINT64_C(1) << 20)
#define RECLAIM_WSF_DISK 2000
#define RECLAIM_WSF_ZRAM 200

static uint64_t low_for(const HostState *h, int min_free_kbytes, int wsf) {
        Watermarks w;
        watermarks_compute(h->zones, h->n_zones, h->page_size, h->mem_total, min_free_kbytes, wsf, &w);
        return w.low;
}

void reclaim_rule(const HostState *h, unsigned backends, uint64_t threshold, int min_free_fixed, ReclaimRule *ret) {
        uint64_t ram_kb = h->mem_total / 1024;
        uint64_t kb = ram_kb / RECLAIM_BASE_DIVISOR;
        uint64_t cap = ram_kb * RECLAIM_MIN_FREE_CAP_PERCENT / 100;
        if (kb > RECLAIM_BASE_MAX_KB)
                kb = RECLAIM_BASE_MAX_KB;
        if (threshold > 0 && kb > threshold / 2 / 1024)
                kb = threshold / 2 / 1024;
        if (kb > cap)
                kb = cap;
        if (kb < RECLAIM_MIN_FREE_FLOOR_KB)
                kb = RECLAIM_MIN_FREE_FLOOR_KB;
        if (kb > INT_MAX)
                kb = INT_MAX;

        /* the watermark distance, for the min_free_kbytes in effect after the plan: the rule's unless
         * the node's is higher (never lowered), or the one fixed otherwise */
        int min_eff = min_free_fixed >= 0 ? min_free_fixed : h->min_free_kbytes > (int) kb ? h->min_free_kbytes : (int) kb;
        int max = h->watermark_scale_factor_max > 0 ? h->watermark_scale_factor_max : RECLAIM_WSF_MAX_NEW;
        int base = backends & BACKEND_FILE ? RECLAIM_WSF_DISK : RECLAIM_WSF_ZRAM, wsf = base;
        bool capped = false;
        if (wsf > max)
                wsf = max;
        uint64_t want_low = threshold + threshold / 8;
        if (threshold > 0 && low_for(h, min_eff, wsf) < want_low) {
                if (low_for(h, min_eff, max) < want_low) {
                        wsf = max;
                        capped = true;
                } else {
                        /* the smallest factor that reaches it: low grows with the factor */
                        int lo = wsf, hi = max;
                        while (hi - lo > 1) {
                                int mid = lo + (hi - lo) / 2;
                                if (low_for(h, min_eff, mid) >= want_low)
                                        hi = mid;
                                else
                                        lo = mid;
                        }
                        wsf = hi;
                }
        }
        *ret = (ReclaimRule) { .min_free_kbytes = (int) kb, .watermark_scale_factor = wsf, .wsf_base = base,
                               .wsf_capped = capped };
}

int memory_available_bytes(const char *q, uint64_t ram, uint64_t *ret) {
        if (!q || !*q)
                return -EINVAL;
        if (endswith(q, "%")) {
                /* a percentage of the node's memory capacity (the kubelet's
                 * pkg/kubelet/eviction/helpers.go, parseThresholdStatement()) */
                char *end = NULL;
                errno = 0;
                double d = strtod(q, &end);
                if (errno != 0 || !end || *end != '%' || end[1] || !(d > 0) || d >= 100)
                        return -EINVAL;
                *ret = (uint64_t) floor((double) ram * d / 100.0);
                return 0;
        }
        return quantity_parse(q, ret);
}

uint64_t memory_available_after(const Policy *p, const HostState *h) {
        _cleanup_(kubelet_config_file_done) KubeletConfigFile ours = {};
        KubeletEffective after;
        const char *memory_available = NULL;
        uint64_t bytes = 0;
        if (p->swap_behavior != SWAP_BEHAVIOR_UNSET && p->dropin) {
                if (kubelet_dropin_memory_eviction(p, &h->kubelet, p->dropin, &memory_available) < 0 ||
                    kubelet_effective_with_dropin(&h->kubelet, p->dropin, p->swap_behavior, memory_available,
                                                  &ours, &after) < 0)
                        return 0;
        } else
                kubelet_config_effective(&h->kubelet, NULL, NULL, &after);
        if (after.memory_available && memory_available_bytes(after.memory_available, h->mem_total, &bytes) < 0)
                bytes = 0;
        return bytes;
}
