/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap's feature file for node-feature-discovery: its labels (one row each), its text, and
 * the plan's write or removal of it (plan_features(), the last step of plan()). */
#include "plan/features.h"

#include "plan/context.h"
#include "plan/kubelet.h"
#include "plan/noswap.h"
#include "probe/features.h"
#include "shared/string-table.h"

void feature_input_done(FeatureInput *in) {
        if (!in)
                return;
        free(in->zram_algorithm);
        in->zram_algorithm = NULL;
}

int feature_input_copy(const FeatureInput *in, FeatureInput *ret) {
        FeatureInput c = *in;
        if (in->zram_algorithm && !(c.zram_algorithm = strdup(in->zram_algorithm)))
                return -ENOMEM;
        *ret = c;
        return 0;
}

static bool is_alnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool label_value_valid(const char *v) {
        size_t n = strlen(v);
        if (n == 0)
                return true;
        if (n > LABEL_VALUE_MAX || !is_alnum(v[0]) || !is_alnum(v[n - 1]))
                return false;
        for (size_t i = 0; i < n; i++)
                if (!is_alnum(v[i]) && v[i] != '-' && v[i] != '_' && v[i] != '.')
                        return false;
        return true;
}

static char *label_swap_behavior(const FeatureInput *in) {
        if (!in->swap_behavior_known)
                return NULL;
        return strdup(swap_behavior_to_string(in->swap_behavior == SWAP_BEHAVIOR_UNSET ? SWAP_BEHAVIOR_NO_SWAP
                                                                                      : in->swap_behavior));
}

/* Backend='s names joined by "-" (a label value has no "+" or space): "zram-file". */
static char *label_backend(const FeatureInput *in) {
        if (!in->backend_set)
                return NULL;
        if (in->backends == 0)
                return strdup("none");
        _cleanup_strv_free_ char **names = NULL;
        for (size_t b = 0; b < policy_n_backends; b++)
                if ((in->backends & policy_backends[b].bit) && strv_extend(&names, policy_backends[b].name) < 0)
                        return NULL;
        return strv_join(names, "-");
}

/* The nearest whole GiB, and 1 for less than half a GiB: 0 says the node has no swap (a 512 MiB
 * zram device is 512 MiB less its header page, which would round to 0). */
static char *label_swap_gib(const FeatureInput *in) {
        uint64_t g = (in->swap_total + GiB / 2) / GiB;
        return strdup_printf("%" PRIu64, g == 0 && in->swap_total > 0 ? 1 : g);
}

static char *label_zram_algorithm(const FeatureInput *in) {
        return in->zram_algorithm ? strdup(in->zram_algorithm) : NULL;
}

static char *label_policy_match(const FeatureInput *in) {
        return strdup(in->policy_match ? "true" : "false");
}

static char *label_kubelet_no_swap(const FeatureInput *in) {
        return in->kubelet_no_swap < 0 ? NULL : strdup(in->kubelet_no_swap ? "true" : "false");
}

static char *label_disk_swap_encrypted(const FeatureInput *in) {
        return in->disk_swap_encrypted < 0 ? NULL : strdup(in->disk_swap_encrypted ? "true" : "false");
}

/* The labels, in the order the file lists them. A label that has no value on this node (no zram,
 * no backend set) is left out; its row's function returns NULL without failing. */
static const struct {
        const char *name;
        char *(*value)(const FeatureInput *in);
        bool optional;          /* NULL is "left out", not ENOMEM */
} feature_labels[_FEATURE_LABEL_MAX] = {
        [FEATURE_LABEL_SWAP_BEHAVIOR] = { "swap-behavior", label_swap_behavior, true },
        [FEATURE_LABEL_BACKEND] = { "backend", label_backend, true },
        [FEATURE_LABEL_SWAP_GIB] = { "swap-gib", label_swap_gib, false },
        [FEATURE_LABEL_ZRAM_ALGORITHM] = { "zram-algorithm", label_zram_algorithm, true },
        [FEATURE_LABEL_POLICY_MATCH] = { "policy-match", label_policy_match, false },
        [FEATURE_LABEL_KUBELET_NO_SWAP] = { "kubelet-no-swap", label_kubelet_no_swap, true },
        [FEATURE_LABEL_DISK_SWAP_ENCRYPTED] = { "disk-swap-encrypted", label_disk_swap_encrypted, true },
};

const char *feature_label_to_string(FeatureLabel l) {
        return l >= 0 && l < _FEATURE_LABEL_MAX ? feature_labels[l].name : NULL;
}

char *feature_label_value(const FeatureInput *in, FeatureLabel l, bool *ret_oom) {
        *ret_oom = false;
        /* The rows that may leave their label out tell ENOMEM apart by what they needed. */
        bool needs_alloc = !feature_labels[l].optional ||
                (l == FEATURE_LABEL_SWAP_BEHAVIOR && in->swap_behavior_known) ||
                (l == FEATURE_LABEL_BACKEND && in->backend_set) ||
                (l == FEATURE_LABEL_ZRAM_ALGORITHM && in->zram_algorithm) ||
                (l == FEATURE_LABEL_KUBELET_NO_SWAP && in->kubelet_no_swap >= 0) ||
                (l == FEATURE_LABEL_DISK_SWAP_ENCRYPTED && in->disk_swap_encrypted >= 0);
        char *v = feature_labels[l].value(in);
        if (!v) {
                *ret_oom = needs_alloc;
                return NULL;
        }
        /* A value the API server would refuse (an algorithm spelt oddly) is left out, never sent:
         * nfd-master would drop the whole update of the node's labels. */
        if (!label_value_valid(v)) {
                free(v);
                return NULL;
        }
        return v;
}

static char *render(const FeatureInput *in, bool file) {
        _cleanup_free_ char *out = strdup(file ? "# node-feature-discovery labels, written by nodeswap apply (removed by nodeswap\n"
                                                 "# revert; [Kubelet] NodeFeatures=no turns it off). Do not edit: apply rewrites it.\n"
                                               : "");
        if (!out)
                return NULL;
        for (FeatureLabel l = 0; l < _FEATURE_LABEL_MAX; l++) {
                bool oom;
                _cleanup_free_ char *v = feature_label_value(in, l, &oom);
                if (oom)
                        return NULL;
                if (!v)
                        continue;
                char *n = file ? strdup_printf("%s%s%s=%s\n", out, NODESWAP_LABEL_PREFIX, feature_labels[l].name, v)
                               : strdup_printf("%s%s%s=%s", out, out[0] ? " " : "", feature_labels[l].name, v);
                if (!n)
                        return NULL;
                free(out);
                out = n;
        }
        return TAKE_PTR(out);
}

char *features_render(const FeatureInput *in) {
        return render(in, true);
}

char *features_summary(const FeatureInput *in) {
        return render(in, false);
}

/* The algorithm of nodeswap's zram device after the plan: the one it creates, else the one it
 * keeps on or swaps on again. */
static int zram_algorithm_after(PlanContext *c, FeatureInput *in) {
        const Plan *plan = c->plan;
        const HostState *h = c->h;
        for (size_t i = 0; i < plan->n_actions; i++)
                if (plan->actions[i].kind == ACTION_ZRAM_CREATE) {
                        const char *a = plan->actions[i].zram_create.algorithm;
                        in->zram_algorithm_pending = !a;
                        in->zram_algorithm = a ? strdup(a) : NULL;
                        return a && !in->zram_algorithm ? -ENOMEM : 0;
                }
        for (size_t i = 0; i < h->n_zrams; i++) {
                const ZramDevice *z = &h->zrams[i];
                if (!z->ours || !z->algorithm || z->disksize == 0)
                        continue;
                const SwapDevice *s = NULL;
                for (size_t k = 0; k < h->n_swaps; k++)
                        if (h->swaps[k].kind == SWAP_KIND_ZRAM && h->swaps[k].zram_id == z->id)
                                s = &h->swaps[k];
                bool kept;
                if (s)
                        kept = c->keep[s - h->swaps] == KEEP_ON;
                else {
                        /* initialised but off: the plan swaps it on again */
                        _cleanup_free_ char *dev = strdup_printf("/dev/zram%d", z->id);
                        if (!dev)
                                return -ENOMEM;
                        kept = plan_find_action(plan, ACTION_SWAPON, dev) >= 0;
                }
                if (!kept)
                        continue;
                in->zram_algorithm = strdup(z->algorithm);
                return in->zram_algorithm ? 0 : -ENOMEM;
        }
        return 0;
}

/* Whether the kubelet's unit is out of swap after the plan: nodeswap keeps it out
 * (no_swap_wanted(): plan/noswap.c plans MemorySwapMax=0 on it), or its own files set
 * MemorySwapMax=0. -1 when no unit runs the kubelet here. */
static int kubelet_no_swap_after(const PlanContext *c) {
        const HostState *h = c->h;
        for (size_t i = 0; i < h->n_no_swap_units; i++) {
                const NoSwapUnit *u = &h->no_swap_units[i];
                if (!u->kubelet)
                        continue;
                return no_swap_wanted(c->p, c->o, u) || streq_ptr(u->operator_value, "0");
        }
        return -1;
}

/* Whether the swap pages that reach a disk after the plan are encrypted: the swap file as [File]
 * Encrypt= makes it, and zram's [Zram] Writeback=: a file as WritebackEncrypt= says, a block device
 * in clear. -1 when no swap of the policy's reaches a disk. */
static int disk_swap_encrypted_after(const Policy *p) {
        if (!p->backend_set)
                return -1;
        bool file = p->backends & BACKEND_FILE, writeback = (p->backends & BACKEND_ZRAM) && p->zram.writeback;
        if (writeback && !(policy_writeback_is_file(p) && p->zram.writeback_encrypt))
                return 0;
        if (writeback)
                return file ? p->file.encrypt : 1;
        return file ? p->file.encrypt : -1;
}

int plan_features(PlanContext *c) {
        const Policy *p = c->p;
        const HostState *h = c->h;
        Plan *plan = c->plan;

        /* Kept while the policy manages the swap or the kubelet: a policy of sysctls alone touches
         * nothing else. */
        bool wanted = !c->o->revert && p->node_features && (p->backend_set || p->swap_behavior != SWAP_BEHAVIOR_UNSET);
        if (!wanted) {
                if (!h->features.exists)
                        return 0;
                return plan_add(plan, ACTION_FEATURES_REMOVE, NODESWAP_FEATURE_FILE, "present", "absent",
                                c->o->revert ? "nodeswap revert" : !p->node_features ? "policy [Kubelet] NodeFeatures=no"
                                : "the policy sets neither [Swap] Backend= nor [Kubelet] SwapBehavior=") ? 0 : -ENOMEM;
        }

        /* What the kubelet runs with after the plan: with the policy's drop-in when it writes one,
         * else the files as they are. */
        _cleanup_(kubelet_config_file_done) KubeletConfigFile ours = {};
        KubeletEffective after;
        if (p->swap_behavior != SWAP_BEHAVIOR_UNSET) {
                /* the drop-in as the plan writes it, its memory threshold included */
                const char *memory_available = NULL;
                int r = kubelet_dropin_memory_eviction(p, &h->kubelet, p->dropin, &memory_available);
                if (r < 0)
                        return r;
                r = kubelet_effective_with_dropin(&h->kubelet, p->dropin, p->swap_behavior, memory_available, &ours,
                                                  &after);
                if (r < 0)
                        return r;
        } else
                kubelet_config_effective(&h->kubelet, NULL, NULL, &after);

        _cleanup_(feature_input_done) FeatureInput in = {
                .swap_behavior_known = !after.swap_behavior_unknown,
                .swap_behavior = after.swap_behavior,
                .backend_set = p->backend_set,
                .backends = p->backends,
                .swap_total = plan->swap_total_after,
                /* Apply refuses a plan with errors and writes nothing; what it writes is true. */
                .policy_match = plan_errors(plan) == 0,
                .kubelet_no_swap = kubelet_no_swap_after(c),
                .disk_swap_encrypted = disk_swap_encrypted_after(p),
        };
        if (p->backend_set && (p->backends & BACKEND_ZRAM)) {
                int r = zram_algorithm_after(c, &in);
                if (r < 0)
                        return r;
        }
        _cleanup_free_ char *content = features_render(&in);
        _cleanup_free_ char *want = features_summary(&in);
        if (!content || !want)
                return -ENOMEM;
        /* A zram algorithm the kernel picks when it makes the device is known only then: the
         * file is written with it, and the plan compares what it can know. */
        if (streq_ptr(h->features.content, content) && !in.zram_algorithm_pending)
                return 0;

        Action *a = plan_add(plan, ACTION_FEATURES_WRITE, NODESWAP_FEATURE_FILE,
                             !h->features.exists ? NULL : h->features.content ? "other labels" : "not a regular file",
                             want, h->features.nfd_dir ? "node-feature-discovery's local feature file"
                             : "node-feature-discovery's local feature file (no NFD seen: a small file, harmless)");
        if (!a)
                return -ENOMEM;
        a->features_write.in = in;
        in = (FeatureInput) {};
        return 0;
}
