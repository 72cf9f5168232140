/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_load(): the policy and the host state every command starts from. */
#include "cli.h"
#include "systemd.h"

/* On the host, ask systemd what the files cannot say: which units are active, and when the kubelet
 * last started (its swap capacity is read then). Without systemd the values stay unknown (-1, 0). */
static void host_fill_from_systemd(const char *root, HostState *h) {
        sd_bus *b = NULL;
        if (!h->systemd_booted || systemd_open(root, &b) < 0)
                return;
        for (size_t i = 0; i < h->n_units; i++) {
                _cleanup_free_ char *state = NULL;
                if (systemd_unit_active(b, h->units[i].name, &state) >= 0)
                        h->units[i].active = streq(state, "active") || streq(state, "activating") ||
                                             streq(state, "reloading");
        }
        if (h->kubelet_unit) {
                _cleanup_free_ char *state = NULL;
                uint64_t t;
                if (systemd_unit_active(b, h->kubelet_unit, &state) >= 0)
                        h->kubelet_active = streq(state, "active") || streq(state, "activating") ||
                                            streq(state, "reloading");
                if (systemd_unit_timestamp(b, h->kubelet_unit, "ActiveEnterTimestamp", &t) >= 0)
                        h->kubelet_started_usec = t;
        }
        sym_sd_bus_flush_close_unref(b);
}

static void print_policy_errors(PolicyErrors *errors) {
        for (size_t i = 0; i < errors->n; i++) {
                _cleanup_free_ char *s = policy_error_format(&errors->errors[i]);
                fprintf(stderr, "%s\n", s ?: "(out of memory)");
        }
        policy_errors_clear(errors);
}

/* The policy as the files say, with every error printed. EXIT_OK, EXIT_USAGE for an invalid policy
 * (*ret_policy is then empty), or EXIT_FAIL when the host's memory size cannot be read. */
static int read_policy(const CliContext *c, PolicyContext *ret_ctx, Policy *ret_policy) {
        PolicyErrors errors = {};
        int r = probe_context(c->root, ret_ctx);
        if (r < 0) {
                fprintf(stderr, "Failed to read the memory size below '%s': %s\n", c->root, strerror(-r));
                return EXIT_FAIL;
        }
        r = policy_load_as(c->root, c->config, c->file_as.path ? &c->file_as : NULL, ret_ctx, ret_policy, &errors);
        if (r == -EINVAL) {
                print_policy_errors(&errors);
                policy_done(ret_policy);
                return EXIT_USAGE;
        }
        policy_errors_clear(&errors);
        if (r < 0) {
                fprintf(stderr, "Failed to read the policy: %s\n", strerror(-r));
                policy_done(ret_policy);
                return r == -EACCES || r == -EPERM ? EXIT_USAGE : EXIT_FAIL;
        }
        return EXIT_OK;
}

int cli_check_policy(const CliContext *c) {
        PolicyContext ctx;
        Policy p = {};
        int r = read_policy(c, &ctx, &p);
        policy_done(&p);
        return r;
}

int cli_load(const CliContext *c, bool revert, Policy *ret_policy, HostState *ret_host) {
        PolicyContext ctx;
        Policy p = {};
        int r = read_policy(c, &ctx, &p);
        if (r == EXIT_USAGE && revert) {
                /* A broken policy must not stand in the way of going back: use the defaults. */
                fprintf(stderr, "The policy has errors; reverting with the built-in defaults.\n");
                r = policy_revert(&p, &ctx);
                if (r < 0) {
                        fprintf(stderr, "Failed to set up the built-in policy: %s\n", strerror(-r));
                        policy_done(&p);
                        return EXIT_FAIL;
                }
        } else if (r != EXIT_OK)
                return r;
        else if (revert) {
                /* Keep the policy's paths and conflict units; drop what it wants. */
                p.backend_set = true;
                p.backends = 0;
                p.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
        }

        r = probe(c->root, &p, ret_host);
        if (r < 0) {
                fprintf(stderr, "Failed to probe the host below '%s': %s\n", c->root, strerror(-r));
                policy_done(&p);
                return EXIT_FAIL;
        }
        host_fill_from_systemd(c->root, ret_host);
        *ret_policy = p;
        return EXIT_OK;
}
