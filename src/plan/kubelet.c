/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/kubelet.h"

#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>

char *kubelet_render_dropin(SwapBehavior b) {
        const char *v = swap_behavior_to_string(b);
        if (b == SWAP_BEHAVIOR_UNSET || !v)
                return NULL;
        /* apiVersion and kind are required: a drop-in without them stops the kubelet. */
        return strdup_printf(KUBELET_DROPIN_HEADER
                             "apiVersion: kubelet.config.k8s.io/v1beta1\n"
                             "kind: KubeletConfiguration\n"
                             "failSwapOn: false\n"
                             "memorySwap:\n"
                             "  swapBehavior: %s\n",
                             v);
}

int kubelet_effective_with_dropin(const KubeletConfig *c, const char *path, SwapBehavior b,
                                  KubeletConfigFile *ours, KubeletEffective *ret) {
        KubeletConfigFile f = {};
        if (b != SWAP_BEHAVIOR_UNSET) {
                /* parse what kubelet_render_dropin() writes, so the two cannot disagree */
                _cleanup_free_ char *text = kubelet_render_dropin(b);
                if (!text)
                        return -ENOMEM;
                int r = kubelet_config_parse(path, text, strlen(text), &f);
                if (r < 0)
                        return r;
        }
        *ours = f;
        kubelet_config_effective(c, path, b != SWAP_BEHAVIOR_UNSET ? ours : NULL, ret);
        return 0;
}

char *kubelet_source(const KubeletConfigFile *f, unsigned line) {
        if (!f)
                return strdup("the kubelet's default");
        return line > 0 ? strdup_printf("%s:%u", f->path, line) : strdup(f->path);
}

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

int kubelet_capacity_stale(const HostState *h) {
        if (h->kubelet_started_usec == 0)
                return -1;
        return h->state.swap_changed_usec > h->kubelet_started_usec;
}
