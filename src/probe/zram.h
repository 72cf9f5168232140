/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* zram devices as sysfs shows them: the reading side of the zram backend (execute/zram.h writes).
 * Everything goes through the root prefix. Nothing here logs or writes; -errno on failure.
 *
 * Kernel facts relied on (Documentation/admin-guide/blockdev/zram.rst): reading
 * /sys/class/zram-control/hot_add creates a device and returns its id; writing an id to
 * hot_remove removes it. A device is configured comp_algorithm -> algorithm_params -> mem_limit
 * -> disksize; once disksize is set the device is initialised (initstate 1) and comp_algorithm
 * and disksize answer EBUSY until "1" is written to reset. reset and hot_remove answer EBUSY while
 * anything holds the device open (udev opens new devices briefly, systemd/systemd#36352). */

/* "/dev/zram<id>" (without the root prefix). NULL on ENOMEM. */
char *zram_device_path(int id);
/* <root>/sys/block/zram<id>/<attr> (attr NULL: the device's directory). NULL on ENOMEM. */
char *zram_attr_path(const char *root, int id, const char *attr);

/* The zram id of a path in /proc/swaps: "/dev/zram<N>" -> N; -1 for any other path (a swap file
 * that happens to be named zram0 is no zram device). The one test, for probe() and teardown. */
int zram_id_from_swap_path(const char *path);

/* The ids of /sys/block/zram<N>, ascending, in a malloc'd array (NULL when there are none). A
 * missing /sys/block is no device; -errno when it cannot be read. */
int zram_list_ids(const char *root, int **ret_ids, size_t *ret_n);

/* Split the contents of comp_algorithm ("lzo-rle lzo [lz4]\n") into the names the kernel
 * offers, in its order, and the active one (the one in brackets; NULL when none is). */
int zram_parse_comp_algorithm(const char *s, char ***ret_offered, char **ret_active);
/* Read and parse /sys/block/zram<id>/comp_algorithm. ret_active may be NULL. */
int zram_read_comp_algorithm(const char *root, int id, char ***ret_offered, char **ret_active);

/* Pick the first of the preference list that the kernel offers. Pure.
 * *ret_algorithm points into preference. *ret_reason (optional, may be NULL; free() it) says
 * why, e.g. "zstd not offered by this kernel, using lz4" or "using zstd, the first preference".
 * -ENOENT when none of the preference is offered (the caller says which were wished for and
 * what the kernel offers), -EINVAL on an empty preference list. */
int zram_pick_algorithm(char *const *offered, char *const *preference,
                        const char **ret_algorithm, char **ret_reason);

/* /sys/block/zram<id>/mm_stat, bytes. Kernels that print fewer columns leave the rest 0. */
typedef struct ZramMmStat {
        uint64_t orig_data_size;        /* uncompressed data stored */
        uint64_t compr_data_size;       /* compressed */
        uint64_t mem_used_total;        /* memory used, allocator overhead included */
        uint64_t mem_limit;
        uint64_t mem_used_max;
        uint64_t same_pages;
        uint64_t pages_compacted;
        uint64_t huge_pages;
} ZramMmStat;
int zram_read_mm_stat(const char *root, int id, ZramMmStat *ret);

/* The other attributes of /sys/block/zram<id> nodeswap decides on, each read here only.
 * disksize in bytes (0: not initialised, free to use). */
int zram_read_disksize(const char *root, int id, uint64_t *ret);
/* bd_stat (a backing device is set, CONFIG_ZRAM_WRITEBACK), in bytes: the kernel counts 4 KiB
 * units (ZRAM_BD_STAT_UNIT) whatever the page size. -ENOENT on kernels without writeback. */
#define ZRAM_BD_STAT_UNIT 4096
typedef struct ZramBdStat {
        uint64_t count;                 /* written back and kept on the backing device */
        uint64_t reads;                 /* read back from it */
        uint64_t writes;                /* written to it since the device was set up */
} ZramBdStat;
int zram_read_bd_stat(const char *root, int id, ZramBdStat *ret);
/* The block layer's stat (Documentation/block/stat.rst): bytes written to the device, i.e. the
 * pages swapped out to it (its 7th field, in 512-byte sectors). */
int zram_read_written_bytes(const char *root, int id, uint64_t *ret);
/* Whether the device has the attribute (algorithm_params, recomp_algorithm, backing_dev ...):
 * what this kernel's zram can do. */
bool zram_has_attr(const char *root, int id, const char *attr);
