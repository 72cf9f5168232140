/* SPDX-License-Identifier: GPL-2.0-or-later */
/* zswap's part of the plan: a pure function of (policy, host), see plan/zswap.h. */
#include "plan/zswap.h"

#include "plan/context.h"

static const PolicyKey param_keys[_ZSWAP_PARAM_MAX] = {
        [ZSWAP_PARAM_COMPRESSOR] = POLICY_KEY_ZSWAP_COMPRESSOR,
        [ZSWAP_PARAM_MAX_POOL_PERCENT] = POLICY_KEY_ZSWAP_MAX_POOL_PERCENT,
        [ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT] = POLICY_KEY_ZSWAP_ACCEPT_THRESHOLD_PERCENT,
        [ZSWAP_PARAM_SHRINKER_ENABLED] = POLICY_KEY_ZSWAP_SHRINKER,
        [ZSWAP_PARAM_ENABLED] = POLICY_KEY_SWAP_BACKEND,
};

static bool wants_zswap(const Policy *p, bool revert) {
        return !revert && p->backend_set && (p->backends & BACKEND_ZSWAP);
}

/* Whether this plan writes back what nodeswap saved. */
static bool restores(const Policy *p, bool revert) {
        return revert || (p->backend_set && !(p->backends & BACKEND_ZSWAP));
}

static int add_set(Plan *plan, ZswapParam param, const char *now, const char *want, const char *reason,
                   bool restore) {
        _cleanup_free_ char *target = strdup_printf("zswap.%s", zswap_param_to_string(param));
        if (!target)
                return -ENOMEM;
        Action *a = plan_add(plan, ACTION_ZSWAP_SET, target, now, want, reason);
        if (!a)
                return -ENOMEM;
        a->zswap_set = (ActionZswapSet) { .param = param, .value = strdup(want), .restore = restore };
        if (!a->zswap_set.value)
                return -ENOMEM;
        return 0;
}

/* The first of the policy's compressors the crypto API offers; NULL: none. Unknown offers
 * (/proc/crypto unreadable): the kernel's own when listed, else the first, and the kernel judges. */
static const char *pick_compressor(const Policy *p, const ZswapState *z) {
        char **offered = z->compressors_offered;
        if (!offered)
                return z->compressor && strv_contains(p->zswap.compressors, z->compressor) ? z->compressor
                                                                                         : p->zswap.compressors[0];
        for (char **c = p->zswap.compressors; c && *c; c++)
                if (strv_contains(offered, *c))
                        return *c;
        return NULL;
}

static int plan_apply(const Policy *p, const HostState *h, Plan *plan) {
        const ZswapState *z = &h->zswap;
        _cleanup_free_ char *wanted = strv_join(p->zswap.compressors, " ");
        if (!wanted)
                return -ENOMEM;

        if (z->enabled < 0 || !z->param[ZSWAP_PARAM_ENABLED])
                return plan_find(plan, VERDICT_ZSWAP_UNAVAILABLE, p, POLICY_KEY_SWAP_BACKEND, "zswap file",
                            strdup("use a kernel built with CONFIG_ZSWAP, or write Backend=zram or Backend=file"),
                            "Backend=zswap file, but this kernel has no zswap (no %s)", ZSWAP_PARAMETERS_DIR);

        /* What the policy wants of each parameter; NULL: left alone. */
        char want[_ZSWAP_PARAM_MAX][16] = {};
        const char *wants[_ZSWAP_PARAM_MAX] = {};
        _cleanup_free_ char *compressor_reason = NULL;
        const char *compressor = pick_compressor(p, z);
        if (!compressor) {
                _cleanup_free_ char *have = strv_join(z->compressors_offered, " ");
                if (!have)
                        return -ENOMEM;
                int r = plan_find(plan, VERDICT_ZSWAP_COMPRESSOR_UNAVAILABLE, p, POLICY_KEY_ZSWAP_COMPRESSOR, wanted,
                             strdup_printf("this kernel's crypto API offers %s (/proc/crypto): write [Zswap] "
                                           "Compressor= with one of them, e.g. Compressor=%s",
                                           *have ? have : "no compressor",
                                           z->compressors_offered[0] ?: "lzo"),
                             "none of [Zswap] Compressor=%s is offered by this kernel's crypto API (it offers %s)",
                             wanted, *have ? have : "none");
                if (r < 0)
                        return r;
        } else {
                wants[ZSWAP_PARAM_COMPRESSOR] = compressor;
                _cleanup_free_ char *offered = strv_join(z->compressors_offered, " ");
                if (z->compressors_offered && !offered)
                        return -ENOMEM;
                compressor_reason = strdup_printf("policy [Zswap] Compressor=%s: the first %s", wanted,
                                                  offered ? "the crypto API offers" : "(/proc/crypto unreadable)");
                if (offered && compressor_reason) {
                        free(compressor_reason);
                        compressor_reason = strdup_printf("policy [Zswap] Compressor=%s: the first the crypto API "
                                                          "offers (%s)", wanted, offered);
                }
                if (!compressor_reason)
                        return -ENOMEM;
        }
        if (p->zswap.max_pool_percent >= 0) {
                snprintf(want[ZSWAP_PARAM_MAX_POOL_PERCENT], sizeof want[0], "%d", p->zswap.max_pool_percent);
                wants[ZSWAP_PARAM_MAX_POOL_PERCENT] = want[ZSWAP_PARAM_MAX_POOL_PERCENT];
        }
        if (p->zswap.accept_threshold_percent >= 0) {
                snprintf(want[ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT], sizeof want[0], "%d",
                         p->zswap.accept_threshold_percent);
                wants[ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT] = want[ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT];
        }
        if (p->zswap.shrinker >= 0)
                wants[ZSWAP_PARAM_SHRINKER_ENABLED] = p->zswap.shrinker ? "Y" : "N";
        wants[ZSWAP_PARAM_ENABLED] = "Y";

        static const char *const reasons[_ZSWAP_PARAM_MAX] = {
                [ZSWAP_PARAM_MAX_POOL_PERCENT] = "policy [Zswap] MaxPoolPercent=",
                [ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT] = "policy [Zswap] AcceptThresholdPercent=",
                [ZSWAP_PARAM_SHRINKER_ENABLED] = "policy [Zswap] Shrinker=",
                [ZSWAP_PARAM_ENABLED] = "policy [Swap] Backend=zswap file",
        };
        for (ZswapParam i = 0; i < _ZSWAP_PARAM_MAX; i++) {
                if (!wants[i])
                        continue;
                const char *name = zswap_param_to_string(i);
                PolicyKey k = param_keys[i];
                const char *as_written = i == ZSWAP_PARAM_ENABLED ? "zswap file"
                        : i == ZSWAP_PARAM_COMPRESSOR ? wanted
                        : i == ZSWAP_PARAM_SHRINKER_ENABLED ? (p->zswap.shrinker ? "yes" : "no")
                        : wants[i];
                if (!z->param[i]) {
                        int r = plan_find(plan, VERDICT_ZSWAP_PARAMETER_UNAVAILABLE, p, k, as_written,
                                     strdup_printf("remove [%s] %s= (a newer kernel has %s)", policy_key_section(k),
                                                   policy_key_name(k), name),
                                     "[%s] %s=%s: this kernel's zswap has no %s parameter (%s/%s)",
                                     policy_key_section(k), policy_key_name(k), as_written, name,
                                     ZSWAP_PARAMETERS_DIR, name);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (z->cmdline[i]) {
                        if (zswap_value_equal(i, z->cmdline[i], wants[i]))
                                continue;
                        int r = plan_find(plan, VERDICT_ZSWAP_CMDLINE, p, k, as_written,
                                     strdup_printf("remove zswap.%s= from the kernel command line (on a Raspberry "
                                                   "Pi: /boot/firmware/cmdline.txt) and reboot, or set the policy to "
                                                   "what it says", name),
                                     "the kernel command line sets zswap.%s=%s and the policy wants %s: nodeswap "
                                     "leaves it as the command line says (now %s)%s",
                                     name, z->cmdline[i], wants[i], z->param[i],
                                     i == ZSWAP_PARAM_ENABLED && !zswap_value_equal(i, z->cmdline[i], "Y")
                                             ? "; the swap file is used without zswap" : "");
                        if (r < 0)
                                return r;
                        continue;
                }
                if (zswap_value_equal(i, z->param[i], wants[i]))
                        continue;
                int r = add_set(plan, i, z->param[i], wants[i],
                                i == ZSWAP_PARAM_COMPRESSOR ? compressor_reason : reasons[i], false);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int plan_restore(const HostState *h, bool revert, Plan *plan) {
        const ZswapState *z = &h->zswap;
        const NodeswapState *s = &h->state;

        /* enabled first: zswap stops before its settings go back. */
        static const ZswapParam order[] = {
                ZSWAP_PARAM_ENABLED, ZSWAP_PARAM_COMPRESSOR, ZSWAP_PARAM_MAX_POOL_PERCENT,
                ZSWAP_PARAM_ACCEPT_THRESHOLD_PERCENT, ZSWAP_PARAM_SHRINKER_ENABLED,
        };
        _Static_assert(ELEMENTSOF(order) == _ZSWAP_PARAM_MAX, "every parameter once");
        for (size_t j = 0; j < ELEMENTSOF(order); j++) {
                ZswapParam i = order[j];
                if (!s->saved_zswap[i] || !z->param[i] || z->cmdline[i] ||
                    zswap_value_equal(i, z->param[i], s->saved_zswap[i]))
                        continue;
                int r = add_set(plan, i, z->param[i], s->saved_zswap[i],
                                revert ? "restoring the value from before nodeswap"
                                       : "Backend= no longer names zswap: restoring the value from before nodeswap",
                                true);
                if (r < 0)
                        return r;
        }
        return 0;
}

int plan_zswap(PlanContext *c) {
        if (wants_zswap(c->p, c->o->revert))
                return plan_apply(c->p, c->h, c->plan);
        if (restores(c->p, c->o->revert))
                return plan_restore(c->h, c->o->revert, c->plan);
        return 0;
}

bool zswap_on_after(const Policy *p, const HostState *h, bool revert) {
        const ZswapState *z = &h->zswap;
        if (wants_zswap(p, revert)) {
                if (z->enabled < 0)
                        return false;
                const char *cmd = z->cmdline[ZSWAP_PARAM_ENABLED];
                return !cmd || zswap_value_equal(ZSWAP_PARAM_ENABLED, cmd, "Y");
        }
        const char *saved = h->state.saved_zswap[ZSWAP_PARAM_ENABLED];
        if (restores(p, revert) && saved && !z->cmdline[ZSWAP_PARAM_ENABLED])
                return zswap_value_equal(ZSWAP_PARAM_ENABLED, saved, "Y");
        return z->enabled == 1;
}
