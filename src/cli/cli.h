/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/plan.h"

/* Exit codes (nodeswap(8) documents them). */
enum {
        EXIT_OK = 0,
        EXIT_FAIL = 1,          /* apply/revert failed; check found an error-level finding */
        EXIT_USAGE = 2,         /* bad usage or an invalid policy */
};

/* The common options, parsed by main.c wherever they stand on the command line. */
typedef struct CliContext {
        const char *root;       /* --root, default "/" */
        const char *config;     /* --config FILE or NULL; "-": standard input, read into config_text */
        char *config_text;      /* --config -: the policy as read from standard input */
        size_t config_len;
        PolicyFileAs file_as;   /* --policy-file-as PATH=FILE: both NULL when not given */
        bool json;
        int verbosity;          /* -q: -1, default 0, -v: 1 */
        bool boot, force, purge, pods, critical, dry_run;
        const char *request, *limit, *qos;   /* allowance */
        const char *priority;   /* allowance --priority N */
        bool static_pod;        /* allowance --static-pod */
        const char *output;     /* metrics --output FILE */
        const char *dir;        /* bench --dir DIR */
        /* trial: --limits, --cpus, --runs, --timeout, --seed, --drive-tbw as given; --find-floor,
         * --compare; the COMMAND after "--" (NULL: none) */
        const char *trial_limits, *trial_cpus, *trial_runs, *trial_timeout, *trial_seed, *trial_drive_tbw;
        bool trial_find_floor, trial_compare;
        /* trial --density (with --request and --limit): --replicas-max, --hold, --around as given */
        bool trial_density;
        const char *trial_replicas_max, *trial_hold, *trial_around, *trial_memory;
        const char *trial_svg;  /* trial --svg FILE */
        char **command;
        char **args;            /* positional arguments after the command, NULL-terminated */
} CliContext;

typedef enum LoadMode {
        LOAD_APPLY,             /* plan, apply: an invalid policy ends the command (exit 2) */
        LOAD_REVERT,            /* revert: the built-in NoSwap policy (the files name paths and units) */
        LOAD_READ_ONLY,         /* status, check, allowance: an invalid or unreadable policy becomes
                                 * findings, the built-in defaults stand in, the node is still read */
} LoadMode;

/* load.c: read the policy and probe the host. Returns EXIT_OK, or the exit code to end with (the
 * policy's errors printed: FILE:LINE: lines on stderr, and with --json one JSON document on
 * stdout). With LOAD_READ_ONLY the policy's errors are appended to ret_findings instead. */
int cli_load(const CliContext *c, LoadMode mode, Policy *ret_policy, HostState *ret_host, Findings *ret_findings);

/* load.c: read and validate the policy only (errors printed as cli_load() prints them). apply
 * calls it before taking /run/nodeswap.lock, so that an invalid policy leaves the node exactly as
 * it was, without even a lock file. Returns EXIT_OK or the exit code to end with. */
int cli_check_policy(const CliContext *c);

/* explain.c: for -v, before a plan: the policy files read, each effective value with the file and
 * line it came from where known, and the host facts the plan depends on. */
void explain_print(FILE *f, const Policy *p, const HostState *h, bool revert);

/* The commands. Each returns an exit code. */
int verb_plan(const CliContext *c);       /* main.c */
int verb_apply(const CliContext *c);      /* main.c */
int verb_revert(const CliContext *c);     /* main.c */
int verb_status(const CliContext *c);     /* status.c */
int verb_check(const CliContext *c);      /* check.c */
int verb_allowance(const CliContext *c);  /* allowance.c */
int verb_metrics(const CliContext *c);    /* metrics.c */
int verb_bench(const CliContext *c);      /* bench.c */
int verb_writeback(const CliContext *c);  /* writeback.c */
int verb_trial(const CliContext *c);      /* trial.c */

/* main.c: /run/nodeswap.lock below the root, taken exclusively (waiting for another nodeswap, and
 * saying so unless -q or --json). */
int cli_take_lock(const CliContext *c, int *ret_fd);
