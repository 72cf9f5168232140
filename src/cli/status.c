/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodeswap status [--pods]
 *
 * The node's swap as it is now (read only): every swap area, zram's real RAM cost, the sysctls,
 * what the kubelet is told, the conflict units' masks, and with --pods each container's swap.
 *
 * Text and --json are rendered by report/status.c from one StatusModel; report/status.h
 * describes the JSON document.
 *
 * Exit status: 0; 1 when the host cannot be read; 2 for an invalid policy.
 */
#include "cli/cli.h"
#include "plan/check.h"
#include "probe/pods.h"
#include "probe/probe.h"
#include "report/json.h"
#include "report/log.h"
#include "report/status.h"

/* What status prints, from the model (text, -q's verdict line, or JSON). Returns 0 or -errno,
 * logged. */
static int status_render(const CliContext *c, const Policy *p, const HostState *h, const StatusVerdict *v,
                         const PodSwap *pods, size_t n_pods) {
        if (!c->json && c->verbosity < 0) {
                status_print_verdict(stdout, v);
                return 0;
        }

        StatusModel m;
        int r = status_model_build(p, h, v, pods, n_pods, c->pods, &m);
        if (r < 0)
                return log_error_errno(r, "Failed to gather the node's status: %m");
        if (c->json) {
                _cleanup_json_ json_object *o = NULL;
                r = status_to_json(&m, &o);
                if (r >= 0)
                        r = json_print(stdout, o);
                if (r < 0)
                        log_error_errno(r, "Failed to build the JSON output: %m");
        } else {
                if (c->verbosity > 0)
                        explain_print(stdout, p, h, false);
                status_print_text(stdout, &m, c->verbosity, colors_enabled(STDOUT_FILENO));
        }
        status_model_done(&m);
        return r;
}

int verb_status(const CliContext *c) {
        Policy p;
        HostState h;
        StatusVerdict v = {};
        Plan pl = {};
        int r = cli_load(c, LOAD_READ_ONLY, &p, &h, &v.findings);
        if (r != EXIT_OK) {
                findings_done(&v.findings);
                return r;
        }
        /* zswap as a whole (probe() reads only what the policy needs): the pool and debugfs too. */
        if (probe_zswap(c->root, &h) < 0) {
                log_oom();
                findings_done(&v.findings);
                host_state_done(&h);
                policy_done(&p);
                return EXIT_FAIL;
        }
        /* memory pressure and swap traffic (the node's; the pods' come with --pods) */
        r = probe_pressure(c->root, &h);
        if (r < 0) {
                log_error_errno(r, "Failed to read the node's memory pressure: %m");
                findings_done(&v.findings);
                host_state_done(&h);
                policy_done(&p);
                return EXIT_FAIL;
        }
        v.have_policy = p.found;
        v.policy_valid = findings_count(&v.findings, SEVERITY_ERROR) == 0 &&
                         !findings_has(&v.findings, VERDICT_POLICY_UNREADABLE);
        r = verdict_plan(&p, &h, NULL, &pl);
        if (r >= 0) {
                v.pending = pl.n_actions;
                r = findings_merge(&v.findings, &pl.findings, false);
        }
        plan_done(&pl);
        if (r < 0) {
                log_error_errno(r, "Failed to judge the node against the policy: %m");
                findings_done(&v.findings);
                host_state_done(&h);
                policy_done(&p);
                return EXIT_FAIL;
        }

        PodSwap *pods = NULL;
        size_t n_pods = 0;
        if (c->pods) {
                r = pods_probe(c->root, &pods, &n_pods);
                if (r < 0) {
                        log_error_errno(r, "Failed to read the kubelet's cgroups below %s: %m", strempty(c->root));
                        findings_done(&v.findings);
                        host_state_done(&h);
                        policy_done(&p);
                        return EXIT_FAIL;
                }
        }

        r = status_render(c, &p, &h, &v, pods, n_pods);

        pod_swaps_free(pods, n_pods);
        findings_done(&v.findings);
        host_state_done(&h);
        policy_done(&p);
        return r < 0 ? EXIT_FAIL : EXIT_OK;
}
