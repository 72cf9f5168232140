/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodeswap metrics [--pods] [--output FILE]
 *
 * The node's swap in the Prometheus text exposition format (metrics.h, nodeswap(8) METRICS): the
 * same probe as status, the same plan as plan, rendered for node-exporter's textfile collector or
 * any scraper. Read only; runs as any user: what this user may not read is left out and said so
 * (nodeswap_unreadable_info, nodeswap_zswap_debugfs_readable, nodeswap_pods_readable).
 *
 * Exit status: 0; 1 when the policy or the node could not be read (the exposition still says
 * nodeswap_up 0, and --output still writes it) or FILE could not be written.
 */
#include "plan/allowance.h"
#include "plan/check.h"
#include "cli/cli.h"
#include "report/log.h"
#include "report/metrics.h"
#include "probe/pods.h"
#include "probe/probe.h"

int verb_metrics(const CliContext *c) {
        Policy p = {};
        HostState h = {};
        Plan pl = {};
        bool have_plan = false;
        PodSwap *pods = NULL;
        size_t n_pods = 0;
        _cleanup_free_ char *text = NULL;

        Findings fs = {};
        /* Read only: a broken or unreadable policy becomes findings, the defaults stand in. */
        int ret = cli_load(c, LOAD_READ_ONLY, &p, &h, &fs);
        MetricsInput in = { .pods = c->pods, .findings = &fs };
        if (ret == EXIT_OK && probe_zswap(c->root, &h) < 0)
                ret = EXIT_FAIL;
        if (ret == EXIT_OK) {
                int r = probe_pressure(c->root, &h);
                if (r < 0) {
                        log_error_errno(r, "Failed to read the node's memory pressure: %m");
                        ret = EXIT_FAIL;
                }
        }
        if (ret == EXIT_OK) {
                in.policy = &p;
                in.host = &h;
                if (p.found || c->config) {
                        PlanOptions o = {};
                        int r = verdict_plan(&p, &h, &o, &pl);
                        if (r < 0)
                                log_error_errno(r, "Failed to plan: %m");
                        else {
                                have_plan = true;
                                if (findings_merge(&fs, &pl.findings, false) < 0)
                                        ret = EXIT_FAIL;
                        }
                }
                in.plan = have_plan ? &pl : NULL;
                if (c->pods) {
                        int r = pods_probe(c->root, &pods, &n_pods);
                        if (r < 0) {
                                log_error_errno(r, "Failed to read the containers' cgroups: %m");
                                in.pods_error = r;
                                pods = NULL;
                                n_pods = 0;
                        }
                        in.pod_swaps = pods;
                        in.n_pod_swaps = n_pods;
                }
        } else
                in.error = ret == EXIT_USAGE ? "0: the policy is invalid or unreadable (nodeswap check says why)."
                                             : "0: the node could not be read (nodeswap status says why).";

        int r = metrics_render(&in, &text);
        if (r < 0) {
                log_error_errno(r, "Failed to format the metrics: %m");
                ret = EXIT_FAIL;
                goto finish;
        }
        if (c->output) {
                r = metrics_write_file(c->output, text);
                if (r < 0) {
                        log_error_errno(r, "Failed to write '%s': %m", c->output);
                        ret = EXIT_FAIL;
                        goto finish;
                }
        } else {
                fputs(text, stdout);
                if (fflush(stdout) != 0)
                        ret = EXIT_FAIL;
        }
        if (ret != EXIT_OK)
                ret = EXIT_FAIL;
finish:
        findings_done(&fs);
        pod_swaps_free(pods, n_pods);
        if (have_plan)
                plan_done(&pl);
        if (in.host)
                host_state_done(&h);
        if (in.policy)
                policy_done(&p);
        return ret;
}
