/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* The encrypted swap file's mapping (probe/crypt.h has its layout and names): made with
 * libcryptsetup in-process, no child process, and the key never leaves this process's locked
 * memory but into the kernel. Nothing here logs: libcryptsetup's own messages are kept for
 * *ret_reason (they never carry the key). */

/* Bring the encrypted swap file at path (it must carry the marker: -EMEDIUMTYPE otherwise) up as
 * swap, each step undone when a later one fails:
 *  1. a loop device over the file (execute/loop.h) with direct I/O and the logical block size of
 *     the disk under it, refused when the kernel keeps buffered I/O (the page cache and the file
 *     system's write path under reclaim, which a swap file proper never takes);
 *  2. this process's memory locked (mlockall(2)), a key of CRYPT_KEY_BYTES from getrandom(2) in
 *     crypt_safe_alloc() memory, the plain-mode mapping made with it (crypt_format() of
 *     CRYPT_PLAIN, crypt_activate_by_volume_key(); lib/libcryptsetup.h), the key cleared
 *     (crypt_safe_memzero() and crypt_safe_free()), the memory unlocked: the key is now in the
 *     kernel's dm-crypt target alone, and a new one comes at every setup;
 *  3. a swap header for page_size on the mapping (its data starts after the marker page);
 *  4. swapon of /dev/mapper/NAME with priority and discard_flags.
 * The loop device is closed at the end: the mapping holds it, and autoclear takes it away with the
 * mapping. Under a root other than the host's nothing is done: -EOPNOTSUPP. 0 on, -errno with
 * *ret_reason (may be NULL). */
int crypt_swap_on(const char *root, const char *path, uint64_t page_size, int priority, int discard_flags,
                  char **ret_reason);

/* Take the mapping of the file at path away: swapoff of it when the kernel uses it as swap, the
 * mapping removed (crypt_deactivate()), and the loop device waited for until autoclear has
 * detached it (up to 5 s; -EBUSY after). 1 removed, 0 there was no mapping, -EOPNOTSUPP under a
 * foreign root, -errno (-ENOMEM et al. from swapoff: all stays). */
int crypt_swap_off(const char *root, const char *path, char **ret_reason);

/* The mapping of steps 1 and 2 of crypt_swap_on() alone, over the open file file_fd (path names it)
 * of size bytes, under name, for nodeswap bench: *ret_node is "/dev/dm-N". Its loop device goes
 * with the mapping (autoclear). 0, -errno with *ret_reason (may be NULL). */
int crypt_map_file(int file_fd, const char *path, uint64_t size, const char *name, char **ret_node, char **ret_reason);
/* zram's [Zram] Writeback= file under WritebackEncrypt=yes: its mapping (crypt_swap_name() of path)
 * over the open file file_fd with steps 1 and 2 of crypt_swap_on() (a direct-I/O loop device, a new
 * key), its data the size - CRYPT_DATA_OFFSET bytes after the marker page, rounded down to whole
 * encryption sectors. A mapping of that name left by a run killed before zram took it goes first
 * (one zram holds is busy: -EBUSY). No swap header: zram writes pages to it as a block device.
 * *ret_node is "/dev/dm-N", for backing_dev. -EOPNOTSUPP under a foreign root. 0, -errno with
 * *ret_reason (may be NULL). */
int crypt_map_writeback(const char *root, const char *path, int file_fd, uint64_t size, char **ret_node,
                        char **ret_reason);
/* The mapping of the file at path (crypt_swap_name()) removed, and its loop device waited for until
 * autoclear has detached it (up to 5 s; -EBUSY after): for the writeback file once zram has let go
 * of it (its reset). 1 removed, 0 there was none, -EOPNOTSUPP under a foreign root, -errno (-EBUSY
 * while something holds it) with *ret_reason (may be NULL). */
int crypt_unmap_file(const char *root, const char *path, char **ret_reason);

/* Remove the mapping called name (crypt_deactivate()). 1 removed, 0 there was none, -errno. */
int crypt_unmap(const char *name);
