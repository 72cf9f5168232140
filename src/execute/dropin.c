/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kubelet drop-in written and removed. */
#include "execute/dropin.h"

#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>

static int mkdir_parents_0700(const char *dir) {
        _cleanup_free_ char *copy = strdup(dir);
        if (!copy)
                return -ENOMEM;
        for (char *p = copy + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = 0;
                if (mkdir(copy, 0700) < 0 && errno != EEXIST)
                        return -errno;
                *p = '/';
        }
        if (mkdir(copy, 0700) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

int kubelet_write_dropin(const char *root, const char *path, const char *content) {
        _cleanup_free_ char *full = path_join_root(root, path);
        _cleanup_free_ char *dir_copy = full ? strdup(full) : NULL;
        if (!full || !dir_copy)
                return -ENOMEM;
        const char *dir = dirname(dir_copy);
        int r = mkdir_parents_0700(dir);
        if (r < 0)
                return r;

        return write_file_atomic(full, content, 0644);
}

int kubelet_remove_dropin(const char *root, const char *path) {
        _cleanup_free_ char *full = path_join_root(root, path);
        if (!full)
                return -ENOMEM;
        if (unlink(full) < 0)
                return errno == ENOENT ? 0 : -errno;
        return 1;
}
