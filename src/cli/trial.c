/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodeswap trial [--limits L1,L2,... | --find-floor] [--cpus N] [--runs N] [--timeout T] [--seed N]
 *                [--drive-tbw TB] [--json] -- COMMAND [ARG...]
 * nodeswap trial --compare [--json] [-- COMMAND [ARG...]]
 *
 * Runs COMMAND as a pod would run (issue 27): each run in a transient service of its own, started
 * over D-Bus, with MemoryMax= the limit and MemorySwapMax= 0 or what LimitedSwap gives a Burstable
 * container whose request is 1 MiB below it on this node; measures each run from its slice's
 * cgroup and the node; says what it means; saves the trial under /var/lib/nodeswap/trials.
 * nodeswap(8) TRIAL documents every option and figure; HANDOFF of branch trial the JSON.
 *
 * Exit status: 0 the trial ran and was recorded (whatever its runs' results), 1 it could not run or
 * be recorded, 2 bad usage.
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <time.h>

#include "cli/cli.h"
#include "execute/trial.h"
#include "plan/allowance.h"
#include "plan/density.h"
#include "plan/kubelet.h"
#include "plan/trial.h"
#include "policy/size.h"
#include "probe/kubelet-flags.h"
#include "probe/pods.h"
#include "probe/systemd.h"
#include "report/json.h"
#include "report/log.h"
#include "report/trial.h"
#include "shared/clock.h"

#define POLL_USEC (100 * USEC_PER_MSEC)
/* A start job that has not started the command after this is given up (Type=exec: the job ends
 * when the command has been executed). */
#define START_TIMEOUT_USEC (120 * USEC_PER_SEC)
/* A unit's state is read with sd-bus's default 25 s per property; a node the trial drives into
 * swap can keep systemd from answering that fast, so an unanswered read keeps the state last read
 * and is asked again at the next poll, until systemd has not answered for this long (the 300 s a
 * stop or a reset is asked again for, execute/trial.c). */
#define SILENCE_MAX_USEC (300 * USEC_PER_SEC)

static volatile sig_atomic_t interrupted = 0;

static void on_signal(int sig) {
        (void) sig;
        interrupted = 1;
}

/* --- Options ------------------------------------------------------------------------------------ */

static int parse_sizes(const char *s, uint64_t mem_total, uint64_t page_size, uint64_t **ret, size_t *ret_n) {
        _cleanup_free_ char *copy = strdup(s);
        _cleanup_free_ uint64_t *v = NULL;
        size_t n = 0;
        if (!copy)
                return log_oom();
        for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                const char *why = NULL;
                uint64_t x;
                uint64_t *nv = realloc(v, (n + 1) * sizeof *v);
                if (!nv)
                        return log_oom();
                v = nv;
                if (size_eval(tok, mem_total, page_size, &x, &why) < 0) {
                        log_error("Invalid --limits value '%s': %s (a size such as 48M, 1.5G or 25%%).", tok,
                                  why ?: "not a size");
                        return -EINVAL;
                }
                if (x <= TRIAL_REQUEST_BELOW_LIMIT) {
                        log_error("Invalid --limits value '%s': a limit must be more than 1 MiB.", tok);
                        return -EINVAL;
                }
                v[n++] = x;
        }
        if (n == 0) {
                log_error("--limits needs at least one size, e.g. --limits 256M,512M.");
                return -EINVAL;
        }
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

/* T: seconds, or with s, m, h. */
static int parse_timeout(const char *s, uint64_t *ret) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        double mult = 1;
        if (errno || end == s || v <= 0 || isnan(v))
                return -EINVAL;
        if (streq(end, "s") || !*end)
                mult = 1;
        else if (streq(end, "m") || streq(end, "min"))
                mult = 60;
        else if (streq(end, "h"))
                mult = 3600;
        else
                return -EINVAL;
        if (v * mult > 365.0 * 24 * 3600)
                return -EINVAL;
        *ret = (uint64_t) (v * mult * 1e6);
        return 0;
}

static bool density_options(const CliContext *c) {
        return c->request || c->limit || c->trial_replicas_max || c->trial_hold || c->trial_around || c->trial_memory;
}

static int check_usage(const CliContext *c) {
        if (c->trial_compare) {
                if (c->trial_limits || c->trial_find_floor || c->trial_cpus || c->trial_runs || c->trial_timeout ||
                    c->trial_seed || c->trial_drive_tbw || c->trial_density || density_options(c)) {
                        log_error("nodeswap trial --compare takes only --json, --svg, --root and -- COMMAND.");
                        return EXIT_USAGE;
                }
                return EXIT_OK;
        }
        if (!c->command || !c->command[0]) {
                log_error("nodeswap trial needs a command after '--': nodeswap trial --limits 256M,512M -- make -j2");
                return EXIT_USAGE;
        }
        if (c->trial_density) {
                if (c->trial_limits || c->trial_find_floor || c->trial_seed) {
                        log_error("nodeswap trial --density takes --request and --limit, not --limits, --find-floor or --seed.");
                        return EXIT_USAGE;
                }
                if (!c->request || !c->limit) {
                        log_error("nodeswap trial --density needs --request R and --limit L, the replica's memory "
                                  "request and limit as a pod's (e.g. --request 32Mi --limit 64Mi).");
                        return EXIT_USAGE;
                }
                return EXIT_OK;
        }
        if (density_options(c)) {
                log_error("--request, --limit, --replicas-max, --hold, --around and --memory go with nodeswap trial --density.");
                return EXIT_USAGE;
        }
        if (c->trial_limits && c->trial_find_floor && !strchr(c->trial_limits, ',')) {
                log_error("--find-floor takes --limits LO,HI (the bounds of the search), not '%s'.", c->trial_limits);
                return EXIT_USAGE;
        }
        if (!c->trial_limits && !c->trial_find_floor) {
                log_error("nodeswap trial needs --limits L1,L2,..., --find-floor or --density.");
                return EXIT_USAGE;
        }
        return EXIT_OK;
}

typedef struct Options {
        uint64_t *limits;
        size_t n_limits;
        unsigned cpus, runs;
        uint64_t timeout_usec;
        bool has_seed;
        uint64_t seed;
        double drive_tbw;
        /* --density */
        uint64_t request, limit, hold_usec, budget;     /* budget: --memory, 0: not given */
        unsigned replicas_max, around;
} Options;

/* --density's numbers: --request and --limit as Kubernetes quantities, --replicas-max, --hold,
 * --around. EXIT_OK or EXIT_USAGE (said why). */
static int parse_density(const CliContext *c, Options *o) {
        uint64_t v;
        o->replicas_max = DENSITY_REPLICAS_MAX_DEFAULT;
        o->hold_usec = DENSITY_HOLD_DEFAULT_USEC;
        if (quantity_parse(c->request, &o->request) < 0) {
                log_error("Invalid --request '%s': a Kubernetes quantity such as 32Mi or 1Gi.", c->request);
                return EXIT_USAGE;
        }
        if (quantity_parse(c->limit, &o->limit) < 0 || o->limit < MiB) {
                log_error("Invalid --limit '%s': a Kubernetes quantity of at least 1Mi, such as 64Mi.", c->limit);
                return EXIT_USAGE;
        }
        if (o->request > o->limit) {
                log_error("--request %s is above --limit %s: the API server rejects such a container.", c->request, c->limit);
                return EXIT_USAGE;
        }
        if (c->trial_replicas_max) {
                if (safe_atou64(c->trial_replicas_max, &v) < 0 || v == 0 || v > DENSITY_REPLICAS_MAX_LIMIT) {
                        log_error("Invalid --replicas-max '%s': a whole number from 1 to %u.", c->trial_replicas_max,
                                  DENSITY_REPLICAS_MAX_LIMIT);
                        return EXIT_USAGE;
                }
                o->replicas_max = (unsigned) v;
        }
        if (c->trial_around) {
                if (safe_atou64(c->trial_around, &v) < 0 || v == 0 || v > DENSITY_REPLICAS_MAX_LIMIT) {
                        log_error("Invalid --around '%s': a whole number of replicas from 1.", c->trial_around);
                        return EXIT_USAGE;
                }
                o->around = (unsigned) v;
        }
        if (c->trial_memory && (quantity_parse(c->trial_memory, &o->budget) < 0 || o->budget < o->limit)) {
                log_error("Invalid --memory '%s': a Kubernetes quantity of at least --limit, such as 4Gi.", c->trial_memory);
                return EXIT_USAGE;
        }
        if (c->trial_hold && parse_timeout(c->trial_hold, &o->hold_usec) < 0) {
                log_error("Invalid --hold '%s': seconds, or a number with s, m or h (10, 30s, 2m).", c->trial_hold);
                return EXIT_USAGE;
        }
        if (!c->trial_timeout)
                o->timeout_usec = DENSITY_SETTLE_TIMEOUT_DEFAULT_USEC;
        return EXIT_OK;
}

static int parse_numbers(const CliContext *c, const HostState *h, Options *o) {
        uint64_t v;
        o->runs = 1;
        if (c->trial_runs) {
                if (safe_atou64(c->trial_runs, &v) < 0 || v == 0 || v > 1000) {
                        log_error("Invalid --runs '%s': a whole number from 1 to 1000.", c->trial_runs);
                        return EXIT_USAGE;
                }
                o->runs = (unsigned) v;
        }
        if (c->trial_cpus) {
                if (safe_atou64(c->trial_cpus, &v) < 0 || v == 0 || v > 4096) {
                        log_error("Invalid --cpus '%s': a whole number of CPUs from 1 (CPUQuota=100%%).", c->trial_cpus);
                        return EXIT_USAGE;
                }
                o->cpus = (unsigned) v;
        }
        if (c->trial_timeout && parse_timeout(c->trial_timeout, &o->timeout_usec) < 0) {
                log_error("Invalid --timeout '%s': seconds, or a number with s, m or h (90, 90s, 5m, 1h).", c->trial_timeout);
                return EXIT_USAGE;
        }
        if (c->trial_seed) {
                if (safe_atou64(c->trial_seed, &o->seed) < 0) {
                        log_error("Invalid --seed '%s': a whole number (the one a trial printed).", c->trial_seed);
                        return EXIT_USAGE;
                }
                o->has_seed = true;
        }
        if (c->trial_drive_tbw) {
                char *end;
                errno = 0;
                o->drive_tbw = strtod(c->trial_drive_tbw, &end);
                if (errno || end == c->trial_drive_tbw || *end || !(o->drive_tbw > 0) || isinf(o->drive_tbw)) {
                        log_error("Invalid --drive-tbw '%s': the drive's rated endurance in TB written (e.g. 600).",
                                  c->trial_drive_tbw);
                        return EXIT_USAGE;
                }
        }
        if (c->trial_density)
                return parse_density(c, o);
        if (c->trial_limits) {
                if (parse_sizes(c->trial_limits, h->mem_total, h->page_size ?: 4096, &o->limits, &o->n_limits) < 0)
                        return EXIT_USAGE;
                if (c->trial_find_floor && (o->n_limits != 2 || o->limits[0] >= o->limits[1])) {
                        log_error("--find-floor --limits LO,HI: two sizes, LO below HI, not '%s'.", c->trial_limits);
                        return EXIT_USAGE;
                }
        }
        return EXIT_OK;
}

/* --- One run ------------------------------------------------------------------------------------ */

typedef struct Trial {
        const CliContext *c;
        sd_bus *bus;
        TrialRecord rec;
        Options o;
        char *disk;
        int *zram_ids;
        size_t n_zram_ids;
        size_t n_planned;       /* runs planned, for the progress lines (find-floor: those so far) */
        unsigned n_replicas;    /* --density: the replicas started so far (their units' numbers) */
        char *budget_dir;       /* --density: the budget slice's cgroup directory */
} Trial;

static uint64_t delta(uint64_t before, uint64_t after) {
        if (before == TRIAL_MISSING || after == TRIAL_MISSING)
                return TRIAL_MISSING;
        return after >= before ? after - before : 0;
}

static uint64_t times(uint64_t v, uint64_t m) {
        return v == TRIAL_MISSING ? TRIAL_MISSING : v * m;
}

static void sleep_usec(uint64_t usec) {
        struct timespec ts = { .tv_sec = (time_t) (usec / USEC_PER_SEC), .tv_nsec = (long) (usec % USEC_PER_SEC) * 1000 };
        (void) nanosleep(&ts, NULL);
}

/* A run's unit while it runs: its names, its log, the node before it and what the polling saw. */
typedef struct RunUnit {
        unsigned index;
        char *service, *slice, *path, *cg_dir, *log;
        TrialNodeSample before;
        uint64_t t0, t1;                /* monotonic: started, ended (or stopped watching) */
        TrialUnitState st;
        uint64_t zram_max, oom_seen;    /* the highest zram mem_used seen; since t0, the first oom_kill */
        uint64_t silent_since;          /* monotonic: the first unanswered read since the last answer; 0: none */
        bool start_timed_out;           /* the command did not start in START_TIMEOUT_USEC */
} RunUnit;

static void run_unit_done(RunUnit *u) {
        free(u->service);
        free(u->slice);
        free(u->path);
        free(u->cg_dir);
        free(u->log);
        trial_unit_state_done(&u->st);
}

/* Stop u's units (errors said as warnings) and free it. */
static void run_unit_stop(Trial *t, RunUnit *u) {
        if (u->service) {
                int r = trial_unit_cleanup(t->bus, u->service, u->slice);
                if (r < 0)
                        log_warning_errno(r, "Failed to stop %s and %s: %m", u->service, u->slice);
        }
        run_unit_done(u);
}

/* Start p's run number index in its unit. 0, or -errno (said why; nothing left running). */
static int run_start(Trial *t, const TrialPoint *p, unsigned index, RunUnit *u) {
        _cleanup_free_ char *desc = NULL, *err = NULL, *service = NULL, *cg = NULL;
        char a[FORMAT_BYTES_MAX];
        int r;

        *u = (RunUnit) { .index = index, .zram_max = TRIAL_MISSING, .oom_seen = TRIAL_MISSING };
        service = strdup_printf("nodeswap-trial-%s-%u.service", t->rec.id, index);
        /* a density replica's slice is a child of the budget's, nodeswap_trial_ID.slice: the '-'
         * in its name makes it one */
        u->slice = t->rec.density ? strdup_printf("nodeswap_trial_%s-%u.slice", t->rec.id, index)
                                  : strdup_printf("nodeswap_trial_%s_%u.slice", t->rec.id, index);
        if (!service || !u->slice)
                return log_oom();
        desc = strdup_printf("nodeswap trial %s run %u (limit %s%s)", t->rec.id, index,
                             p->limit == TRIAL_MISSING ? "none" : format_bytes(a, sizeof a, p->limit),
                             p->swap ? ", swap" : ", no swap");
        cg = t->rec.density ? strdup_printf(TRIAL_CGROUP_ROOT "/nodeswap_trial_%s.slice/%s", t->rec.id, u->slice)
                            : strdup_printf(TRIAL_CGROUP_ROOT "/%s", u->slice);
        if (!desc || !cg)
                return log_oom();
        u->cg_dir = path_join_root(t->c->root, cg);
        if (!u->cg_dir)
                return log_oom();
        r = trial_log_create(t->c->root, t->rec.id, index, &u->log);
        if (r < 0)
                return log_error_errno(r, "Failed to create the log of run %u below '%s': %m", index, TRIAL_DIR);
        r = trial_node_read(t->c->root, t->disk, t->zram_ids, t->n_zram_ids, &u->before);
        if (r < 0)
                return log_oom();
        u->zram_max = u->before.zram_mem_used;

        TrialUnitSpec spec = {
                .service = service,
                .slice = u->slice,
                .description = desc,
                .argv = t->rec.command,
                .cwd = t->rec.cwd,
                .log = u->log,
                .memory_max = p->limit,
                .swap_max = p->swap ? p->swap_max : 0,
                .cpus = t->o.cpus,
                /* a density replica runs until the trial stops it: --timeout is its settle time */
                .timeout_usec = t->rec.density ? 0 : t->o.timeout_usec,
        };
        u->t0 = now_monotonic_usec();
        r = trial_unit_start(t->bus, &spec, &err);
        if (r < 0)
                return log_error_errno(r, "Failed to start %s: %s", service, err ?: strerror(-r));
        u->service = TAKE_PTR(service);         /* from here on, run_unit_stop() stops it */
        r = systemd_unit_object_path(t->bus, u->service, &u->path);
        if (r < 0)
                return log_error_errno(r, "Failed to find %s: %m", u->service);
        return 0;
}

/* One poll of u: its state, zram's memory, the first oom_kill. 1 when the run ended, 0 while it
 * runs, 2 when systemd did not answer (u->st is the state last read), -errno (-ETIMEDOUT: the
 * command did not start in START_TIMEOUT_USEC, u->start_timed_out set, or systemd did not answer
 * for SILENCE_MAX_USEC; -EINTR: a signal). */
static int run_poll(Trial *t, RunUnit *u) {
        TrialUnitState st;
        uint64_t now = now_monotonic_usec();
        bool silent = false;
        int r = trial_unit_read(t->bus, u->path, &st);
        if (r == -ETIMEDOUT) {
                if (u->silent_since == 0) {
                        u->silent_since = now;
                        log_info("systemd did not answer about %s in time; asking again.", u->service);
                } else if (now - u->silent_since > SILENCE_MAX_USEC) {
                        log_error("systemd did not answer about %s for %" PRIu64 " s.", u->service,
                                  (now - u->silent_since) / USEC_PER_SEC);
                        return -ETIMEDOUT;
                }
                silent = true;
        } else if (r < 0)
                return r;
        else {
                trial_unit_state_done(&u->st);
                u->st = st;
                u->silent_since = 0;
        }
        if (t->n_zram_ids > 0) {
                TrialNodeSample s;
                if (trial_node_read(t->c->root, NULL, t->zram_ids, t->n_zram_ids, &s) >= 0 &&
                    s.zram_mem_used != TRIAL_MISSING && (u->zram_max == TRIAL_MISSING || s.zram_mem_used > u->zram_max))
                        u->zram_max = s.zram_mem_used;
        }
        if (u->oom_seen == TRIAL_MISSING) {
                TrialCgroupSample cs;
                if (trial_cgroup_read(u->cg_dir, &cs) >= 0 && cs.oom_kill != TRIAL_MISSING && cs.oom_kill > 0)
                        u->oom_seen = now - u->t0;
        }
        if (interrupted)
                return -EINTR;
        if (silent)
                return 2;
        if (streq_ptr(u->st.active_state, "failed") || (trial_unit_ended(&u->st) && u->st.start_usec > 0))
                return 1;
        if (u->st.start_usec == 0 && now - u->t0 > START_TIMEOUT_USEC) {
                u->start_timed_out = true;
                return -ETIMEDOUT;
        }
        return 0;
}

/* Poll u every POLL_USEC until its run ended. 0, or -errno (said why). */
static int run_watch(Trial *t, RunUnit *u) {
        int r;
        do {
                sleep_usec(POLL_USEC);
                r = run_poll(t, u);
        } while (r == 0 || r == 2);
        u->t1 = now_monotonic_usec();
        if (r < 0)
                return log_error_errno(r, "Failed to watch %s: %m", u->service);
        return 0;
}

/* The result of u's ended run from systemd's state and the cgroup's oom_kill. */
static void run_judge(const RunUnit *u, const TrialCgroupSample *cs, TrialRun *run) {
        const TrialUnitState *st = &u->st;
        run->exit_status = st->exec_main_code == 1 ? st->exec_main_status : -1;
        run->wall_usec = st->start_usec > 0 && st->exit_usec >= st->start_usec ? st->exit_usec - st->start_usec
                                                                                : u->t1 - u->t0;
        run->oom_at_usec = TRIAL_MISSING;
        if ((cs->oom_kill != TRIAL_MISSING && cs->oom_kill > 0) || streq_ptr(st->result, "oom-kill")) {
                run->result = TRIAL_RESULT_OOM;
                run->oom_at_usec = u->oom_seen != TRIAL_MISSING && u->oom_seen < run->wall_usec ? u->oom_seen
                                                                                                : run->wall_usec;
        } else if (streq_ptr(st->result, "timeout"))
                run->result = TRIAL_RESULT_TIMEOUT;
        else if (st->exec_main_code == 1 && st->exec_main_status == 0 && streq_ptr(st->result, "success"))
                run->result = TRIAL_RESULT_OK;
        else
                run->result = TRIAL_RESULT_FAILED;
}

/* The node's figures of a run between before and after: swap traffic (the cgroup's when the
 * kernel counts it, else the node's), the disk's traffic, zram's RAM. */
static void run_node_figures(const Trial *t, const RunUnit *u, const TrialCgroupSample *cs,
                             const TrialNodeSample *after, TrialRun *run) {
        const TrialNodeSample *before = &u->before;
        uint64_t ps = t->rec.node.page_size ?: 4096;
        if (cs->pswpout != TRIAL_MISSING && cs->pswpin != TRIAL_MISSING) {
                run->swapped_out = cs->pswpout * ps;
                run->swapped_in = cs->pswpin * ps;
                run->swap_source = TRIAL_SWAP_SOURCE_CGROUP;
        } else if (before->pswpout != TRIAL_MISSING && after->pswpout != TRIAL_MISSING) {
                run->swapped_out = times(delta(before->pswpout, after->pswpout), ps);
                run->swapped_in = times(delta(before->pswpin, after->pswpin), ps);
                run->swap_source = TRIAL_SWAP_SOURCE_VMSTAT;
        } else {
                run->swapped_out = run->swapped_in = TRIAL_MISSING;
                run->swap_source = TRIAL_SWAP_SOURCE_NONE;
        }
        run->disk_written = times(delta(before->disk_written_sectors, after->disk_written_sectors), 512);
        run->disk_read = times(delta(before->disk_read_sectors, after->disk_read_sectors), 512);
        run->zram_ram = delta(before->zram_mem_used, after->zram_mem_used);
        run->zram_ram_peak = delta(before->zram_mem_used,
                                   u->zram_max == TRIAL_MISSING || after->zram_mem_used == TRIAL_MISSING ||
                                                   after->zram_mem_used > u->zram_max
                                           ? after->zram_mem_used
                                           : u->zram_max);
}

/* Measure u's ended run of p from its slice's cgroup and the node, then stop its units. 0, or
 * -ENOMEM. */
static int run_measure(Trial *t, const TrialPoint *p, RunUnit *u, TrialRun *ret) {
        TrialCgroupSample cs = {};
        TrialNodeSample after;
        int rc = trial_cgroup_read(u->cg_dir, &cs);
        (void) trial_node_read(t->c->root, t->disk, t->zram_ids, t->n_zram_ids, &after);
        if (rc < 0) {
                log_warning_errno(rc, "Failed to read the cgroup '%s' of run %u: %m", u->cg_dir, u->index);
                cs = (TrialCgroupSample) { TRIAL_MISSING, TRIAL_MISSING, TRIAL_MISSING, TRIAL_MISSING, TRIAL_MISSING,
                                           TRIAL_MISSING, TRIAL_MISSING, TRIAL_MISSING, TRIAL_MISSING };
        }

        TrialRun run = {
                .index = u->index,
                .limit = p->limit,
                .swap = p->swap,
                .swap_max = p->swap ? p->swap_max : 0,
                .oom_kills = cs.oom_kill,
                .cpu_user_usec = cs.user_usec,
                .cpu_system_usec = cs.system_usec,
                .memory_peak = cs.memory_peak,
                .swap_peak = cs.swap_peak,
                .stall_full_usec = cs.full_total_usec,
                .log = TAKE_PTR(u->log),
        };
        run_judge(u, &cs, &run);
        run_node_figures(t, u, &cs, &after, &run);
        run.disk = t->disk ? strdup(t->disk) : NULL;
        run_unit_stop(t, u);
        if (t->disk && !run.disk) {
                trial_run_done(&run);
                return log_oom();
        }
        *ret = run;
        return 0;
}

/* Run point once as run number index; the run goes into *ret. 0, or -errno when the unit could not
 * be started or watched (said why; its units stopped). */
static int run_once(Trial *t, const TrialPoint *p, TrialRun *ret) {
        RunUnit u;
        int r = run_start(t, p, (unsigned) t->rec.n_runs + 1, &u);
        if (r >= 0)
                r = run_watch(t, &u);
        if (r < 0) {
                run_unit_stop(t, &u);
                return r;
        }
        return run_measure(t, p, &u, ret);
}

static int add_run(Trial *t, TrialRun *run) {
        TrialRun *n = realloc(t->rec.runs, (t->rec.n_runs + 1) * sizeof *n);
        if (!n) {
                trial_run_done(run);
                return log_oom();
        }
        t->rec.runs = n;
        t->rec.runs[t->rec.n_runs++] = *run;
        return 0;
}

/* Run p `times` times, stopping at the first that does not finish ok when stop_early. *ret_all_ok,
 * *ret_peak: for the floor search. */
static int run_point(Trial *t, const TrialPoint *p, unsigned n, bool stop_early, bool *ret_all_ok, uint64_t *ret_peak) {
        bool all_ok = true;
        uint64_t peak = TRIAL_MISSING;
        for (unsigned k = 0; k < n; k++) {
                TrialRun run;
                int r = run_once(t, p, &run);
                if (r < 0)
                        return r;
                if (t->c->verbosity >= 0)
                        trial_print_run(stderr, &run, t->n_planned);
                if (run.result != TRIAL_RESULT_OK)
                        all_ok = false;
                if (run.memory_peak != TRIAL_MISSING && (peak == TRIAL_MISSING || run.memory_peak > peak))
                        peak = run.memory_peak;
                r = add_run(t, &run);
                if (r < 0)
                        return r;
                if (!all_ok && stop_early)
                        break;
        }
        if (ret_all_ok)
                *ret_all_ok = all_ok;
        if (ret_peak)
                *ret_peak = peak;
        return 0;
}

static int add_refusal(Trial *t, uint64_t limit, char *reason) {
        TrialRefusal *n = realloc(t->rec.refusals, (t->rec.n_refusals + 1) * sizeof *n);
        if (!n) {
                free(reason);
                return log_oom();
        }
        t->rec.refusals = n;
        t->rec.refusals[t->rec.n_refusals++] = (TrialRefusal) { .limit = limit, .reason = reason };
        return 0;
}

static int run_find_floor(Trial *t) {
        TrialFloor f;
        uint64_t lo = t->o.n_limits == 2 ? t->o.limits[0] : 0, hi = t->o.n_limits == 2 ? t->o.limits[1] : 0;
        int r = trial_floor_init(&f, t->rec.node.mem_total, lo, hi);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the floor search: %m");
        t->rec.search_lower = f.lo;
        TrialPoint p;
        while ((r = trial_floor_next(&f, &p)) > 0) {
                if (p.swap) {
                        bool allowed;
                        char *why;
                        r = trial_swap_decide(&t->rec.node, p.limit, &allowed, &p.swap_max, &why);
                        if (r < 0)
                                break;
                        if (!allowed) {
                                if (t->c->verbosity >= 0 && !t->c->json)
                                        log_notice("No swap run at %s: %s.", format_bytes((char[FORMAT_BYTES_MAX]) {}, FORMAT_BYTES_MAX, p.limit), why);
                                r = trial_floor_swap_refused(&f, why);
                                if (r >= 0)
                                        r = add_refusal(t, p.limit, why);
                                else
                                        free(why);
                                if (r < 0)
                                        break;
                                continue;
                        }
                }
                t->n_planned = t->rec.n_runs + t->o.runs;
                bool ok;
                uint64_t peak;
                r = run_point(t, &p, t->o.runs, true, &ok, &peak);
                if (r < 0)
                        break;
                r = trial_floor_feed(&f, ok, peak);
                if (r < 0)
                        break;
        }
        t->rec.search_upper = f.upper ?: TRIAL_MISSING;
        t->rec.search_floor_no_swap = f.floor_no_swap;
        t->rec.search_floor_swap = f.floor_swap;
        if (f.upper_source && !(t->rec.upper_source = strdup(f.upper_source)))
                r = log_oom();
        if (f.end_reason && !(t->rec.search_end = strdup(f.end_reason)))
                r = log_oom();
        trial_floor_done(&f);
        return r < 0 ? r : 0;
}

static int run_limits(Trial *t) {
        _cleanup_free_ TrialPoint *pts = NULL;
        size_t n = 0;
        int r = trial_points_for_limits(&t->rec.node, t->o.limits, t->o.n_limits, t->o.runs, t->rec.seed, &pts, &n,
                                        &t->rec.refusals, &t->rec.n_refusals);
        if (r < 0)
                return log_oom();
        t->n_planned = n;
        if (t->c->verbosity >= 0)
                trial_print_intro(t->c->json ? stderr : stdout, &t->rec, n);
        fflush(stdout);
        for (size_t i = 0; i < n; i++) {
                r = run_point(t, &pts[i], 1, false, NULL, NULL);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* --- --density ---------------------------------------------------------------------------------- */

#define DENSITY_POLL_USEC (250 * USEC_PER_MSEC)

/* One replica of a density point: its unit and how its footprint moved. */
typedef struct Replica {
        RunUnit u;
        bool ended;
        uint64_t ref, ref_usec;         /* the footprint when it last moved, and when (monotonic) */
        uint64_t settle_usec;           /* since its start; TRIAL_MISSING: not settled */
} Replica;

/* A density point as it runs: its replicas and the node's figures. */
typedef struct Point {
        Replica *r;
        unsigned n, started;
        TrialNodeSample before;
        uint64_t zram_max;
} Point;

static void point_stop(Trial *t, Point *pt) {
        for (unsigned i = 0; i < pt->started; i++)
                run_unit_stop(t, &pt->r[i].u);
        free(pt->r);
        pt->r = NULL;
}

static int point_start(Trial *t, const TrialPoint *p, Point *pt) {
        int r = trial_node_read(t->c->root, t->disk, t->zram_ids, t->n_zram_ids, &pt->before);
        if (r < 0)
                return log_oom();
        pt->zram_max = pt->before.zram_mem_used;
        for (; pt->started < pt->n; pt->started++) {
                Replica *x = &pt->r[pt->started];
                r = run_start(t, p, ++t->n_replicas, &x->u);
                if (r < 0) {
                        pt->started++;  /* point_stop() frees it, and stops its unit if it started */
                        return r;
                }
                x->ref_usec = x->u.t0;
                x->settle_usec = TRIAL_MISSING;
        }
        return 0;
}

/* An ended replica is a failure unless it exited 0 without an OOM kill. */
static bool replica_failed(const Replica *x) {
        const TrialUnitState *st = &x->u.st;
        return x->u.oom_seen != TRIAL_MISSING || !(st->exec_main_code == 1 && st->exec_main_status == 0) ||
               streq_ptr(st->result, "oom-kill");
}

/* One poll of every replica: ended, settled (an exit 0 settles it). 1 when every replica settled
 * or ended, 0 while some are settling, 2 when one failed; -errno (said why). */
static int point_poll(Trial *t, Point *pt) {
        bool settling = false, failed = false;
        uint64_t now = now_monotonic_usec();
        for (unsigned i = 0; i < pt->n; i++) {
                Replica *x = &pt->r[i];
                if (x->ended) {
                        failed = failed || replica_failed(x);
                        continue;
                }
                int r = run_poll(t, &x->u);
                if (r == 2) {
                        /* systemd is slow: the others wait for the next poll, not 25 s each */
                        settling = true;
                        break;
                }
                if (r == -ETIMEDOUT && x->u.start_timed_out) {
                        /* the node could not start it: the point did not hold */
                        log_notice("%s did not start in %" PRIu64 " s: the replica failed.", x->u.service,
                                   (uint64_t) (START_TIMEOUT_USEC / USEC_PER_SEC));
                        x->ended = true;
                        x->u.t1 = now;
                        failed = true;
                        continue;
                }
                if (r < 0)
                        return log_error_errno(r, "Failed to watch %s: %m", x->u.service);
                if (x->u.zram_max != TRIAL_MISSING && (pt->zram_max == TRIAL_MISSING || x->u.zram_max > pt->zram_max))
                        pt->zram_max = x->u.zram_max;
                if (r > 0) {
                        x->ended = true;
                        x->u.t1 = now;
                        if (x->settle_usec == TRIAL_MISSING)
                                x->settle_usec = now - x->u.t0;
                        failed = failed || replica_failed(x);
                        continue;
                }
                if (x->u.oom_seen != TRIAL_MISSING)
                        failed = true;
                if (x->settle_usec != TRIAL_MISSING)
                        continue;
                uint64_t m, sw;
                if (trial_cgroup_footprint(x->u.cg_dir, &m, &sw) < 0) {
                        settling = true;
                        continue;
                }
                uint64_t fp = m + (sw == TRIAL_MISSING ? 0 : sw);
                uint64_t moved = fp > x->ref ? fp - x->ref : x->ref - fp;
                uint64_t band = (uint64_t) ((double) fp * DENSITY_SETTLE_BAND);
                if (moved > band || moved > DENSITY_SETTLE_SLACK) {
                        x->ref = fp;
                        x->ref_usec = now;
                        settling = true;
                } else if (now - x->ref_usec >= DENSITY_SETTLE_USEC)
                        x->settle_usec = x->ref_usec - x->u.t0;
                else
                        settling = true;
        }
        return failed ? 2 : settling ? 0 : 1;
}

/* The point's figures, read while its replicas still run (after the hold), into d. */
static void point_figures(Trial *t, Point *pt, TrialDensityPoint *d) {
        uint64_t settle_sum = 0;
        unsigned settled = 0;
        d->memory = d->swapped = d->replicas_stall_full_usec = 0;
        d->settle_max_usec = TRIAL_MISSING;
        for (unsigned i = 0; i < pt->started; i++) {
                Replica *x = &pt->r[i];
                TrialCgroupSample cs;
                uint64_t m, sw;
                bool read = trial_cgroup_read(x->u.cg_dir, &cs) >= 0;
                bool oom = (read && cs.oom_kill != TRIAL_MISSING && cs.oom_kill > 0) || x->u.oom_seen != TRIAL_MISSING ||
                           (x->ended && streq_ptr(x->u.st.result, "oom-kill"));
                if (oom)
                        d->oom++;
                else if (x->ended && replica_failed(x))
                        d->failed++;
                else if (x->settle_usec == TRIAL_MISSING)
                        d->unsettled++;
                if (x->settle_usec != TRIAL_MISSING) {
                        settle_sum += x->settle_usec;
                        settled++;
                        if (d->settle_max_usec == TRIAL_MISSING || x->settle_usec > d->settle_max_usec)
                                d->settle_max_usec = x->settle_usec;
                }
                if (!read || cs.full_total_usec == TRIAL_MISSING || d->replicas_stall_full_usec == TRIAL_MISSING)
                        d->replicas_stall_full_usec = TRIAL_MISSING;
                else
                        d->replicas_stall_full_usec += cs.full_total_usec;
                if (x->ended)
                        continue;       /* it holds no memory any more */
                if (trial_cgroup_footprint(x->u.cg_dir, &m, &sw) < 0)
                        m = sw = TRIAL_MISSING;
                d->memory = m == TRIAL_MISSING || d->memory == TRIAL_MISSING ? TRIAL_MISSING : d->memory + m;
                d->swapped = sw == TRIAL_MISSING || d->swapped == TRIAL_MISSING ? TRIAL_MISSING : d->swapped + sw;
        }
        d->settle_mean_usec = settled ? settle_sum / settled : TRIAL_MISSING;
        TrialNodeSample after;
        (void) trial_node_read(t->c->root, t->disk, t->zram_ids, t->n_zram_ids, &after);
        uint64_t ps = t->rec.node.page_size ?: 4096;
        d->swapped_out = times(delta(pt->before.pswpout, after.pswpout), ps);
        d->swapped_in = times(delta(pt->before.pswpin, after.pswpin), ps);
        d->disk_written = times(delta(pt->before.disk_written_sectors, after.disk_written_sectors), 512);
        uint64_t zmax = pt->zram_max;
        if (after.zram_mem_used != TRIAL_MISSING && (zmax == TRIAL_MISSING || after.zram_mem_used > zmax))
                zmax = after.zram_mem_used;
        d->zram_ram_peak = delta(pt->before.zram_mem_used, zmax);
}

/* Hold the settled replicas for --hold, watching for ends; the node's full stall over it. 0, 2
 * when a replica failed during it, -errno. */
static uint64_t budget_stall(const Trial *t) {
        TrialCgroupSample cs;
        return t->budget_dir && trial_cgroup_read(t->budget_dir, &cs) >= 0 ? cs.full_total_usec : TRIAL_MISSING;
}

static int point_hold(Trial *t, Point *pt, TrialDensityPoint *d) {
        uint64_t b0 = budget_stall(t);
        uint64_t s0 = trial_node_stall_full(t->c->root), h0 = now_monotonic_usec();
        int r = 0;
        while (now_monotonic_usec() - h0 < t->o.hold_usec) {
                sleep_usec(DENSITY_POLL_USEC);
                r = point_poll(t, pt);
                if (r < 0 || r == 2)
                        break;
                r = 0;
        }
        d->hold_usec = now_monotonic_usec() - h0;
        d->stall_full_usec = delta(s0, trial_node_stall_full(t->c->root));
        d->budget_stall_full_usec = delta(b0, budget_stall(t));
        return r;
}

/* Run n replicas of p once: start, settle, hold, judge, stop. The point goes into the record;
 * *ret_held whether it held. -errno when it could not be run (every replica stopped). */
static int density_point(Trial *t, const TrialPoint *p, unsigned n, unsigned repeat, bool *ret_held) {
        TrialDensity *D = t->rec.density;
        Point pt = { .n = n, .r = calloc(n, sizeof(Replica)) };
        TrialDensityPoint d = { .replicas = n, .swap = p->swap, .repeat = repeat, .stall_full_usec = TRIAL_MISSING,
                                .budget_stall_full_usec = TRIAL_MISSING };
        if (!pt.r)
                return log_oom();
        uint64_t w0 = now_monotonic_usec();
        int r = point_start(t, p, &pt);
        uint64_t deadline = now_monotonic_usec() + t->o.timeout_usec;
        while (r >= 0) {
                sleep_usec(DENSITY_POLL_USEC);
                r = point_poll(t, &pt);
                if (r != 0 || now_monotonic_usec() > deadline)
                        break;
        }
        if (r == 1)
                r = point_hold(t, &pt, &d);
        if (r >= 0)
                point_figures(t, &pt, &d);
        point_stop(t, &pt);
        d.wall_usec = now_monotonic_usec() - w0;
        if (r < 0)
                return r;

        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        DensityOutcome o = { .replicas = n, .cpus = cpus > 0 ? (unsigned) cpus : 1, .oom = d.oom, .failed = d.failed, .unsettled = d.unsettled,
                             .settle_max_usec = d.settle_max_usec == TRIAL_MISSING ? 0 : d.settle_max_usec,
                             .hold_usec = d.hold_usec, .stall_full_usec = d.stall_full_usec };
        /* the replicas' own "node", the budget's slice, counts as much as the node */
        if (d.budget_stall_full_usec != TRIAL_MISSING &&
            (o.stall_full_usec == TRIAL_MISSING || d.budget_stall_full_usec > o.stall_full_usec))
                o.stall_full_usec = d.budget_stall_full_usec;
        DensityGaveOut g = density_judge(&o, D->lone_settle_usec);
        if (D->n_points == 0 && g == DENSITY_HELD) {
                /* the lone replica: the reference for the others' settle time, and the footprint
                 * the prediction starts from */
                D->lone_settle_usec = d.settle_max_usec;
                D->lone_footprint = d.memory == TRIAL_MISSING ? TRIAL_MISSING
                                    : d.memory + (d.swapped == TRIAL_MISSING ? 0 : d.swapped);
        }
        d.gave_out = strdup(density_gave_out_to_string(g));
        TrialDensityPoint *np = d.gave_out ? realloc(D->points, (D->n_points + 1) * sizeof *np) : NULL;
        if (!np) {
                free(d.gave_out);
                return log_oom();
        }
        D->points = np;
        D->points[D->n_points++] = d;
        if (t->c->verbosity >= 0)
                trial_print_density_point(stderr, &d);
        *ret_held = g == DENSITY_HELD;
        return 0;
}

/* --runs repeats of a point, stopping at the first that does not hold. */
static int density_repeat(Trial *t, const TrialPoint *p, unsigned n, bool *ret_held) {
        bool held = true;
        for (unsigned k = 1; k <= t->o.runs && held; k++) {
                int r = density_point(t, p, n, k, &held);
                if (r < 0)
                        return r;
        }
        *ret_held = held;
        return 0;
}

/* One series: the search from start. *ret the largest count that held (0: none). */
static int density_series(Trial *t, const TrialPoint *p, unsigned start, unsigned *ret, bool *ret_at_least) {
        DensitySearch s;
        unsigned n;
        int r = 0;
        density_search_init(&s, start, t->o.replicas_max, t->o.around);
        while (r >= 0 && density_search_next(&s, &n) > 0) {
                bool held;
                r = density_repeat(t, p, n, &held);
                if (r >= 0)
                        r = density_search_feed(&s, held);
        }
        *ret = s.held;
        *ret_at_least = s.at_least;
        return r;
}

static DensityScheduler density_scheduler_of(const TrialDensity *D) {
        return (DensityScheduler) { .capacity = D->kubelet_mem_total, .kube_reserved = D->kube_reserved,
                                    .system_reserved = D->system_reserved, .eviction_hard = D->eviction_hard,
                                    .requests_on_node = D->requests_on_node, .pods_on_node = D->pods_on_node,
                                    .max_pods = D->max_pods };
}

/* The pods on the node and the sum of their containers' requests, as far as their cgroups tell
 * (probe/pods.h); the containers whose request they do not tell are counted as unknown. */
static void density_pods_on_node(Trial *t, TrialDensity *D) {
        const TrialNode *n = &t->rec.node;
        PodSwap *pods = NULL;
        size_t n_pods = 0;
        if (pods_probe(t->c->root, &pods, &n_pods) >= 0) {
                const char *last = NULL;
                size_t last_len = 0;
                for (size_t i = 0; i < n_pods; i++) {
                        ContainerNeed need;
                        const char *slash = strrchr(pods[i].name, '/');
                        size_t len = slash ? (size_t) (slash - pods[i].name) : 0;
                        if (!last || len != last_len || strncmp(last, pods[i].name, len) != 0)
                                D->pods_on_node++;
                        last = pods[i].name;
                        last_len = len;
                        if (allowance_container(&pods[i], n->mem_total, n->swap_total, n->page_size, &need) >= 0 && need.request_known)
                                D->requests_on_node += need.request;
                        else
                                D->requests_unknown++;
                }
                pod_swaps_free(pods, n_pods);
        }
}

/* The scheduler's view of the replica's request: the ceiling, the kubelet's reservations,
 * threshold and maxPods with where each comes from, the pods on the node, what it admits.
 * EXIT_OK or EXIT_FAIL (out of memory, said). */
static int density_scheduler_view(Trial *t, const HostState *h) {
        const TrialNode *n = &t->rec.node;
        TrialDensity *D = t->rec.density;
        /* the scheduler's view: the hard memory.available threshold the kubelet runs with, the
         * requests of the pods on the node as far as their cgroups tell */
        Density dens;
        if (allowance_density(h, NULL, 0, &dens) >= 0) {
                D->ceiling = dens.ceiling;
                D->ceiling_zram = dens.zram_ratio_known ? dens.ceiling_zram : NAN;
        }
        KubeletEffective e;
        kubelet_config_effective(&h->kubelet, NULL, NULL, &e);
        if (e.memory_available && density_eviction_bytes(e.memory_available, n->mem_total, &D->eviction_hard) < 0)
                D->eviction_hard = 0;
        D->eviction_source = e.memory_available ? kubelet_memory_eviction_source(&e) : strdup("no threshold");
        if (!D->eviction_source)
                return log_oom(), EXIT_FAIL;
        /* a reservation the kubelet could not parse would stop it: none is counted, and the
         * source says what was written */
        if (e.kube_reserved_memory && quantity_parse(e.kube_reserved_memory, &D->kube_reserved) < 0)
                D->kube_reserved = 0;
        if (e.system_reserved_memory && quantity_parse(e.system_reserved_memory, &D->system_reserved) < 0)
                D->system_reserved = 0;
        D->max_pods = e.max_pods > 0 && e.max_pods <= INT32_MAX ? (unsigned) e.max_pods : KUBELET_DEFAULT_MAX_PODS;
        D->kube_reserved_source = e.kube_reserved_flag ? kubelet_flag_source(e.kube_reserved_flag)
                                  : e.kube_reserved_from ? kubelet_source(e.kube_reserved_from, e.kube_reserved_line)
                                                         : strdup("not set");
        D->system_reserved_source = e.system_reserved_flag ? kubelet_flag_source(e.system_reserved_flag)
                                    : e.system_reserved_from ? kubelet_source(e.system_reserved_from, e.system_reserved_line)
                                                             : strdup("not set");
        D->max_pods_source = e.max_pods_flag ? kubelet_flag_source(e.max_pods_flag)
                             : e.max_pods_from ? kubelet_source(e.max_pods_from, e.max_pods_line)
                                               : strdup("the kubelet's default");
        if (!D->kube_reserved_source || !D->system_reserved_source || !D->max_pods_source)
                return log_oom(), EXIT_FAIL;
        density_pods_on_node(t, D);
        DensityScheduler s = density_scheduler_of(D);
        /* request > 0 here: a request of zero gets no swap and was refused above */
        if (density_scheduler(&s, D->request) >= 0) {
                D->admitted = s.admitted;
                D->by_max_pods = s.by_max_pods;
        }
        D->allocatable = s.allocatable;

        return EXIT_OK;
}

/* --density's set-up, before anything runs: the replica's allowance from the totals the kubelet
 * computes it from, the refusals (no swap, no allowance, no room for one, a kubelet that started
 * before the last swap change), the scheduler's view. EXIT_OK, or EXIT_FAIL said why. */
static int density_setup(Trial *t, const HostState *h) {
        const TrialNode *n = &t->rec.node;
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        TrialDensity *D = t->rec.density = calloc(1, sizeof(TrialDensity));
        if (!D)
                return log_oom(), EXIT_FAIL;
        *D = (TrialDensity) { .request = t->o.request, .limit = t->o.limit, .replicas_max = t->o.replicas_max,
                              .around = t->o.around, .hold_usec = t->o.hold_usec,
                              .settle_timeout_usec = t->o.timeout_usec, .mem_available = h->mem_available,
                              .kubelet_mem_total = n->mem_total, .kubelet_swap_total = n->swap_total,
                              .lone_settle_usec = 0, .lone_footprint = TRIAL_MISSING, .ceiling_zram = NAN };
        if (n->swap_total == 0) {
                log_error("nodeswap trial --density compares replicas with and without swap, and this node has "
                          "none (SwapTotal 0): nothing was run.");
                return EXIT_FAIL;
        }
        if (kubelet_capacity_stale(h) > 0) {
                log_error("The kubelet (%s) started before nodeswap's last swap change, so it gives pods swap in "
                          "proportion to the SwapTotal it read then, not to today's %s: restart it, then rerun the "
                          "trial. Nothing was run.", h->kubelet_unit ?: "its unit", format_bytes(a, sizeof a, n->swap_total));
                return EXIT_FAIL;
        }
        const char *why = NULL;
        if (density_allowance(n->mem_total, n->swap_total, n->page_size, D->request, D->limit, &D->swap_max, &why) < 0)
                return log_oom(), EXIT_FAIL;
        if (D->swap_max == 0) {
                log_error("A replica with --request %s --limit %s gets no swap on this node (%s): there is nothing "
                          "to compare. Nothing was run.", t->c->request, t->c->limit, why);
                return EXIT_FAIL;
        }
        if (D->swap_max > n->swap_free) {
                log_error("One replica's allowance, %s, is more than the node's free swap (SwapFree %s): no room for "
                          "one replica with swap. Nothing was run.", format_bytes(a, sizeof a, D->swap_max),
                          format_bytes(b, sizeof b, n->swap_free));
                return EXIT_FAIL;
        }

        if (density_scheduler_view(t, h) != EXIT_OK)
                return EXIT_FAIL;

        /* the replicas' budget: what pods could take of the node now, capped on their parent
         * slice as kubepods.slice is capped at allocatable */
        D->budget = t->o.budget ?: (h->mem_available > D->eviction_hard ? h->mem_available - D->eviction_hard : 0);
        D->budget_source = strdup(t->o.budget ? "--memory" : "MemAvailable less memory.available");
        if (!D->budget_source)
                return log_oom(), EXIT_FAIL;
        if (D->budget < D->limit) {
                log_error("The replicas' budget, %s (%s), is less than one replica's limit, %s: no room for one "
                          "replica. Nothing was run.", format_bytes(a, sizeof a, D->budget), D->budget_source,
                          format_bytes(b, sizeof b, D->limit));
                return EXIT_FAIL;
        }
        return EXIT_OK;
}

static int run_density_points(Trial *t);

/* The budget's slice around the points: started first, stopped last, also on an error or a signal. */
static int run_density(Trial *t) {
        TrialDensity *D = t->rec.density;
        _cleanup_free_ char *slice = strdup_printf("nodeswap_trial_%s.slice", t->rec.id), *err = NULL;
        _cleanup_free_ char *desc = strdup_printf("nodeswap trial %s: the replicas' budget", t->rec.id);
        if (!slice || !desc)
                return log_oom();
        int r = trial_slice_start(t->bus, slice, desc, D->budget, &err);
        if (r < 0)
                return log_error_errno(r, "Failed to start %s: %s", slice, err ?: strerror(-r));
        _cleanup_free_ char *cg = strdup_printf(TRIAL_CGROUP_ROOT "/%s", slice);
        t->budget_dir = cg ? path_join_root(t->c->root, cg) : NULL;
        r = t->budget_dir ? run_density_points(t) : log_oom();
        int k = trial_unit_cleanup(t->bus, NULL, slice);
        if (k < 0)
                log_warning_errno(k, "Failed to stop %s: %m", slice);
        return r;
}

static int run_density_points(Trial *t) {
        TrialDensity *D = t->rec.density;
        TrialPoint none = { .limit = D->limit }, with = { .limit = D->limit, .swap = true, .swap_max = D->swap_max };
        bool held;
        if (t->c->verbosity >= 0)
                trial_print_density_intro(t->c->json ? stderr : stdout, &t->rec);
        fflush(stdout);
        int r = density_repeat(t, &none, 1, &held);
        if (r < 0 || !held)
                return r;
        uint64_t ps = t->rec.node.page_size;
        uint64_t fp = D->lone_footprint == TRIAL_MISSING ? D->limit : D->lone_footprint;
        D->predicted_no_swap = density_predict(D->budget, t->rec.node.swap_free, fp, 0, ps, false, t->o.replicas_max);
        D->predicted_swap = density_predict(D->budget, t->rec.node.swap_free, fp, D->swap_max, ps, true,
                                            t->o.replicas_max);
        r = density_series(t, &none, D->predicted_no_swap, &D->density_no_swap, &D->at_least_no_swap);
        if (r >= 0)
                r = density_series(t, &with, D->predicted_swap, &D->density_swap, &D->at_least_swap);
        if (D->density_swap > 0) {
                DensityScheduler s = density_scheduler_of(D);
                (void) density_scheduler(&s, D->request);
                D->request_for_swap = density_request_for(&s, D->density_swap);
        }
        return r;
}

/* --- The verb ----------------------------------------------------------------------------------- */

static int trial_id(uint64_t usec, char **ret) {
        time_t s = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;
        char buf[32];
        if (!gmtime_r(&s, &tm) || strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm) == 0)
                return -EINVAL;
        *ret = strdup(buf);
        return *ret ? 0 : -ENOMEM;
}

/* --svg FILE: svg (NULL: out of memory) into FILE. 0 or -errno (said why). */
static int write_svg(const CliContext *c, char *svg) {
        _cleanup_free_ char *text = svg;
        if (!text)
                return log_oom();
        int r = trial_chart_write(c->trial_svg, text);
        if (r < 0)
                return log_error_errno(r, "Failed to write the chart '%s': %m", c->trial_svg);
        if (!c->json && c->verbosity >= 0)
                printf("Drew %s.\n", c->trial_svg);
        return 0;
}

static int print_record(const CliContext *c, const TrialRecord *rec) {
        if (c->json) {
                _cleanup_json_ json_object *o = NULL;
                if (trial_record_to_json(rec, &o) < 0 || json_print(stdout, o) < 0)
                        return log_oom();
                return 0;
        }
        trial_print(stdout, rec);
        return 0;
}

/* The recorded trials for --compare: the records of runs first (with their verdicts), then the
 * density records, each part oldest first. EXIT_OK or EXIT_FAIL (said why). */
typedef struct Compare {
        TrialRecord *t;
        size_t n, n_runs;               /* t[0..n_runs): --limits and --find-floor; the rest --density */
        char *const *filter;            /* -- COMMAND as recorded; NULL: every command */
} Compare;

static int compare_read(const CliContext *c, Compare *k) {
        _cleanup_strv_free_ char **skipped = NULL;
        int r = trial_records_read(c->root, &k->t, &k->n, &skipped);
        if (r < 0) {
                log_error_errno(r, "Failed to read the trials in '%s' below '%s': %m", TRIAL_DIR, c->root);
                return EXIT_FAIL;
        }
        for (char **s = skipped; s && *s; s++)
                log_warning("Skipped %s", *s);
        /* a stable partition: the density records to the end, in their order */
        _cleanup_free_ TrialRecord *dens = calloc(k->n ?: 1, sizeof *dens);
        size_t nd = 0;
        if (!dens)
                return log_oom(), EXIT_FAIL;
        size_t n = k->n;
        k->n = 0;
        for (size_t i = 0; i < n; i++) {
                if (k->t[i].density_mode && !k->t[i].density) {
                        log_warning("Skipped %s: a density record without its \"density\" figures", strempty(k->t[i].path));
                        trial_record_done(&k->t[i]);
                } else if (k->t[i].density_mode)
                        dens[nd++] = k->t[i];
                else
                        k->t[k->n_runs++] = k->t[i];
        }
        if (nd > 0)     /* k->t is NULL when no trial was recorded */
                memcpy(k->t + k->n_runs, dens, nd * sizeof *dens);
        k->n = k->n_runs + nd;
        for (size_t i = 0; i < k->n_runs; i++) {
                TrialVerdict v;
                if (trial_verdict(&k->t[i], &v) < 0)
                        return log_oom(), EXIT_FAIL;
                k->t[i].verdict = v;
        }
        return EXIT_OK;
}

/* Whether the recorded argv rc is the command c: the same words, the first also when c's has no
 * '/' and is rc's last component (the trial resolved it from $PATH). */
static bool command_matches(char *const *rc, char *const *c) {
        const char *base = strrchr(rc[0], '/');
        bool first = streq(rc[0], c[0]) || (!strchr(c[0], '/') && base && streq(base + 1, c[0]));
        if (!first || strv_length(rc) != strv_length(c))
                return false;
        for (size_t k = 1; rc[k]; k++)
                if (!streq(rc[k], c[k]))
                        return false;
        return true;
}

/* -- COMMAND: the first recorded argv that matches it, of any kind. false when none does. */
static bool compare_filter(const CliContext *c, Compare *k) {
        if (!c->command || !c->command[0])
                return true;
        for (size_t i = 0; i < k->n && !k->filter; i++)
                if (command_matches(k->t[i].command, c->command))
                        k->filter = k->t[i].command;
        return k->filter;
}

static bool same_argv(char *const *a, char *const *b) {
        for (; *a && *b; a++, b++)
                if (!streq(*a, *b))
                        return false;
        return !*a && !*b;
}

static bool has_command(const TrialRecord *t, size_t n, char *const *filter) {
        for (size_t i = 0; i < n; i++)
                if (!filter || same_argv(t[i].command, filter))
                        return true;
        return false;
}

static int compare_json(const Compare *k, size_t n_runs, size_t n_dens) {
        _cleanup_json_ json_object *o = NULL;
        if (trial_compare_to_json(k->t, n_runs, k->filter, &o) < 0 ||
            trial_density_compare_to_json(k->t + k->n_runs, n_dens, k->filter, o) < 0 || json_print(stdout, o) < 0)
                return log_oom(), EXIT_FAIL;
        return EXIT_OK;
}

/* The tables; the chart of the latest trial's kind (of -- COMMAND's, if given). */
static int compare_show(const CliContext *c, const Compare *k) {
        size_t nd = k->n - k->n_runs;
        bool runs = has_command(k->t, k->n_runs, k->filter), dens = has_command(k->t + k->n_runs, nd, k->filter);
        int ret = EXIT_OK;
        if (c->json)
                ret = compare_json(k, k->n_runs, nd);
        else {
                if (runs || !dens)
                        trial_compare_print(stdout, k->t, k->n_runs, k->filter);
                if (runs && dens)
                        putchar('\n');
                if (dens)
                        trial_density_compare_print(stdout, k->t + k->n_runs, nd, k->filter);
        }
        if (!c->trial_svg)
                return ret;
        /* the latest record of the command: the one with the highest id, as the records are read */
        const TrialRecord *latest = NULL;
        for (size_t i = 0; i < k->n; i++)
                if ((!k->filter || same_argv(k->t[i].command, k->filter)) && (!latest || strcmp(k->t[i].id, latest->id) > 0))
                        latest = &k->t[i];
        char *svg = latest && latest->density_mode ? trial_density_compare_svg(k->t + k->n_runs, nd, k->filter, NULL, NULL)
                                                   : trial_compare_svg(k->t, k->n_runs, k->filter, NULL, NULL);
        return write_svg(c, svg) < 0 ? EXIT_FAIL : ret;
}

static int verb_compare(const CliContext *c) {
        Compare k = {};
        int ret = compare_read(c, &k);
        if (ret == EXIT_OK && !compare_filter(c, &k)) {
                _cleanup_free_ char *cmd = strv_join(c->command, " ");
                if (c->json)
                        ret = compare_json(&k, 0, 0);
                else
                        printf("No trial of '%s' recorded in %s.\n", strempty(cmd), TRIAL_DIR);
        } else if (ret == EXIT_OK)
                ret = compare_show(c, &k);
        trial_records_free(k.t, k.n);
        return ret;
}

/* The host can run a trial: booted with systemd, cgroup v2, and this host (not --root). EXIT_OK,
 * or EXIT_FAIL said why. */
static int check_host(const CliContext *c, const HostState *h) {
        if (!h->systemd_booted) {
                log_error("nodeswap trial runs the command in a transient systemd unit, and this host was not booted "
                          "with systemd (no /run/systemd/system below '%s'): nothing was run.", c->root);
                return EXIT_FAIL;
        }
        if (h->cgroup != CGROUP_V2) {
                log_error("nodeswap trial needs cgroup v2 (MemorySwapMax= and the kubelet's LimitedSwap); this node "
                          "runs cgroup %s: nothing was run.", cgroup_mode_to_string(h->cgroup));
                return EXIT_FAIL;
        }
        if (!root_is_host(c->root)) {
                log_error("nodeswap trial runs commands on this host only; --root '%s' is for --compare.", c->root);
                return EXIT_FAIL;
        }
        return EXIT_OK;
}

/* The record's command: argv with its first word resolved from $PATH against the current
 * directory, which is recorded too. EXIT_OK, EXIT_USAGE (no such command) or EXIT_FAIL. */
static int record_command(Trial *t) {
        const CliContext *c = t->c;
        _cleanup_free_ char *exe = NULL;
        t->rec.cwd = getcwd(NULL, 0);
        if (!t->rec.cwd) {
                log_error_errno(errno, "Failed to get the current directory: %m");
                return EXIT_FAIL;
        }
        int r = trial_find_executable(c->command[0], getenv("PATH"), t->rec.cwd, &exe);
        if (r < 0) {
                log_error_errno(r, "Failed to find the command '%s'%s: %m", c->command[0],
                                strchr(c->command[0], '/') ? "" : " in $PATH");
                return EXIT_USAGE;
        }
        t->rec.command = strv_copy(c->command);
        if (!t->rec.command) {
                log_oom();
                return EXIT_FAIL;
        }
        free(t->rec.command[0]);
        t->rec.command[0] = TAKE_PTR(exe);
        return EXIT_OK;
}

/* The record's settings (id, seed, options) and what the runs sample: the disk below the current
 * directory, the zram devices in use as swap. EXIT_OK or EXIT_FAIL. */
static int record_settings(Trial *t, const HostState *h) {
        t->rec.started_usec = now_realtime_usec();
        if (trial_id(t->rec.started_usec, &t->rec.id) < 0) {
                log_oom();
                return EXIT_FAIL;
        }
        t->rec.seed = t->o.has_seed ? t->o.seed : (t->rec.started_usec ^ (now_monotonic_usec() << 20));
        t->rec.find_floor = t->c->trial_find_floor;
        t->rec.runs_per_point = t->o.runs;
        t->rec.cpus = t->o.cpus;
        t->rec.timeout_usec = t->o.timeout_usec;
        t->rec.drive_tbw = t->o.drive_tbw;
        t->rec.search_lower = t->rec.search_upper = TRIAL_MISSING;
        t->rec.search_floor_no_swap = t->rec.search_floor_swap = TRIAL_MISSING;

        if (trial_disk_for(t->c->root, &t->rec.node, t->rec.cwd, &t->disk) < 0) {
                log_oom();
                return EXIT_FAIL;
        }
        for (size_t i = 0; i < h->n_swaps; i++)
                if (h->swaps[i].kind == SWAP_KIND_ZRAM && h->swaps[i].zram_id >= 0) {
                        int *n = realloc(t->zram_ids, (t->n_zram_ids + 1) * sizeof *n);
                        if (!n) {
                                log_oom();
                                return EXIT_FAIL;
                        }
                        t->zram_ids = n;
                        t->zram_ids[t->n_zram_ids++] = h->swaps[i].zram_id;
                }
        return EXIT_OK;
}

/* The bus to systemd and the trial's directory. ID is the second the trial started; a second
 * trial in that second gets ID_2, ID_3 ... (no '-': a dash in a slice's name makes a parent
 * slice). EXIT_OK or EXIT_FAIL. */
static int open_trial(Trial *t) {
        _cleanup_free_ char *why = NULL;
        int r = systemd_open(t->c->root, &t->bus);
        if (r < 0) {
                log_error_errno(r, "Failed to connect to systemd: %m");
                return EXIT_FAIL;
        }
        for (unsigned k = 2; (r = trial_dir_prepare(t->c->root, t->rec.id, &why)) == -EEXIST && k < 100; k++) {
                char *id = NULL;
                if (trial_id(t->rec.started_usec, &id) < 0) {
                        log_oom();
                        return EXIT_FAIL;
                }
                free(t->rec.id);
                t->rec.id = strdup_printf("%s_%u", id, k);
                free(id);
                if (!t->rec.id) {
                        log_oom();
                        return EXIT_FAIL;
                }
        }
        if (r < 0) {
                log_error_errno(r, "Failed to make the trial's directory below '%s': %s", TRIAL_DIR, why ?: strerror(-r));
                return EXIT_FAIL;
        }
        return EXIT_OK;
}

/* The runs, with SIGINT, SIGTERM and SIGHUP ending the current run (its unit stopped) instead of
 * the process; the handlers are put back after. 0 or -errno (said why). */
static int run_trial(Trial *t) {
        struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term, old_hup;
        sigemptyset(&sa.sa_mask);
        (void) sigaction(SIGINT, &sa, &old_int);
        (void) sigaction(SIGTERM, &sa, &old_term);
        (void) sigaction(SIGHUP, &sa, &old_hup);

        if (t->rec.find_floor && !t->rec.density && t->c->verbosity >= 0)
                trial_print_intro(t->c->json ? stderr : stdout, &t->rec, 0);
        int r = t->rec.density ? run_density(t) : t->rec.find_floor ? run_find_floor(t) : run_limits(t);

        (void) sigaction(SIGINT, &old_int, NULL);
        (void) sigaction(SIGTERM, &old_term, NULL);
        (void) sigaction(SIGHUP, &old_hup, NULL);
        return r;
}

/* What ran is recorded, also when a run could not start or a signal ended the trial (r < 0): the
 * verdict, the saved record, the report. EXIT_OK when the runs ended and the record was saved. */
static int finish_trial(Trial *t, int r) {
        _cleanup_free_ char *content = NULL, *saved = NULL;
        _cleanup_json_ json_object *doc = NULL;
        TrialVerdict v;
        if (trial_verdict(&t->rec, &v) < 0)
                return (void) log_oom(), EXIT_FAIL;
        trial_verdict_done(&t->rec.verdict);
        t->rec.verdict = v;
        if (trial_record_to_json(&t->rec, &doc) < 0)
                return (void) log_oom(), EXIT_FAIL;
        const char *text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
        content = text ? strdup_printf("%s\n", text) : NULL;
        int w = content ? trial_record_write(t->c->root, t->rec.id, content, &saved) : -ENOMEM;
        if (w < 0)
                log_error_errno(w, "Failed to save the trial in '%s/%s.json': %m", TRIAL_DIR, t->rec.id);
        if (print_record(t->c, &t->rec) < 0)
                return EXIT_FAIL;
        if (!t->c->json && saved && t->c->verbosity >= 0)
                printf("\nSaved %s (nodeswap trial --compare lists it; each run's output is in %s/%s/).\n", saved,
                       TRIAL_DIR, t->rec.id);
        int s = t->c->trial_svg ? write_svg(t->c, trial_svg(&t->rec, NULL, NULL)) : 0;
        return r < 0 || w < 0 || s < 0 ? EXIT_FAIL : EXIT_OK;
}

static void trial_done(Trial *t) {
        if (t->bus)
                sym_sd_bus_flush_close_unref(t->bus);
        free(t->o.limits);
        free(t->disk);
        free(t->zram_ids);
        free(t->budget_dir);
        trial_record_done(&t->rec);
}

int verb_trial(const CliContext *c) {
        int ret = check_usage(c);
        if (ret != EXIT_OK)
                return ret;
        if (c->trial_compare)
                return verb_compare(c);

        Policy p = {};
        HostState h = {};
        Findings fs = {};
        Trial t = { .c = c };
        ret = cli_load(c, LOAD_READ_ONLY, &p, &h, &fs);
        if (ret == EXIT_OK)
                ret = parse_numbers(c, &h, &t.o);
        if (ret == EXIT_OK && trial_node_describe(c->root, &h, &t.rec.node) < 0) {
                log_oom();
                ret = EXIT_FAIL;
        }
        /* --density's refusals are about the node's swap and the kubelet, the host's about how
         * the trial runs: the node's first */
        if (ret == EXIT_OK && c->trial_density)
                ret = density_setup(&t, &h);
        if (ret == EXIT_OK)
                ret = check_host(c, &h);
        if (ret == EXIT_OK)
                ret = record_command(&t);
        if (ret == EXIT_OK)
                ret = record_settings(&t, &h);
        if (ret == EXIT_OK)
                ret = open_trial(&t);
        if (ret == EXIT_OK)
                ret = finish_trial(&t, run_trial(&t));

        trial_done(&t);
        findings_done(&fs);
        host_state_done(&h);
        policy_done(&p);
        return ret;
}
