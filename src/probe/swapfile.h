/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"

/* The swap file backend: where a swap file may live, and creating, checking, rewriting, resizing
 * and removing one. Every path argument is a host path ("/var/lib/nodeswap/swapfile") that is
 * read below the root prefix. Nothing here logs or forks; swap headers are written in-process
 * (swap.h).
 *
 * Where a function takes char **ret_reason, it stores a malloc'd sentence there when it refuses or
 * fails, naming the path and the cause ("/tmp is on tmpfs, which cannot hold a swap file"), so
 * the caller can log it once. ret_reason may be NULL. It is left untouched on success and on
 * -ENOMEM.
 *
 * Kernel facts the design rests on (checked by tests/integration/test-swapfile-kernel.sh):
 *  - An active swap file can be neither renamed nor unlinked (EPERM: the inode carries S_SWAPFILE),
 *    neither as the source of a rename nor as the file a rename would replace. A hard link to it
 *    can be made, and swapoff(2) by any name of the inode works (the kernel matches the inode).
 *  - /proc/swaps shows the name the area was swapped on with; a hard link made later does not
 *    change it, and swapoff by that link takes the area off all the same.
 * So a new file cannot be swapped on under a temporary name and then renamed into place: it
 * would stay under the temporary name until it is swapped off. swapfile_resize() therefore goes
 * through a small "bridge" area, see there. */

/* The file system a swap file would live on. */
typedef struct SwapFileFs {
        char *mount_point;      /* host path of the mount holding the path, e.g. "/" or "/var" */
        char *fstype;           /* "ext4", "btrfs", "tmpfs", ... */
        char *source;           /* the mount source, e.g. "/dev/nvme0n1p2", "tmpfs" */
        char *device;           /* the whole disk under it, e.g. "nvme0n1", "mmcblk0", "loop3";
                                 * NULL when there is no block device (tmpfs, nfs ...) */
        StorageKind kind;       /* the kind of that disk; 0 when unknown or no block device */
        uint64_t free;          /* bytes free for unprivileged users (f_bavail * f_frsize): a swap
                                 * file never eats into the root reserve */
        bool read_only;         /* mounted ro */
        bool btrfs_multi_device;/* btrfs over more than one device (/sys/fs/btrfs/UUID/devices) */
        bool compressed;        /* btrfs mounted with compress= or compress-force= */
} SwapFileFs;

void swapfile_fs_done(SwapFileFs *fs);

/* Find the file system under path (which need not exist yet): the mount in
 * ROOT/proc/self/mountinfo with the longest mount point that is a prefix of path (the topmost one
 * when mounts are stacked), the disk under its source through ROOT/sys (a partition counts as its
 * whole disk; a device-mapper device with one slave as that slave), and statvfs() of the nearest
 * existing parent of path for the free space. The path is matched as written: no symlink is
 * resolved, which is right because swapfile_create() refuses symlinks on the path.
 * Classification of the disk: nvme* is STORAGE_NVME, mmcblk* STORAGE_MMC, vd*, xvd*, loop* and
 * anything on a virtio bus STORAGE_VIRTUAL whatever its rotational flag, queue/rotational = 1
 * STORAGE_ROTATIONAL, anything else STORAGE_SSD.
 * probe.c can fill SwapFileState.fstype/fs_free/storage/storage_device from this.
 * Returns 0, -EINVAL for a path that is not absolute and normalised, -ENOENT when no mount holds
 * it, other -errno on failure to read. */
int swapfile_inspect_fs(const char *root, const char *path, SwapFileFs *ret);  /* path may also be "/" */

/* The disk name and kind behind a block device name as found in ROOT/sys/class/block (for
 * example "nvme0n1p2" -> "nvme0n1", STORAGE_NVME). Used by swapfile_inspect_fs(); exposed for
 * probe.c and the tests. Returns 0, -ENOENT when sysfs does not know the device. */
int swapfile_storage_of_device(const char *root, const char *name, char **ret_disk, StorageKind *ret_kind);

/* Decide whether a swap file may live on fs. A pure function.
 * Accepted file systems: ext2, ext3, ext4, xfs, btrfs and f2fs, the ones whose swap file support
 * the kernel has. Refused with a reason naming the mount point and the type: RAM-backed ones
 * (tmpfs, ramfs, devtmpfs), overlay, network ones (nfs, nfs4, cifs, smb3, ceph ...), FUSE,
 * read-only images (squashfs, erofs, iso9660), pseudo file systems (proc, sysfs ...), ZFS (it has
 * no swap file support; a zvol for swap is known to deadlock under memory pressure), and any type
 * not in the list above. Also refused: a read-only mount; btrfs over more than one device or with
 * compression (the kernel refuses such swap files); an unknown disk; an SD card or eMMC (mmc) or
 * a rotational disk unless allowed_storage (StorageKind bits, [File] Storage=) lists it; and any
 * other kind not in allowed_storage.
 * Returns 1 allowed, 0 refused (*ret_reason set), -ENOMEM. */
int swapfile_check_fs(const SwapFileFs *fs, unsigned allowed_storage, char **ret_reason);

/* Free space wanted besides the file itself: 16 MiB plus 1/64 of the size (file system metadata
 * for the extents, and room for everything else on the disk to breathe). */
uint64_t swapfile_margin(uint64_t size);

/* Returned by swapfile_create() and swapfile_resize() when the file was made but, under a root
 * other than the host's, not swapped on (swap_on() said -EOPNOTSUPP). */
#define SWAPFILE_SWAPON_SKIPPED 1

/* Create a swap file of size bytes at path and swap it on with priority, securely:
 *  1. the file system is checked with swapfile_check_fs(), and its free space must hold
 *     size + swapfile_margin(size) — all before anything is written;
 *  2. the parent directories are walked from the root component by component with
 *     openat(O_PATH|O_NOFOLLOW|O_DIRECTORY): a symlink anywhere is refused (-ELOOP), every
 *     existing directory must be owned by root and not writable by group or others (-EPERM),
 *     missing ones are created root-owned 0700 (e.g. /var/lib/nodeswap);
 *  3. nothing may exist at path (-EEXIST; the caller decides about replacing);
 *  4. a temporary ".#NAME.XXXXXXXXXXXXXXXX" is created in the same directory with
 *     O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600, owner 0:0; on btrfs FS_NOCOW_FL is set while it is
 *     empty (and compression cleared); fallocate() reserves the blocks — no zeros are written;
 *  5. the file must have no holes and no shared or compressed extents (st_blocks and FIEMAP);
 *  6. a swap header for page_size labelled "nodeswap" is written and read back with
 *     swap_header_probe(); the file is fsync()ed, renamed to path without replacing anything
 *     (RENAME_NOREPLACE) and the directory fsync()ed;
 *  7. swap_on(root, path, priority).
 * On any failure nothing is left behind: the temporary file is removed, and so is the file at
 * path when swapon fails. Directories created in step 2 are kept.
 * Returns 0 created and on, SWAPFILE_SWAPON_SKIPPED created under a foreign root, or -errno with
 * *ret_reason set: -EMEDIUMTYPE the file system or storage is refused, -ENOSPC not enough room,
 * -ELOOP a symlink on the path, -EPERM an insecure parent directory, -EEXIST something at path,
 * -EINVAL bad arguments, other -errno from the system calls. */
int swapfile_create(const char *root, const char *path, uint64_t size, uint64_t page_size,
                    int priority, unsigned allowed_storage, char **ret_reason);
/* ... with discard flags for swapon ([File] Discard=, swap_on_flags()). */
int swapfile_create_flags(const char *root, const char *path, uint64_t size, uint64_t page_size,
                          int priority, int discard_flags, unsigned allowed_storage, char **ret_reason);

/* Whether the existing file at path can be used as it is for a swap area of size bytes on a
 * kernel with page_size: no symlink on the path (lstat, nothing followed), parents owned by root
 * and not writable by group or others, a regular file owned by root with mode exactly 0600, of
 * exactly size bytes, without holes or shared/compressed extents, on btrfs with the No_COW
 * attribute and without the compression one, with a swap header made for
 * page_size, labelled "nodeswap", covering the whole file. Reads only (O_NOATIME: not even the
 * access time is written).
 * Returns 1 reusable, 0 not (*ret_problem set to the first problem found, in words, e.g.
 * "header made for 4096-byte pages, kernel uses 16384"), -ENOENT nothing at path, other -errno.
 * ret_problem may be NULL. */
int swapfile_verify(const char *root, const char *path, uint64_t size, uint64_t page_size, char **ret_problem);

/* Rewrite the swap header of the file at path for page_size, in place, keeping its size and
 * label "nodeswap" (a new UUID), for a file made under a kernel with another page size. The file
 * must be a regular root-owned file (no symlinks on the path) that already carries a swap
 * signature (-EMEDIUMTYPE otherwise: nodeswap does not write over other data) and is not swapped
 * on (-EBUSY). The new header is read back and checked.
 * Returns 1 rewritten, 0 the header was already made for page_size (nothing written), -errno. */
int swapfile_rewrite_header(const char *root, const char *path, uint64_t page_size);

/* Whether path is listed in ROOT/proc/swaps. Returns 1 listed (with its priority and the bytes in
 * use, either pointer may be NULL), 0 not listed, -errno. */
int swapfile_is_active(const char *root, const char *path, int *ret_priority, uint64_t *ret_used);

/* Replace the swap file at path (created by nodeswap) with one of size bytes, make before break.
 * Because an active swap file can be neither renamed nor replaced (see the top of this file),
 * the new file cannot be swapped on first and renamed into place afterwards. Instead:
 *  - the old file is off: a new file is made under a temporary name and renamed over it (one
 *    atomic step), then swapped on; without room for both, the old one is deleted first;
 *  - the old file is on: a bridge area big enough for the pages the old file holds
 *    (used + 1/8 + 16 MiB) is made under a temporary name in the same directory and swapped on
 *    with priority; the old file is swapped off (its pages go to RAM, or to the bridge under
 *    pressure) and deleted; the new file is made at path and swapped on; then the bridge is swapped
 *    off (its pages go to RAM or to the new file) and deleted. At every moment there is swap room
 *    for what the old file held, /proc/swaps ends up naming path, and no temporary name remains.
 * The space for every step is checked before the first write. Without it: -ENOSPC and a reason
 * that says what to do ("run 'nodeswap apply --force' to swap the old file off first, or free
 * space"). If swapping the old file off fails, the bridge is removed and the old file stays as it
 * was. Under a foreign root nothing is swapped on or off and SWAPFILE_SWAPON_SKIPPED is returned.
 * Returns as swapfile_create(); -ENOENT when there is no file at path. */
int swapfile_resize(const char *root, const char *path, uint64_t size, uint64_t page_size,
                    int priority, unsigned allowed_storage, char **ret_reason);
int swapfile_resize_flags(const char *root, const char *path, uint64_t size, uint64_t page_size,
                          int priority, int discard_flags, unsigned allowed_storage, char **ret_reason);

/* Swap the file at path off if it is listed in /proc/swaps, then delete it (revert --purge).
 * Only a regular file carrying a swap signature is deleted (-EMEDIUMTYPE otherwise), never
 * through a symlink (-ELOOP). Under a foreign root the swapoff is skipped. Returns 1 removed,
 * 0 there was nothing at path, -errno (-ENOMEM et al. from swapoff: the file stays). */
int swapfile_remove(const char *root, const char *path);
/* As swapfile_remove(), and the swap header must also carry nodeswap's label (SWAP_LABEL):
 * -EMEDIUMTYPE otherwise. For a file only the state names as nodeswap's (an earlier Path=). */
int swapfile_remove_labelled(const char *root, const char *path);
