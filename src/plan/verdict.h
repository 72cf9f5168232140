/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"

/* One table of verdicts: every finding nodeswap reports, by plan, apply, check or status, has one
 * row here: an id that scripts may match on, one severity, and what it means in general. The
 * message of a finding says what was found on this node; its hint says what to do.
 *
 * The severities mean the same for every command: an error is something apply refuses to go on
 * with (plan and apply exit 1, check exits 1); a warning is something an operator should know
 * (apply goes on, or fixes it itself); info is context. nodeswap(8) lists the table (FINDINGS).
 *
 * Adding a finding is adding one row: X(NAME, "id", SEVERITY, "what it means"). */
#define VERDICT_TABLE(X)                                                                                      \
        /* the policy */                                                                                      \
        X(POLICY_INVALID, "policy-invalid", ERROR, "the policy has an error; nothing is changed")             \
        X(POLICY_UNREADABLE, "policy-unreadable", WARNING,                                                  \
          "a policy file or directory cannot be read by this user; the policy was judged without it")        \
        X(HOST_UNREADABLE, "host-unreadable", WARNING,                                                       \
          "a part of the node cannot be read by this user: the verdict leaves it out (never fatal)")         \
        /* zram */                                                                                            \
        X(ZRAM_UNAVAILABLE, "zram-unavailable", ERROR, "zram is wanted but the kernel has no zram")          \
        X(ZRAM_ALGORITHM_UNAVAILABLE, "zram-algorithm-unavailable", ERROR,                                   \
          "none of the policy's zram algorithms is offered by this kernel")                                   \
        X(ZRAM_TOO_LARGE, "zram-too-large", WARNING, "a zram device can take more RAM than the node can give") \
        /* zswap */                                                                                           \
        X(ZSWAP_UNAVAILABLE, "zswap-unavailable", ERROR, "zswap is wanted but the kernel has no zswap")      \
        X(ZSWAP_COMPRESSOR_UNAVAILABLE, "zswap-compressor-unavailable", ERROR,                               \
          "none of the policy's zswap compressors is offered by the kernel's crypto API")                    \
        X(ZSWAP_PARAMETER_UNAVAILABLE, "zswap-parameter-unavailable", ERROR,                                 \
          "the policy sets a zswap parameter this kernel does not have")                                     \
        X(ZSWAP_CMDLINE, "zswap-cmdline", WARNING,                                                           \
          "the kernel command line sets a zswap parameter otherwise than the policy: nodeswap leaves it")    \
        X(ZSWAP_WITH_ZRAM, "zswap-with-zram", WARNING,                                                       \
          "zswap is on in front of a zram swap device: pages are compressed twice")                          \
        X(ZRAM_FEATURE_UNAVAILABLE, "zram-feature-unavailable", ERROR,                                       \
          "the policy asks zram for algorithm parameters, recompression or writeback that this kernel lacks") \
        X(ZRAM_WRITEBACK_TARGET, "zram-writeback-target", ERROR,                                             \
          "[Zram] Writeback= names something zram cannot write back to")                                     \
        /* the swap file */                                                                                   \
        X(SWAPFILE_NO_FILESYSTEM, "swapfile-no-filesystem", ERROR, "no mounted file system holds the swap file") \
        X(SWAPFILE_FILESYSTEM, "swapfile-filesystem", ERROR, "the file system cannot hold a swap file")      \
        X(SWAPFILE_NO_SPACE, "swapfile-no-space", ERROR, "the file system has too little free space for the swap file") \
        X(SWAPFILE_STORAGE, "swapfile-storage", ERROR,                                                       \
          "the swap file is on storage that [File] Storage= does not allow")                                 \
        X(SWAPFILE_STORAGE_WEAR, "swapfile-storage-wear", WARNING,                                           \
          "the swap file is on SD card, eMMC or rotational storage that Storage= allows")                    \
        X(SWAPFILE_NOT_REGULAR, "swapfile-not-regular", ERROR, "something other than a regular file is at [File] Path=") \
        X(SWAPFILE_PERMISSIONS, "swapfile-permissions", ERROR,                                               \
          "the swap file that apply would swap on may be read or written by others")                         \
        X(SWAPFILE_PERMISSIONS_ACTIVE, "swapfile-permissions-active", WARNING,                               \
          "the active swap file may be read or written by others (apply does not swap it off)")              \
        X(SWAPFILE_PAGESIZE, "swapfile-pagesize", WARNING,                                                   \
          "the swap file's header was made for another page size (apply rewrites it)")                       \
        X(SWAPFILE_UNSAFE_PATH, "swapfile-unsafe-path", ERROR,                                               \
          "a symlink, or a directory not root's or writable by others, is on the swap file's path")          \
        X(SWAPFILE_NOT_SWAP, "swapfile-not-swap", ERROR,                                                     \
          "the file at [File] Path= is no swap area (nodeswap does not overwrite other data)")               \
        X(SWAPFILE_HOLES, "swapfile-holes", WARNING,                                                         \
          "the swap file has holes or shared, compressed or inline extents, which the kernel refuses "        \
          "(apply replaces it)")                                                                              \
        X(SWAPFILE_COW, "swapfile-cow", WARNING,                                                             \
          "the swap file is on btrfs without the No_COW attribute or with compression, which the kernel "     \
          "refuses (apply replaces it)")                                                                      \
        X(SWAPFILE_RECORD_LEFT_ALONE, "swapfile-record-left-alone", WARNING,                                 \
          "a swap file nodeswap made is no longer one it may delete")                                        \
        /* swap areas */                                                                                      \
        X(SWAPOFF_NO_ROOM, "swapoff-no-room", ERROR, "the pages of the swap going off do not fit in memory") \
        X(SWAPOFF_FORCED, "swapoff-forced", WARNING, "--force swaps off although the pages may not fit")      \
        X(SWAP_UNMANAGED, "swap-unmanaged", WARNING, "swap that is neither nodeswap's nor a [Conflicts] unit's stays on") \
        X(SWAP_PRIORITY_SHARED, "swap-priority-shared", WARNING, "two swap areas share one priority")        \
        X(SWAP_UNENCRYPTED, "swap-unencrypted", WARNING,                                                     \
          "pods get swap on a disk in clear: their swapped-out memory stays readable on the disk")            \
        X(TMPFS_SWAP, "tmpfs-swap", WARNING,                                                                 \
          "before Linux 6.3 tmpfs has no noswap: memory-backed emptyDir volumes of Burstable pods can reach swap") \
        X(SWAPPINESS_ZRAM_CHURN, "swappiness-zram-churn", WARNING,                                           \
          "a high swappiness with zram while pods may not swap churns pages")                                \
        X(PSI_OFF, "psi-off", WARNING, "pressure stall information is off on a node with zram")              \
        X(PSI_OFF_INFO, "psi-off-info", INFO, "pressure stall information is off")                           \
        /* memory pressure (plan/pressure.c) */                                                              \
        X(MEMORY_THRASHING, "memory-thrashing", WARNING,                                                     \
          "the node or a pod stalls on memory (PSI full avg60 at or above 10 %): pods thrash while the "      \
          "kubelet's memory.available looks fine")                                                           \
        X(MEMORY_STALL_ZRAM, "memory-stall-zram", INFO,                                                      \
          "on zram, PSI counts compressing and decompressing pages as memory stall")                         \
        X(IO_LATENCY_UNSUPPORTED, "io-latency-unsupported", WARNING,                                         \
          "swap shares the daemons' disk, but without cgroup v2's io controller, or on a kernel without "     \
          "io.latency, system.slice gets no io.latency target")                                               \
        /* the kubelet */                                                                                     \
        X(CGROUP_V1_LIMITEDSWAP, "cgroup-v1-limitedswap", ERROR, "LimitedSwap on a cgroup v1 or hybrid node") \
        X(LIMITEDSWAP_LITTLE_SWAP, "limitedswap-little-swap", WARNING,                                       \
          "LimitedSwap gives a container less than a quarter of its request as swap, or none")               \
        X(KUBELET_UNIT_MISSING, "kubelet-unit-missing", WARNING, "no kubelet unit to restart was found")      \
        X(KUBELET_SWAP_STALE, "kubelet-swap-stale", WARNING, "the kubelet started before the last swap change") \
        X(DROPIN_NAME, "dropin-name", ERROR, "the kubelet ignores a drop-in whose name does not end in .conf") \
        X(DROPIN_INVALID, "dropin-invalid", ERROR, "the kubelet drop-in lacks apiVersion or kind")           \
        X(DROPIN_ORDER, "dropin-order", WARNING, "the drop-in sorts before k3s's own defaults")              \
        X(DROPIN_OVERRIDDEN, "dropin-overridden", ERROR,                                                     \
          "the kubelet would not run with the policy's swapBehavior: another file overrides it, or the "      \
          "kubelet does not read nodeswap's drop-in")                                                         \
        X(KUBELET_CONFIG_INVALID, "kubelet-config-invalid", WARNING,                                         \
          "a file the kubelet reads is invalid: it does not start, whatever nodeswap does (apply still sets up swap)") \
        X(REVERT_LIMITEDSWAP_KEPT, "revert-limitedswap-kept", WARNING,                                       \
          "after revert another file still gives pods swap (LimitedSwap)")                                   \
        X(KUBELET_FAIL_SWAP_ON, "kubelet-fail-swap-on", ERROR,                                               \
          "the kubelet's flags or configuration say failSwapOn: true on a node with swap")                   \
        X(SWAP_CONTROLLER_OFF_LIMITEDSWAP, "swap-controller-off-limitedswap", ERROR,                         \
          "LimitedSwap on a node whose kubelet cgroup has no memory.swap.max: the kubelet sets no swap limit") \
        X(SWAP_CONTROLLER_OFF, "swap-controller-off", WARNING,                                               \
          "no memory.swap.max in the kubelet's cgroup: NoSwap keeps no pod out of the node's swap")          \
        X(KUBELET_CONFIG_DIR_MISSING, "kubelet-config-dir-missing", ERROR,                                   \
          "the --config-dir given to the kubelet does not exist: the kubelet does not start")                \
        X(KUBELET_CONFIG_FILE_MISSING, "kubelet-config-file-missing", ERROR,                                 \
          "kubeadm's --config file /var/lib/kubelet/config.yaml does not exist: the kubelet does not start")  \
        X(KUBELET_FLAG_INVALID, "kubelet-flag-invalid", ERROR,                                               \
          "a kubelet flag nodeswap reads has a value the kubelet refuses: it does not start")                \
        X(KUBELET_SWAP_BEHAVIOR, "kubelet-swap-behavior", INFO, "which of the kubelet's files set swapBehavior") \
        X(MEMORY_EVICTION_MISSING, "memory-eviction-missing", WARNING,                                       \
          "a node with swap whose kubelet has no hard memory.available eviction threshold: the OOM killer decides") \
        X(MEMORY_EVICTION_FLAG, "memory-eviction-flag", ERROR,                                               \
          "an --eviction-hard flag without memory.available, which nodeswap's drop-in cannot override, under LimitedSwap") \
        X(KUBELET_UNIT_SWAPPABLE, "kubelet-unit-swappable", WARNING,                                       \
          "pods get swap, and the kubelet's unit (the kubelet and its container runtime) may swap too")     \
        /* the distribution's swap */                                                                         \
        X(CONFLICT_UNIT_UNMASKED, "conflict-unit-unmasked", WARNING, "a distribution swap unit is not masked") \
        X(SYSTEMD_NOT_RUNNING, "systemd-not-running", WARNING, "without systemd nothing is masked or timed")  \
        X(RPI_SWAP, "rpi-swap", INFO, "Raspberry Pi OS's rpi-swap: its mechanism and which of its units are masked") \
        /* the containers' swap (issue 26) */                                                                 \
        X(CONTAINER_SWAP_FAIL, "container-swap-fail", WARNING,                                               \
          "swap-outs failed for a container (memory.swap.events fail): its allowance or the node's swap was full") \
        /* the reclaim headroom (issue 38) */                                                                 \
        X(MIN_FREE_REWRITTEN, "min-free-rewritten", INFO,                                                    \
          "vm.min_free_kbytes is not what nodeswap set: khugepaged or an operator rewrote it")                \
        X(EVICTION_AFTER_OOM, "eviction-after-oom", WARNING,                                                 \
          "the kubelet's memory.available threshold is at or below the min watermarks: the OOM killer acts first") \
        X(EVICTION_BEFORE_SWAP, "eviction-before-swap", WARNING,                                             \
          "the kubelet's memory.available threshold is at or above the low watermarks: it evicts with swap free") \
        X(EVICTION_RAMP, "eviction-ramp", INFO,                                                              \
          "how fast an allocation may grow before the OOM point comes between two of the kubelet's looks")    \
        X(EVICTION_ZRAM, "eviction-zram", INFO,                                                              \
          "zram's pool is RAM that no pod's working set counts")

#define VERDICT_ENUM(name, id, severity, summary) VERDICT_##name,
typedef enum Verdict {
        VERDICT_TABLE(VERDICT_ENUM)
        _VERDICT_MAX,
} Verdict;
#undef VERDICT_ENUM

typedef enum Severity {
        SEVERITY_INFO,
        SEVERITY_WARNING,
        SEVERITY_ERROR,
        _SEVERITY_MAX,
} Severity;
const char *severity_to_string(Severity s);     /* "info", "warning", "error" */

typedef struct VerdictInfo {
        const char *id;
        Severity severity;
        const char *summary;
} VerdictInfo;
const VerdictInfo *verdict_info(Verdict v);

/* One finding: a row of the table, what was found here, and where in the policy it comes from. */
typedef struct Finding {
        Verdict verdict;
        Severity severity;      /* the table's */
        const char *id;         /* the table's */
        char *message;          /* what was found */
        char *hint;             /* what to do, or NULL */
        char *file;             /* the policy file and line of the key behind it, or NULL */
        unsigned line;
        char *section, *key, *value;    /* each may be NULL */
} Finding;

typedef struct Findings {
        Finding *f;
        size_t n;
} Findings;

void findings_done(Findings *fs);
/* Frees an array of n findings. */
void findings_free(Finding *f, size_t n);
size_t findings_count(const Findings *fs, Severity s);
bool findings_has(const Findings *fs, Verdict v);

/* Appends a finding; message and hint are taken over (freed on failure). -ENOMEM when message is
 * NULL or memory runs out. */
int findings_add(Findings *fs, Verdict v, char *message, char *hint);
/* The same with the policy key behind it (its origin, section, key and value as written), when
 * the policy sets it; value may be NULL (then the origin's line is named without a value). */
int findings_add_at(Findings *fs, Verdict v, const Policy *p, PolicyKey k, const char *value, char *message,
                    char *hint);
/* A policy error as a finding (policy-invalid). */
int findings_add_policy_error(Findings *fs, Verdict v, const PolicyError *e);
/* Moves every finding of from to the end of to, leaving from empty; skips those whose verdict is
 * already in to when unique_ids. */
int findings_merge(Findings *to, Findings *from, bool unique_ids);

/* "FILE:LINE: [Section] Key=value" for a finding with an origin; NULL without one. */
char *finding_where(const Finding *f);
/* The text form, the same for every command:
 *   SEVERITY ID: message
 *           at: FILE:LINE: [Section] Key=value
 *           hint: what to do                                                                     */
void finding_print(FILE *out, const Finding *f, bool color);

/* The version of the JSON documents nodeswap prints ("version" in each; report/json.h renders
 * findings as JSON: plan/ includes no JSON library). */
#define NODESWAP_JSON_VERSION 1
