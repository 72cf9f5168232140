/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <sys/stat.h>

#include "shared/util.h"

/* The swap file writer: creating a swap file securely, rewriting its header, deleting it. Every
 * path argument is a host path ("/var/lib/nodeswap/swapfile") written below the root prefix.
 * Nothing here logs or forks; swap headers are written in-process (probe/swap.h).
 *
 * Where a function takes char **ret_reason, it stores a malloc'd sentence there when it refuses or
 * fails, naming the path and the cause, so the caller can log it once (shared/reason.h). ret_reason
 * may be NULL. It is left untouched on success and on -ENOMEM.
 *
 * A resize is no single call here: plan() spells it out as actions (a bridge area made with
 * swapfile_create(), swapoff, swapfile_remove(), swapfile_create(), swapoff, swapfile_remove();
 * plan/placement.h says why). */

/* Returned by swapfile_create() when the file was made but, under a root other than the host's,
 * not swapped on (swap_on() said -EOPNOTSUPP). */
#define SWAPFILE_SWAPON_SKIPPED 1

/* Create a swap file of size bytes at path and swap it on with priority, securely:
 *  1. the file system is inspected (mounts_inspect_path()) and checked with
 *     placement_check_fs(), and its free space must hold size + swapfile_margin(size) — all before
 *     anything is written;
 *  2. the parent directories are walked from the root with path_open_parent_secure(): a symlink
 *     anywhere is refused (-ELOOP), every existing directory must be owned by root and not
 *     writable by group or others (-EPERM), missing ones are created root-owned 0700
 *     (e.g. /var/lib/nodeswap);
 *  3. nothing may exist at path (-EEXIST; the caller decides about replacing);
 *  4. a temporary ".#NAME.XXXXXXXXXXXXXXXX" is created in the same directory with
 *     O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, owner 0:0; on btrfs FS_NOCOW_FL is set while it is
 *     empty (and compression cleared); fallocate() reserves the blocks — no zeros are written;
 *  5. the file must have no holes and no shared or compressed extents (swapfile_check_allocation());
 *  6. a swap header for page_size labelled "nodeswap" is written and read back
 *     (swapfile_check_header()); the file is fsync()ed, renamed to path without replacing anything
 *     (RENAME_NOREPLACE) and the directory fsync()ed;
 *  7. swap_on_flags(root, path, priority, discard_flags) (the discard flags of [File] Discard=,
 *     swap_discard_flags()).
 * On any failure nothing is left behind: the temporary file is removed, and so is the file at
 * path when swapon fails. Directories created in step 2 are kept.
 * Returns 0 created and on, SWAPFILE_SWAPON_SKIPPED created under a foreign root, or -errno with
 * *ret_reason set: -EMEDIUMTYPE the file system or storage is refused, -ENOSPC not enough room,
 * -ELOOP a symlink on the path, -EPERM an insecure parent directory, -EEXIST something at path,
 * -EINVAL bad arguments, other -errno from the system calls. */
int swapfile_create(const char *root, const char *path, uint64_t size, uint64_t page_size,
                    int priority, int discard_flags, unsigned allowed_storage, char **ret_reason);
/* As swapfile_create(), for an encrypted swap file ([File] Encrypt=yes; probe/crypt.h): in step 4
 * every block is also written (zeros) after fallocate(), so that no write during reclaim meets an
 * unwritten extent; in step 6 the marker page is written instead of a swap header; step 7 is
 * crypt_swap_on() (execute/crypt.h), which writes the swap header on the mapping. size must be a
 * whole number of CRYPT_SECTOR_SIZE sectors (-EINVAL). */
int swapfile_create_encrypted(const char *root, const char *path, uint64_t size, uint64_t page_size, int priority,
                              int discard_flags, unsigned allowed_storage, char **ret_reason);

/* Rewrite the swap header of the file at path for page_size, in place, keeping its size and
 * label "nodeswap" (a new UUID), for a file made under a kernel with another page size. The file
 * must be a regular root-owned file (no symlinks on the path) that already carries a swap
 * signature (-EMEDIUMTYPE otherwise: nodeswap does not write over other data) and is not swapped
 * on (-EBUSY). The new header is read back and checked.
 * Returns 1 rewritten, 0 the header was already made for page_size (nothing written), -errno. */
int swapfile_rewrite_header(const char *root, const char *path, uint64_t page_size);

/* Write zeros over the first size bytes of fd and sync them (fdatasync). 0, -errno. */
int swapfile_write_zeros(int fd, uint64_t size);
/* Write the marker page of an encrypted file (probe/crypt.h) at offset 0 of fd. 0, -errno. */
int swapfile_write_crypt_marker(int fd);

/* Open the file at path that is about to be deleted: a regular file, opened without following a
 * symlink on the way (swapfile_open_existing()). 0 with *ret_dirfd (its directory, O_PATH),
 * *ret_fd and its stat; -ENOENT nothing there, -ELOOP a symlink, -EMEDIUMTYPE anything else that
 * is no regular file in a safe directory, -EINVAL a path that is not normalized. */
int file_open_for_removal(const char *root, const char *path, int *ret_dirfd, int *ret_fd, struct stat *ret_st);

/* Swap the file at path off if it is listed in /proc/swaps, then delete it (revert --purge, the
 * old file and the bridge of a resize). Only a regular file carrying a swap signature or the
 * marker of an encrypted swap file is deleted (-EMEDIUMTYPE otherwise), never through a symlink
 * (-ELOOP); an encrypted file's mapping and loop device go first (crypt_swap_off()). With
 * overwrite, a file that is not encrypted is overwritten with zeros (and synced) before the
 * unlink: it held pages in clear. Under a foreign root the swapoff is skipped. Returns 1 removed, 0 there was nothing at path, -errno (-ENOMEM et al. from swapoff:
 * the file stays). */
int swapfile_remove(const char *root, const char *path, bool overwrite);
/* As swapfile_remove(), and the swap header must also carry nodeswap's label (SWAP_LABEL):
 * -EMEDIUMTYPE otherwise. For a file only the state names as nodeswap's (an earlier Path=, a
 * bridge). */
int swapfile_remove_labelled(const char *root, const char *path, bool overwrite);
