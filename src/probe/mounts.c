/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/mounts.h"
#include "shared/mnt-blkid-util.h"

#include <libmount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "probe/blockdev.h"
#include "shared/path-util.h"

void fs_info_done(FsInfo *fs) {
        if (!fs)
                return;
        free(fs->mount_point);
        free(fs->fstype);
        free(fs->source);
        free(fs->device);
        *fs = (FsInfo) {};
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
                r = readlink_malloc(p, &link);
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
                return dir_count_entries(dev, NULL);
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

int mounts_inspect_path(const char *root, const char *path, FsInfo *ret) {
        _cleanup_(mnt_unref_tablep) struct libmnt_table *tb = NULL;
        _cleanup_(mnt_free_iterp) struct libmnt_iter *it = NULL;
        _cleanup_(fs_info_done) FsInfo fs = {};
        struct libmnt_fs *f, *best = NULL;
        size_t best_len = 0;
        int r;

        if (!ret || (!path_is_normalized_file(path) && !streq_ptr(path, "/")))
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
                r = blockdev_storage(root, name, &fs.device, &fs.kind);
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
        fs = (FsInfo) {};
        return 0;
}

