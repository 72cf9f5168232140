/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"

/* The mounted file system under a path, from ROOT/proc/self/mountinfo, ROOT/sys and statvfs().
 * Read-only; nothing here logs. */

typedef struct FsInfo {
        char *mount_point;      /* host path of the mount holding the path, e.g. "/" or "/var" */
        char *fstype;           /* "ext4", "btrfs", "tmpfs", ... */
        char *source;           /* the mount source, e.g. "/dev/nvme0n1p2", "tmpfs" */
        char *device;           /* the whole disk under it, e.g. "nvme0n1", "mmcblk0", "loop3";
                                 * NULL when there is no block device (tmpfs, nfs ...) */
        StorageKind kind;       /* the kind of that disk (blockdev_storage()); 0 when unknown */
        uint64_t free;          /* bytes free for unprivileged users (f_bavail * f_frsize): a swap
                                 * file never eats into the root reserve */
        bool read_only;         /* mounted ro */
        bool btrfs_multi_device;/* btrfs over more than one device (/sys/fs/btrfs/UUID/devices) */
        bool compressed;        /* btrfs mounted with compress= or compress-force= */
} FsInfo;

/* Free the strings and zero the struct (a cleanup function too). */
void fs_info_done(FsInfo *fs);

/* Find the file system under path (which need not exist yet; "/" too): the mount in
 * ROOT/proc/self/mountinfo with the longest mount point that is a prefix of path (the topmost one
 * when mounts are stacked), the disk under its source through ROOT/sys (blockdev_storage()), and
 * statvfs() of the nearest existing parent of path for the free space. The path is matched as
 * written: no symlink is resolved, which is right because a swap file's path may hold none.
 * Returns 0, -EINVAL for a path that is not absolute and normalised, -ENOENT when no mount holds
 * it, other -errno on failure to read. */
int mounts_inspect_path(const char *root, const char *path, FsInfo *ret);
