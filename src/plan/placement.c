/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/placement.h"

#include <limits.h>

#include "shared/path-util.h"
#include "shared/reason.h"

uint64_t swapfile_margin(uint64_t size) {
        return 16 * MiB + size / 64;
}

uint64_t swapfile_bridge_size(uint64_t used, uint64_t page_size) {
        uint64_t v = used + used / 8 + 16 * MiB;
        return (v + page_size - 1) / page_size * page_size;
}

char *swapfile_bridge_path(const char *path) {
        if (!path_is_normalized_file(path))
                return NULL;
        const char *name = strrchr(path, '/') + 1;
        size_t dir_len = (size_t) (name - path);
        /* ".#" NAME ".bridge" within NAME_MAX: a long name is cut. */
        int keep = (int) strnlen(name, NAME_MAX - strlen(SWAPFILE_BRIDGE_PREFIX SWAPFILE_BRIDGE_SUFFIX));
        return strdup_printf("%.*s" SWAPFILE_BRIDGE_PREFIX "%.*s" SWAPFILE_BRIDGE_SUFFIX, (int) dir_len, path, keep,
                             name);
}

static const char *const fs_supported[] = { "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs" };

static const struct {
        const char *type;       /* exact match, or a prefix when it ends in '.' */
        const char *why;
} fs_refused[] = {
        { "tmpfs",      "it lives in memory itself" },
        { "ramfs",      "it lives in memory itself" },
        { "devtmpfs",   "it lives in memory itself" },
        { "hugetlbfs",  "it lives in memory itself" },
        { "overlay",    "the kernel does not swap to files on overlay file systems" },
        { "nfs",        "a network file system" },
        { "nfs4",       "a network file system" },
        { "cifs",       "a network file system" },
        { "smb3",       "a network file system" },
        { "smbfs",      "a network file system" },
        { "ceph",       "a network file system" },
        { "9p",         "a file system shared from elsewhere" },
        { "virtiofs",   "a file system shared from the host" },
        { "fuse",       "a FUSE file system" },
        { "fuseblk",    "a FUSE file system" },
        { "fuse.",      "a FUSE file system" },
        { "squashfs",   "a read-only image" },
        { "erofs",      "a read-only image" },
        { "iso9660",    "a read-only image" },
        { "cramfs",     "a read-only image" },
        { "proc",       "a pseudo file system" },
        { "sysfs",      "a pseudo file system" },
        { "cgroup",     "a pseudo file system" },
        { "cgroup2",    "a pseudo file system" },
        { "devpts",     "a pseudo file system" },
        { "debugfs",    "a pseudo file system" },
        { "tracefs",    "a pseudo file system" },
        { "securityfs", "a pseudo file system" },
        { "zfs",        "ZFS has no swap file support, and swap on a zvol can deadlock under memory pressure" },
};

static const char *storage_words(StorageKind k) {
        switch (k) {
        case STORAGE_NVME:       return "an NVMe drive";
        case STORAGE_SSD:        return "an SSD";
        case STORAGE_VIRTUAL:    return "a virtual disk";
        case STORAGE_ROTATIONAL: return "a rotational disk";
        case STORAGE_MMC:        return "an SD card";
        }
        return "an unknown disk";
}

int placement_check_fs(const FsInfo *fs, unsigned allowed_storage, char **ret_reason) {
        if (!fs || !fs->fstype || !fs->mount_point)
                return -EINVAL;

        const char *mp = fs->mount_point, *type = fs->fstype;
        char *reason = NULL;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(fs_refused); i++) {
                const char *t = fs_refused[i].type;
                if (endswith(t, ".") ? startswith(type, t) : streq(type, t)) {
                        r = reason_set(&reason, 0, "%s is on %s, which cannot hold a swap file (%s)", mp, type,
                                 fs_refused[i].why);
                        goto refused;
                }
        }
        bool known = false;
        for (size_t i = 0; i < ELEMENTSOF(fs_supported); i++)
                known = known || streq(type, fs_supported[i]);
        if (!known) {
                r = reason_set(&reason, 0,
                         "%s is on %s, which cannot hold a swap file as far as nodeswap knows "
                         "(ext2/3/4, xfs, btrfs and f2fs can)", mp, type);
                goto refused;
        }
        if (fs->read_only) {
                r = reason_set(&reason, 0, "%s is mounted read-only, so it cannot hold a new swap file", mp);
                goto refused;
        }
        if (streq(type, "btrfs") && fs->btrfs_multi_device) {
                r = reason_set(&reason, 0,
                         "%s is a btrfs file system over more than one device, which cannot hold a swap file "
                         "(the kernel allows swap files on single-device btrfs only)", mp);
                goto refused;
        }
        if (streq(type, "btrfs") && fs->compressed) {
                r = reason_set(&reason, 0,
                         "%s is btrfs mounted with compression (compress=), which nodeswap does not put a swap "
                         "file on (the kernel refuses compressed swap files): mount it without compression "
                         "or choose another [File] Path=", mp);
                goto refused;
        }
        if (fs->kind == 0 || !fs->device) {
                r = reason_set(&reason, 0,
                         "cannot tell which disk is under %s (%s on %s), so [File] Storage= cannot be checked",
                         mp, type, fs->source ? fs->source : "?");
                goto refused;
        }
        if (fs->kind & allowed_storage)
                return 1;

        if (fs->kind == STORAGE_MMC)
                r = reason_set(&reason, 0,
                         "swap file on an SD card (%s) is refused unless [File] Storage= lists mmc: it wears the card",
                         fs->device);
        else if (fs->kind == STORAGE_ROTATIONAL)
                r = reason_set(&reason, 0,
                         "swap file on a rotational disk (%s) is refused unless [File] Storage= lists rotational: "
                         "swapping to a spinning disk stalls the node",
                         fs->device);
        else
                r = reason_set(&reason, 0, "swap file on %s (%s) is refused: [File] Storage= does not list %s",
                         storage_words(fs->kind), fs->device, storage_kind_to_string(fs->kind));

refused:
        if (r < 0)
                return r;
        if (ret_reason) {
                free(*ret_reason);
                *ret_reason = reason;
        } else
                free(reason);
        return 0;
}
