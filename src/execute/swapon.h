/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/swap.h"

/* Making swap areas and turning them on and off, for the zram and file backends. Nothing here
 * forks: the header is written in-process. Nothing here logs; -errno on failure. */

/* Write a version-1 swap header ("SWAPSPACE2" at page_size - 10) for an area of size bytes at the
 * start of fd: last_page = size / page_size - 1, no bad pages, a random UUID, the label.
 * The first page is zeroed first (wiping the boot sector area as mkswap does); fsync()ed.
 * -EINVAL when size holds fewer than 10 pages, or page_size is not a power of two >= 4096. */
int swap_header_write(int fd, uint64_t size, uint64_t page_size, const char *label);
/* The same, for an area that reads as zeros already (a zram device nodeswap has just initialised:
 * the kernel allocates its pages on first write): only the header page is written, as there is no
 * stale signature to wipe. */
int swap_header_write_zeroed(int fd, uint64_t size, uint64_t page_size, const char *label);

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
