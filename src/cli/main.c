/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap: option parsing and the commands plan, apply and revert. status, check and allowance
 * live in their own files. */
#include <getopt.h>
#include <sys/file.h>
#include <fcntl.h>

#include "plan/check.h"
#include "cli/cli.h"
#include "execute/execute.h"
#include "execute/fault.h"
#include "report/log.h"
#include "report/report.h"
#include "shared/sd-dl.h"

static void help(void) {
        printf("nodeswap %s: give this node the swap its policy asks for, and tell the kubelet.\n\n"
               "Usage: nodeswap [OPTIONS] COMMAND [OPTIONS]\n\n"
               "Commands:\n"
               "  plan        show what apply would change, change nothing\n"
               "  apply       make the node match the policy\n"
               "  revert      take the node back to NoSwap and the distro's swap\n"
               "  status      show every swap device, the sysctls and the kubelet's view\n"
               "  check       find the known pitfalls (exit 1 on an error)\n"
               "  allowance   the swap LimitedSwap gives a container on this node\n"
               "  metrics     the node's swap in the Prometheus text format\n"
               "  bench       measure zram and the swap file's drive here, recommend a policy\n"
               "  writeback   write idle zram pages back (the timer's run; --force: now)\n"
               "  trial       run a command at memory limits with and without swap, measure, compare\n"
               "              (nodeswap trial --limits 256M,512M -- make -j2; --compare)\n\n"
               "Options:\n"
               "  -c, --config FILE   read this policy file only (-: standard input)\n"
               "      --policy-file-as PATH=FILE\n"
               "                      read the policy as if FILE were at PATH (plan, check, status,\n"
               "                      allowance, apply/revert --dry-run): validate a new drop-in\n"
               "      --root DIR      operate on the tree below DIR (no systemd calls, no swapon)\n"
               "      --json          machine-readable output\n"
               "  -q, --quiet         only the result and what is wrong\n"
               "  -v, --verbose       first the policy (FILE:LINE of each value) and the host facts\n"
               "      --boot          (apply) run at boot: never restart the kubelet\n"
               "      --force         (apply, revert) swap off even when pages may not fit in memory;\n"
               "                      (writeback) run now, whatever WritebackInterval= says\n"
               "      --purge         (revert) also delete the swap file\n"
               "      --dry-run       (apply, revert) show the plan, change nothing\n"
               "      --pods          (status, metrics) show each container's swap\n"
               "      --output FILE   (metrics) write FILE atomically instead of standard output\n"
               "      --dir DIR       (bench) measure the drive under DIR (default: [File] Path='s)\n"
               "      --request SIZE  (allowance, trial --density) the container's memory request (256Mi, 1Gi)\n"
               "      --limit SIZE    (allowance, trial --density) the container's memory limit\n"
               "      --qos CLASS     (allowance) burstable, guaranteed or besteffort\n"
               "      --critical      (allowance) the pod has a system-*-critical priority class\n"
               "      --priority N    (allowance) the pod's priority (critical from 2000000000)\n"
               "      --static-pod    (allowance) a static pod or its mirror pod (critical)\n"
               "      --limits L1,... (trial) the memory limits to run at (48M, 1G, 25%%); with --find-floor\n"
               "                      LO,HI: the search's bounds\n"
               "      --find-floor    (trial) bisect for the smallest limit without swap, then with swap\n"
               "      --runs N        (trial) run each point N times (default 1)\n"
               "      --cpus N        (trial) CPUQuota=N*100%%\n"
               "      --timeout T     (trial) end a run after T (90, 90s, 5m, 1h): result timeout; with\n"
               "                      --density, how long replicas may take to settle (default 5m)\n"
               "      --seed N        (trial) the seed of the shuffled order (printed by every trial)\n"
               "      --drive-tbw TB  (trial) the swap drive's rated endurance, for runs per drive life\n"
               "      --compare       (trial) the recorded trials of -- COMMAND (or all) side by side\n"
               "      --density       (trial) how many replicas fit, with and without swap (--request R --limit L)\n"
               "      --replicas-max N (trial --density) the most replicas a point starts (default 64)\n"
               "      --hold T        (trial --density) how long the settled replicas are held (default 10s)\n"
               "      --around K      (trial --density) search up to K above the predicted count only\n"
               "      --svg FILE      (trial) draw the trial (or --compare) as an SVG chart into FILE\n"
               "      --memory SIZE   (trial --density) the replicas' budget (default: MemAvailable less\n"
               "                      the kubelet's memory.available)\n"
               "  -h, --help          this text\n"
               "      --version       the version\n\n"
               "See nodeswap(8) and nodeswap.conf(5).\n",
               NODESWAP_VERSION);
}

/* Prints and frees a document built by report/ (NULL: it ran out of memory). */
static int print_json(json_object *o) {
        int r = o ? json_print(stdout, o) : -ENOMEM;
        json_object_put(o);
        if (r < 0)
                return log_error_errno(r, "Failed to build the JSON output: %m");
        return 0;
}

/* -q: only what failed */
static void print_progress(const Action *a, const ActionResult *r, void *userdata) {
        const CliContext *c = userdata;
        if (c->verbosity < 0 && r->status != ACTION_STATUS_FAILED)
                return;
        log_action(a, r);
}

/* Carry out the plan and say how it went: a line per action as it happens (or, with --json, the
 * plan with each action's result at the end), the findings, and under systemd the unit's status
 * line. The exit code: EXIT_FAIL when an action failed or the run could not start. */
static int run_execute(const CliContext *c, const Policy *p, const HostState *h, const Plan *pl) {
        ExecuteOptions o = {
                .root = c->root,
                .progress = c->json ? NULL : print_progress,
                .userdata = (void *) c,
        };
        _cleanup_(plan_result_done) PlanResult res = {};

        if (!c->json && c->verbosity >= 0 && pl->n_actions == 0)
                printf("Nothing to do: the node matches the policy.\n");
        int r = execute_plan(pl, p, h, &o, &res);
        if (r < 0) {
                /* Before the first action: nothing was changed. */
                log_error_errno(r, "Failed to carry out the plan, nothing was changed: %m");
                return EXIT_FAIL;
        }
        if (res.state_error < 0)
                log_error_errno(res.state_error, "Failed to save nodeswap's state below '%s': %m", c->root);

        if (!c->json)
                plan_print_findings(stderr, pl, colors_enabled(STDERR_FILENO), c->verbosity > 0);

        /* Under systemd (NotifyAccess=main), the unit's status line says what was applied. */
        if (getenv("NOTIFY_SOCKET")) {
                _cleanup_free_ char *status = plan_result_status(pl, &res);
                if (status)
                        (void) sd_dl_notifyf("STATUS=%s", status);
        }
        if (c->json && print_json(plan_result_to_json(pl, &res)) < 0)
                return EXIT_FAIL;
        return plan_result_failed(&res) == SIZE_MAX ? EXIT_OK : EXIT_FAIL;
}

static int run_plan(const CliContext *c, bool revert, bool execute) {
        Policy p = {};
        HostState h = {};
        Plan pl = {};
        int ret = cli_load(c, revert ? LOAD_REVERT : LOAD_APPLY, &p, &h, NULL);
        if (ret != EXIT_OK)
                return ret;

        if (!revert && !p.found && !c->config) {
                /* Installing nodeswap changes nothing until an operator writes a policy. */
                if (c->json) {
                        Plan empty = {};
                        (void) print_json(plan_to_json(&empty));
                } else if (c->verbosity >= 0)
                        printf("No policy in /etc/nodeswap, /run/nodeswap, /usr/local/lib/nodeswap or "
                               "/usr/lib/nodeswap: nothing to do.\n");
                (void) sd_dl_notifyf("STATUS=No policy: nothing to do");
                host_state_done(&h);
                policy_done(&p);
                return EXIT_OK;
        }

        if (c->verbosity > 0 && !c->json)
                explain_print(stdout, &p, &h, revert);

        PlanOptions o = { .revert = revert, .purge = c->purge, .boot = c->boot, .force = c->force };
        int r = verdict_plan(&p, &h, &o, &pl);
        if (r < 0) {
                log_error_errno(r, "Failed to plan: %m");
                ret = EXIT_FAIL;
                goto finish;
        }
        size_t errors = plan_errors(&pl);
        if (!execute || errors) {
                /* The actions are the result (stdout); the findings are warnings and errors
                 * (stderr). -q leaves the actions out. */
                bool oom = false;
                if (c->json)
                        oom = print_json(plan_to_json(&pl)) < 0;
                else {
                        if (c->verbosity >= 0)
                                plan_print(stdout, &pl, colors_enabled(STDOUT_FILENO));
                        fflush(stdout);
                        plan_print_findings(stderr, &pl, colors_enabled(STDERR_FILENO), c->verbosity > 0);
                }
                ret = errors || oom ? EXIT_FAIL : EXIT_OK;
                goto finish;
        }
        ret = run_execute(c, &p, &h, &pl);
finish:
        plan_done(&pl);
        host_state_done(&h);
        policy_done(&p);
        return ret;
}

int verb_plan(const CliContext *c) {
        return run_plan(c, false, false);
}

/* Two applies never interleave: the second waits for the first. */
int cli_take_lock(const CliContext *c, int *ret_fd) {
        _cleanup_free_ char *path = path_join_root(c->root, "/run/nodeswap.lock");
        if (!path)
                return log_oom();
        _cleanup_close_ int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return log_error_errno(errno, "Failed to open lock file '%s': %m", path);
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno != EWOULDBLOCK)
                        return log_error_errno(errno, "Failed to lock '%s': %m", path);
                if (c->verbosity >= 0 && !c->json)
                        log_notice("Waiting for another nodeswap (lock '%s')...", path);
                if (flock(fd, LOCK_EX) < 0)
                        return log_error_errno(errno, "Failed to lock '%s': %m", path);
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int run_locked(const CliContext *c, bool revert) {
        _cleanup_close_ int fd = -1;
        if (c->dry_run)
                return run_plan(c, revert, false);
        /* An invalid policy touches nothing, not even the lock file (revert goes on regardless:
         * it falls back to the built-in defaults). */
        if (!revert) {
                int r = cli_check_policy(c);
                if (r != EXIT_OK)
                        return r;
        }
        if (cli_take_lock(c, &fd) < 0)
                return EXIT_FAIL;
        return run_plan(c, revert, true);
}

int verb_apply(const CliContext *c) {
        return run_locked(c, false);
}

int verb_revert(const CliContext *c) {
        return run_locked(c, true);
}

/* The options only some commands take; the common ones (--config, --root, --json, -q, -v) are
 * taken by every command. An option a command does not take is refused, naming the command. */
enum {
        VERB_OPT_BOOT = 1 << 0,
        VERB_OPT_FORCE = 1 << 1,
        VERB_OPT_PURGE = 1 << 2,
        VERB_OPT_DRY_RUN = 1 << 3,
        VERB_OPT_PODS = 1 << 4,
        VERB_OPT_REQUEST = 1 << 5,
        VERB_OPT_LIMIT = 1 << 6,
        VERB_OPT_QOS = 1 << 7,
        VERB_OPT_CRITICAL = 1 << 8,
        VERB_OPT_OUTPUT = 1 << 9,
        VERB_OPT_DIR = 1 << 10,
        VERB_OPT_PRIORITY = 1 << 11,
        VERB_OPT_STATIC_POD = 1 << 12,
        VERB_OPT_TRIAL = 1 << 13,       /* --limits --find-floor --runs --cpus --timeout --seed --drive-tbw --compare
                                         * --density --replicas-max --hold --around --memory --svg */
        VERB_OPT_COMMAND = 1 << 14,     /* -- COMMAND [ARG...] */
};

static const char *const verb_opt_names[] = {
        "--boot", "--force", "--purge", "--dry-run", "--pods", "--request", "--limit", "--qos", "--critical",
        "--output", "--dir", "--priority", "--static-pod", "the trial options", "a command after '--'",
};

static const struct {
        const char *name;
        int (*fn)(const CliContext *c);
        unsigned options;       /* VERB_OPT_* it takes */
} verbs[] = {
        { "plan", verb_plan, 0 },
        { "apply", verb_apply, VERB_OPT_BOOT | VERB_OPT_FORCE | VERB_OPT_DRY_RUN },
        { "revert", verb_revert, VERB_OPT_FORCE | VERB_OPT_PURGE | VERB_OPT_DRY_RUN },
        { "status", verb_status, VERB_OPT_PODS },
        { "check", verb_check, 0 },
        { "allowance", verb_allowance, VERB_OPT_REQUEST | VERB_OPT_LIMIT | VERB_OPT_QOS | VERB_OPT_CRITICAL |
                                         VERB_OPT_PRIORITY | VERB_OPT_STATIC_POD },
        { "metrics", verb_metrics, VERB_OPT_PODS | VERB_OPT_OUTPUT },
        { "bench", verb_bench, VERB_OPT_DIR },
        { "writeback", verb_writeback, VERB_OPT_FORCE },
        { "trial", verb_trial, VERB_OPT_TRIAL | VERB_OPT_COMMAND | VERB_OPT_REQUEST | VERB_OPT_LIMIT },
};

enum {
        ARG_ROOT = 0x100,
        ARG_JSON,
        ARG_VERSION,
        ARG_BOOT,
        ARG_FORCE,
        ARG_PURGE,
        ARG_PODS,
        ARG_REQUEST,
        ARG_LIMIT,
        ARG_QOS,
        ARG_CRITICAL,
        ARG_DRY_RUN,
        ARG_OUTPUT,
        ARG_DIR,
        ARG_POLICY_FILE_AS,
        ARG_PRIORITY,
        ARG_STATIC_POD,
        ARG_LIMITS,
        ARG_FIND_FLOOR,
        ARG_RUNS,
        ARG_CPUS,
        ARG_TIMEOUT,
        ARG_SEED,
        ARG_DRIVE_TBW,
        ARG_COMPARE,
        ARG_DENSITY,
        ARG_REPLICAS_MAX,
        ARG_HOLD,
        ARG_AROUND,
        ARG_SVG,
        ARG_MEMORY,
};
static const struct option options[] = {
        { "config", required_argument, NULL, 'c' },
        { "root", required_argument, NULL, ARG_ROOT },
        { "json", no_argument, NULL, ARG_JSON },
        { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, ARG_VERSION },
        { "boot", no_argument, NULL, ARG_BOOT },
        { "force", no_argument, NULL, ARG_FORCE },
        { "purge", no_argument, NULL, ARG_PURGE },
        { "pods", no_argument, NULL, ARG_PODS },
        { "request", required_argument, NULL, ARG_REQUEST },
        { "limit", required_argument, NULL, ARG_LIMIT },
        { "qos", required_argument, NULL, ARG_QOS },
        { "critical", no_argument, NULL, ARG_CRITICAL },
        { "priority", required_argument, NULL, ARG_PRIORITY },
        { "static-pod", no_argument, NULL, ARG_STATIC_POD },
        { "dry-run", no_argument, NULL, ARG_DRY_RUN },
        { "output", required_argument, NULL, ARG_OUTPUT },
        { "dir", required_argument, NULL, ARG_DIR },
        { "policy-file-as", required_argument, NULL, ARG_POLICY_FILE_AS },
        { "limits", required_argument, NULL, ARG_LIMITS },
        { "find-floor", no_argument, NULL, ARG_FIND_FLOOR },
        { "runs", required_argument, NULL, ARG_RUNS },
        { "cpus", required_argument, NULL, ARG_CPUS },
        { "timeout", required_argument, NULL, ARG_TIMEOUT },
        { "seed", required_argument, NULL, ARG_SEED },
        { "drive-tbw", required_argument, NULL, ARG_DRIVE_TBW },
        { "compare", no_argument, NULL, ARG_COMPARE },
        { "density", no_argument, NULL, ARG_DENSITY },
        { "replicas-max", required_argument, NULL, ARG_REPLICAS_MAX },
        { "hold", required_argument, NULL, ARG_HOLD },
        { "around", required_argument, NULL, ARG_AROUND },
        { "svg", required_argument, NULL, ARG_SVG },
        { "memory", required_argument, NULL, ARG_MEMORY },
        {},
};

/* The options, into c and, for those only some commands take, seen (VERB_OPT_*). Returns
 * GO_ON, or the exit code to end with (--help, --version, a bad option). */
#define GO_ON (-1)
static int parse_options(int argc, char *argv[], CliContext *c, unsigned *seen) {
        int opt;

        /* GNU getopt permutes: options may stand before or after the command. */
        while ((opt = getopt_long(argc, argv, "c:qvh", options, NULL)) >= 0)
                switch (opt) {
                case 'c':
                        c->config = optarg;
                        break;
                case ARG_ROOT:
                        c->root = optarg;
                        break;
                case ARG_JSON:
                        c->json = true;
                        break;
                case 'q':
                        c->verbosity = -1;
                        break;
                case 'v':
                        c->verbosity = 1;
                        break;
                case 'h':
                        help();
                        return EXIT_OK;
                case ARG_VERSION:
                        printf("nodeswap %s\n", NODESWAP_VERSION);
                        if (FAULT_INJECTION_BUILT)      /* a test build (execute/fault.h) */
                                printf("+fault-injection\n");
                        return EXIT_OK;
                case ARG_BOOT:
                        *seen |= VERB_OPT_BOOT;
                        c->boot = true;
                        break;
                case ARG_FORCE:
                        *seen |= VERB_OPT_FORCE;
                        c->force = true;
                        break;
                case ARG_PURGE:
                        *seen |= VERB_OPT_PURGE;
                        c->purge = true;
                        break;
                case ARG_PODS:
                        *seen |= VERB_OPT_PODS;
                        c->pods = true;
                        break;
                case ARG_REQUEST:
                        *seen |= VERB_OPT_REQUEST;
                        c->request = optarg;
                        break;
                case ARG_LIMIT:
                        *seen |= VERB_OPT_LIMIT;
                        c->limit = optarg;
                        break;
                case ARG_QOS:
                        *seen |= VERB_OPT_QOS;
                        c->qos = optarg;
                        break;
                case ARG_CRITICAL:
                        *seen |= VERB_OPT_CRITICAL;
                        c->critical = true;
                        break;
                case ARG_PRIORITY:
                        *seen |= VERB_OPT_PRIORITY;
                        c->priority = optarg;
                        break;
                case ARG_STATIC_POD:
                        *seen |= VERB_OPT_STATIC_POD;
                        c->static_pod = true;
                        break;
                case ARG_DRY_RUN:
                        *seen |= VERB_OPT_DRY_RUN;
                        c->dry_run = true;
                        break;
                case ARG_OUTPUT:
                        *seen |= VERB_OPT_OUTPUT;
                        c->output = optarg;
                        break;
                case ARG_DIR:
                        *seen |= VERB_OPT_DIR;
                        c->dir = optarg;
                        break;
                case ARG_LIMITS:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_limits = optarg;
                        break;
                case ARG_FIND_FLOOR:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_find_floor = true;
                        break;
                case ARG_RUNS:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_runs = optarg;
                        break;
                case ARG_CPUS:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_cpus = optarg;
                        break;
                case ARG_TIMEOUT:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_timeout = optarg;
                        break;
                case ARG_SEED:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_seed = optarg;
                        break;
                case ARG_DRIVE_TBW:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_drive_tbw = optarg;
                        break;
                case ARG_COMPARE:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_compare = true;
                        break;
                case ARG_DENSITY:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_density = true;
                        break;
                case ARG_REPLICAS_MAX:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_replicas_max = optarg;
                        break;
                case ARG_HOLD:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_hold = optarg;
                        break;
                case ARG_AROUND:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_around = optarg;
                        break;
                case ARG_MEMORY:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_memory = optarg;
                        break;
                case ARG_SVG:
                        *seen |= VERB_OPT_TRIAL;
                        c->trial_svg = optarg;
                        break;
                case ARG_POLICY_FILE_AS: {
                        /* PATH=FILE: PATH is a policy path (no '='), FILE anything. */
                        char *eq = strchr(optarg, '=');
                        if (!eq || eq == optarg || !eq[1] || optarg[0] != '/') {
                                log_error("--policy-file-as needs PATH=FILE with an absolute PATH, not '%s'.", optarg);
                                return EXIT_USAGE;
                        }
                        *eq = 0;
                        c->file_as = (PolicyFileAs) { .path = optarg, .file = eq + 1 };
                        break;
                }
                default:
                        log_error("Try 'nodeswap --help'.");
                        return EXIT_USAGE;
                }

        return GO_ON;
}

/* The command: the one argument left, known, given only options it takes. Returns its index in
 * verbs[], or -EXIT_USAGE (said why). */
static int find_verb(int argc, char *argv[], CliContext *c, unsigned seen) {
        if (optind >= argc) {
                log_error("No command given. Try 'nodeswap --help'.");
                return -EXIT_USAGE;
        }
        const char *verb = argv[optind];
        c->args = argv + optind + 1;
        if (*c->args) {
                log_error("Unexpected argument '%s' after '%s'.", *c->args, verb);
                return -EXIT_USAGE;
        }
        size_t v;
        for (v = 0; v < ELEMENTSOF(verbs); v++)
                if (streq(verbs[v].name, verb))
                        break;
        if (v >= ELEMENTSOF(verbs)) {
                log_error("Unknown command '%s'. Try 'nodeswap --help'.", verb);
                return -EXIT_USAGE;
        }
        for (size_t i = 0; i < ELEMENTSOF(verb_opt_names); i++)
                if ((seen & ~verbs[v].options) & (1u << i)) {
                        log_error("nodeswap %s does not take %s. Try 'nodeswap --help'.", verb, verb_opt_names[i]);
                        return -EXIT_USAGE;
                }
        if (c->file_as.path && c->config) {
                log_error("--policy-file-as and --config exclude each other.");
                return -EXIT_USAGE;
        }
        /* It plans with a file that is not in place: nothing may be changed on that basis. */
        if (c->file_as.path && (streq(verb, "apply") || streq(verb, "revert")) && !c->dry_run) {
                log_error("--policy-file-as only plans: use it with plan, check, status, allowance or %s --dry-run.",
                          verb);
                return -EXIT_USAGE;
        }
        return (int) v;
}

/* --config -: the policy from standard input, read once (apply reads the policy twice); --config
 * FILE: it must exist. Returns GO_ON or EXIT_USAGE. */
static int read_config(CliContext *c) {
        if (c->config && streq(c->config, "-")) {
                int r = read_fd_full(STDIN_FILENO, POLICY_FILE_MAX, false, &c->config_text, &c->config_len);
                if (r < 0) {
                        if (r == -EFBIG)
                                log_error("Failed to read the policy from standard input: larger than %d bytes.",
                                          POLICY_FILE_MAX);
                        else
                                log_error_errno(r, "Failed to read the policy from standard input: %m");
                        return EXIT_USAGE;
                }
        } else if (c->config && access(c->config, F_OK) < 0) {
                log_error_errno(errno, "Failed to open policy '%s': %m", c->config);
                return EXIT_USAGE;
        }
        return GO_ON;
}

int main(int argc, char *argv[]) {
        CliContext c = { .root = "/" };
        unsigned seen = 0;      /* VERB_OPT_* given */

        /* "-- COMMAND [ARG...]" (trial): everything after the first "--" is the command, never
         * parsed as options; the options are what stands before it. */
        for (int i = 1; i < argc; i++)
                if (streq(argv[i], "--")) {
                        c.command = argv + i + 1;
                        argv[i] = NULL;
                        argc = i;
                        seen |= VERB_OPT_COMMAND;
                        break;
                }

        int r = parse_options(argc, argv, &c, &seen);
        if (r != GO_ON)
                return r;
        int v = find_verb(argc, argv, &c, seen);
        if (v < 0)
                return -v;
        r = read_config(&c);
        if (r != GO_ON)
                return r;
        r = verbs[v].fn(&c);
        free(c.config_text);
        return r;
}
