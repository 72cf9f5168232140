/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check's findings on where the kubelet's memory.available threshold lies among the watermarks
 * (issue 38, item 2). */
#include "plan/reclaim.h"

/* The kubelet compares memory.available with its thresholds every 10 s (pkg/kubelet/kubelet.go,
 * evictionMonitoringPeriod, handed to the eviction manager's loop). */
#define KUBELET_EVICTION_PERIOD_S 10

/* The value the plan writes to a sysctl, else the node's. */
static int sysctl_after(const Plan *pl, const char *name, int now) {
        for (size_t i = 0; pl && i < pl->n_actions; i++)
                if (pl->actions[i].kind == ACTION_SYSCTL && streq_ptr(pl->actions[i].target, name))
                        return pl->actions[i].sysctl.value;
        return now;
}

/* The RAM zram's swap may take once the plan ran: its mem_limit, else its disksize (pages that do
 * not compress take a page each). */
static uint64_t zram_pool_max(const Policy *p, const HostState *h) {
        if (p->backend_set)
                return p->backends & BACKEND_ZRAM ? (p->zram.mem_limit ?: p->zram.size) : 0;
        uint64_t z = 0;
        for (size_t j = 0; j < h->n_zrams; j++)
                if (h->zrams[j].swap_on)
                        z += h->zrams[j].mem_limit ?: h->zrams[j].disksize;
        return z;
}

int check_reclaim(const Policy *p, const HostState *h, const Plan *pl, SwapBehavior b, Findings *fs) {
        char t[FORMAT_BYTES_MAX], mn[FORMAT_BYTES_MAX], lw[FORMAT_BYTES_MAX], z[FORMAT_BYTES_MAX];
        uint64_t swap_after = pl && p->backend_set ? pl->swap_total_after : h->swap_total;
        uint64_t threshold = memory_available_after(p, h);
        int min_free = sysctl_after(pl, "vm.min_free_kbytes", h->min_free_kbytes);
        int wsf = sysctl_after(pl, "vm.watermark_scale_factor", h->watermark_scale_factor);
        if (swap_after == 0 || threshold == 0 || min_free < 0 || wsf < 0 || h->mem_total == 0)
                return 0;
        Watermarks w;
        watermarks_compute(h->zones, h->n_zones, h->page_size, h->mem_total, min_free, wsf, &w);
        format_bytes(t, sizeof t, threshold);
        format_bytes(mn, sizeof mn, w.min);
        format_bytes(lw, sizeof lw, w.low);
        int r;

        if (threshold <= w.min)
                return findings_add_at(
                        fs, VERDICT_EVICTION_AFTER_OOM, p, POLICY_KEY_SYSCTL_MIN_FREE_KBYTES, NULL,
                        strdup_printf("the kubelet's memory.available threshold (%s) is at or below the zones' "
                                      "min watermarks (%s, vm.min_free_kbytes %d): memory.available (capacity "
                                      "less the working set) never falls below free memory, and free memory "
                                      "falls below min only when reclaim fails, where the OOM killer acts, so "
                                      "the OOM killer ends a process before the kubelet evicts a pod",
                                      t, mn, min_free),
                        strdup_printf("raise the threshold above %s (evictionHard memory.available), or set "
                                      "[Sysctl] MinFreeKbytes= below half of it", mn));
        if (b == SWAP_BEHAVIOR_LIMITED_SWAP && threshold >= w.low) {
                r = findings_add_at(
                        fs, VERDICT_EVICTION_BEFORE_SWAP, p, POLICY_KEY_SYSCTL_WATERMARK_SCALE_FACTOR, NULL,
                        strdup_printf("the kubelet's memory.available threshold (%s) is at or above the zones' "
                                      "low watermarks (%s, vm.watermark_scale_factor %d): kswapd starts "
                                      "reclaiming, and swapping, only when free memory falls below low, so the "
                                      "kubelet can evict pods while the node's swap is still free",
                                      t, lw, wsf),
                        strdup("let nodeswap raise the watermarks ([Sysctl] WatermarkScaleFactor=auto, "
                               "MinFreeKbytes=auto), or lower the threshold"));
                if (r < 0)
                        return r;
        }
        /* the rate at which the OOM point comes before the kubelet's next look */
        uint64_t rate = (threshold - w.min) / KUBELET_EVICTION_PERIOD_S;
        r = findings_add(fs, VERDICT_EVICTION_RAMP,
                         strdup_printf("between the kubelet's memory.available threshold (%s) and the OOM point "
                                       "(the min watermarks, %s) lie %s; the kubelet looks every %d s, so "
                                       "memory allocated faster than %s/s can reach the OOM killer before the "
                                       "kubelet evicts", t, mn,
                                       format_bytes(lw, sizeof lw, threshold - w.min), KUBELET_EVICTION_PERIOD_S,
                                       format_bytes(z, sizeof z, rate)),
                         strdup("a higher threshold buys time; nodeswap's MinFreeKbytes=auto keeps min at most "
                                "half of it"));
        if (r < 0)
                return r;
        uint64_t pool = zram_pool_max(p, h);
        if (pool > 0 && b == SWAP_BEHAVIOR_LIMITED_SWAP) {
                r = findings_add(fs, VERDICT_EVICTION_ZRAM,
                                 strdup_printf("zram can hold up to %s of RAM: pages the pods swap there leave "
                                               "their working sets but stay in RAM, compressed, so each page "
                                               "swapped out frees less than a page, the pool itself is no "
                                               "pod's and the kubelet's ranking of pods does not see it, and "
                                               "kswapd compresses on the node's CPUs", format_bytes(z, sizeof z, pool)),
                                 strdup("cap the pool with [Zram] MemLimit=, or give pods a swap file "
                                        "behind zram ([Swap] Backend=zram file)"));
                if (r < 0)
                        return r;
        }
        return 0;
}
