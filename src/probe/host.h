/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/features.h"
#include "probe/kubelet-config.h"
#include "probe/loop.h"
#include "probe/noswap.h"
#include "probe/pods.h"
#include "probe/pressure.h"
#include "probe/reclaim.h"
#include "probe/zram-writeback.h"
#include "policy/policy.h"
#include "probe/rpiswap.h"
#include "probe/state.h"
#include "probe/zswap.h"

/* What probe() (probe.h) found on the host. Everything is read through the root prefix. */

typedef enum SwapKind {
        SWAP_KIND_PARTITION,
        SWAP_KIND_FILE,
        SWAP_KIND_ZRAM,
        _SWAP_KIND_MAX,
} SwapKind;
const char *swap_kind_to_string(SwapKind k);

typedef enum SwapOwner {
        SWAP_OWNER_OTHER,       /* neither ours nor a [Conflicts] unit's */
        SWAP_OWNER_NODESWAP,    /* created by nodeswap (state file or label "nodeswap") */
        SWAP_OWNER_CONFLICT,    /* backed by a unit listed in [Conflicts] Units= */
        _SWAP_OWNER_MAX,
} SwapOwner;
const char *swap_owner_to_string(SwapOwner o);

typedef struct SwapDevice {
        char *path;             /* as in /proc/swaps, e.g. /dev/zram0, /var/swap */
        SwapKind kind;
        uint64_t size;          /* bytes */
        uint64_t used;          /* bytes */
        int priority;
        SwapOwner owner;
        char *unit;             /* the .swap unit name for this path (escaped), e.g. dev-zram0.swap */
        int zram_id;            /* -1 unless kind == SWAP_KIND_ZRAM */
        /* An encrypted swap file of nodeswap's (probe/crypt.h): path is the file, mapping what
         * /proc/swaps lists ("/dev/dm-3"), loop_dio whether its loop device does direct I/O. */
        bool encrypted;
        char *mapping;
        bool loop_dio;
} SwapDevice;

typedef struct ZramDevice {
        int id;
        uint64_t disksize;              /* 0 = free to use */
        char **algorithms_offered;      /* from comp_algorithm */
        char *algorithm;                /* the one in brackets */
        bool has_algorithm_params;      /* the kernel has algorithm_params (>= 6.12 style) */
        uint64_t mem_limit;
        /* mm_stat */
        uint64_t orig_data_size, compr_data_size, mem_used_total;
        bool swap_on;                   /* listed in /proc/swaps */
        bool ours;                      /* created by nodeswap */
        /* bd_stat (a backing device is configured, CONFIG_ZRAM_WRITEBACK), in bytes (the kernel
         * counts 4 KiB units whatever the page size) */
        bool has_bd_stat;
        uint64_t bd_count, bd_reads, bd_writes;
        /* the block layer's stat: bytes written to the device (pages swapped out to it) */
        bool has_stat;
        uint64_t written_bytes;
        ZramWriteback wb;               /* backing device, writeback limit, recompression */
} ZramDevice;

/* A swap file at the policy's [File] Path=. */
typedef struct SwapFileState {
        bool unreadable;        /* this user may not look at it (EACCES): nothing below is known */
        bool exists;
        bool is_regular;        /* false: a symlink, directory, device ... (never followed) */
        uint64_t size;          /* st_size */
        uint64_t allocated;     /* st_blocks * 512 */
        unsigned mode;          /* st_mode & 07777 */
        unsigned uid;
        bool has_header;        /* one swap signature was found, or the marker of an encrypted file */
        bool encrypted;         /* the marker of an encrypted swap file (probe/crypt.h) */
        uint64_t header_page_size; /* page size the header was made for (0 if none) */
        char *label;
        /* What swapfile_probe() found wrong with the file as a swap area, each a sentence that
         * names the path and the cause (NULL: nothing wrong). The three checks run only on a
         * regular file opened through a safe path (checked): path_problem says why it was not. */
        bool checked;
        char *path_problem;     /* a symlink among the parents, or a parent not root's or writable
                                 * by group or others (swapfile_open_existing()) */
        char *allocation_problem; /* holes, shared, compressed or inline extents: the kernel
                                   * refuses the file (swapfile_check_allocation()) */
        char *nocow_problem;    /* on btrfs without No_COW or with compression: the kernel
                                 * refuses it (swapfile_check_nocow()) */
        char *header_problem;   /* no signature or more than one, made for another page size,
                                 * another label, or not covering the file (swapfile_check_header()) */
        bool swap_on;
        int priority;           /* when swap_on */
        char *fstype;           /* file system under the path (or its nearest existing parent) */
        uint64_t fs_free;       /* bytes available to root */
        StorageKind storage;    /* the block device kind under it; 0 = unknown */
        char *fs_mount_point;   /* the mount holding it (NULL: none found) */
        bool fs_read_only, fs_btrfs_multi_device, fs_compressed;
        char *storage_device;   /* e.g. nvme0n1, vda, loop3 */
} SwapFileState;

typedef struct UnitState {
        char *name;
        bool exists;            /* a unit file or generated unit was found */
        bool masked;            /* a /dev/null symlink in /etc, /run or the generator dirs */
        bool masked_runtime;    /* ... in /run/systemd/system (ours to undo) */
        int active;             /* 1 active, 0 inactive, -1 unknown (no systemd asked) */
} UnitState;

typedef enum CgroupMode {
        CGROUP_UNKNOWN,
        CGROUP_V1,              /* legacy */
        CGROUP_HYBRID,          /* v1 with a v2 hierarchy at /sys/fs/cgroup/unified */
        CGROUP_V2,              /* unified */
        _CGROUP_MODE_MAX,
} CgroupMode;
const char *cgroup_mode_to_string(CgroupMode m);

/* A swap file recorded in nodeswap's state (swap_file=), as found on the host. */
/* The daemons' I/O (probe/iolatency.h). */
#define IO_LATENCY_SLICE "system.slice"
#define IO_LATENCY_CONTROL_DROPIN "50-IODeviceLatencyTargetUSec.conf"
typedef struct IoLatencyState {
        bool probed;
        bool io_controller;     /* "io" in /sys/fs/cgroup/cgroup.controllers (cgroup v2) */
        int kernel;             /* the kernel has io.latency (CONFIG_BLK_CGROUP_IOLATENCY): 1, 0, -1 unknown */
        char *kernel_from;      /* what told: a cgroup's io.latency file or the kernel's config, NULL unknown */
        char *swap_disk;        /* the first whole disk under nodeswap's swap, NULL none */
        char *shared_disk;      /* the first disk under both the swap and a daemon path, NULL none */
        char *shared_path;      /* that daemon path ("/var/lib/kubelet") */
        unsigned major, minor;  /* the shared disk's number (/sys/class/block/DISK/dev) */
        int rotational;         /* its queue/rotational: 1, 0, -1 unknown */
        char *current;          /* /sys/fs/cgroup/system.slice/io.latency as read, NULL: no such file */
        bool control_dropin;    /* /run/systemd/system.control/system.slice.d/IO_LATENCY_CONTROL_DROPIN */
} IoLatencyState;

typedef struct RecordedSwapFile {
        char *path;
        bool exists;
        bool is_regular;        /* lstat: a regular file (a symlink is never followed) */
        bool labelled;          /* a swap header with nodeswap's label */
        bool swap_on;           /* listed in /proc/swaps */
} RecordedSwapFile;

/* A [Zram] Writeback= file recorded in nodeswap's state (writeback_file=), as found on the host. */
typedef struct RecordedWritebackFile {
        char *path;
        bool exists;
        bool is_regular;        /* lstat: a regular file (a symlink is never followed) */
        char *loop_device;      /* the loop device backed by it ("/dev/loop3"), NULL none */
} RecordedWritebackFile;

typedef struct HostState {
        uint64_t page_size;
        char *kernel_release;   /* /proc/sys/kernel/osrelease ("6.1.0-57-amd64"); NULL: unreadable */
        uint64_t mem_total, mem_available, swap_total, swap_free;   /* bytes */

        SwapDevice *swaps;
        size_t n_swaps;

        bool zram_control;      /* /sys/class/zram-control exists */
        ZramDevice *zrams;
        size_t n_zrams;

        int swappiness;         /* -1 unreadable */
        int page_cluster;
        int min_free_kbytes;    /* vm.min_free_kbytes, -1 unreadable */
        int watermark_scale_factor; /* -1 unreadable */
        int watermark_scale_factor_max; /* the running kernel's bound (probe/reclaim.h), 0 unknown */
        ZoneWatermarks *zones;  /* /proc/zoneinfo's zones with managed pages */
        size_t n_zones;
        int thp_enabled;        /* /sys/kernel/mm/transparent_hugepage/enabled is not [never]: 1, 0,
                                 * -1 unreadable */

        SwapFileState file;     /* only meaningful when the policy names a file */
        WritebackTarget writeback; /* [Zram] Writeback=, when the policy names one */

        char *dropin_path;
        char *dropin;           /* current contents, NULL when absent */
        KubeletConfig kubelet;  /* every file the kubelet reads (kubelet-config.h), for kubelet_unit */

        char *kubelet_unit;     /* resolved: the policy's Unit= or the first present of the list */
        int kubelet_active;     /* 1, 0, -1 unknown */
        bool kubelet_no_swap_controller; /* cgroup v2, and the kubelet unit's cgroup has no memory.swap.max
                                          * (swap_controller_probe() 0): the kubelet sets no swap limit */
        uint64_t kubelet_started_usec; /* CLOCK_REALTIME µs the kubelet unit last became active
                                        * (ActiveEnterTimestamp), 0 unknown (no systemd asked) */

        NoSwapUnit *no_swap_units; /* [Kubelet] NoSwapUnits= (when the policy gives pods swap) and the
                                    * units nodeswap's state records (probe/noswap.h) */
        size_t n_no_swap_units;

        RpiSwapConfig rpi_swap; /* Raspberry Pi OS's rpi-swap: installed?, its mechanism */
        char **conflict_units;  /* [Conflicts] Units= and what follows from rpi-swap's configuration
                                 * and the policy's [File] Path= (conflict_units_compute()) */
        UnitState *units;       /* one per conflict unit, in conflict_units order */
        size_t n_units;

        ZswapState zswap;

        FeatureFileState features; /* nodeswap's file for node-feature-discovery (probe/features.h) */

        CgroupMode cgroup;
        IoLatencyState io_latency;
        bool systemd_booted;    /* /run/systemd/system is a directory, as sd_booted() checks */
        bool psi;               /* /proc/pressure/memory readable */
        /* Memory pressure and swap traffic (pressure.h), read by probe_pressure() for status, check
         * and metrics (pressure.probed false otherwise): the node's, and every container with its
         * own and its pod's stall (pods_probe(); pressure_pods_error its -errno, the list then empty). */
        NodePressure pressure;
        PodSwap *pressure_pods;
        size_t n_pressure_pods;
        int pressure_pods_error;

        NodeswapState state;
        RecordedSwapFile *recorded_files;       /* one per state.swap_files entry, same order */
        size_t n_recorded_files;
        RecordedWritebackFile *recorded_wb_files; /* one per state.writeback_files entry, same order */
        size_t n_recorded_wb_files;

        int writeback_timer_active; /* NODESWAP_WRITEBACK_TIMER: 1 active, 0 not, -1 unknown (no
                                     * systemd asked: probe_systemd()) */
} HostState;

void host_state_done(HostState *h);

const SwapDevice *host_find_swap(const HostState *h, const char *path);
const ZramDevice *host_find_zram(const HostState *h, int id);
const RecordedSwapFile *host_find_recorded_file(const HostState *h, const char *path);
