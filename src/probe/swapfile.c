/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/swapfile.h"
#include "shared/mnt-blkid-util.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libmount.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "probe/swap.h"

#define SWAPFILE_TEMP_PREFIX ".#"

static void free_and_null(char **p) {
        free(*p);
        *p = NULL;
}

void swapfile_fs_done(SwapFileFs *fs) {
        if (!fs)
                return;
        free_and_null(&fs->mount_point);
        free_and_null(&fs->fstype);
        free_and_null(&fs->source);
        free_and_null(&fs->device);
}

static inline void swapfile_fs_donep(SwapFileFs *fs) {
        swapfile_fs_done(fs);
}

/* Store a sentence in *ret_reason (when asked for) and return r. */
_printf_(3, 4)
static int fail(char **ret_reason, int r, const char *fmt, ...) {
        if (!ret_reason)
                return r;
        va_list ap;
        char *s;
        va_start(ap, fmt);
        int k = vasprintf(&s, fmt, ap);
        va_end(ap);
        if (k < 0)
                return -ENOMEM;
        free(*ret_reason);
        *ret_reason = s;
        return r;
}

static const char *fmt_bytes(char buf[static FORMAT_BYTES_MAX], uint64_t v) {
        return format_bytes(buf, FORMAT_BYTES_MAX, v);
}

uint64_t swapfile_margin(uint64_t size) {
        return 16 * MiB + size / 64;
}

/* Absolute, no empty, "." or ".." components, no trailing slash, not "/" itself. */
static bool path_is_normal_file_path(const char *path) {
        if (!path || path[0] != '/' || path[1] == 0)
                return false;
        for (const char *p = path; *p;) {
                /* p points at a '/' */
                const char *c = p + 1;
                const char *e = strchrnul(c, '/');
                size_t n = (size_t) (e - c);
                if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                if (n > 255)
                        return false;
                p = e;
        }
        return true;
}

/* The host path of the directory holding path: "/var/lib/x" -> "/var/lib", "/x" -> "/". */
static char *path_dirname(const char *path) {
        const char *s = strrchr(path, '/');
        if (!s || s == path)
                return strdup("/");
        return strndup(path, (size_t) (s - path));
}

static bool path_has_prefix(const char *path, const char *prefix) {
        if (streq(prefix, "/"))
                return path[0] == '/';
        size_t l = strlen(prefix);
        return strncmp(path, prefix, l) == 0 && (path[l] == 0 || path[l] == '/');
}

static char *path_join2(const char *dir, const char *name) {
        return strdup_printf("%s%s%s", dir, endswith(dir, "/") ? "" : "/", name);
}

/* ---- where a swap file would live ---------------------------------------------------------- */

static int readlink_alloc(const char *path, char **ret) {
        for (size_t sz = 256;; sz *= 2) {
                _cleanup_free_ char *buf = malloc(sz);
                if (!buf)
                        return -ENOMEM;
                ssize_t k = readlink(path, buf, sz);
                if (k < 0)
                        return -errno;
                if ((size_t) k < sz) {
                        buf[k] = 0;
                        *ret = buf;
                        buf = NULL;
                        return 0;
                }
                if (sz > 64 * 1024)
                        return -ENAMETOOLONG;
        }
}

/* Number of entries (besides . and ..) in a directory, and the first one's name. */
static int dir_entries(const char *path, char **ret_first) {
        _cleanup_(closedirp) DIR *d = opendir(path);
        if (!d)
                return -errno;
        int n = 0;
        struct dirent *de;
        _cleanup_free_ char *first = NULL;
        while ((errno = 0, de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (n == 0 && ret_first) {
                        first = strdup(de->d_name);
                        if (!first)
                                return -ENOMEM;
                }
                n++;
        }
        if (errno > 0)
                return -errno;
        if (ret_first) {
                *ret_first = first;
                first = NULL;
        }
        return n;
}

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

int swapfile_storage_of_device(const char *root, const char *name, char **ret_disk, StorageKind *ret_kind) {
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
                r = dir_entries(slaves, &first);
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
        r = readlink_alloc(classpath, &link);
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
                r = readlink_alloc(dp, &link);
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

/* The kernel name of the block device a mount stands on ("nvme0n1p2", "loop3", "dm-0"), or NULL. */
static int mount_device_name(const char *root, struct libmnt_fs *fs, char **ret) {
        dev_t devno = mnt_fs_get_devno(fs);
        const char *source = mnt_fs_get_source(fs);
        int r;

        *ret = NULL;
        if (major(devno) == 0 && source && startswith(source, "/dev/")) {
                /* btrfs and others show an anonymous device number: go by the source. */
                const char *base = strrchr(source, '/') + 1;
                _cleanup_free_ char *d = strdup_printf("/sys/class/block/%s", base);
                _cleanup_free_ char *p = d ? path_join_root(root, d) : NULL;
                if (!p)
                        return -ENOMEM;
                if (*base && access(p, F_OK) >= 0) {
                        *ret = strdup(base);
                        return *ret ? 0 : -ENOMEM;
                }
                _cleanup_free_ char *s = path_join_root(root, source);
                if (!s)
                        return -ENOMEM;
                struct stat st;
                if (stat(s, &st) >= 0 && S_ISBLK(st.st_mode))
                        devno = st.st_rdev;
        }
        if (major(devno) != 0) {
                _cleanup_free_ char *d = strdup_printf("/sys/dev/block/%u:%u", major(devno), minor(devno));
                _cleanup_free_ char *p = d ? path_join_root(root, d) : NULL;
                if (!p)
                        return -ENOMEM;
                _cleanup_free_ char *link = NULL;
                r = readlink_alloc(p, &link);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0) {
                        const char *s = strrchr(link, '/');
                        *ret = strdup(s ? s + 1 : link);
                        return *ret ? 0 : -ENOMEM;
                }
        }
        /* No /sys/dev/block entry (a fixture tree): go by the source's name, on the host through its
         * symlinks (/dev/mapper/x, /dev/disk/by-uuid/...). */
        if (!source || !startswith(source, "/dev/"))
                return 0;
        _cleanup_free_ char *real = root_is_host(root) ? realpath(source, NULL) : NULL;
        const char *name = strrchr(real && startswith(real, "/dev/") ? real : source, '/') + 1;
        if (!*name)
                return 0;
        *ret = strdup(name);
        return *ret ? 0 : -ENOMEM;
}

/* Whether the btrfs file system that has device name among its devices spans more than one. */
static int btrfs_device_count(const char *root, const char *name) {
        _cleanup_free_ char *p = path_join_root(root, "/sys/fs/btrfs");
        if (!p)
                return -ENOMEM;
        _cleanup_(closedirp) DIR *d = opendir(p);
        if (!d)
                return -errno;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.' || streq(de->d_name, "features"))
                        continue;
                _cleanup_free_ char *dev = strdup_printf("%s/%s/devices/%s", p, de->d_name, name);
                if (!dev)
                        return -ENOMEM;
                if (access(dev, F_OK) < 0)
                        continue;
                char *slash = strrchr(dev, '/');
                *slash = 0;
                return dir_entries(dev, NULL);
        }
        return -ENOENT;
}

static bool mount_option_on(const char *optstr, const char *name) {
        char *value = NULL;
        size_t len = 0;
        if (!optstr || mnt_optstr_get_option(optstr, name, &value, &len) != 0)
                return false;
        if (value && len > 0 && ((len == 2 && strncmp(value, "no", 2) == 0) ||
                                 (len == 4 && strncmp(value, "none", 4) == 0)))
                return false;
        return true;
}

/* statvfs() of the nearest existing directory at or above dirname(path). */
static int free_space(const char *root, const char *path, uint64_t *ret) {
        _cleanup_free_ char *dir = path_dirname(path);
        if (!dir)
                return -ENOMEM;
        for (;;) {
                _cleanup_free_ char *full = path_join_root(root, dir);
                if (!full)
                        return -ENOMEM;
                struct stat st;
                if (lstat(full, &st) >= 0 && S_ISDIR(st.st_mode)) {
                        struct statvfs sv;
                        if (statvfs(full, &sv) < 0)
                                return -errno;
                        *ret = (uint64_t) sv.f_bavail * (uint64_t) sv.f_frsize;
                        return 0;
                }
                if (streq(dir, "/"))
                        return -ENOENT;
                char *up = path_dirname(dir);
                if (!up)
                        return -ENOMEM;
                free(dir);
                dir = up;
        }
}

int swapfile_inspect_fs(const char *root, const char *path, SwapFileFs *ret) {
        _cleanup_(mnt_unref_tablep) struct libmnt_table *tb = NULL;
        _cleanup_(mnt_free_iterp) struct libmnt_iter *it = NULL;
        _cleanup_(swapfile_fs_donep) SwapFileFs fs = {};
        struct libmnt_fs *f, *best = NULL;
        size_t best_len = 0;
        int r;

        if (!ret || (!path_is_normal_file_path(path) && !streq_ptr(path, "/")))
                return -EINVAL;

        _cleanup_free_ char *mountinfo = path_join_root(root, "/proc/self/mountinfo");
        if (!mountinfo)
                return -ENOMEM;
        if (access(mountinfo, R_OK) < 0)
                return -errno;
        tb = mnt_new_table();
        it = mnt_new_iter(MNT_ITER_FORWARD);
        if (!tb || !it)
                return -ENOMEM;
        r = mnt_table_parse_file(tb, mountinfo);
        if (r < 0)
                return r;

        /* The longest mount point that holds path; of equal ones the last (the one on top). */
        while (mnt_table_next_fs(tb, it, &f) == 0) {
                const char *t = mnt_fs_get_target(f);
                if (!t || !path_has_prefix(path, t))
                        continue;
                size_t l = strlen(t);
                if (!best || l >= best_len) {
                        best = f;
                        best_len = l;
                }
        }
        if (!best)
                return -ENOENT;

        fs.mount_point = strdup(mnt_fs_get_target(best));
        fs.fstype = strdup(strempty(mnt_fs_get_fstype(best)));
        fs.source = strdup(strempty(mnt_fs_get_source(best)));
        if (!fs.mount_point || !fs.fstype || !fs.source)
                return -ENOMEM;

        const char *vfs_opts = mnt_fs_get_vfs_options(best);
        const char *fs_opts = mnt_fs_get_fs_options(best);
        fs.read_only = vfs_opts && mnt_optstr_get_option(vfs_opts, "ro", NULL, NULL) == 0;

        _cleanup_free_ char *name = NULL;
        r = mount_device_name(root, best, &name);
        if (r < 0)
                return r;
        if (name) {
                r = swapfile_storage_of_device(root, name, &fs.device, &fs.kind);
                if (r < 0 && r != -ENOENT)
                        return r;
        }

        if (streq(fs.fstype, "btrfs")) {
                fs.compressed = mount_option_on(fs_opts, "compress") || mount_option_on(fs_opts, "compress-force");
                if (name) {
                        r = btrfs_device_count(root, name);
                        if (r == -ENOMEM)
                                return r;
                        fs.btrfs_multi_device = r > 1;
                }
        }

        r = free_space(root, path, &fs.free);
        if (r < 0)
                return r;

        *ret = fs;
        fs = (SwapFileFs) {};
        return 0;
}

/* ---- the decision --------------------------------------------------------------------------- */

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

static const char *storage_name(StorageKind k) {
        switch (k) {
        case STORAGE_NVME:       return "nvme";
        case STORAGE_SSD:        return "ssd";
        case STORAGE_VIRTUAL:    return "virtual";
        case STORAGE_ROTATIONAL: return "rotational";
        case STORAGE_MMC:        return "mmc";
        }
        return "unknown";
}

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

int swapfile_check_fs(const SwapFileFs *fs, unsigned allowed_storage, char **ret_reason) {
        if (!fs || !fs->fstype || !fs->mount_point)
                return -EINVAL;

        const char *mp = fs->mount_point, *type = fs->fstype;
        char *reason = NULL;
        int r;

        for (size_t i = 0; i < ELEMENTSOF(fs_refused); i++) {
                const char *t = fs_refused[i].type;
                if (endswith(t, ".") ? startswith(type, t) : streq(type, t)) {
                        r = fail(&reason, 0, "%s is on %s, which cannot hold a swap file (%s)", mp, type,
                                 fs_refused[i].why);
                        goto refused;
                }
        }
        bool known = false;
        for (size_t i = 0; i < ELEMENTSOF(fs_supported); i++)
                known = known || streq(type, fs_supported[i]);
        if (!known) {
                r = fail(&reason, 0,
                         "%s is on %s, which cannot hold a swap file as far as nodeswap knows "
                         "(ext2/3/4, xfs, btrfs and f2fs can)", mp, type);
                goto refused;
        }
        if (fs->read_only) {
                r = fail(&reason, 0, "%s is mounted read-only, so it cannot hold a new swap file", mp);
                goto refused;
        }
        if (streq(type, "btrfs") && fs->btrfs_multi_device) {
                r = fail(&reason, 0,
                         "%s is a btrfs file system over more than one device, which cannot hold a swap file "
                         "(the kernel allows swap files on single-device btrfs only)", mp);
                goto refused;
        }
        if (streq(type, "btrfs") && fs->compressed) {
                r = fail(&reason, 0,
                         "%s is btrfs mounted with compression (compress=), which nodeswap does not put a swap "
                         "file on (the kernel refuses compressed swap files): mount it without compression "
                         "or choose another [File] Path=", mp);
                goto refused;
        }
        if (fs->kind == 0 || !fs->device) {
                r = fail(&reason, 0,
                         "cannot tell which disk is under %s (%s on %s), so [File] Storage= cannot be checked",
                         mp, type, fs->source ? fs->source : "?");
                goto refused;
        }
        if (fs->kind & allowed_storage)
                return 1;

        if (fs->kind == STORAGE_MMC)
                r = fail(&reason, 0,
                         "swap file on an SD card (%s) is refused unless [File] Storage= lists mmc: it wears the card",
                         fs->device);
        else if (fs->kind == STORAGE_ROTATIONAL)
                r = fail(&reason, 0,
                         "swap file on a rotational disk (%s) is refused unless [File] Storage= lists rotational: "
                         "swapping to a spinning disk stalls the node",
                         fs->device);
        else
                r = fail(&reason, 0, "swap file on %s (%s) is refused: [File] Storage= does not list %s",
                         storage_words(fs->kind), fs->device, storage_name(fs->kind));

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

/* ---- walking the path ------------------------------------------------------------------------ */

static int check_dir(int fd, const char *shown, char **ret_reason) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return fail(ret_reason, -errno, "cannot stat %s: %m", shown);
        if (st.st_uid != 0)
                return fail(ret_reason, -EPERM, "%s is owned by uid %u, not root; refusing a swap file below it",
                            shown, (unsigned) st.st_uid);
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return fail(ret_reason, -EPERM,
                            "%s is writable by group or others (mode %04o); refusing a swap file below it",
                            shown, (unsigned) (st.st_mode & 07777));
        return 0;
}

/* Open the directory that holds path (an O_PATH descriptor) below root, one component at a time,
 * never following a symlink, checking every directory on the way with check_dir(). With create,
 * missing directories are made root-owned 0700. *ret_name gets the last component. */
static int open_parent(const char *root, const char *path, bool create, int *ret_dirfd, char **ret_name,
                       char **ret_reason) {
        int r;

        if (!path_is_normal_file_path(path))
                return fail(ret_reason, -EINVAL, "'%s' is not an absolute, normalised path", strempty(path));

        _cleanup_close_ int fd = open(root_is_host(root) ? "/" : root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return fail(ret_reason, -errno, "cannot open the root directory %s: %m", root_is_host(root) ? "/" : root);
        r = check_dir(fd, "/", ret_reason);
        if (r < 0)
                return r;

        _cleanup_free_ char *copy = strdup(path), *shown = strdup(path);
        if (!copy || !shown)
                return -ENOMEM;

        char *c = copy + 1;
        for (char *slash; (slash = strchr(c, '/')); c = slash + 1) {
                *slash = 0;
                shown[slash - copy] = 0;        /* shown: the host path up to this component */

                int nfd = openat(fd, c, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
                if (nfd < 0 && errno == ENOENT && create) {
                        if (mkdirat(fd, c, 0700) < 0 && errno != EEXIST)
                                return fail(ret_reason, -errno, "cannot create directory %s: %m", shown);
                        if (fchownat(fd, c, 0, 0, AT_SYMLINK_NOFOLLOW) < 0)
                                return fail(ret_reason, -errno, "cannot chown directory %s: %m", shown);
                        nfd = openat(fd, c, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
                }
                if (nfd < 0) {
                        int e = errno;
                        struct stat st;
                        if (fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) >= 0 && S_ISLNK(st.st_mode))
                                return fail(ret_reason, -ELOOP,
                                            "%s is a symlink; nodeswap follows no symlinks on a swap file's path", shown);
                        if (e == ENOTDIR)
                                return fail(ret_reason, -ENOTDIR, "%s is not a directory", shown);
                        if (e == ENOENT)
                                return fail(ret_reason, -ENOENT, "%s does not exist", shown);
                        errno = e;
                        return fail(ret_reason, -e, "cannot open %s: %m", shown);
                }
                close(fd);
                fd = nfd;

                r = check_dir(fd, shown, ret_reason);
                if (r < 0)
                        return r;
                shown[slash - copy] = '/';
        }

        char *name = strdup(c);
        if (!name)
                return -ENOMEM;
        *ret_name = name;
        *ret_dirfd = fd;
        fd = -EBADF;
        return 0;
}

static int fsync_dir(int dirfd) {
        _cleanup_close_ int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fsync(fd) < 0)
                return -errno;
        return 0;
}

static char *temp_name(const char *name) {
        uint64_t rnd;
        if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != sizeof(rnd))
                rnd = ((uint64_t) getpid() << 32) ^ (uint64_t) (uintptr_t) &rnd ^ (uint64_t) time(NULL);
        return strdup_printf(SWAPFILE_TEMP_PREFIX "%s.%016" PRIx64, name, rnd);
}

/* ---- allocation and header checks ------------------------------------------------------------ */

/* 1: the first size bytes of fd are allocated without holes, shared (reflinked) or compressed
 * extents; 0: not (*ret_problem says why); -errno. */
static int check_allocation(int fd, const char *shown, uint64_t size, char **ret_problem) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if ((uint64_t) st.st_blocks * 512 < size)
                return fail(ret_problem, 0, "%s has holes: only %s of %s allocated", shown,
                            fmt_bytes(a, (uint64_t) st.st_blocks * 512), fmt_bytes(b, size));

        enum { N = 128 };
        _cleanup_free_ struct fiemap *fm = malloc(sizeof(struct fiemap) + N * sizeof(struct fiemap_extent));
        if (!fm)
                return -ENOMEM;

        uint64_t covered = 0;
        bool last = false;
        while (!last && covered < size) {
                memset(fm, 0, sizeof(struct fiemap) + N * sizeof(struct fiemap_extent));
                fm->fm_start = covered;
                fm->fm_length = size - covered;
                fm->fm_extent_count = N;
                if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
                        if (errno == EOPNOTSUPP || errno == ENOTTY)
                                return 1;       /* st_blocks is all there is to go by */
                        return -errno;
                }
                if (fm->fm_mapped_extents == 0)
                        break;
                for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
                        const struct fiemap_extent *e = &fm->fm_extents[i];
                        if (e->fe_logical > covered)
                                return fail(ret_problem, 0, "%s has a hole at offset %" PRIu64, shown, covered);
                        if (e->fe_flags & FIEMAP_EXTENT_SHARED)
                                return fail(ret_problem, 0,
                                            "%s shares blocks with another file (a reflink copy or a snapshot), "
                                            "which the kernel refuses for swap", shown);
                        if (e->fe_flags & (FIEMAP_EXTENT_ENCODED | FIEMAP_EXTENT_DATA_ENCRYPTED))
                                return fail(ret_problem, 0, "%s is compressed or encoded, which the kernel refuses for swap",
                                            shown);
                        if (e->fe_flags & (FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_DATA_TAIL))
                                return fail(ret_problem, 0, "%s has inline data, which the kernel refuses for swap", shown);
                        if (e->fe_logical + e->fe_length > covered)
                                covered = e->fe_logical + e->fe_length;
                        if (e->fe_flags & FIEMAP_EXTENT_LAST)
                                last = true;
                }
        }
        if (covered < size)
                return fail(ret_problem, 0, "%s has a hole at offset %" PRIu64, shown, covered);
        return 1;
}

/* 1: fd carries a swap header for page_size, labelled nodeswap, covering size bytes;
 * 0: not (*ret_problem says why); -errno. */
static int check_header(int fd, const char *shown, uint64_t size, uint64_t page_size, char **ret_problem) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        SwapHeaderInfo info;

        int r = swap_header_probe(fd, &info);
        if (r == -EUCLEAN)
                return fail(ret_problem, 0, "%s carries more than one signature", shown);
        if (r < 0)
                return r;
        if (r == 0)
                return fail(ret_problem, 0, "%s carries no swap signature", shown);
        if (info.page_size != page_size)
                return fail(ret_problem, 0, "%s: header made for %" PRIu64 "-byte pages, kernel uses %" PRIu64,
                            shown, info.page_size, page_size);
        if (!streq(info.label, SWAP_LABEL))
                return fail(ret_problem, 0, "%s: swap label is '%s', not '" SWAP_LABEL "'", shown, info.label);
        if (info.last_page != size / page_size - 1)
                return fail(ret_problem, 0, "%s: the swap header covers %s, the file is %s", shown,
                            fmt_bytes(a, (info.last_page + 1) * page_size), fmt_bytes(b, size));
        return 1;
}

/* 1: fd is not on btrfs, or carries the No_COW attribute there (the kernel refuses copy-on-write
 * swap files); 0: not (*ret_problem says why); -errno. */
static int check_nocow(int fd, const char *shown, char **ret_problem) {
        struct statfs sfs;
        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        if (sfs.f_type != BTRFS_SUPER_MAGIC)
                return 1;
        int attr = 0;
        if (ioctl(fd, FS_IOC_GETFLAGS, &attr) < 0)
                return -errno;
        if (!(attr & FS_NOCOW_FL))
                return fail(ret_problem, 0, "%s is on btrfs without the No_COW attribute (chattr +C)", shown);
        if (attr & FS_COMPR_FL)
                return fail(ret_problem, 0, "%s is marked for compression (chattr +c)", shown);
        return 1;
}

/* ---- creation -------------------------------------------------------------------------------- */

static int set_nocow(int fd) {
        struct statfs sfs;
        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        if (sfs.f_type != BTRFS_SUPER_MAGIC)
                return 0;
        int attr = 0;
        if (ioctl(fd, FS_IOC_GETFLAGS, &attr) < 0)
                return -errno;
        attr = (attr & ~FS_COMPR_FL) | FS_NOCOW_FL;
        if (ioctl(fd, FS_IOC_SETFLAGS, &attr) < 0)
                return -errno;
        return 1;
}

/* Fill the new, empty file fd with a swap area of size bytes. */
static int fill_area(int fd, const char *shown, uint64_t size, uint64_t page_size, char **ret_reason) {
        char a[FORMAT_BYTES_MAX];
        _cleanup_free_ char *problem = NULL;
        int r;

        if (fchown(fd, 0, 0) < 0)
                return fail(ret_reason, -errno, "cannot chown %s to root: %m", shown);
        if (fchmod(fd, 0600) < 0)
                return fail(ret_reason, -errno, "cannot chmod %s to 0600: %m", shown);

        r = set_nocow(fd);
        if (r < 0) {
                errno = -r;
                return fail(ret_reason, r, "cannot set the No_COW attribute on %s (btrfs): %m", shown);
        }

        if (fallocate(fd, 0, 0, (off_t) size) < 0) {
                r = -errno;
                return fail(ret_reason, r, "cannot allocate %s for %s: %s", fmt_bytes(a, size), shown, strerror(-r));
        }

        r = check_allocation(fd, shown, size, &problem);
        if (r < 0) {
                errno = -r;
                return fail(ret_reason, r, "cannot check the allocation of %s: %m", shown);
        }
        if (r == 0)
                return fail(ret_reason, -EIO, "%s after fallocate()", problem);

        r = swap_header_write(fd, size, page_size, SWAP_LABEL);
        if (r < 0) {
                errno = -r;
                return fail(ret_reason, r, "cannot write the swap header of %s: %m", shown);
        }

        r = check_header(fd, shown, size, page_size, &problem);
        if (r < 0) {
                errno = -r;
                return fail(ret_reason, r, "cannot read back the swap header of %s: %m", shown);
        }
        if (r == 0)
                return fail(ret_reason, -EIO, "the swap header did not read back: %s", problem);

        if (fsync(fd) < 0)
                return fail(ret_reason, -errno, "cannot fsync %s: %m", shown);
        return 0;
}

/* Create a complete swap area under a new temporary name in dirfd. Nothing is left on failure. */
static int make_area(int dirfd, const char *dir, const char *name, uint64_t size, uint64_t page_size,
                     char **ret_tmp, char **ret_reason) {
        _cleanup_free_ char *tmp = NULL, *shown = NULL;
        _cleanup_close_ int fd = -EBADF;

        for (unsigned attempt = 0; fd < 0; attempt++) {
                free(tmp);
                tmp = temp_name(name);
                if (!tmp)
                        return -ENOMEM;
                fd = openat(dirfd, tmp, O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR | O_CLOEXEC | O_NOCTTY, 0600);
                if (fd < 0 && (errno != EEXIST || attempt >= 16)) {
                        int e = errno;
                        free(shown);
                        shown = path_join2(dir, tmp);
                        errno = e;
                        return fail(ret_reason, -e, "cannot create %s: %m", shown ? shown : tmp);
                }
        }
        shown = path_join2(dir, tmp);
        if (!shown) {
                (void) unlinkat(dirfd, tmp, 0);
                return -ENOMEM;
        }

        int r = fill_area(fd, shown, size, page_size, ret_reason);
        if (r < 0) {
                (void) unlinkat(dirfd, tmp, 0);
                return r;
        }
        *ret_tmp = tmp;
        tmp = NULL;
        return 0;
}

static int rename_noreplace(int dirfd, const char *from, const char *to) {
        if (renameat2(dirfd, from, dirfd, to, RENAME_NOREPLACE) >= 0)
                return 0;
        if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
                return -errno;
        /* A file system without RENAME_NOREPLACE: link() never replaces either. */
        if (linkat(dirfd, from, dirfd, to, 0) < 0)
                return -errno;
        (void) unlinkat(dirfd, from, 0);
        return 0;
}

static int check_room(const SwapFileFs *fs, uint64_t size, char **ret_reason) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX];
        uint64_t need = size + swapfile_margin(size);
        if (fs->free >= need)
                return 0;
        return fail(ret_reason, -ENOSPC,
                    "not enough room on %s for a %s swap file: need %s (with %s to spare), have %s",
                    fs->mount_point, fmt_bytes(a, size), fmt_bytes(b, need), fmt_bytes(c, swapfile_margin(size)),
                    fmt_bytes(d, fs->free));
}

static int check_args(const char *path, uint64_t size, uint64_t page_size, int priority, char **ret_reason) {
        if (!path_is_normal_file_path(path))
                return fail(ret_reason, -EINVAL, "'%s' is not an absolute, normalised path", strempty(path));
        if (page_size < 4096 || (page_size & (page_size - 1)) != 0)
                return fail(ret_reason, -EINVAL, "page size %" PRIu64 " is not a power of two >= 4096", page_size);
        if (size / page_size < 10)
                return fail(ret_reason, -EINVAL, "a swap file needs at least 10 pages, %" PRIu64 " bytes is less", size);
        if (size > INT64_MAX)
                return fail(ret_reason, -EFBIG, "%" PRIu64 " bytes is too big for a file", size);
        if (priority < 0 || priority > SWAP_PRIORITY_MAX)
                return fail(ret_reason, -EINVAL, "swap priority %d is not in 0..%d", priority, SWAP_PRIORITY_MAX);
        return 0;
}

static int inspect_and_check(const char *root, const char *path, unsigned allowed_storage, SwapFileFs *ret,
                             char **ret_reason) {
        _cleanup_(swapfile_fs_donep) SwapFileFs fs = {};
        _cleanup_free_ char *why = NULL;

        int r = swapfile_inspect_fs(root, path, &fs);
        if (r < 0) {
                errno = -r;
                return fail(ret_reason, r, "cannot find the file system under %s: %m", path);
        }
        r = swapfile_check_fs(&fs, allowed_storage, &why);
        if (r < 0)
                return r;
        if (r == 0)
                return fail(ret_reason, -EMEDIUMTYPE, "%s", why);
        *ret = fs;
        fs = (SwapFileFs) {};
        return 0;
}

/* Refuse when anything, even a dangling symlink, is at name. */
static int check_nothing_at(int dirfd, const char *path, char **ret_reason) {
        struct stat st;
        if (fstatat(dirfd, strrchr(path, '/') + 1, &st, AT_SYMLINK_NOFOLLOW) >= 0) {
                if (S_ISLNK(st.st_mode))
                        return fail(ret_reason, -ELOOP,
                                    "%s is a symlink; nodeswap neither follows nor replaces it", path);
                return fail(ret_reason, -EEXIST, "%s already exists; nodeswap does not replace it here", path);
        }
        if (errno != ENOENT)
                return fail(ret_reason, -errno, "cannot stat %s: %m", path);
        return 0;
}

/* Make the file at dirfd/name (the host path "path") a new swap area; no swapon. */
static int create_at(int dirfd, const char *path, const char *name, uint64_t size, uint64_t page_size,
                     char **ret_reason) {
        _cleanup_free_ char *dir = path_dirname(path), *tmp = NULL;
        if (!dir)
                return -ENOMEM;

        int r = make_area(dirfd, dir, name, size, page_size, &tmp, ret_reason);
        if (r < 0)
                return r;
        r = rename_noreplace(dirfd, tmp, name);
        if (r < 0) {
                (void) unlinkat(dirfd, tmp, 0);
                errno = -r;
                return fail(ret_reason, r, "cannot move the new swap file into place at %s: %m", path);
        }
        r = fsync_dir(dirfd);
        if (r < 0) {
                errno = -r;
                return fail(ret_reason, r, "cannot fsync the directory of %s: %m", path);
        }
        return 0;
}

int swapfile_create_flags(const char *root, const char *path, uint64_t size, uint64_t page_size,
                          int priority, int discard_flags, unsigned allowed_storage, char **ret_reason) {
        _cleanup_(swapfile_fs_donep) SwapFileFs fs = {};
        _cleanup_close_ int dirfd = -EBADF;
        _cleanup_free_ char *name = NULL;
        int r;

        r = check_args(path, size, page_size, priority, ret_reason);
        if (r < 0)
                return r;

        /* Everything that can refuse without writing comes first. */
        r = inspect_and_check(root, path, allowed_storage, &fs, ret_reason);
        if (r < 0)
                return r;
        r = check_room(&fs, size, ret_reason);
        if (r < 0)
                return r;

        r = open_parent(root, path, /* create= */ true, &dirfd, &name, ret_reason);
        if (r < 0)
                return r;
        r = check_nothing_at(dirfd, path, ret_reason);
        if (r < 0)
                return r;

        r = create_at(dirfd, path, name, size, page_size, ret_reason);
        if (r < 0)
                return r;

        r = swap_on_flags(root, path, priority, discard_flags);
        if (r == -EOPNOTSUPP)
                return SWAPFILE_SWAPON_SKIPPED;
        if (r < 0) {
                (void) unlinkat(dirfd, name, 0);
                (void) fsync_dir(dirfd);
                errno = -r;
                return fail(ret_reason, r, "swapon %s failed: %m; the new file was removed", path);
        }
        return 0;
}

int swapfile_create(const char *root, const char *path, uint64_t size, uint64_t page_size,
                    int priority, unsigned allowed_storage, char **ret_reason) {
        return swapfile_create_flags(root, path, size, page_size, priority, 0, allowed_storage, ret_reason);
}

/* ---- checking an existing file ---------------------------------------------------------------- */

/* Open the regular file at path (with flags: O_RDONLY or O_RDWR), walking the parents as
 * open_parent() does, never following a symlink and without touching its access time.
 * Returns 0 with *ret_fd (and *ret_dirfd when asked for) and its stat, 1 when the path or the file
 * cannot be used (a symlink, no regular file, an unsafe parent: *ret_problem set), -ENOENT when
 * nothing is there, -errno. */
static int open_existing(const char *root, const char *path, int flags, int *ret_dirfd, int *ret_fd,
                         struct stat *ret_st, char **ret_problem) {
        _cleanup_close_ int dirfd = -EBADF, fd = -EBADF;
        _cleanup_free_ char *name = NULL, *why = NULL;
        struct stat st, st2;
        int r;

        r = open_parent(root, path, /* create= */ false, &dirfd, &name, &why);
        if (r == -ENOENT || r == -ENOMEM)
                return r;
        if (r < 0)
                goto refused;

        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (S_ISLNK(st.st_mode)) {
                r = fail(&why, -ELOOP, "%s is a symlink, not a regular file", path);
                goto refused;
        }
        if (!S_ISREG(st.st_mode)) {
                r = fail(&why, -EMEDIUMTYPE, "%s is not a regular file", path);
                goto refused;
        }

        fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NOATIME);
        if (fd < 0 && errno == EPERM)
                fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st2) < 0)
                return -errno;
        if (st2.st_ino != st.st_ino || st2.st_dev != st.st_dev || !S_ISREG(st2.st_mode))
                return -EAGAIN;         /* replaced under our feet */

        if (ret_dirfd) {
                *ret_dirfd = dirfd;
                dirfd = -EBADF;
        }
        *ret_fd = fd;
        fd = -EBADF;
        *ret_st = st2;
        return 0;

refused:
        if (r == -ENOMEM)
                return r;
        if (ret_problem) {
                free(*ret_problem);
                *ret_problem = why;
                why = NULL;
        }
        return 1;
}

int swapfile_verify(const char *root, const char *path, uint64_t size, uint64_t page_size, char **ret_problem) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *problem = NULL;
        struct stat st;
        int r;

        if (!path_is_normal_file_path(path) || page_size < 4096 || (page_size & (page_size - 1)) != 0)
                return -EINVAL;

        r = open_existing(root, path, O_RDONLY, NULL, &fd, &st, &problem);
        if (r < 0)
                return r;
        if (r > 0)
                goto not_reusable;

        if (st.st_uid != 0) {
                fail(&problem, 0, "%s is owned by uid %u, not root", path, (unsigned) st.st_uid);
                goto not_reusable;
        }
        if ((st.st_mode & 07777) != 0600) {
                fail(&problem, 0, "%s has mode %04o, not 0600", path, (unsigned) (st.st_mode & 07777));
                goto not_reusable;
        }
        if ((uint64_t) st.st_size != size) {
                fail(&problem, 0, "%s is %s, want %s", path, fmt_bytes(a, (uint64_t) st.st_size), fmt_bytes(b, size));
                goto not_reusable;
        }
        r = check_allocation(fd, path, size, &problem);
        if (r < 0)
                return r;
        if (r == 0)
                goto not_reusable;
        r = check_nocow(fd, path, &problem);
        if (r < 0)
                return r;
        if (r == 0)
                goto not_reusable;
        r = check_header(fd, path, size, page_size, &problem);
        if (r < 0)
                return r;
        if (r == 0)
                goto not_reusable;
        return 1;

not_reusable:
        if (!problem)
                return -ENOMEM;
        if (ret_problem) {
                free(*ret_problem);
                *ret_problem = problem;
                problem = NULL;
        }
        return 0;
}

/* ---- /proc/swaps ------------------------------------------------------------------------------- */

int swapfile_is_active(const char *root, const char *path, int *ret_priority, uint64_t *ret_used) {
        SwapEntry *entries = NULL;
        size_t n = 0;
        int r;

        if (!path)
                return -EINVAL;
        r = swaps_read(root, &entries, &n);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;

        r = 0;
        for (size_t i = 0; i < n; i++) {
                if (!streq(entries[i].path, path))
                        continue;
                if (ret_priority)
                        *ret_priority = entries[i].priority;
                if (ret_used)
                        *ret_used = entries[i].used;
                r = 1;
                break;
        }
        swap_entries_free(entries, n);
        return r;
}

/* ---- rewrite, resize, remove ------------------------------------------------------------------- */

int swapfile_rewrite_header(const char *root, const char *path, uint64_t page_size) {
        _cleanup_close_ int fd = -EBADF;
        struct stat st;
        SwapHeaderInfo info;
        int r;

        if (!path_is_normal_file_path(path) || page_size < 4096 || (page_size & (page_size - 1)) != 0)
                return -EINVAL;

        r = swapfile_is_active(root, path, NULL, NULL);
        if (r < 0)
                return r;
        if (r > 0)
                return -EBUSY;

        r = open_existing(root, path, O_RDWR, NULL, &fd, &st, NULL);
        if (r < 0)
                return r;
        if (r > 0)
                return -EMEDIUMTYPE;    /* a symlink, no regular file, an unsafe parent */
        if (st.st_uid != 0)
                return -EPERM;
        r = swap_header_probe(fd, &info);
        if (r < 0)
                return r;
        if (r == 0)
                return -EMEDIUMTYPE;
        if ((uint64_t) st.st_size / page_size < 10)
                return -EINVAL;
        if (info.page_size == page_size && streq(info.label, SWAP_LABEL) &&
            info.last_page == (uint64_t) st.st_size / page_size - 1)
                return 0;

        r = swap_header_write(fd, (uint64_t) st.st_size, page_size, SWAP_LABEL);
        if (r < 0)
                return r;
        r = check_header(fd, path, (uint64_t) st.st_size / page_size * page_size, page_size, NULL);
        if (r < 0)
                return r;
        if (r == 0)
                return -EIO;
        if (fsync(fd) < 0)
                return -errno;
        return 1;
}

static int no_room(const SwapFileFs *fs, uint64_t need, char **ret_reason) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        return fail(ret_reason, -ENOSPC,
                    "not enough room on %s for both files (need %s, have %s): run 'nodeswap apply --force' "
                    "to swap the old file off first, or free space",
                    fs->mount_point, fmt_bytes(a, need), fmt_bytes(b, fs->free));
}

static uint64_t round_up(uint64_t v, uint64_t to) {
        return (v + to - 1) / to * to;
}

int swapfile_resize_flags(const char *root, const char *path, uint64_t size, uint64_t page_size,
                          int priority, int discard_flags, unsigned allowed_storage, char **ret_reason) {
        _cleanup_(swapfile_fs_donep) SwapFileFs fs = {};
        _cleanup_close_ int dirfd = -EBADF;
        _cleanup_free_ char *name = NULL, *dir = NULL;
        uint64_t used = 0, m = swapfile_margin(size);
        struct stat st;
        int r;

        r = check_args(path, size, page_size, priority, ret_reason);
        if (r < 0)
                return r;
        r = inspect_and_check(root, path, allowed_storage, &fs, ret_reason);
        if (r < 0)
                return r;
        r = open_parent(root, path, /* create= */ false, &dirfd, &name, ret_reason);
        if (r < 0)
                return r;
        dir = path_dirname(path);
        if (!dir)
                return -ENOMEM;

        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return fail(ret_reason, -errno, "cannot resize %s: %m", path);
        if (!S_ISREG(st.st_mode))
                return fail(ret_reason, S_ISLNK(st.st_mode) ? -ELOOP : -EEXIST,
                            "%s is not a regular file; nodeswap does not replace it", path);
        uint64_t old_alloc = (uint64_t) st.st_blocks * 512;

        bool host = root_is_host(root);
        int active = 0;
        if (host) {
                active = swapfile_is_active(root, path, NULL, &used);
                if (active < 0) {
                        errno = -active;
                        return fail(ret_reason, active, "cannot read /proc/swaps: %m");
                }
        }

        if (!active) {
                /* Nothing to move out of the old file: replace it in one rename when there is room
                 * for both, else delete it first. */
                _cleanup_free_ char *tmp = NULL;
                if (fs.free >= size + m) {
                        r = make_area(dirfd, dir, name, size, page_size, &tmp, ret_reason);
                        if (r < 0)
                                return r;
                        if (renameat(dirfd, tmp, dirfd, name) < 0) {
                                r = -errno;
                                (void) unlinkat(dirfd, tmp, 0);
                                errno = -r;
                                return fail(ret_reason, r, "cannot move the new swap file over %s: %m", path);
                        }
                        r = fsync_dir(dirfd);
                        if (r < 0)
                                return fail(ret_reason, r, "cannot fsync the directory of %s", path);
                } else if (fs.free + old_alloc >= size + m) {
                        if (unlinkat(dirfd, name, 0) < 0)
                                return fail(ret_reason, -errno, "cannot delete the old %s: %m", path);
                        (void) fsync_dir(dirfd);
                        r = create_at(dirfd, path, name, size, page_size, ret_reason);
                        if (r < 0) {
                                _cleanup_free_ char *first = ret_reason && *ret_reason ? strdup(*ret_reason) : NULL;
                                return fail(ret_reason, r, "%s; the old file (off) had been deleted to make room",
                                            first ? first : "cannot create the new swap file");
                        }
                } else {
                        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
                        return fail(ret_reason, -ENOSPC,
                                    "not enough room on %s for a %s swap file even without the old one "
                                    "(need %s, have %s with its space): free space or choose a smaller Size=",
                                    fs.mount_point, fmt_bytes(a, size), fmt_bytes(b, size + m),
                                    fmt_bytes((char[FORMAT_BYTES_MAX]) {}, fs.free + old_alloc));
                }

                r = swap_on_flags(root, path, priority, discard_flags);
                if (r == -EOPNOTSUPP)
                        return SWAPFILE_SWAPON_SKIPPED;
                if (r < 0) {
                        errno = -r;
                        return fail(ret_reason, r, "the new %s is in place, but swapon failed: %m", path);
                }
                return 0;
        }

        /* The old file is on and holds used bytes: a bridge carries them while the files change. */
        uint64_t bridge = round_up(used + used / 8 + 16 * MiB, page_size);
        uint64_t need1 = bridge + swapfile_margin(bridge);      /* old + bridge */
        uint64_t need2 = bridge + size + m;                     /* bridge + new, old gone */
        uint64_t short2 = need2 > old_alloc ? need2 - old_alloc : 0;    /* what must be free now */
        if (fs.free < need1 || fs.free < short2)
                return no_room(&fs, need1 > short2 ? need1 : short2, ret_reason);

        _cleanup_free_ char *btmp = NULL, *bpath = NULL;
        r = make_area(dirfd, dir, name, bridge, page_size, &btmp, ret_reason);
        if (r < 0)
                return r;
        bpath = path_join2(dir, btmp);
        if (!bpath) {
                (void) unlinkat(dirfd, btmp, 0);
                return -ENOMEM;
        }
        r = swap_on_flags(root, bpath, priority, discard_flags);
        if (r < 0) {
                (void) unlinkat(dirfd, btmp, 0);
                errno = -r;
                return fail(ret_reason, r, "swapon of the bridge %s failed: %m; %s was left as it was", bpath, path);
        }

        r = swap_off(root, path);
        if (r < 0 && r != -EINVAL) {    /* -EINVAL: it went off meanwhile */
                int k = swap_off(root, bpath);
                if (k >= 0)
                        (void) unlinkat(dirfd, btmp, 0);
                errno = -r;
                return fail(ret_reason, r, "swapoff %s failed: %m; it stays on as it was%s%s", path,
                            k < 0 ? ", and so does the bridge " : "", k < 0 ? bpath : "");
        }
        if (unlinkat(dirfd, name, 0) < 0) {
                r = -errno;
                (void) swap_on_flags(root, path, priority, discard_flags);
                if (swap_off(root, bpath) >= 0)
                        (void) unlinkat(dirfd, btmp, 0);
                errno = -r;
                return fail(ret_reason, r, "cannot delete the old %s: %m", path);
        }
        (void) fsync_dir(dirfd);

        r = create_at(dirfd, path, name, size, page_size, ret_reason);
        if (r >= 0) {
                r = swap_on_flags(root, path, priority, discard_flags);
                if (r < 0) {
                        (void) unlinkat(dirfd, name, 0);
                        errno = -r;
                        r = fail(ret_reason, r, "swapon %s failed: %m", path);
                }
        }
        if (r < 0) {
                /* Keep the bridge on: it may hold the pages the old file had. */
                _cleanup_free_ char *first = ret_reason && *ret_reason ? strdup(*ret_reason) : NULL;
                return fail(ret_reason, r, "%s; the old file is gone and the bridge %s stays on holding its pages",
                            first ? first : "cannot create the new swap file", bpath);
        }

        r = swap_off(root, bpath);
        if (r < 0) {
                errno = -r;
                return fail(ret_reason, r, "the new %s is on, but swapoff of the bridge %s failed: %m; "
                            "swap it off and delete it by hand", path, bpath);
        }
        if (unlinkat(dirfd, btmp, 0) < 0)
                return fail(ret_reason, -errno, "cannot delete the bridge %s: %m", bpath);
        (void) fsync_dir(dirfd);
        return 0;
}

int swapfile_resize(const char *root, const char *path, uint64_t size, uint64_t page_size,
                    int priority, unsigned allowed_storage, char **ret_reason) {
        return swapfile_resize_flags(root, path, size, page_size, priority, 0, allowed_storage, ret_reason);
}

static int swapfile_remove_impl(const char *root, const char *path, bool need_label) {
        _cleanup_close_ int dirfd = -EBADF, fd = -EBADF;
        _cleanup_free_ char *name = NULL;
        struct stat st;
        int r;

        if (!path_is_normal_file_path(path))
                return -EINVAL;

        r = open_existing(root, path, O_RDONLY, &dirfd, &fd, &st, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (r > 0) {
                struct stat lst;
                _cleanup_free_ char *full = path_join_root(root, path);
                if (!full)
                        return -ENOMEM;
                if (lstat(full, &lst) >= 0 && S_ISLNK(lst.st_mode))
                        return -ELOOP;
                return -EMEDIUMTYPE;
        }

        SwapHeaderInfo info;
        r = swap_header_probe(fd, &info);
        if (r < 0)
                return r;
        if (r == 0)
                return -EMEDIUMTYPE;
        if (need_label && !streq(info.label, SWAP_LABEL))
                return -EMEDIUMTYPE;
        close(fd);
        fd = -EBADF;

        r = swapfile_is_active(root, path, NULL, NULL);
        if (r < 0)
                return r;
        if (r > 0) {
                r = swap_off(root, path);
                if (r < 0 && r != -EOPNOTSUPP && r != -EINVAL)
                        return r;
        }

        name = strdup(strrchr(path, '/') + 1);
        if (!name)
                return -ENOMEM;
        if (unlinkat(dirfd, name, 0) < 0)
                return -errno;
        (void) fsync_dir(dirfd);
        return 1;
}

int swapfile_remove(const char *root, const char *path) {
        return swapfile_remove_impl(root, path, false);
}

int swapfile_remove_labelled(const char *root, const char *path) {
        return swapfile_remove_impl(root, path, true);
}
