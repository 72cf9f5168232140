/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap's feature file for node-feature-discovery, as it is on the node (read only). */
#include "probe/features.h"

#include <fcntl.h>
#include <sys/stat.h>

void feature_file_state_done(FeatureFileState *s) {
        if (!s)
                return;
        free(s->content);
        *s = (FeatureFileState) {};
}

int feature_file_probe(const char *root, FeatureFileState *ret) {
        FeatureFileState s = {};
        _cleanup_free_ char *path = path_join_root(root, NODESWAP_FEATURE_FILE);
        _cleanup_free_ char *dir = path_join_root(root, NFD_FEATURES_DIR);
        if (!path || !dir)
                return -ENOMEM;
        struct stat st;
        s.nfd_dir = lstat(dir, &st) == 0 && S_ISDIR(st.st_mode);
        s.exists = lstat(path, &st) == 0;

        /* O_NOFOLLOW: a symlink there is no file of nodeswap's; the writer's rename replaces it. */
        _cleanup_close_ int fd = s.exists && S_ISREG(st.st_mode)
                ? open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK) : -1;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
                int r = read_fd_full(fd, NFD_FEATURE_FILE_MAX, true, &s.content, NULL);
                if (r == -ENOMEM)
                        return r;
        }
        *ret = s;
        return 0;
}
