/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* The swap area format and the swapon(2)/swapoff(2) calls, shared by the zram and file backends.
 * Nothing here forks: the header is written in-process. */

#define SWAP_LABEL "nodeswap"
#define SWAP_PRIORITY_MAX 32767

/* Write a version-1 swap header ("SWAPSPACE2" at page_size - 10) for an area of size bytes at the
 * start of fd: last_page = size / page_size - 1, no bad pages, a random UUID, the label.
 * The first page is zeroed first (wiping the boot sector area as mkswap does); fsync()ed.
 * -EINVAL when size holds fewer than 10 pages, or page_size is not a power of two >= 4096. */
int swap_header_write(int fd, uint64_t size, uint64_t page_size, const char *label);

typedef struct SwapHeaderInfo {
        uint64_t page_size;     /* the page size it was made for (magic offset + 10) */
        uint64_t last_page;
        char label[17];
        char uuid[37];
} SwapHeaderInfo;

/* Probe fd with libblkid for a swap signature. 1 and *ret filled when a SWAPSPACE2 area is found,
 * 0 when there is no swap signature, -errno on failure. */
int swap_header_probe(int fd, SwapHeaderInfo *ret);

/* One line of /proc/swaps. */
typedef struct SwapEntry {
        char *path;             /* as the kernel lists it, octal escapes (\040) undone */
        char *type;             /* "partition", "file" (NULL when the line has none) */
        uint64_t size;          /* bytes (the file counts KiB) */
        uint64_t used;          /* bytes */
        int priority;
} SwapEntry;

/* The one reader of /proc/swaps below root (path_join_root), with libmount as DESIGN.md says,
 * shared by probe, the zram backend and the swap file backend. On success *ret (NULL when there
 * are none) and *ret_n hold the entries in the file's order; free with swap_entries_free().
 * -ENOENT when root has no /proc/swaps (a fixture tree may lack it; callers decide what that
 * means), -errno otherwise. */
int swaps_read(const char *root, SwapEntry **ret, size_t *ret_n);
void swap_entries_free(SwapEntry *entries, size_t n);

/* swapon(2) with SWAP_FLAG_PREFER and priority (0..32767). Under a root other than the host's
 * it does nothing and returns -EOPNOTSUPP so callers report the step as skipped. */
int swap_on(const char *root, const char *path, int priority);
/* swap_on() with discard flags added (SWAP_FLAG_DISCARD with SWAP_FLAG_DISCARD_ONCE or
 * SWAP_FLAG_DISCARD_PAGES, as swapon --discard=once|pages passes them; swap_discard_flags()). */
int swap_on_flags(const char *root, const char *path, int priority, int discard_flags);
/* swapoff(2). -EOPNOTSUPP under a foreign root as above. -EINVAL when path is not swap. */
int swap_off(const char *root, const char *path);

/* Detach every loop device whose backing file is path (backing_file in sysfs),
 * as "losetup -d" does (LOOP_CLR_FD; a device still open elsewhere is detached when it is last
 * closed). Returns the number of devices detached, -EOPNOTSUPP under a foreign root. */
int loop_detach_file(const char *root, const char *path);
