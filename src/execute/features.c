/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap's feature file for node-feature-discovery, written and removed. */
#include "execute/features.h"

#include <sys/stat.h>

#include "probe/features.h"

/* Each missing directory of NFD_FEATURES_DIR below root made 0755, the ones there kept; a symlink
 * or a file in the way is refused (-ENOTDIR), never written through. root itself is trusted. */
static int mkdir_nfd_dir(const char *root) {
        _cleanup_free_ char *rel = strdup(NFD_FEATURES_DIR);
        if (!rel)
                return -ENOMEM;
        for (char *p = rel + 1;; p++) {
                if (*p && *p != '/')
                        continue;
                char c = *p;
                *p = 0;
                _cleanup_free_ char *dir = path_join_root(root, rel);
                if (!dir)
                        return -ENOMEM;
                struct stat st;
                if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                        return -errno;
                if (lstat(dir, &st) < 0)
                        return -errno;
                if (!S_ISDIR(st.st_mode))
                        return -ENOTDIR;
                if (!c)
                        return 0;
                *p = c;
        }
}

int features_write(const char *root, const char *content) {
        if (strlen(content) > NFD_FEATURE_FILE_MAX)
                return -EFBIG;
        _cleanup_free_ char *path = path_join_root(root, NODESWAP_FEATURE_FILE);
        if (!path)
                return -ENOMEM;
        int r = mkdir_nfd_dir(root);
        if (r < 0)
                return r;
        return write_file_atomic(path, content, 0644);
}

int features_remove(const char *root) {
        _cleanup_free_ char *path = path_join_root(root, NODESWAP_FEATURE_FILE);
        if (!path)
                return -ENOMEM;
        if (unlink(path) < 0)
                return errno == ENOENT ? 0 : -errno;
        return 1;
}
