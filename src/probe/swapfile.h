/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <sys/stat.h>

#include "probe/host.h"
#include "probe/swap.h"
#include "shared/util.h"

/* The state of a swap file: whether it is listed as active, and whether its blocks and header
 * make it usable as a swap area. Read-only (the file is opened with O_NOATIME where it may be);
 * nothing here logs or follows a symlink. Every path argument is a host path
 * ("/var/lib/nodeswap/swapfile") read below the root prefix.
 *
 * Where a function takes char **ret_problem, it stores a malloc'd sentence there when the answer
 * is "no", naming the path and the cause ("header made for 4096-byte pages, kernel uses 16384");
 * it may be NULL. */

/* 1: the first size bytes of fd are allocated, without holes, shared (reflinked), compressed,
 * encoded or inline extents (st_blocks and FIEMAP; st_blocks alone where FIEMAP is not offered);
 * 0: not (*ret_problem set); -errno. shown names the file in the sentence. */
int swapfile_check_allocation(int fd, const char *shown, uint64_t size, char **ret_problem);

/* 1: fd carries a swap header made for page_size, labelled "nodeswap", covering size bytes;
 * 0: not (*ret_problem set); -errno. */
int swapfile_check_header(int fd, const char *shown, uint64_t size, uint64_t page_size, char **ret_problem);

/* 1: fd is not on btrfs, or carries the No_COW attribute there and not the compression one (the
 * kernel refuses copy-on-write swap files); 0: not (*ret_problem set); -errno. */
int swapfile_check_nocow(int fd, const char *shown, char **ret_problem);

/* Open the regular file at path with flags (O_RDONLY or O_RDWR), walking its parents with
 * path_open_parent_secure(), never following a symlink and without touching its access time.
 * Returns 0 with *ret_fd (and *ret_dirfd when asked for, the O_PATH descriptor of its directory)
 * and its stat, 1 when the path or the file cannot be used (a symlink, no regular file, an
 * unsafe parent: *ret_problem set), -ENOENT when nothing is there, -EAGAIN when it was replaced
 * while opened, other -errno. */
int swapfile_open_existing(const char *root, const char *path, int flags, int *ret_dirfd, int *ret_fd,
                           struct stat *ret_st, char **ret_problem);

/* Whether path is listed in ROOT/proc/swaps. Returns 1 listed (with its priority and the bytes in
 * use, either pointer may be NULL), 0 not listed, -errno. */
int swapfile_is_active(const char *root, const char *path, int *ret_priority, uint64_t *ret_used);

/* The swap header of the regular file at full_path (a path below the root already) that lstat()
 * found as st, opened without following a symlink and only if it is still that file.
 * Returns 1 and *ret filled when it carries one, 0 when not (or it changed), -EACCES when this
 * user may not read it (the header is unknown, not absent). */
int swapfile_read_header_nofollow(const char *full_path, const struct stat *st, SwapHeaderInfo *ret);

/* What probe() knows of the swap file at path, every fact plan() decides reuse or replacement by:
 * lstat() (nothing followed); for a regular file, opened with swapfile_open_existing() (a symlink
 * or an unsafe parent: f->path_problem), its swap header and the problems
 * swapfile_check_header() (for page_size and the file's own size), swapfile_check_allocation()
 * and swapfile_check_nocow() find (f->header_problem, ->allocation_problem, ->nocow_problem);
 * and the file system and disk under it (mounts_inspect_path(); left unset when no mount is
 * found). Not swap_on and priority: those come from /proc/swaps. Returns 1 (f->unreadable set when
 * this user may not open the file: it is not judged), 0 when this user may not look at the path
 * (f->unreadable set, nothing else known), -EAGAIN when the file was replaced while it was read,
 * other -errno. */
int swapfile_probe(const char *root, const char *path, uint64_t page_size, SwapFileState *f);
