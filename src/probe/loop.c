/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/loop.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "probe/crypt.h"

/* "loop12" -> 12; -1 for anything else. */
static int loop_number(const char *name) {
        if (!startswith(name, "loop") || !name[4])
                return -1;
        int n = 0;
        for (const char *c = name + 4; *c; c++) {
                if (*c < '0' || *c > '9' || n > 1000000)
                        return -1;
                n = n * 10 + (*c - '0');
        }
        return n;
}

int loop_find_by_backing_file(const char *root, const char *path, char **ret_dev) {
        _cleanup_free_ char *sys = path_join_root(root, "/sys/block");
        if (!sys)
                return -ENOMEM;
        _cleanup_(closedirp) DIR *d = opendir(sys);
        if (!d)
                return errno == ENOENT ? -ENOENT : -errno;
        int best = -1;
        struct dirent *de;
        while ((de = readdir(d))) {
                int n = loop_number(de->d_name);
                if (n < 0 || (best >= 0 && n >= best))
                        continue;
                _cleanup_free_ char *bf = strdup_printf("%s/%s/loop/backing_file", sys, de->d_name);
                _cleanup_free_ char *backing = NULL;
                if (!bf)
                        return -ENOMEM;
                if (read_one_line(bf, &backing) < 0 || !streq(backing, path))
                        continue;
                best = n;
        }
        if (best < 0)
                return -ENOENT;
        char *dev = strdup_printf("/dev/loop%d", best);
        if (!dev)
                return -ENOMEM;
        *ret_dev = dev;
        return 0;
}

void writeback_target_done(WritebackTarget *t) {
        if (!t)
                return;
        free(t->loop_device);
        free(t->mapping);
        *t = (WritebackTarget) {};
}

int writeback_target_probe(const char *root, const char *path, WritebackTarget *ret) {
        WritebackTarget t = {};
        struct stat st;
        _cleanup_free_ char *p = path_join_root(root, path);
        if (!p)
                return -ENOMEM;
        if (lstat(p, &st) < 0) {
                if (errno != ENOENT && errno != ENOTDIR)
                        return -errno;
                *ret = t;
                return 0;
        }
        t.exists = true;
        t.is_regular = S_ISREG(st.st_mode);
        t.is_block = S_ISBLK(st.st_mode);
        t.mode = st.st_mode & 07777;
        t.uid = st.st_uid;
        if (t.is_regular) {
                t.size = (uint64_t) st.st_size;
                int r = loop_find_by_backing_file(root, path, &t.loop_device);
                if (r < 0 && r != -ENOENT)
                        return r;
                _cleanup_free_ char *name = NULL;
                if (crypt_swap_name(path, &name) >= 0) {
                        r = crypt_mapping_find(root, name, &t.mapping);
                        if (r < 0 && r != -ENOENT) {
                                writeback_target_done(&t);
                                return r;
                        }
                }
                _cleanup_close_ int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
                t.marker = fd >= 0 && crypt_marker_probe(fd) > 0;
                _cleanup_free_ char *dir = strdup(p);
                char *slash = dir ? strrchr(dir, '/') : NULL;
                struct statvfs sv;
                if (slash && slash != dir) {
                        *slash = 0;
                        if (statvfs(dir, &sv) >= 0)
                                t.fs_free = (uint64_t) sv.f_bavail * sv.f_frsize;
                }
        } else if (t.is_block) {
                _cleanup_free_ char *sz = strdup_printf("/sys/dev/block/%u:%u/size", major(st.st_rdev),
                                                        minor(st.st_rdev));
                _cleanup_free_ char *szp = sz ? path_join_root(root, sz) : NULL;
                uint64_t sectors;
                if (!szp)
                        return -ENOMEM;
                if (read_u64_file(szp, &sectors) >= 0)
                        t.size = sectors * 512;
        }
        *ret = t;
        return 0;
}
