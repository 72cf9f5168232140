/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodeswap check
 *
 * What is wrong or risky with this node's swap, judged from the policy and the host as probed
 * (nothing is changed). The rules are at the top of src/plan/check.c, their ids in src/plan/verdict.h.
 *
 * Text: one block per finding, "SEVERITY ID: message" and an indented "hint", then a count.
 * -q leaves out info findings.
 *
 * The findings are plan's and apply's too (verdict_plan()): the policy's own errors first
 * (policy-invalid, policy-unreadable), then what the plan refuses, then the rules.
 *
 * --json prints one object (nodeswap(8), JSON OUTPUT):
 *   version    1
 *   findings   array of {id, severity, message, hint, file, line, section, key, value}
 *   errors     number of findings with severity "error"
 *   warnings   number of findings with severity "warning"
 *
 * Exit status: 1 when any finding is an error (an invalid policy included), else 0.
 */
#include "plan/check.h"
#include "plan/allowance.h"
#include "probe/pods.h"
#include "cli/cli.h"
#include "report/log.h"
#include "report/report.h"
#include "probe/probe.h"

static int print_json(const Findings *fs) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o ||
            json_add_int(o, "version", NODESWAP_JSON_VERSION) < 0 ||
            json_add(o, "findings", findings_to_json(fs)) < 0 ||
            json_add_u64(o, "errors", findings_count(fs, SEVERITY_ERROR)) < 0 ||
            json_add_u64(o, "warnings", findings_count(fs, SEVERITY_WARNING)) < 0)
                return -ENOMEM;
        return json_print(stdout, o);
}

static void print_text(const Findings *fs, int verbosity) {
        size_t shown = 0, errors = findings_count(fs, SEVERITY_ERROR), warnings = findings_count(fs, SEVERITY_WARNING);
        bool color = colors_enabled(STDOUT_FILENO);
        for (size_t i = 0; i < fs->n; i++) {
                if (verbosity < 0 && fs->f[i].severity == SEVERITY_INFO)
                        continue;
                if (shown)
                        putchar('\n');
                finding_print(stdout, &fs->f[i], color);
                shown++;
        }
        if (fs->n == 0)
                printf("No problems found.\n");
        else
                printf("%s%zu error%s, %zu warning%s.\n", shown ? "\n" : "",
                       errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
}

int verb_check(const CliContext *c) {
        Policy p;
        HostState h;
        Findings fs = {};
        Plan pl = {};
        int r = cli_load(c, LOAD_READ_ONLY, &p, &h, &fs);
        if (r != EXIT_OK) {
                findings_done(&fs);
                return r;
        }
        /* memory pressure and the pods' stall (memory-thrashing): check, status and metrics only */
        r = probe_pressure(c->root, &h);
        if (r < 0) {
                log_error_errno(r, "Failed to read the node's memory pressure: %m");
                findings_done(&fs);
                host_state_done(&h);
                policy_done(&p);
                return EXIT_FAIL;
        }
        if (c->verbosity > 0 && !c->json)
                explain_print(stdout, &p, &h, false);

        /* The same verdict as plan's: the plan's refusals and the rules, in one list after the
         * policy's own errors. */
        r = verdict_plan(&p, &h, NULL, &pl);
        if (r >= 0)
                r = findings_merge(&fs, &pl.findings, false);
        /* The running containers' swap (issue 26): their failed swap-outs. */
        if (r >= 0) {
                PodSwap *pods = NULL;
                size_t n_pods = 0;
                r = pods_probe(c->root, &pods, &n_pods);
                if (r >= 0)
                        r = allowance_check_containers(pods, n_pods, h.mem_total, h.swap_total, h.page_size, &fs);
                else if (r != -ENOMEM)
                        r = 0;  /* a tree this user may not read: no container to judge */
                pod_swaps_free(pods, n_pods);
        }
        if (r < 0) {
                log_error_errno(r, "Failed to check the node: %m");
                findings_done(&fs);
                plan_done(&pl);
                host_state_done(&h);
                policy_done(&p);
                return EXIT_FAIL;
        }

        if (c->json) {
                r = print_json(&fs);
                if (r < 0)
                        log_error_errno(r, "Failed to build the JSON output: %m");
        } else
                print_text(&fs, c->verbosity);

        size_t errors = findings_count(&fs, SEVERITY_ERROR);
        findings_done(&fs);
        plan_done(&pl);
        host_state_done(&h);
        policy_done(&p);
        if (r < 0)
                return EXIT_FAIL;
        return errors > 0 ? EXIT_FAIL : EXIT_OK;
}
