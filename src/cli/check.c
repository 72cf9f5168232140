/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodeswap check
 *
 * What is wrong or risky with this node's swap, judged from the policy and the host as probed
 * (nothing is changed). The rules and their ids are listed at the top of src/check.c.
 *
 * Text: one block per finding, "SEVERITY ID: message" and an indented "hint", then a count.
 * -q leaves out info findings.
 *
 * --json prints one object:
 *   findings   array, in rule order, of
 *                severity  "info" | "warning" | "error"
 *                id        stable short name, e.g. "cgroup-v1-limitedswap"
 *                message   what it means
 *                hint      what to do
 *   errors     number of findings with severity "error"
 *   warnings   number of findings with severity "warning"
 *
 * Exit status: 1 when any finding is an error, else 0; 2 for an invalid policy.
 */
#include <json-c/json.h>

#include "check.h"
#include "cli.h"

static int print_json(const Finding *f, size_t n, unsigned errors, unsigned warnings) {
        json_object *o = json_object_new_object(), *a = json_object_new_array();
        if (!o || !a) {
                json_object_put(o);
                json_object_put(a);
                return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_new_object();
                if (!e) {
                        json_object_put(a);
                        json_object_put(o);
                        return -ENOMEM;
                }
                json_object_object_add(e, "severity", json_object_new_string(severity_to_string(f[i].severity)));
                json_object_object_add(e, "id", json_object_new_string(f[i].id));
                json_object_object_add(e, "message", json_object_new_string(f[i].message));
                json_object_object_add(e, "hint", json_object_new_string(f[i].hint));
                json_object_array_add(a, e);
        }
        json_object_object_add(o, "findings", a);
        json_object_object_add(o, "errors", json_object_new_int64(errors));
        json_object_object_add(o, "warnings", json_object_new_int64(warnings));
        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
        return 0;
}

static void print_text(const Finding *f, size_t n, unsigned errors, unsigned warnings, int verbosity) {
        size_t shown = 0;
        for (size_t i = 0; i < n; i++) {
                if (verbosity < 0 && f[i].severity == SEVERITY_INFO)
                        continue;
                printf("%s%-7s %s: %s\n        hint: %s\n",
                       shown ? "\n" : "", severity_to_string(f[i].severity), f[i].id, f[i].message, f[i].hint);
                shown++;
        }
        if (n == 0)
                printf("No problems found.\n");
        else
                printf("%s%u error%s, %u warning%s.\n", shown ? "\n" : "",
                       errors, errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
}

int verb_check(const CliContext *c) {
        Policy p;
        HostState h;
        int r = cli_load(c, false, &p, &h);
        if (r != EXIT_OK)
                return r;

        Finding *f = NULL;
        size_t n = 0;
        r = check_run(&p, &h, &f, &n);
        if (r < 0) {
                fprintf(stderr, "Failed to check the node: %s\n", strerror(-r));
                host_state_done(&h);
                policy_done(&p);
                return EXIT_FAIL;
        }

        unsigned errors = 0, warnings = 0;
        for (size_t i = 0; i < n; i++) {
                errors += f[i].severity == SEVERITY_ERROR;
                warnings += f[i].severity == SEVERITY_WARNING;
        }

        if (c->json) {
                r = print_json(f, n, errors, warnings);
                if (r < 0)
                        fprintf(stderr, "Failed to build the JSON output: %s\n", strerror(-r));
        } else
                print_text(f, n, errors, warnings, c->verbosity);

        findings_free(f, n);
        host_state_done(&h);
        policy_done(&p);
        if (r < 0)
                return EXIT_FAIL;
        return errors > 0 ? EXIT_FAIL : EXIT_OK;
}
