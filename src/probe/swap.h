/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"
#include "shared/page-size.h"

/* The swap area format and /proc/swaps, read for the zram and file backends (execute/swapon.h
 * writes headers and calls swapon(2)/swapoff(2)). */

#define SWAP_LABEL "nodeswap"
#define SWAP_PRIORITY_MAX 32767

/* The version-1 swap header, as the kernel reads it (union swap_header in linux/swap.h): the
 * first 1024 bytes are left for a boot loader, then these 32-bit fields in the byte order of the
 * kernel that will use the area, and the magic in the last 10 bytes of the first page. */
#define SWAP_HDR_VERSION_OFFSET    1024
#define SWAP_HDR_LAST_PAGE_OFFSET  1028
#define SWAP_HDR_NR_BADPAGES_OFFSET 1032
#define SWAP_HDR_UUID_OFFSET       1036
#define SWAP_HDR_LABEL_OFFSET      1052
#define SWAP_HDR_LABEL_SIZE        16
#define SWAP_HDR_UUID_SIZE         16
#define SWAP_MAGIC                 "SWAPSPACE2"
#define SWAP_MAGIC_SIZE            10
#define SWAP_MIN_PAGES             10

/* Largest page size we write a header for (and the largest of any Linux architecture). */
#define SWAP_PAGE_SIZE_MAX         (256 * KiB)
/* Zeroed at the start of a new area, so that no stale magic of an area made for a bigger page
 * size (8, 16, 32, 64 KiB) survives a rewrite at a smaller one. The bytes after the header page
 * are swap slots: nothing there is worth keeping when a new area is made. */
#define SWAP_WIPE_SIZE             (64 * KiB)

/* A page size a swap header can be made for: a power of two from 4 KiB to SWAP_PAGE_SIZE_MAX. */
static inline bool swap_page_size_valid(uint64_t page_size) {
        return page_size_valid(page_size) && page_size <= SWAP_PAGE_SIZE_MAX;
}

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

/* The one reader of /proc/swaps below root (path_join_root), with libmount (as util-linux reads it),
 * shared by probe, the zram backend and the swap file backend. On success *ret (NULL when there
 * are none) and *ret_n hold the entries in the file's order; free with swap_entries_free().
 * -ENOENT when root has no /proc/swaps (a fixture tree may lack it; callers decide what that
 * means), -errno otherwise. */
int swaps_read(const char *root, SwapEntry **ret, size_t *ret_n);
void swap_entries_free(SwapEntry *entries, size_t n);
