/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "plan/kubelet.h"


char *kubelet_render_dropin(SwapBehavior b, const char *memory_available) {
        const char *v = swap_behavior_to_string(b);
        if (b == SWAP_BEHAVIOR_UNSET || !v)
                return NULL;
        /* apiVersion and kind are required: a drop-in without them stops the kubelet. evictionHard
         * is a map, which the kubelet merges key by key (JSON merge patch): memory.available here
         * keeps the disk thresholds of k3s's 00-k3s-defaults.conf. The value is one the policy
         * parser accepted (digits, '.', '+', a unit suffix or '%'), safe in double quotes. */
        return strdup_printf(KUBELET_DROPIN_HEADER
                             "apiVersion: kubelet.config.k8s.io/v1beta1\n"
                             "kind: KubeletConfiguration\n"
                             "failSwapOn: false\n"
                             "memorySwap:\n"
                             "  swapBehavior: %s\n"
                             "%s%s%s",
                             v,
                             memory_available ? "evictionHard:\n  memory.available: \"" : "",
                             strempty(memory_available), memory_available ? "\"\n" : "");
}

int kubelet_effective_with_dropin(const KubeletConfig *c, const char *path, SwapBehavior b,
                                  const char *memory_available, KubeletConfigFile *ours, KubeletEffective *ret) {
        KubeletConfigFile f = {};
        if (b != SWAP_BEHAVIOR_UNSET) {
                /* parse what kubelet_render_dropin() writes, so the two cannot disagree */
                _cleanup_free_ char *text = kubelet_render_dropin(b, memory_available);
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

int kubelet_capacity_stale(const HostState *h) {
        if (h->kubelet_started_usec == 0)
                return -1;
        return h->state.swap_changed_usec > h->kubelet_started_usec;
}

char *kubelet_fail_swap_on_source(const KubeletEffective *e) {
        if (e->fail_swap_on_flag)
                return kubelet_flag_source(e->fail_swap_on_flag);
        return kubelet_source(e->fail_swap_on_from, e->fail_swap_on_from ? e->fail_swap_on_from->fail_swap_on_line : 0);
}

bool kubelet_fail_swap_on_null(const KubeletEffective *e) {
        return !e->fail_swap_on_flag && e->fail_swap_on_from &&
               e->fail_swap_on_from->fail_swap_on_field == KUBELET_FIELD_CLEARED;
}

bool kubelet_fail_swap_on_foreign(const KubeletEffective *e, const KubeletConfigFile *ours) {
        return e->fail_swap_on_flag || (e->fail_swap_on_from && e->fail_swap_on_from != ours);
}

/* The flags nodeswap decides on, and the memory eviction flags keeping the node up needs. */
static const char *const decided_flags[] = {
        "fail-swap-on", "config", "config-dir",
        "eviction-hard", "eviction-soft", "eviction-soft-grace-period", "eviction-minimum-reclaim",
        "eviction-max-pod-grace-period", "eviction-pressure-transition-period",
};

int kubelet_decided_flags(const KubeletConfig *c, char ***ret) {
        _cleanup_strv_free_ char **l = NULL;
        for (size_t i = 0; i < ELEMENTSOF(decided_flags); i++) {
                const KubeletFlag *f = kubelet_flags_last(&c->flags, decided_flags[i]);
                if (!f)
                        continue;
                char *s = kubelet_flag_source(f);
                if (!s || strv_push(&l, s) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(l);
        return 0;
}

int kubelet_dropin_memory_eviction(const Policy *p, const KubeletConfig *c, const char *path, const char **ret) {
        *ret = NULL;
        if (!p || p->swap_behavior != SWAP_BEHAVIOR_LIMITED_SWAP || !p->memory_eviction || !path)
                return 0;
        if (c && c->eviction_hard_flag)
                return 0;       /* the flag wins over every file: memory-eviction-flag */
        /* what the kubelet runs with when nodeswap's drop-in sets no evictionHard */
        KubeletConfigFile ours = {};
        KubeletEffective e;
        int r = kubelet_effective_with_dropin(c, path, p->swap_behavior, NULL, &ours, &e);
        if (r < 0)
                return r;
        if (!e.memory_available)
                *ret = p->memory_eviction;
        kubelet_config_file_done(&ours);
        return 0;
}

char *kubelet_memory_eviction_source(const KubeletEffective *e) {
        if (e->memory_available_flag)
                return kubelet_flag_source(e->memory_available_flag);
        if (e->memory_available_from)
                return kubelet_source(e->memory_available_from, e->memory_available_line);
        if (e->memory_available && e->memory_available_default) {
                if (e->merge_default_eviction_from) {
                        _cleanup_free_ char *s = kubelet_source(e->merge_default_eviction_from,
                                                                e->merge_default_eviction_from->merge_default_eviction_line);
                        return s ? strdup_printf("the kubelet's default, kept by mergeDefaultEvictionSettings in %s", s)
                                 : NULL;
                }
                return strdup("the kubelet's default (its --config file sets no evictionHard)");
        }
        /* none: who dropped the default */
        if (e->eviction_hard_flag)
                return kubelet_flag_source(e->eviction_hard_flag);
        if (e->eviction_hard_from)
                return kubelet_source(e->eviction_hard_from, e->eviction_hard_from->eviction_hard_line);
        /* no --config file (k3s, rke2): the kubelet has no default evictionHard (loadConfigFile()
         * alone puts it in) */
        return strdup("the kubelet without a --config file");
}
