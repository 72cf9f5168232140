/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/blockdev.h"

#include <limits.h>
#include <sys/stat.h>

#include "shared/path-util.h"

static StorageKind classify_disk(const char *disk, const char *sysfs_link, int rotational) {
        if (startswith(disk, "nvme"))
                return STORAGE_NVME;
        if (startswith(disk, "mmcblk"))
                return STORAGE_MMC;
        if (startswith(disk, "vd") || startswith(disk, "xvd") || startswith(disk, "loop") ||
            (sysfs_link && strstr(sysfs_link, "/virtio")))
                return STORAGE_VIRTUAL;
        if (rotational > 0)
                return STORAGE_ROTATIONAL;
        return STORAGE_SSD;
}

/* The /sys/block/<disk>/<part> layout (real sysfs has it too): the fallback when
 * /sys/class/block does not know the device, and the hypervisor checks for SCSI/SATA disks. */
static bool root_is_dir(const char *root, const char *path) {
        _cleanup_free_ char *p = path_join_root(root, path);
        struct stat st;
        /* Follows symlinks: /sys/block/<disk> is one on a real sysfs. */
        return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The whole disk for a block device name: the name itself when /sys/block/<name> exists, else the
 * disk whose /sys/block/<disk>/<name> exists (a partition; this holds for real sysfs and for plain
 * fixture directories alike). */
static int resolve_disk(const char *root, const char *name, char **ret) {
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "/sys/block/%s", name);
        if (root_is_dir(root, rel)) {
                char *d = strdup(name);
                if (!d)
                        return -ENOMEM;
                *ret = d;
                return 0;
        }
        _cleanup_free_ char *p = path_join_root(root, "/sys/block");
        if (!p)
                return -ENOMEM;
        _cleanup_(closedirp) DIR *dir = opendir(p);
        if (!dir)
                return -ENOENT;
        struct dirent *de;
        while ((de = readdir(dir))) {
                if (de->d_name[0] == '.')
                        continue;
                snprintf(rel, sizeof rel, "/sys/block/%s/%s", de->d_name, name);
                if (root_is_dir(root, rel)) {
                        char *d = strdup(de->d_name);
                        if (!d)
                                return -ENOMEM;
                        *ret = d;
                        return 0;
                }
        }
        return -ENOENT;
}

static bool line_startswith_file(const char *root, const char *rel, const char *prefix) {
        _cleanup_free_ char *p = path_join_root(root, rel);
        _cleanup_free_ char *l = NULL;
        if (!p || read_one_line(p, &l) < 0)
                return false;
        const char *s = l;
        while (*s == ' ')
                s++;
        return startswith(s, prefix);
}

static StorageKind classify_sys_block_disk(const char *root, const char *disk) {
        if (startswith(disk, "nvme"))
                return STORAGE_NVME;
        if (startswith(disk, "mmcblk"))
                return STORAGE_MMC;
        if (startswith(disk, "vd") || startswith(disk, "xvd") || startswith(disk, "loop"))
                return STORAGE_VIRTUAL;

        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "/sys/block/%s/device/driver", disk);
        _cleanup_free_ char *drv = path_join_root(root, rel);
        if (!drv)
                return 0;
        char target[PATH_MAX];
        ssize_t k = readlink(drv, target, sizeof target - 1);
        if (k > 0) {
                target[k] = 0;
                const char *base = strrchr(target, '/');
                base = base ? base + 1 : target;
                if (strstr(base, "virtio") || strstr(base, "xen") || strstr(base, "vbd"))
                        return STORAGE_VIRTUAL;
        }
        /* SCSI/SATA disks emulated by a hypervisor */
        static const char *const virtual_vendors[] = { "QEMU", "VMware", "Msft", "VBOX", "Xen" };
        for (size_t i = 0; i < ELEMENTSOF(virtual_vendors); i++) {
                snprintf(rel, sizeof rel, "/sys/block/%s/device/vendor", disk);
                if (line_startswith_file(root, rel, virtual_vendors[i]))
                        return STORAGE_VIRTUAL;
                snprintf(rel, sizeof rel, "/sys/block/%s/device/model", disk);
                if (line_startswith_file(root, rel, virtual_vendors[i]))
                        return STORAGE_VIRTUAL;
        }

        snprintf(rel, sizeof rel, "/sys/block/%s/queue/rotational", disk);
        _cleanup_free_ char *rot = path_join_root(root, rel);
        int v;
        if (!rot || read_int_file(rot, &v) < 0)
                return 0;
        return v == 1 ? STORAGE_ROTATIONAL : STORAGE_SSD;
}

int blockdev_storage(const char *root, const char *name, char **ret_disk, StorageKind *ret_kind) {
        _cleanup_free_ char *cur = NULL;
        int r;

        if (!name || !*name || strchr(name, '/') || streq(name, ".") || streq(name, ".."))
                return -EINVAL;
        cur = strdup(name);
        if (!cur)
                return -ENOMEM;

        /* A device-mapper device (LUKS, a single-PV LVM volume) over exactly one device: look
         * through it to what it stands on. */
        for (unsigned depth = 0; depth < 8; depth++) {
                _cleanup_free_ char *dir = strdup_printf("/sys/class/block/%s", cur);
                if (!dir)
                        return -ENOMEM;
                _cleanup_free_ char *p = path_join_root(root, dir);
                if (!p)
                        return -ENOMEM;
                if (access(p, F_OK) < 0) {
                        if (errno != ENOENT || depth > 0)
                                return -errno;
                        _cleanup_free_ char *disk = NULL;
                        r = resolve_disk(root, cur, &disk);
                        if (r < 0)
                                return r;
                        if (ret_kind)
                                *ret_kind = classify_sys_block_disk(root, disk);
                        if (ret_disk) {
                                *ret_disk = disk;
                                disk = NULL;
                        }
                        return 0;
                }
                if (!startswith(cur, "dm-"))
                        break;
                _cleanup_free_ char *slaves = strdup_printf("%s/slaves", p), *first = NULL;
                if (!slaves)
                        return -ENOMEM;
                r = dir_count_entries(slaves, &first);
                if (r != 1)
                        break;
                free(cur);
                cur = first;
                first = NULL;
        }

        _cleanup_free_ char *classdir = strdup_printf("/sys/class/block/%s", cur);
        if (!classdir)
                return -ENOMEM;
        _cleanup_free_ char *classpath = path_join_root(root, classdir);
        _cleanup_free_ char *partition = strdup_printf("%s/partition", strempty(classpath));
        if (!classpath || !partition)
                return -ENOMEM;

        _cleanup_free_ char *link = NULL;
        r = readlink_malloc(classpath, &link);
        if (r < 0 && r != -EINVAL)      /* -EINVAL: not a symlink (a fixture may use directories) */
                return r;

        _cleanup_free_ char *disk = NULL;
        if (access(partition, F_OK) >= 0) {
                /* .../block/nvme0n1/nvme0n1p2: the disk is the directory above the partition. */
                if (!link)
                        return -ENOENT;
                char *s = strrchr(link, '/');
                if (!s)
                        return -ENOENT;
                *s = 0;
                s = strrchr(link, '/');
                disk = strdup(s ? s + 1 : link);
                if (!disk)
                        return -ENOMEM;
                free(link);
                link = NULL;
                _cleanup_free_ char *dd = strdup_printf("/sys/class/block/%s", disk);
                _cleanup_free_ char *dp = dd ? path_join_root(root, dd) : NULL;
                if (!dp)
                        return -ENOMEM;
                r = readlink_malloc(dp, &link);
                if (r < 0 && r != -EINVAL && r != -ENOENT)
                        return r;
        } else {
                disk = cur;
                cur = NULL;
        }

        _cleanup_free_ char *rotdir = strdup_printf("/sys/class/block/%s/queue/rotational", disk);
        _cleanup_free_ char *rotpath = rotdir ? path_join_root(root, rotdir) : NULL;
        if (!rotpath)
                return -ENOMEM;
        int rotational = -1;
        if (read_int_file(rotpath, &rotational) < 0)
                rotational = -1;

        StorageKind kind = classify_disk(disk, link, rotational);
        if (kind == STORAGE_ROTATIONAL || kind == STORAGE_SSD) {
                /* A SCSI/SATA disk may still be a hypervisor's (QEMU, VMware, Hyper-V, virtio-scsi). */
                StorageKind k = classify_sys_block_disk(root, disk);
                if (k == STORAGE_VIRTUAL)
                        kind = k;
        }
        if (ret_disk) {
                *ret_disk = disk;
                disk = NULL;
        }
        if (ret_kind)
                *ret_kind = kind;
        return 0;
}

