/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/*
 * nodeswap status, rendered: the text for people and the JSON for programs, both from one
 * StatusModel (what the node is, what the policy says, the verdict, and the values derived from
 * them once: the kubelet's effective settings and their sources, rpi-swap's units, zram's RAM).
 *
 * The JSON document (nodeswap status --json) is one object:
 *   swaps            array, in /proc/swaps order, of
 *     path           as in /proc/swaps
 *     kind           "zram" | "file" | "partition"
 *     size, used     bytes
 *     priority       the kernel's priority (negative when none was given)
 *     owner          "nodeswap" | "conflict" (the distribution's, from a [Conflicts] unit) | "other"
 *     unit           the .swap unit name for the path, or null
 *     zram           (kind "zram" only) object:
 *       id               N of /dev/zramN
 *       algorithm        the active compression algorithm, or null
 *       orig_data_size   bytes stored (uncompressed)
 *       compr_data_size  bytes they take compressed
 *       mem_used_total   bytes of RAM the device really uses; charged to no cgroup, so no
 *                        pod's memory limit accounts for it
 *       mem_limit        bytes, 0 = none
 *       ratio            orig_data_size / compr_data_size, or null when empty
 *       writeback        null without a backing device; else an object (bd_stat, bytes):
 *         backing_dev      the device pages are written back to (/dev/loopN for a Writeback= file)
 *         stored           bytes written back and still kept there (bd_count)
 *         written          bytes written back since the device was set up (bd_writes)
 *         read             bytes read back from it (bd_reads)
 *         limit_left       bytes left of the day's WritebackLimit= budget, or null when uncapped
 *     storage        (kind "file" only) "nvme" | "ssd" | "virtual" | "rotational" | "mmc" | null
 *                    (known for the policy's [File] Path= only)
 *     storage_device (kind "file" only) e.g. "nvme0n1", or null
 *   mem_total, mem_available, swap_total, swap_free   bytes, from /proc/meminfo
 *   page_size        bytes: the kernel's page size (a swap header is written for it; 16384 on
 *                    a Raspberry Pi 5)
 *   zram_mem_used    bytes of RAM all zram swap uses (sum of mem_used_total)
 *   zswap            null when the kernel has no zswap, else object:
 *     enabled        true | false
 *     compressor, max_pool_percent, accept_threshold_percent, shrinker_enabled
 *                    each parameter as the kernel shows it, null when the kernel lacks it
 *     pool_bytes     RAM the pool uses (/proc/meminfo Zswap), null when not shown
 *     stored_bytes   the pages it holds, uncompressed (Zswapped), null when not shown
 *     stored_pages, written_back_pages   debugfs counters, null unless readable (root, mounted)
 *     cmdline        object: the zswap parameters the kernel command line sets, NAME: value
 *   swappiness       vm.swappiness, or null when unreadable
 *   page_cluster     vm.page-cluster, or null when unreadable
 *   min_free_kbytes  vm.min_free_kbytes, or null when unreadable
 *   min_free_kbytes_set  the value nodeswap's apply last wrote, or null (none): when it differs
 *                    from min_free_kbytes, something (khugepaged after a THP change) rewrote it
 *   watermark_scale_factor  vm.watermark_scale_factor, or null when unreadable
 *   zones            array, one per /proc/zoneinfo zone with managed pages: node, zone ("Normal"),
 *                    free, min, low, high, managed (bytes)
 *   kubelet          object:
 *     unit           the kubelet unit (policy's Unit= or the first present), or null
 *     active         true | false | null (unknown: systemd not asked)
 *     dropin         the drop-in path nodeswap manages, or null
 *     dropin_present true when that file exists
 *     swap_behavior  the kubelet's effective swapBehavior, every file it reads merged in its order:
 *                    "LimitedSwap" | "NoSwap" | "invalid" (a value the kubelet refuses) | null (no
 *                    file sets it: the kubelet's default, NoSwap)
 *     swap_behavior_source  "FILE:LINE" of the file that decides it, or null (the default)
 *     fail_swap_on   the effective failSwapOn (true: the default)
 *     fail_swap_on_source   "FILE:LINE", the --fail-swap-on flag that wins ("--fail-swap-on=false
 *                    (KUBELET_EXTRA_ARGS in /etc/default/kubelet:4)"), or null (the default)
 *     flags          array of strings: the kubelet flags nodeswap decides on (--fail-swap-on,
 *                    --config, --config-dir) and the memory eviction flags, each the one that
 *                    wins, named with how it reaches the kubelet and FILE:LINE
 *     config_dir     the drop-in directory the kubelet reads (--config-dir), or null
 *     config_dir_source  where config_dir comes from: the flag, or the directory of DropIn=
 *     config_files   array, in merge order, of every file the kubelet reads:
 *       path, invalid (why the kubelet refuses it, or null), invalid_line (or null),
 *       swap_behavior (the value it sets, or null), swap_behavior_line (null: the file does not
 *       set it; a line with a null swap_behavior: set to null, back to the default),
 *       fail_swap_on (true | false | null: not set)
 *     swap_stale     true when the unit started before nodeswap's last swap change (the kubelet
 *                    still works with the old SwapTotal), false when after, null when unknown
 *     memory_eviction  object: the kubelet's effective hard memory.available eviction threshold
 *       threshold    "100Mi", "5%" ..., or null: none (memory pressure ends in the OOM killer)
 *       threshold_bytes  the threshold in bytes (a percentage of MemTotal, as the eviction manager
 *                    computes it), or null: none, or refused
 *       invalid      why the kubelet refuses threshold ("a percentage above 100%" ...): it does not
 *                    start; null: it takes it
 *       source       where it comes from: "FILE:LINE", the --eviction-hard flag (and the file that
 *                    carries it), or "the kubelet's default ..." (no file or flag sets evictionHard,
 *                    or mergeDefaultEvictionSettings keeps it); with no threshold, the file or flag
 *                    that set evictionHard without it
 *       default      true when the threshold is the kubelet's built-in default
 *   units            array, one per conflict unit ([Conflicts] Units= in policy order, then what
 *                    follows from rpi-swap's configuration and [File] Path=), of
 *     name, exists, masked, masked_runtime (masked in /run by nodeswap), active (true|false|null)
 *   rpi_swap         Raspberry Pi OS's rpi-swap, null when its generator is not installed:
 *     mechanism      its [Main] Mechanism= ("auto", "zram+file", "zram", "swapfile", ...)
 *     source         "FILE:LINE" of the Mechanism= in effect, null for the default (auto)
 *     path           its [File] Path= (default /var/swap)
 *     units          the units its generator makes for that mechanism (and its remove service
 *                    for the policy's [File] Path=), each also in "units" above
 *   cgroup           "v1" | "hybrid" | "v2" | "unknown"
 *   psi              true when /proc/pressure/memory is readable
 *   memory_pressure  the node's /proc/pressure/memory (report/pressure.h), null when it is missing
 *                    (PSI off): some_avg10, some_avg60, some_avg300, full_avg10, full_avg60,
 *                    full_avg300 (percent), some_total_us, full_total_us (µs stalled); the
 *                    figures of a missing line null
 *   swap_traffic     pswpin, pswpout, zswpin, zswpout from /proc/vmstat (pages since boot), each
 *                    null when the kernel does not count it
 *   reverted         true when "nodeswap revert" ran last
 *   swap_files       array, in state order, of the swap files nodeswap created (state swap_file=):
 *     path           the file
 *     state          "on" | "off" | "gone" | "not-regular" (a symlink ...) | "unlabelled" (no
 *                    longer carries nodeswap's swap label); the last two are never deleted
 *     policy_path    true when it is the policy's [File] Path= (apply keeps it; the others are
 *                    deleted by the next apply, every one by revert --purge)
 *   no_swap_units    array, one per unit of [Kubelet] NoSwapUnits= (when the policy gives pods swap),
 *                    per unit nodeswap's state records, and the kubelet's unit, of
 *     unit           the unit's name
 *     memory_swap_max  its cgroup's memory.swap.max: bytes, "max", or null (no cgroup: not running)
 *     listed         in NoSwapUnits= under a policy that gives pods swap
 *     kubelet        the kubelet's unit
 *     set_by         "nodeswap" (its MemorySwapMax=0 is in effect), "operator" (the unit's own files
 *                    set MemorySwapMax=, which nodeswap leaves alone), or null (nobody: it may swap)
 *     source         "FILE:LINE" of the operator's MemorySwapMax=, or null
 *   io_latency       [Kubelet] IOLatencyTargetSec=: the disk swap shares with the daemons, and
 *                    system.slice's io.latency target on it
 *     disk           the whole disk ("vda"), null when swap shares none with the daemons
 *     device         its "MAJ:MIN", or null
 *     shared_with    the daemons' path on it ("/", "/var/lib/kubelet"), or null
 *     io_controller  cgroup v2 with the io controller (without it nodeswap sets no target)
 *     kernel_io_latency  the kernel has io.latency (CONFIG_BLK_CGROUP_IOLATENCY), null: unknown
 *     target_usec    system.slice's target on that disk (or on the one nodeswap recorded), null: none
 *     set_by         "nodeswap" when it is the target nodeswap set, or null
 *   policy_files     the policy files read, in the order applied (empty: no policy, nodeswap
 *                    leaves the node alone)
 *   pods             (--pods only) array, sorted by cgroup, of
 *     cgroup         the container's cgroup below the v2 mount
 *     qos            "burstable" | "guaranteed" | "besteffort" (from the cgroup path)
 *     memory_max, memory_current, swap_max, swap_current, zswap_current
 *                    bytes; "max" for no limit; null when the file is absent (zswap_current:
 *                    memory.zswap.current, the container's pages in zswap, compressed)
 *     memory_pressure, pod_memory_pressure
 *                    the container's and its pod's memory.pressure, shaped as the node's, or null
 *     swap_traffic   the container's memory.stat pswpin, pswpout (kernels after 6.12), zswpin, zswpout
 *     swap_peak      bytes: memory.swap.peak, the most it had in swap; null when the kernel has no
 *                    such file (before 6.5)
 *     memory_min     bytes: memory.min (the request, where the kubelet's MemoryQoS keeps it); null: absent
 *     swap_events    null when memory.swap.events is absent, else {high, max, fail}: the times its
 *                    swap went over memory.swap.high, a swap-out was refused at memory.swap.max,
 *                    a swap-out failed
 *     request        bytes: its memory request, memory.min when set, else derived from
 *                    memory.swap.max × MemTotal / SwapTotal (the inverse of the kubelet's
 *                    calcSwapForBurstablePods: a whole MiB when one gives that limit); null: unknown
 *     request_source "memory.min" | "memory.swap.max" | null
 *     allowance      bytes: memory.swap.max of a Burstable container with a limit, else null
 *     allowance_state "none" | "below" | "at" (memory.swap.events max > 0, or its peak is the
 *                    allowance) | "over" (more in swap than the allowance: it was lowered under it)
 *     needed         null, or for a container at or over its allowance:
 *       swap           bytes it used (memory.swap.peak, else memory.swap.current)
 *       at_least       true when it hit its limit: it would have used more
 *       request        bytes: the request that gives it that much swap, a whole MiB
 *       quantity       the same as a Kubernetes quantity ("300Mi"); what the scheduler reserves
 *       allowance      bytes of swap that request gives
 *       over_memtotal  true when that request is above MemTotal: no request gives it
 *   density          (--pods only) null when MemTotal is unknown, else:
 *     containers     Burstable containers with an allowance
 *     allowances     bytes: the sum of their allowances
 *     swap_total     bytes: SwapTotal
 *     share          allowances / swap_total, or null without swap
 *     ceiling        1 + SwapTotal / MemTotal: how many times what fits in RAM alone pods hold at most
 *     zram_ratio     orig_data_size / compr_data_size of the zram swap, null without zram or pages
 *     ceiling_zram   the ceiling with zram's compressed pages in RAM at that ratio, null likewise
 *
 */
#include <json-c/json.h>
#include <stdio.h>

#include "plan/verdict.h"
#include "policy/policy.h"
#include "probe/host.h"
#include "probe/pods.h"
#include "plan/allowance.h"

/* Whether the node matches the policy, judged as plan judges it. */
typedef struct StatusVerdict {
        Findings findings;      /* the policy's errors, then the plan's and the rules' findings */
        bool have_policy;       /* a policy was found (valid or not) */
        bool policy_valid;
        size_t pending;         /* actions the plan has */
} StatusVerdict;

typedef struct StatusModel {
        const Policy *policy;
        const HostState *host;
        const StatusVerdict *verdict;
        const PodSwap *pods;    /* with_pods only */
        size_t n_pods;
        bool with_pods;

        /* derived once, read by both renderers */
        KubeletEffective kubelet;       /* every file the kubelet reads, merged */
        char *swap_behavior_source;     /* "FILE:LINE" of the swapBehavior in effect, NULL: the default */
        char *fail_swap_on_source;      /* the same for failSwapOn, or the flag that sets it */
        char *memory_eviction_source;   /* kubelet_memory_eviction_source() */
        char **kubelet_flags;           /* kubelet_decided_flags(): the flags that decide, NULL: none */
        char **rpi_units;               /* the units rpi-swap's generator makes (NULL: not installed) */
        size_t rpi_units_present;       /* how many of them are in host->units */
        size_t rpi_units_masked;        /* ... and masked */
        uint64_t zram_mem_used;         /* bytes of RAM all zram swap uses */
        int matches;                    /* 1 matches, 0 differs, -1 unknown (no or an invalid policy) */
        char *last_run_time;            /* "YYYY-MM-DDTHH:MM:SSZ" of the last run, NULL: none */

        /* with_pods (issue 26): each container against its allowance, and the node's density */
        ContainerNeed *needs;           /* one per pod, NULL when MemTotal is unknown */
        Density density;
        bool density_known;
} StatusModel;

/* The model for p, h and v (and pods when with_pods), which it points to and must outlive it.
 * Returns 0 or -ENOMEM. */
int status_model_build(const Policy *p, const HostState *h, const StatusVerdict *v, const PodSwap *pods,
                       size_t n_pods, bool with_pods, StatusModel *ret);
void status_model_done(StatusModel *m);

/* The one-line verdict, also all that status -q prints. */
void status_print_verdict(FILE *f, const StatusVerdict *v);
/* The text: swap, zswap, sysctls, kubelet, conflict units, rpi-swap, swap files, the verdict and
 * the findings (info ones only with verbosity > 0), the containers with pods. */
void status_print_text(FILE *f, const StatusModel *m, int verbosity, bool color);
/* The JSON document above. Returns 0 or -ENOMEM (nothing in *ret). */
int status_to_json(const StatusModel *m, json_object **ret);

/* The node's density (plan/allowance.h), as status --pods and allowance show it: two lines of
 * text, and the "density" member (null for d NULL). */
void density_print_text(FILE *f, const Density *d);
int density_to_json(const Density *d, json_object *parent);
