/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli_load(): the policy and the host state every command starts from. */
#include "cli/cli.h"
#include "report/log.h"
#include "probe/kubelet-unit.h"
#include "probe/probe.h"
#include "probe/meminfo.h"
#include "report/report.h"

/* The policy's errors: as FILE:LINE: lines on stderr, or, with --json, as one JSON document on
 * stdout shaped like a plan's (no actions, the errors as policy-invalid findings), so that a
 * program reading stdout always gets one document. */
static void print_policy_errors(const CliContext *c, PolicyErrors *errors) {
        if (c->json) {
                Plan empty = {};
                for (size_t i = 0; i < errors->n; i++)
                        (void) findings_add_policy_error(&empty.findings, VERDICT_POLICY_INVALID, &errors->errors[i]);
                _cleanup_json_ json_object *o = plan_to_json(&empty);
                if (!o || json_add_null(o, "swap_total") < 0 || json_print(stdout, o) < 0)
                        log_oom();
                plan_done(&empty);
        }
        for (size_t i = 0; i < errors->n; i++) {
                _cleanup_free_ char *s = policy_error_format(&errors->errors[i]);
                log_error("%s", s ?: "(out of memory)");
        }
        policy_errors_clear(errors);
}

/* The policy as the files say. EXIT_OK; EXIT_USAGE for an invalid policy (*ret_policy is then
 * empty and the errors are in *ret_errors), or EXIT_FAIL when the host's memory size cannot be
 * read or memory runs out. */
static int read_policy(const CliContext *c, PolicyContext *ret_ctx, Policy *ret_policy, PolicyErrors *ret_errors) {
        int r = probe_context(c->root, ret_ctx);
        if (r < 0) {
                log_error_errno(r, "Failed to read the memory size below '%s': %m", c->root);
                return EXIT_FAIL;
        }
        if (c->config_text)
                r = policy_load_text("<stdin>", c->config_text, c->config_len, ret_ctx, ret_policy, ret_errors);
        else
                r = policy_load_as(c->root, c->config, c->file_as.path ? &c->file_as : NULL, ret_ctx, ret_policy,
                                   ret_errors);
        if (r < 0 && ret_errors->n > 0)
                return EXIT_USAGE;      /* -EINVAL, or a file that could not be read (named) */
        if (r < 0) {
                log_error_errno(r, "Failed to read the policy: %m");
                return EXIT_FAIL;
        }
        return EXIT_OK;
}

int cli_check_policy(const CliContext *c) {
        PolicyContext ctx;
        PolicyErrors errors = {};
        Policy p = {};
        int r = read_policy(c, &ctx, &p, &errors);
        if (r == EXIT_USAGE)
                print_policy_errors(c, &errors);
        policy_errors_clear(&errors);
        policy_done(&p);
        return r;
}

int cli_load(const CliContext *c, LoadMode mode, Policy *ret_policy, HostState *ret_host, Findings *ret_findings) {
        PolicyContext ctx;
        PolicyErrors errors = {};
        Policy p = {};
        int r = read_policy(c, &ctx, &p, &errors);
        if (r == EXIT_USAGE && mode == LOAD_REVERT) {
                /* A broken policy must not stand in the way of going back: use the defaults. */
                policy_errors_clear(&errors);
                log_warning("The policy has errors; reverting with the built-in defaults.");
                r = policy_revert(&p, &ctx);
                if (r < 0) {
                        log_error_errno(r, "Failed to set up the built-in policy: %m");
                        policy_done(&p);
                        return EXIT_FAIL;
                }
        } else if (r == EXIT_USAGE && mode == LOAD_READ_ONLY) {
                /* Never blind: the node is still read and shown, with the built-in defaults for
                 * what the policy would name (conflict units, swap file, drop-in); the policy's
                 * errors become findings (policy-invalid; policy-unreadable for what this user
                 * cannot read). */
                for (size_t i = 0; ret_findings && i < errors.n; i++)
                        if (findings_add_policy_error(ret_findings,
                                                      errors.errors[i].read_errno == EACCES ||
                                                      errors.errors[i].read_errno == EPERM
                                                      ? VERDICT_POLICY_UNREADABLE : VERDICT_POLICY_INVALID,
                                                      &errors.errors[i]) < 0) {
                                policy_errors_clear(&errors);
                                return EXIT_FAIL;
                        }
                policy_errors_clear(&errors);
                r = policy_init_defaults(&p, &ctx);
                if (r < 0) {
                        log_error_errno(r, "Failed to set up the built-in policy: %m");
                        return EXIT_FAIL;
                }
                p.found = true;
        } else if (r == EXIT_USAGE) {
                print_policy_errors(c, &errors);
                return r;
        } else if (r != EXIT_OK) {
                policy_errors_clear(&errors);
                return r;
        } else if (mode == LOAD_REVERT) {
                /* Keep the policy's paths and conflict units; drop what it wants. */
                p.backend_set = true;
                p.backends = 0;
                p.swap_behavior = SWAP_BEHAVIOR_NO_SWAP;
        }
        policy_errors_clear(&errors);

        /* DropIn= unset: the default of the kubelet's unit (rke2's own directory) */
        const char *dropin = p.origin[POLICY_KEY_KUBELET_DROPIN].file ? NULL
                : kubelet_unit_default_dropin(kubelet_unit_find(c->root, &p));
        if (dropin) {
                char *d = strdup(dropin);
                if (!d) {
                        log_oom();
                        policy_done(&p);
                        return EXIT_FAIL;
                }
                free(p.dropin);
                p.dropin = d;
        }

        r = probe(c->root, &p, ret_host);
        if (r < 0) {
                log_error_errno(r, "Failed to probe the host below '%s': %m", c->root);
                policy_done(&p);
                return EXIT_FAIL;
        }
        probe_systemd(c->root, ret_host);
        *ret_policy = p;
        return EXIT_OK;
}
