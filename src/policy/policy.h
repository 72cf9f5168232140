/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/knobs.h"
#include "shared/util.h"
#include "policy/size.h"

/* Backend bits. Policy.backends == 0 with backend_set == true means Backend=none. */
enum {
        BACKEND_ZRAM = 1 << 0,
        BACKEND_FILE = 1 << 1,
        BACKEND_ZSWAP = 1 << 2,   /* zswap in front of the file: only with BACKEND_FILE, never with zram */
};

/* Storage kinds a swap file may live on ([File] Storage=). */
typedef enum StorageKind {
        STORAGE_NVME = 1 << 0,
        STORAGE_SSD = 1 << 1,
        STORAGE_VIRTUAL = 1 << 2,
        STORAGE_ROTATIONAL = 1 << 3,
        STORAGE_MMC = 1 << 4,
} StorageKind;
/* "nvme", "ssd", ... for a single bit; NULL for none or several. */
const char *storage_kind_to_string(StorageKind k);
int storage_kind_from_string(const char *s, StorageKind *ret);

typedef enum SwapBehavior {
        SWAP_BEHAVIOR_UNSET = 0,   /* leave the kubelet alone */
        SWAP_BEHAVIOR_NO_SWAP,
        SWAP_BEHAVIOR_LIMITED_SWAP,
        _SWAP_BEHAVIOR_MAX,
} SwapBehavior;
/* "NoSwap", "LimitedSwap" as the kubelet spells them; "" for SWAP_BEHAVIOR_UNSET. */
const char *swap_behavior_to_string(SwapBehavior b);
int swap_behavior_from_string(const char *s, SwapBehavior *ret);

/* Where a key's value came from, for messages raised after parsing (plan, apply). */
typedef struct Origin {
        const char *file;       /* points into Policy.files; NULL for a built-in default */
        unsigned line;
} Origin;

/* Every key of the policy, for the origin of each value (-v, messages that name FILE:LINE). */
typedef enum PolicyKey {
        POLICY_KEY_SWAP_BACKEND,
        POLICY_KEY_ZRAM_SIZE,
        POLICY_KEY_ZRAM_ALGORITHM,
        POLICY_KEY_ZRAM_PRIORITY,
        POLICY_KEY_ZRAM_MEM_LIMIT,
        POLICY_KEY_ZRAM_RECOMPRESS_ALGORITHM,
        POLICY_KEY_ZRAM_WRITEBACK,
        POLICY_KEY_ZRAM_WRITEBACK_IDLE_AFTER,
        POLICY_KEY_ZRAM_WRITEBACK_INTERVAL,
        POLICY_KEY_ZRAM_WRITEBACK_LIMIT,
        POLICY_KEY_FILE_PATH,
        POLICY_KEY_FILE_SIZE,
        POLICY_KEY_FILE_PRIORITY,
        POLICY_KEY_FILE_STORAGE,
        POLICY_KEY_ZSWAP_COMPRESSOR,
        POLICY_KEY_ZSWAP_MAX_POOL_PERCENT,
        POLICY_KEY_ZSWAP_ACCEPT_THRESHOLD_PERCENT,
        POLICY_KEY_ZSWAP_SHRINKER,
        POLICY_KEY_FILE_DISCARD,
        POLICY_KEY_FILE_ENCRYPT,
        POLICY_KEY_ZRAM_WRITEBACK_ENCRYPT,
        POLICY_KEY_SYSCTL_SWAPPINESS,
        POLICY_KEY_SYSCTL_PAGE_CLUSTER,
        POLICY_KEY_SYSCTL_MIN_FREE_KBYTES,
        POLICY_KEY_SYSCTL_WATERMARK_SCALE_FACTOR,
        POLICY_KEY_KUBELET_SWAP_BEHAVIOR,
        POLICY_KEY_KUBELET_DROPIN,
        POLICY_KEY_KUBELET_UNIT,
        POLICY_KEY_KUBELET_MEMORY_EVICTION,
        POLICY_KEY_KUBELET_NO_SWAP_UNITS,
        POLICY_KEY_KUBELET_NODE_FEATURES,
        POLICY_KEY_KUBELET_IO_LATENCY_TARGET_SEC,
        POLICY_KEY_CONFLICTS_UNITS,
        _POLICY_KEY_MAX,
} PolicyKey;
/* "Zram" and "Size" for POLICY_KEY_ZRAM_SIZE. */
const char *policy_key_section(PolicyKey k);
const char *policy_key_name(PolicyKey k);

/* The backends Backend= names (schema.c), in the order nodeswap writes them. area: what a swap
 * area of the backend is called in messages, NULL when it has none of its own (zswap, a cache in
 * front of the file); priority: the key of that area's priority. */
typedef struct BackendDef {
        const char *name;
        unsigned bit;
        const char *area;
        PolicyKey priority;
} BackendDef;
extern const BackendDef policy_backends[];
extern const size_t policy_n_backends;

typedef struct Policy {
        char **files;           /* every file read, in the order applied */
        bool found;             /* false: no policy file exists at all */

        bool backend_set;
        unsigned backends;      /* BACKEND_* bits */

        struct {
                uint64_t size;          /* bytes, rounded down to the page size */
                char *size_expr;        /* as written (or the default) */
                char **algorithms;      /* preference list, never empty */
                int priority;           /* 0..32767 */
                uint64_t mem_limit;     /* 0 = none */
                char *mem_limit_expr;   /* as written ("" = none) */
                char **algorithm_params; /* parallel to algorithms: "" or the kernel's form ("level=3") */
                char **recompress;      /* RecompressAlgorithm=: priority 1, 2, 3 in order; NULL = none */
                char **recompress_params; /* parallel to recompress, as algorithm_params */
                char *writeback;        /* Writeback=: a block device (/dev/...) or a file; NULL = none */
                uint64_t writeback_idle_after; /* seconds a page must be idle before it is written back */
                uint64_t writeback_interval;   /* seconds between runs of the writeback timer; 0 = no timer */
                uint64_t writeback_limit;      /* bytes written back per day at most, a multiple of 4 KiB; 0 = no cap */
                bool writeback_encrypt;        /* WritebackEncrypt=: a Writeback= file through dm-crypt with a key
                                                * made at every setup (a block device is used as it is) */
        } zram;

        struct {
                char *path;             /* absolute, normalised */
                uint64_t size;
                char *size_expr;
                int priority;
                unsigned storage;       /* StorageKind bits */
                SwapDiscard discard;    /* Discard= */
                bool encrypt;           /* Encrypt=: through dm-crypt with a key made at every setup */
        } file;
/* The smallest encrypted swap file, in pages: its marker page (probe/crypt.h's CRYPT_DATA_OFFSET,
 * at most a page) and the ten pages the kernel wants of a swap area. */
#define POLICY_ENCRYPTED_FILE_MIN_PAGES 11

        /* [Zswap]: used only when backends has BACKEND_ZSWAP. -1: leave the kernel's value. */
        struct {
                char **compressors;             /* preference list, never empty */
                int max_pool_percent;           /* 1..100 */
                int accept_threshold_percent;   /* 0..100 */
                int shrinker;                   /* 1 yes, 0 no */
        } zswap;

        int swappiness;         /* -1 = leave alone */
        int page_cluster;       /* -1 = leave alone */
        /* [Sysctl] MinFreeKbytes= and WatermarkScaleFactor= (plan/reclaim.h): a value, SYSCTL_KEEP
         * (leave alone) or SYSCTL_AUTO (nodeswap's rule when pods get swap) */
        int min_free_kbytes;
        int watermark_scale_factor;

        SwapBehavior swap_behavior;
        char *dropin;           /* absolute path of the kubelet drop-in */
        char *kubelet_unit;     /* NULL = auto */
        char *memory_eviction;  /* [Kubelet] MemoryEviction=: the evictionHard memory.available the drop-in
                                 * sets under LimitedSwap when nothing else sets one ("100Mi", "5%");
                                 * NULL: off */
        char **no_swap_units;   /* [Kubelet] NoSwapUnits=: units kept out of swap (MemorySwapMax=0)
                                 * when pods get swap; "kubelet" is the kubelet's unit; empty: none */
        bool node_features;     /* [Kubelet] NodeFeatures=: keep NFD's feature file (plan/features.h) */
        uint64_t io_latency_usec; /* [Kubelet] IOLatencyTargetSec=: system.slice's io.latency target on the
                                   * disk swap shares with the daemons (plan/iolatency.h), in µs;
                                   * IO_LATENCY_AUTO or IO_LATENCY_NO */

        char **conflict_units;

        /* Where each key was last set (file NULL: the built-in default); for Units=, the last line
         * that added to or cleared the list. */
        Origin origin[_POLICY_KEY_MAX];
} Policy;

/* The value of a priority key (policy_backends[].priority). */
int policy_priority(const Policy *p, PolicyKey k);

/* The values of the reclaim keys that are not numbers. */
enum {
        SYSCTL_KEEP = -1,
        SYSCTL_AUTO = -2,
};

/* [Kubelet] IOLatencyTargetSec='s words, and its bounds (nodeswap.conf(5)). */
#define IO_LATENCY_AUTO UINT64_MAX
#define IO_LATENCY_NO UINT64_C(0)
#define IO_LATENCY_MIN_USEC UINT64_C(1000)              /* 1ms */
#define IO_LATENCY_MAX_USEC (UINT64_C(10) * 1000 * 1000) /* 10s */

/* The reclaim keys' bounds (nodeswap.conf(5), "Reclaim headroom"). */
#define RECLAIM_MIN_FREE_FLOOR_KB 1024u         /* vm.rst: below 1024 KB the system breaks subtly */
#define RECLAIM_MIN_FREE_CAP_PERCENT 10u        /* nodeswap's clamp: too high a value OOMs at once */
#define RECLAIM_WSF_MAX_NEW 3000                /* vm.watermark_scale_factor's bound from Linux 5.18 */
#define RECLAIM_WSF_MAX_OLD 1000                /* and before */

/* What sizes are evaluated against. */
typedef struct PolicyContext {
        uint64_t ram;           /* MemTotal in bytes */
        uint64_t page_size;
        int watermark_scale_factor_max; /* the running kernel's vm.watermark_scale_factor bound
                                         * (probe/reclaim.h); 0: unknown, the newest kernels' 3000 */
} PolicyContext;

/* One diagnostic: "FILE:LINE: [Section] Key=value: message". */
typedef struct PolicyError {
        char *file;
        unsigned line;          /* 0: the file as a whole */
        char *section;          /* may be NULL */
        char *key;              /* may be NULL */
        char *value;            /* may be NULL */
        char *message;
        int read_errno;         /* > 0: the file or directory could not be read (EACCES ...) */
} PolicyError;

typedef struct PolicyErrors {
        PolicyError *errors;
        size_t n;
} PolicyErrors;

void policy_errors_clear(PolicyErrors *e);
/* Formats one error as the single line documented in nodeswap.conf(5). */
char *policy_error_format(const PolicyError *e);

/* The built-in defaults (what nodeswap.conf documents). */
int policy_init_defaults(Policy *p, const PolicyContext *ctx);
void policy_done(Policy *p);

/* Read the policy. config != NULL: that one file only. Otherwise the search path below root
 * (/etc/nodeswap, /run/nodeswap, /usr/local/lib/nodeswap, /usr/lib/nodeswap: nodeswap.conf and
 * nodeswap.conf.d/\*.conf). Returns 0 when the policy is valid, -EINVAL when errors were found
 * (all of them appended to ret_errors), other -errno on failure to read. ret_policy->found is
 * false when there is no policy file. */
int policy_load(const char *root, const char *config, const PolicyContext *ctx,
                Policy *ret_policy, PolicyErrors *ret_errors);

/* policy_load() with one file of the search path replaced: the search path below root is read
 * as if the file as->file (relative to the working directory, like config) were at as->path
 * (nodeswap.conf or nodeswap.conf.d/NAME.conf in one of the search directories, below root),
 * whether or not something is there now; errors in it name as->file. A path nodeswap does not
 * read is an error that names it (-EINVAL). config must be NULL. */
typedef struct PolicyFileAs {
        const char *path;
        const char *file;
} PolicyFileAs;
int policy_load_as(const char *root, const char *config, const PolicyFileAs *as, const PolicyContext *ctx,
                   Policy *ret_policy, PolicyErrors *ret_errors);

/* The same for a policy given as text (--config - reads standard input): parsed as one file that
 * is called name in messages ("<stdin>"). */
int policy_load_text(const char *name, const char *text, size_t len, const PolicyContext *ctx,
                     Policy *ret_policy, PolicyErrors *ret_errors);

/* The name of names nearest to s (a typo, an abbreviation), or NULL when none is near. */
const char *policy_suggest(const char *s, char *const *names);

/* Writeback= names a block device when it is below /dev, a file nodeswap backs with a loop device
 * otherwise. */
static inline bool policy_writeback_is_file(const Policy *p) {
        return p->zram.writeback && !startswith(p->zram.writeback, "/dev/");
}
/* The timer that runs "nodeswap writeback" (units/nodeswap-writeback.timer). */
#define NODESWAP_WRITEBACK_TIMER "nodeswap-writeback.timer"
/* Whether the policy asks for writeback or recompression on a schedule: then nodeswap-generator
 * pulls NODESWAP_WRITEBACK_TIMER into timers.target and apply starts it; otherwise apply stops it. */
static inline bool policy_wants_writeback_timer(const Policy *p) {
        return p->backend_set && (p->backends & BACKEND_ZRAM) && (p->zram.writeback || p->zram.recompress) &&
               p->zram.writeback_interval > 0;
}
/* The kernel counts writeback_limit in 4 KiB units whatever the page size (zram.rst). */
#define ZRAM_WRITEBACK_UNIT 4096

/* The word in [Kubelet] NoSwapUnits= that stands for the kubelet's unit ([Kubelet] Unit=). */
#define NO_SWAP_UNITS_KUBELET "kubelet"
/* Whether nodeswap keeps [Kubelet] NoSwapUnits= out of swap: only when the policy gives pods swap
 * (KEP-2400's advice is for nodes whose pods swap; a NoSwap node's system daemons swap as before). */
static inline bool policy_wants_no_swap_units(const Policy *p) {
        return p->swap_behavior == SWAP_BEHAVIOR_LIMITED_SWAP && p->no_swap_units && p->no_swap_units[0];
}

/* The largest policy file read. */
#define POLICY_FILE_MAX (1024 * 1024)

/* The built-in NoSwap policy that revert plans against. */
int policy_revert(Policy *ret, const PolicyContext *ctx);
