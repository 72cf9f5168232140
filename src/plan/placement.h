/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/mounts.h"

/* Where a swap file may live, and how much room it and its resize need: pure functions of the
 * probed facts (probe/mounts.h), shared by plan() and the swap file writer's last check before
 * it writes (execute/swapfile.h). No I/O. */

/* The bridge of a resize (see swapfile_bridge_path()) is named DIR/.#NAME.bridge. */
#define SWAPFILE_BRIDGE_PREFIX ".#"
#define SWAPFILE_BRIDGE_SUFFIX ".bridge"

/* Decide whether a swap file may live on fs.
 * Accepted file systems: ext2, ext3, ext4, xfs, btrfs and f2fs, the ones whose swap file support
 * the kernel has. Refused with a reason naming the mount point and the type: RAM-backed ones
 * (tmpfs, ramfs, devtmpfs), overlay, network ones (nfs, nfs4, cifs, smb3, ceph ...), FUSE,
 * read-only images (squashfs, erofs, iso9660), pseudo file systems (proc, sysfs ...), ZFS (it has
 * no swap file support; a zvol for swap is known to deadlock under memory pressure), and any type
 * not in the list above. Also refused: a read-only mount; btrfs over more than one device or with
 * compression (the kernel refuses such swap files); an unknown disk; an SD card or eMMC (mmc) or
 * a rotational disk unless allowed_storage (StorageKind bits, [File] Storage=) lists it; and any
 * other kind not in allowed_storage.
 * Returns 1 allowed, 0 refused (*ret_reason set), -EINVAL, -ENOMEM. */
int placement_check_fs(const FsInfo *fs, unsigned allowed_storage, char **ret_reason);

/* Free space wanted besides the file itself: 16 MiB plus 1/64 of the size (file system metadata
 * for the extents, and room for everything else on the disk to breathe). */
uint64_t swapfile_margin(uint64_t size);

/* Replacing an active swap file. An active swap file can be neither renamed nor unlinked (EPERM:
 * the inode carries S_SWAPFILE), neither as the source of a rename nor as the file a rename would
 * replace; /proc/swaps keeps the name it was swapped on with (tests/integration/
 * test-swapfile-kernel.sh checks both). So a new file cannot be swapped on under a temporary name
 * and renamed into place. A resize instead goes through a small swap area next to the file, the
 * bridge, which holds the pages of the old file while the old file is replaced: plan() spells out
 * every step as an action (plan.h).
 *
 * The bridge's host path for the swap file at path: the same directory, ".#NAME.bridge" (NAME
 * cut to fit NAME_MAX). A fixed name, so that a run stopped midway leaves a file the next run
 * finds (it is recorded in the state as nodeswap's before it is made). NULL for a path that is
 * not normalised, or on ENOMEM. */
char *swapfile_bridge_path(const char *path);

/* The bridge's size for an old file with used bytes in use: used + 1/8 + 16 MiB, rounded up to
 * whole pages. */
uint64_t swapfile_bridge_size(uint64_t used, uint64_t page_size);

