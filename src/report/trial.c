/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report/trial.h"

#include <inttypes.h>
#include <math.h>
#include <time.h>

#include "report/json.h"
#include "report/svg.h"

/* --- JSON ------------------------------------------------------------------------------------- */

static int add_u64_or_null(json_object *o, const char *key, uint64_t v) {
        return v == TRIAL_MISSING ? json_add_null(o, key) : json_add_u64(o, key, v);
}

/* x rounded to the nearest whole number, half away from zero (no libm) */
static double round_whole(double x) {
        return x < 0 ? -(double) (int64_t) (-x + 0.5) : (double) (int64_t) (x + 0.5);
}

/* x without its fraction, for x >= 0 */
static double whole_part(double x) {
        return (double) (int64_t) x;
}

/* µs as seconds (3 decimals), or null */
static int add_secs(json_object *o, const char *key, uint64_t usec) {
        if (usec == TRIAL_MISSING)
                return json_add_null(o, key);
        return json_add_double(o, key, round_whole((double) usec / 1e3) / 1e3);
}

static int add_double_or_null(json_object *o, const char *key, double v, double scale) {
        if (isnan(v) || isinf(v))
                return json_add_null(o, key);
        return json_add_double(o, key, round_whole(v * scale) / scale);
}

static uint64_t cpu_usec(const TrialRun *r) {
        if (r->cpu_user_usec == TRIAL_MISSING || r->cpu_system_usec == TRIAL_MISSING)
                return TRIAL_MISSING;
        return r->cpu_user_usec + r->cpu_system_usec;
}

static char *iso_time(uint64_t usec) {
        if (usec == TRIAL_MISSING)
                return NULL;
        time_t s = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;
        char buf[32];
        if (!gmtime_r(&s, &tm) || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                return NULL;
        return strdup(buf);
}

static int run_to_json(const TrialRun *r, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        int e = 0;
        e |= json_add_u64(o, "index", r->index);
        e |= add_u64_or_null(o, "limit_bytes", r->limit);
        e |= json_add_bool(o, "swap", r->swap);
        e |= json_add_u64(o, "swap_max_bytes", r->swap_max);
        e |= json_add_string(o, "result", trial_result_to_string(r->result));
        e |= r->exit_status < 0 ? json_add_null(o, "exit_status") : json_add_int(o, "exit_status", r->exit_status);
        e |= add_u64_or_null(o, "oom_kills", r->oom_kills);
        e |= add_secs(o, "oom_at_s", r->oom_at_usec);
        e |= add_secs(o, "wall_s", r->wall_usec);
        e |= add_secs(o, "cpu_s", cpu_usec(r));
        e |= add_secs(o, "cpu_user_s", r->cpu_user_usec);
        e |= add_secs(o, "cpu_system_s", r->cpu_system_usec);
        e |= add_u64_or_null(o, "memory_peak_bytes", r->memory_peak);
        e |= add_u64_or_null(o, "swap_peak_bytes", r->swap_peak);
        e |= add_u64_or_null(o, "swapped_out_bytes", r->swapped_out);
        e |= add_u64_or_null(o, "swapped_in_bytes", r->swapped_in);
        e |= json_add_string(o, "swap_counters",
                             r->swap_source == TRIAL_SWAP_SOURCE_NONE ? NULL : trial_swap_source_to_string(r->swap_source));
        e |= json_add_string(o, "disk", r->disk);
        e |= add_u64_or_null(o, "disk_written_bytes", r->disk_written);
        e |= add_u64_or_null(o, "disk_read_bytes", r->disk_read);
        e |= add_u64_or_null(o, "zram_ram_bytes", r->zram_ram);
        e |= add_u64_or_null(o, "zram_ram_peak_bytes", r->zram_ram_peak);
        e |= add_u64_or_null(o, "stall_full_us", r->stall_full_usec);
        e |= json_add_string(o, "log", r->log);
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

static int node_to_json(const TrialNode *n, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object(), *swaps = json_object_new_array();
        if (!o || !swaps)
                return -ENOMEM;
        int e = 0;
        e |= json_add_string(o, "backend", n->backend);
        e |= json_add_string(o, "zram_algorithm", n->zram_algorithm);
        e |= json_add_string(o, "kernel", n->kernel);
        e |= add_u64_or_null(o, "mem_total_bytes", n->mem_total);
        e |= add_u64_or_null(o, "swap_total_bytes", n->swap_total);
        e |= add_u64_or_null(o, "swap_free_bytes", n->swap_free);
        e |= add_u64_or_null(o, "page_size", n->page_size);
        for (size_t i = 0; i < n->n_swaps && !e; i++) {
                json_object *s = json_object_new_object();
                if (!s)
                        return -ENOMEM;
                e |= json_add_string(s, "path", n->swaps[i].path);
                e |= json_add_string(s, "kind", n->swaps[i].kind);
                e |= json_add_u64(s, "size_bytes", n->swaps[i].size);
                e |= json_add_string(s, "disk", n->swaps[i].disk);
                e |= json_append(swaps, s);
        }
        e |= json_add(o, "swaps", TAKE_PTR(swaps));
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

static int verdict_to_json(const TrialVerdict *v, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object(), *groups = json_object_new_array();
        if (!o || !groups)
                return -ENOMEM;
        int e = 0;
        e |= add_u64_or_null(o, "floor_no_swap_bytes", v->floor_no_swap);
        e |= add_u64_or_null(o, "floor_swap_bytes", v->floor_swap);
        e |= add_secs(o, "roomiest_wall_s", v->roomiest_wall_usec);
        for (size_t i = 0; i < v->n_groups && !e; i++) {
                const TrialGroup *g = &v->groups[i];
                json_object *x = json_object_new_object();
                if (!x)
                        return -ENOMEM;
                e |= add_u64_or_null(x, "limit_bytes", g->limit);
                e |= json_add_bool(x, "swap", g->swap);
                e |= json_add_u64(x, "swap_max_bytes", g->swap_max);
                e |= json_add_u64(x, "runs", g->runs);
                e |= json_add_u64(x, "ok", g->ok);
                e |= json_add_string(x, "result", trial_result_to_string(g->result));
                e |= add_secs(x, "wall_s", g->wall_usec);
                e |= add_double_or_null(x, "slowdown", g->slowdown, 1000);
                e |= add_u64_or_null(x, "swapped_out_bytes", g->swapped_out);
                e |= add_u64_or_null(x, "disk_written_per_run_bytes", g->disk_written_per_run);
                e |= add_double_or_null(x, "runs_per_drive_life", isnan(g->runs_per_drive_life) ? NAN : whole_part(g->runs_per_drive_life), 1);
                e |= add_double_or_null(x, "cpu_s_per_gib_swapped_out", g->cpu_s_per_gib_out, 100);
                e |= add_u64_or_null(x, "zram_ram_peak_bytes", g->zram_ram_peak);
                e |= json_append(groups, x);
        }
        e |= json_add(o, "groups", TAKE_PTR(groups));
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

static int add_count_or_null(json_object *o, const char *key, unsigned v) {
        return v ? json_add_u64(o, key, v) : json_add_null(o, key);
}

static int density_point_to_json(const TrialDensityPoint *p, double drive_tbw, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o)
                return -ENOMEM;
        int e = 0;
        e |= json_add_u64(o, "replicas", p->replicas);
        e |= json_add_bool(o, "swap", p->swap);
        e |= json_add_u64(o, "repeat", p->repeat);
        e |= json_add_string(o, "result", p->gave_out);
        e |= json_add_u64(o, "oom_killed", p->oom);
        e |= json_add_u64(o, "failed", p->failed);
        e |= json_add_u64(o, "unsettled", p->unsettled);
        e |= add_secs(o, "settle_max_s", p->settle_max_usec);
        e |= add_secs(o, "settle_mean_s", p->settle_mean_usec);
        e |= p->hold_usec ? add_secs(o, "hold_s", p->hold_usec) : json_add_null(o, "hold_s");
        e |= add_secs(o, "node_stall_full_s", p->stall_full_usec);
        e |= add_double_or_null(o, "node_stall_full_percent",
                                p->hold_usec && p->stall_full_usec != TRIAL_MISSING
                                        ? 100.0 * (double) p->stall_full_usec / (double) p->hold_usec : NAN, 100);
        e |= add_secs(o, "budget_stall_full_s", p->budget_stall_full_usec);
        e |= add_secs(o, "replicas_stall_full_s", p->replicas_stall_full_usec);
        e |= add_u64_or_null(o, "memory_bytes", p->memory);
        e |= add_u64_or_null(o, "swap_bytes", p->swapped);
        e |= add_u64_or_null(o, "swapped_out_bytes", p->swapped_out);
        e |= add_u64_or_null(o, "swapped_in_bytes", p->swapped_in);
        e |= add_u64_or_null(o, "disk_written_bytes", p->disk_written);
        e |= add_double_or_null(o, "points_per_drive_life",
                                drive_tbw > 0 && p->disk_written != TRIAL_MISSING && p->disk_written > 0
                                        ? whole_part(drive_tbw * 1e12 / (double) p->disk_written) : NAN, 1);
        e |= add_u64_or_null(o, "zram_ram_peak_bytes", p->zram_ram_peak);
        e |= add_secs(o, "wall_s", p->wall_usec);
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

static double density_ratio(const TrialDensity *d) {
        return d->density_no_swap && d->density_swap ? (double) d->density_swap / (double) d->density_no_swap : NAN;
}

static int density_to_json(const TrialDensity *d, double drive_tbw, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object(), *pts = json_object_new_array(),
                                   *s = json_object_new_object();
        if (!o || !pts || !s)
                return -ENOMEM;
        int e = 0;
        e |= json_add_u64(o, "request_bytes", d->request);
        e |= json_add_u64(o, "limit_bytes", d->limit);
        e |= json_add_u64(o, "swap_max_bytes", d->swap_max);
        e |= json_add_u64(o, "kubelet_mem_total_bytes", d->kubelet_mem_total);
        e |= json_add_u64(o, "kubelet_swap_total_bytes", d->kubelet_swap_total);
        e |= json_add_u64(o, "replicas_max", d->replicas_max);
        e |= add_count_or_null(o, "around", d->around);
        e |= add_secs(o, "hold_s", d->hold_usec);
        e |= add_secs(o, "settle_timeout_s", d->settle_timeout_usec);
        e |= json_add_u64(o, "mem_available_bytes", d->mem_available);
        e |= json_add_u64(o, "budget_bytes", d->budget);
        e |= json_add_string(o, "budget_source", d->budget_source);
        e |= d->lone_settle_usec ? add_secs(o, "lone_settle_s", d->lone_settle_usec) : json_add_null(o, "lone_settle_s");
        e |= add_u64_or_null(o, "lone_footprint_bytes", d->lone_footprint);
        e |= add_count_or_null(o, "predicted_no_swap", d->predicted_no_swap);
        e |= add_count_or_null(o, "predicted_swap", d->predicted_swap);
        e |= json_add_u64(o, "density_no_swap", d->density_no_swap);
        e |= json_add_u64(o, "density_swap", d->density_swap);
        e |= json_add_bool(o, "at_least_no_swap", d->at_least_no_swap);
        e |= json_add_bool(o, "at_least_swap", d->at_least_swap);
        e |= add_double_or_null(o, "ratio", density_ratio(d), 100);
        e |= add_double_or_null(o, "ceiling", d->ceiling > 0 ? d->ceiling : NAN, 100);
        e |= add_double_or_null(o, "ceiling_zram", d->ceiling_zram, 100);
        e |= json_add_u64(s, "capacity_bytes", d->kubelet_mem_total);
        e |= json_add_u64(s, "kube_reserved_bytes", d->kube_reserved);
        e |= json_add_string(s, "kube_reserved_source", d->kube_reserved_source);
        e |= json_add_u64(s, "system_reserved_bytes", d->system_reserved);
        e |= json_add_string(s, "system_reserved_source", d->system_reserved_source);
        e |= json_add_u64(s, "eviction_hard_bytes", d->eviction_hard);
        e |= json_add_string(s, "eviction_source", d->eviction_source);
        e |= json_add_u64(s, "max_pods", d->max_pods);
        e |= json_add_string(s, "max_pods_source", d->max_pods_source);
        e |= json_add_bool(s, "admitted_by_max_pods", d->by_max_pods);
        e |= json_add_u64(s, "allocatable_bytes", d->allocatable);
        e |= json_add_u64(s, "requests_on_node_bytes", d->requests_on_node);
        e |= json_add_u64(s, "pods_on_node", d->pods_on_node);
        e |= json_add_u64(s, "requests_unknown", d->requests_unknown);
        e |= json_add_u64(s, "admitted", d->admitted);
        e |= d->request_for_swap ? json_add_u64(s, "request_for_density_swap_bytes", d->request_for_swap)
                                 : json_add_null(s, "request_for_density_swap_bytes");
        e |= json_add(o, "scheduler", TAKE_PTR(s));
        e |= json_add_null(o, "pod_overhead_bytes");
        e |= json_add_string(o, "pod_overhead", TRIAL_POD_OVERHEAD_LEFT_OUT);
        for (size_t i = 0; i < d->n_points && !e; i++) {
                json_object *x = NULL;
                if (density_point_to_json(&d->points[i], drive_tbw, &x) < 0)
                        return -ENOMEM;
                e |= json_append(pts, x);
        }
        e |= json_add(o, "points", TAKE_PTR(pts));
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

int trial_record_to_json(const TrialRecord *t, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object(), *cmd = json_object_new_array(),
                                   *runs = json_object_new_array(), *ref = json_object_new_array();
        json_object *node = NULL, *verdict = NULL;
        if (!o || !cmd || !runs || !ref)
                return -ENOMEM;
        int e = 0;
        _cleanup_free_ char *started = iso_time(t->started_usec);
        e |= json_add_int(o, "version", TRIAL_RECORD_VERSION);
        e |= json_add_string(o, "id", t->id);
        e |= json_add_string(o, "started", started);
        e |= add_u64_or_null(o, "started_usec", t->started_usec);
        for (char **a = t->command; a && *a && !e; a++)
                e |= json_append_string(cmd, *a);
        e |= json_add(o, "command", TAKE_PTR(cmd));
        e |= json_add_string(o, "cwd", t->cwd);
        e |= json_add_string(o, "mode", t->density || t->density_mode ? "density" : t->find_floor ? "find-floor" : "limits");
        e |= json_add_u64(o, "seed", t->seed);
        e |= json_add_u64(o, "runs_per_point", t->runs_per_point);
        e |= t->cpus ? json_add_u64(o, "cpus", t->cpus) : json_add_null(o, "cpus");
        e |= t->timeout_usec ? add_secs(o, "timeout_s", t->timeout_usec) : json_add_null(o, "timeout_s");
        e |= t->drive_tbw > 0 ? json_add_double(o, "drive_tbw_tb", t->drive_tbw) : json_add_null(o, "drive_tbw_tb");
        if (t->find_floor) {
                e |= json_add_string(o, "upper_source", t->upper_source);
                e |= add_u64_or_null(o, "search_lower_bytes", t->search_lower);
                e |= add_u64_or_null(o, "search_upper_bytes", t->search_upper);
                e |= json_add_string(o, "search_end", t->search_end);
        }
        if (e)
                return -ENOMEM;
        if (node_to_json(&t->node, &node) < 0 || json_add(o, "node", node) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_refusals && !e; i++) {
                json_object *x = json_object_new_object();
                if (!x)
                        return -ENOMEM;
                e |= add_u64_or_null(x, "limit_bytes", t->refusals[i].limit);
                e |= json_add_string(x, "reason", t->refusals[i].reason);
                e |= json_append(ref, x);
        }
        e |= json_add(o, "swap_refused", TAKE_PTR(ref));
        for (size_t i = 0; i < t->n_runs && !e; i++) {
                json_object *x = NULL;
                if (run_to_json(&t->runs[i], &x) < 0)
                        return -ENOMEM;
                e |= json_append(runs, x);
        }
        e |= json_add(o, "runs", TAKE_PTR(runs));
        if (e || verdict_to_json(&t->verdict, &verdict) < 0 || json_add(o, "verdict", verdict) < 0)
                return -ENOMEM;
        if (t->density) {
                json_object *d = NULL;
                if (density_to_json(t->density, t->drive_tbw, &d) < 0 || json_add(o, "density", d) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(o);
        return 0;
}

/* --- Text ------------------------------------------------------------------------------------- */

#define DASH "\u2014"

static const char *fmt_bytes(char *buf, size_t n, uint64_t v) {
        if (v == TRIAL_MISSING)
                return DASH;
        return format_bytes(buf, n, v);
}

static const char *fmt_limit(char *buf, size_t n, uint64_t v) {
        if (v == TRIAL_MISSING)
                return "none";
        return format_bytes(buf, n, v);
}

/* s padded to width columns as a terminal shows it (a UTF-8 sequence, "×" or "—", is one column;
 * printf's widths count bytes): left-aligned, or right-aligned with right. */
static void put_col(FILE *f, const char *s, int width, bool right) {
        int cols = 0;
        for (const char *p = s; *p; p++)
                cols += ((unsigned char) *p & 0xC0) != 0x80;
        if (right)
                for (int i = cols; i < width; i++)
                        fputc(' ', f);
        fputs(s, f);
        if (!right)
                for (int i = cols; i < width; i++)
                        fputc(' ', f);
}

/* v with prec decimals and suffix, or the dash */
static const char *fmt_num(char *buf, size_t n, double v, int prec, const char *suffix) {
        if (isnan(v) || isinf(v))
                return DASH;
        snprintf(buf, n, "%.*f%s", prec, v, suffix);
        return buf;
}

static double usec_s(uint64_t v) {
        return v == TRIAL_MISSING ? NAN : (double) v / 1e6;
}

static double bytes_per(uint64_t v, double unit) {
        return v == TRIAL_MISSING ? NAN : (double) v / unit;
}

/* text after indent, wrapped at the spaces before column 100 */
static void put_wrapped(FILE *f, const char *indent, const char *text) {
        const size_t width = 100 - strlen(indent);
        while (*text) {
                size_t n = strlen(text), cut = n;
                if (n > width) {
                        cut = width;
                        while (cut > 0 && text[cut] != ' ')
                                cut--;
                        if (cut == 0)
                                cut = strcspn(text, " ");
                }
                fprintf(f, "%s%.*s\n", indent, (int) cut, text);
                text += cut;
                text += strspn(text, " ");
        }
}

static char *command_line(char *const *argv) {
        return strv_join((char **) argv, " ");
}

void trial_print_intro(FILE *f, const TrialRecord *t, size_t n_planned) {
        _cleanup_free_ char *cmd = command_line(t->command);
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];
        fprintf(f, "Trial %s: %s\n  in %s, seed %" PRIu64 " (--seed %" PRIu64 " repeats the order)", t->id, strempty(cmd),
                strempty(t->cwd), t->seed, t->seed);
        if (t->find_floor)
                fprintf(f, ", finding the floor\n");
        else
                fprintf(f, ", %zu runs in shuffled order\n", n_planned);
        fprintf(f, "  node: swap %s%s%s%s, MemTotal %s, SwapTotal %s, SwapFree %s, page size %" PRIu64 "\n",
                strempty(t->node.backend), t->node.zram_algorithm ? " (" : "", strempty(t->node.zram_algorithm),
                t->node.zram_algorithm ? ")" : "", format_bytes(a, sizeof a, t->node.mem_total),
                format_bytes(b, sizeof b, t->node.swap_total), format_bytes(c, sizeof c, t->node.swap_free),
                t->node.page_size);
        for (size_t i = 0; i < t->n_refusals; i++)
                fprintf(f, "  no swap run at %s: %s\n", fmt_limit(a, sizeof a, t->refusals[i].limit), t->refusals[i].reason);
        fprintf(f, "  Each run takes real memory (up to its limit, plus its swap and, with zram, the compressed\n"
                   "  pages) and CPU from this node's pods: its unit runs in a slice of its own outside\n"
                   "  kubepods.slice, so the kubelet counts its memory as the node's and may evict pods to make\n"
                   "  room. Run trials on a drained node (kubectl drain). The node's swap, sysctls and kubelet\n"
                   "  are not changed.\n");
}

void trial_print_run(FILE *f, const TrialRun *r, size_t n_planned) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        fprintf(f, "run %u/%zu: limit %s, ", r->index, n_planned, fmt_limit(a, sizeof a, r->limit));
        if (r->swap)
                fprintf(f, "swap %s: ", format_bytes(b, sizeof b, r->swap_max));
        else
                fprintf(f, "no swap: ");
        fprintf(f, "%s", trial_result_to_string(r->result));
        if (r->result == TRIAL_RESULT_FAILED && r->exit_status >= 0)
                fprintf(f, " (exit status %d)", r->exit_status);
        if (r->result == TRIAL_RESULT_OOM && r->oom_at_usec != TRIAL_MISSING)
                fprintf(f, " after %.1f s", usec_s(r->oom_at_usec));
        if (r->wall_usec != TRIAL_MISSING)
                fprintf(f, ", %.1f s", usec_s(r->wall_usec));
        fputc('\n', f);
}

/* The figures a footnote explains when missing: the column and the file it comes from. */
enum {
        MISS_CPU = 1 << 0,
        MISS_OUT = 1 << 1,
        MISS_WRITTEN = 1 << 2,
        MISS_ZRAM = 1 << 3,
        MISS_STALL = 1 << 4,
        MISS_WALL = 1 << 5,
};
static const char *const miss_text[] = {
        "CPU s: the run's cpu.stat (user_usec, system_usec) was not there",
        "GiB out: neither the run's memory.stat pswpout (kernels after 6.12) nor /proc/vmstat pswpout",
        "GB written: no disk found under the swap (/sys/block/DISK/stat), or its stat was unreadable",
        "zram RAM: no zram swap device (/sys/block/zramN/mm_stat mem_used_total)",
        "stall s: the run's memory.pressure (CONFIG_PSI, psi=1) was not there",
        "wall: systemd gave no ExecMainStartTimestamp/ExecMainExitTimestamp",
};

void trial_print(FILE *f, const TrialRecord *t) {
        if (t->density) {
                trial_print_density(f, t);
                return;
        }
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[32], d[32], e[32], g[32], h[32], k[FORMAT_BYTES_MAX], w[32];
        unsigned missing = 0;
        bool vmstat = false;

        static const int width[] = { 10, 11, 8, 9, 7, 8, 8, 10, 10, 8 };
        static const char *const head[] = { "limit", "swap", "result", "wall s", "× best",
                                            "CPU s", "GiB out", "GB written", "zram RAM", "stall s" };
        fputc('\n', f);
        for (size_t i = 0; i < ELEMENTSOF(head); i++) {
                if (i)
                        fputc(' ', f);
                put_col(f, head[i], width[i], i >= 3);
        }
        fputc('\n', f);
        for (size_t i = 0; i < t->n_runs; i++) {
                const TrialRun *r = &t->runs[i];
                uint64_t cpu = cpu_usec(r);
                double rel = r->result == TRIAL_RESULT_OK && r->wall_usec != TRIAL_MISSING &&
                                             t->verdict.roomiest_wall_usec != TRIAL_MISSING && t->verdict.roomiest_wall_usec
                                     ? (double) r->wall_usec / (double) t->verdict.roomiest_wall_usec
                                     : NAN;
                missing |= (cpu == TRIAL_MISSING ? MISS_CPU : 0) | (r->swapped_out == TRIAL_MISSING ? MISS_OUT : 0) |
                           (r->disk_written == TRIAL_MISSING ? MISS_WRITTEN : 0) |
                           (r->zram_ram_peak == TRIAL_MISSING ? MISS_ZRAM : 0) |
                           (r->stall_full_usec == TRIAL_MISSING ? MISS_STALL : 0) |
                           (r->wall_usec == TRIAL_MISSING ? MISS_WALL : 0);
                vmstat |= r->swap_source == TRIAL_SWAP_SOURCE_VMSTAT;
                const char *col[] = {
                        fmt_limit(a, sizeof a, r->limit),
                        r->swap ? format_bytes(b, sizeof b, r->swap_max) : "no",
                        trial_result_to_string(r->result),
                        fmt_num(w, sizeof w, usec_s(r->wall_usec), 1, ""),
                        fmt_num(c, sizeof c, rel, 2, ""),
                        fmt_num(d, sizeof d, usec_s(cpu), 1, ""),
                        fmt_num(e, sizeof e, bytes_per(r->swapped_out, (double) GiB), 2, ""),
                        fmt_num(g, sizeof g, bytes_per(r->disk_written, 1e9), 2, ""),
                        fmt_bytes(k, sizeof k, r->zram_ram_peak),
                        fmt_num(h, sizeof h, usec_s(r->stall_full_usec), 1, ""),
                };
                for (size_t j = 0; j < ELEMENTSOF(col); j++) {
                        if (j)
                                fputc(' ', f);
                        put_col(f, col[j], width[j], j >= 3);
                }
                fputc('\n', f);
        }
        for (size_t i = 0; i < ELEMENTSOF(miss_text); i++)
                if (missing & (1u << i))
                        fprintf(f, "  " DASH " %s\n", miss_text[i]);
        if (vmstat)
                fprintf(f, "  GiB out: from /proc/vmstat during the run (this kernel's memory.stat has no pswpout):\n"
                           "  the whole node's swap traffic, not only the run's\n");

        const TrialVerdict *v = &t->verdict;
        fprintf(f, "\nVerdict:\n");
        fprintf(f, "  floor without swap: %s", v->floor_no_swap == TRIAL_MISSING ? "not found" : format_bytes(a, sizeof a, v->floor_no_swap));
        fprintf(f, "; with swap: %s", v->floor_swap == TRIAL_MISSING ? "not found" : format_bytes(b, sizeof b, v->floor_swap));
        if (v->floor_no_swap != TRIAL_MISSING && v->floor_swap != TRIAL_MISSING && v->floor_no_swap)
                fprintf(f, " (%.2f of the floor without swap)", (double) v->floor_swap / (double) v->floor_no_swap);
        fputc('\n', f);
        if (t->find_floor)
                fprintf(f, "  the search: from %s up to %s (%s)\n", fmt_bytes(a, sizeof a, t->search_lower),
                        fmt_bytes(b, sizeof b, t->search_upper),
                        streq_ptr(t->upper_source, "peak")       ? "the peak of the run without a limit"
                        : streq_ptr(t->upper_source, "MemTotal") ? "MemTotal"
                                                                 : strempty(t->upper_source));
        if (t->find_floor && t->search_end)
                fprintf(f, "  the search ended: %s\n", t->search_end);
        for (size_t i = 0; i < v->n_groups; i++) {
                const TrialGroup *G = &v->groups[i];
                fprintf(f, "  %s %s: %u/%u ok", fmt_limit(a, sizeof a, G->limit),
                        G->swap ? "with swap" : "without swap", G->ok, G->runs);
                if (!isnan(G->slowdown))
                        fprintf(f, ", %.2f× the roomiest run's wall time", G->slowdown);
                if (G->disk_written_per_run != TRIAL_MISSING) {
                        fprintf(f, ", %.2f GB written a run", (double) G->disk_written_per_run / 1e9);
                        if (!isnan(G->runs_per_drive_life))
                                fprintf(f, " (%.0f runs in the drive's %.0f TBW)", whole_part(G->runs_per_drive_life), t->drive_tbw);
                }
                if (!isnan(G->cpu_s_per_gib_out))
                        fprintf(f, ", %.1f CPU s per GiB swapped out", G->cpu_s_per_gib_out);
                if (G->zram_ram_peak != TRIAL_MISSING && G->zram_ram_peak > 0)
                        fprintf(f, ", zram held %s outside the limit", format_bytes(k, sizeof k, G->zram_ram_peak));
                fputc('\n', f);
        }
}

/* --- --density -------------------------------------------------------------------------------- */

void trial_print_density_intro(FILE *f, const TrialRecord *t) {
        const TrialDensity *d = t->density;
        _cleanup_free_ char *cmd = command_line(t->command);
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], e[FORMAT_BYTES_MAX];
        fprintf(f, "Density trial %s: %s\n  in %s, up to %u replicas", t->id, strempty(cmd), strempty(t->cwd),
                d->replicas_max);
        if (d->around)
                fprintf(f, " (at most %u above the predicted count)", d->around);
        fprintf(f, ", %u run%s a point, hold %.0f s\n", t->runs_per_point, t->runs_per_point == 1 ? "" : "s",
                usec_s(d->hold_usec));
        fprintf(f, "  node: swap %s%s%s%s, MemTotal %s, SwapTotal %s, SwapFree %s, MemAvailable %s\n",
                strempty(t->node.backend), t->node.zram_algorithm ? " (" : "", strempty(t->node.zram_algorithm),
                t->node.zram_algorithm ? ")" : "", format_bytes(a, sizeof a, t->node.mem_total),
                format_bytes(b, sizeof b, t->node.swap_total), format_bytes(c, sizeof c, t->node.swap_free),
                format_bytes(e, sizeof e, d->mem_available));
        fprintf(f, "  the replicas' budget: %s (%s), MemoryMax= of their parent slice, as kubepods.slice is capped\n",
                format_bytes(a, sizeof a, d->budget), strempty(d->budget_source));
        fprintf(f, "  each replica: request %s, limit %s (MemoryMax=), swap %s with swap (MemorySwapMax=: request / "
                   "MemTotal × SwapTotal, in whole pages, as the kubelet's LimitedSwap gives it)\n",
                format_bytes(a, sizeof a, d->request), format_bytes(b, sizeof b, d->limit),
                format_bytes(c, sizeof c, d->swap_max));
        fprintf(f, "  The replicas take real memory and CPU from this node's pods: their units run outside\n"
                   "  kubepods.slice, so the kubelet counts their memory as the node's and may evict pods to\n"
                   "  make room. Run density trials on a drained node (kubectl drain). The node's swap, sysctls\n"
                   "  and kubelet are not changed; every replica's unit is stopped after its point.\n");
}

void trial_print_density_point(FILE *f, const TrialDensityPoint *p) {
        fprintf(f, "%u replica%s, %s (run %u): %s", p->replicas, p->replicas == 1 ? "" : "s",
                p->swap ? "swap" : "no swap", p->repeat, strempty(p->gave_out));
        if (p->oom || p->failed || p->unsettled)
                fprintf(f, " (%u OOM-killed, %u failed, %u unsettled)", p->oom, p->failed, p->unsettled);
        if (p->settle_max_usec != TRIAL_MISSING)
                fprintf(f, ", settled in %.1f s at most", usec_s(p->settle_max_usec));
        if (p->hold_usec && p->stall_full_usec != TRIAL_MISSING)
                fprintf(f, ", node full stall %.1f %% of the hold", 100.0 * (double) p->stall_full_usec / (double) p->hold_usec);
        if (p->hold_usec && p->budget_stall_full_usec != TRIAL_MISSING)
                fprintf(f, ", budget's %.1f %%", 100.0 * (double) p->budget_stall_full_usec / (double) p->hold_usec);
        fputc('\n', f);
}

static void density_print_table(FILE *f, const TrialRecord *t) {
        const TrialDensity *d = t->density;
        static const int width[] = { 8, 5, 6, 8, 7, 10, 10, 10, 10, 10, 10 };
        static const char *const head[] = { "replicas", "swap", "result", "settle s", "stall %", "memory",
                                            "in swap", "GiB out", "GiB in", "GB written", "zram RAM" };
        char a[32], b[32], c[FORMAT_BYTES_MAX], e[FORMAT_BYTES_MAX], g[32], h[32], k[32], z[FORMAT_BYTES_MAX], n[16];
        fputc('\n', f);
        for (size_t i = 0; i < ELEMENTSOF(head); i++) {
                if (i)
                        fputc(' ', f);
                put_col(f, head[i], width[i], i >= 3 || i == 0);
        }
        fputc('\n', f);
        for (size_t i = 0; i < d->n_points; i++) {
                const TrialDensityPoint *p = &d->points[i];
                snprintf(n, sizeof n, "%u", p->replicas);
                const char *col[] = {
                        n,
                        p->swap ? "yes" : "no",
                        strempty(p->gave_out),
                        fmt_num(a, sizeof a, usec_s(p->settle_max_usec), 1, ""),
                        fmt_num(b, sizeof b, p->hold_usec && p->stall_full_usec != TRIAL_MISSING
                                                     ? 100.0 * (double) p->stall_full_usec / (double) p->hold_usec : NAN,
                                1, ""),
                        fmt_bytes(c, sizeof c, p->memory),
                        fmt_bytes(e, sizeof e, p->swapped),
                        fmt_num(g, sizeof g, bytes_per(p->swapped_out, (double) GiB), 2, ""),
                        fmt_num(h, sizeof h, bytes_per(p->swapped_in, (double) GiB), 2, ""),
                        fmt_num(k, sizeof k, bytes_per(p->disk_written, 1e9), 2, ""),
                        fmt_bytes(z, sizeof z, p->zram_ram_peak),
                };
                for (size_t j = 0; j < ELEMENTSOF(col); j++) {
                        if (j)
                                fputc(' ', f);
                        put_col(f, col[j], width[j], j >= 3 || j == 0);
                }
                fputc('\n', f);
        }
}

static void density_print_verdict(FILE *f, const TrialRecord *t) {
        const TrialDensity *d = t->density;
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];
        fprintf(f, "\nVerdict:\n");
        if (d->density_no_swap == 0) {
                fprintf(f, "  a lone replica does not hold at limit %s without swap: no density to compare\n",
                        format_bytes(a, sizeof a, d->limit));
                return;
        }
        fprintf(f, "  held without swap: %s%u replicas (predicted %u); with swap: %s%u (predicted %u)\n",
                d->at_least_no_swap ? "at least " : "", d->density_no_swap, d->predicted_no_swap,
                d->at_least_swap ? "at least " : "", d->density_swap, d->predicted_swap);
        fprintf(f, "  the ceiling 1 + swap/RAM: %.2f×", d->ceiling);
        if (!isnan(d->ceiling_zram))
                fprintf(f, " (%.2f× with zram's pages in RAM at its measured ratio)", d->ceiling_zram);
        fputc('\n', f);
        fprintf(f, "  the scheduler: allocatable %s = MemTotal %s less kubeReserved %s (%s), systemReserved %s (%s) and "
                   "memory.available %s (%s)\n",
                format_bytes(a, sizeof a, d->allocatable), format_bytes(b, sizeof b, d->kubelet_mem_total),
                format_bytes(c, sizeof c, d->kube_reserved), strempty(d->kube_reserved_source),
                format_bytes((char[FORMAT_BYTES_MAX]) {}, FORMAT_BYTES_MAX, d->system_reserved),
                strempty(d->system_reserved_source),
                format_bytes((char[FORMAT_BYTES_MAX]) {}, FORMAT_BYTES_MAX, d->eviction_hard), strempty(d->eviction_source));
        fprintf(f, "  %s requested by %u pods on the node%s; it admits %u more of request %s%s (maxPods %u, %s)\n",
                format_bytes(a, sizeof a, d->requests_on_node), d->pods_on_node,
                d->requests_unknown ? " (some requests unknown: their cgroups do not tell)" : "", d->admitted,
                format_bytes(b, sizeof b, d->request), d->by_max_pods ? ", as many as maxPods allows" : "", d->max_pods,
                strempty(d->max_pods_source));
        double ratio = density_ratio(d);
        if (!isnan(ratio)) {
                fprintf(f, "  swap fits %.1f× as many replicas here", ratio);
                if (d->request_for_swap == 0)
                        fprintf(f, "; the scheduler admits %u of them at no request (allocatable or maxPods)\n",
                                d->density_swap);
                else if (d->request_for_swap < d->request)
                        fprintf(f, "; the scheduler admits them only with requests of at most %s\n",
                                format_bytes(a, sizeof a, d->request_for_swap));
                else
                        fprintf(f, "; the scheduler admits them at this request (up to %s each)\n",
                                format_bytes(a, sizeof a, d->request_for_swap));
        }
        put_wrapped(f, "  ", TRIAL_POD_OVERHEAD_LEFT_OUT);
}

void trial_print_density(FILE *f, const TrialRecord *t) {
        density_print_table(f, t);
        density_print_verdict(f, t);
}

/* --- --compare -------------------------------------------------------------------------------- */

static bool strv_equal(char *const *a, char *const *b) {
        for (; *a && *b; a++, b++)
                if (!streq(*a, *b))
                        return false;
        return !*a && !*b;
}

typedef struct Row {
        uint64_t limit;
        bool swap;
} Row;

static int row_cmp(const void *x, const void *y) {
        const Row *a = x, *b = y;
        if (a->limit != b->limit)
                return a->limit > b->limit ? -1 : 1;
        return (int) a->swap - (int) b->swap;
}

/* The rows (limit × swap) over the trials in idx, highest limit first. */
static int collect_rows(const TrialRecord *t, const size_t *idx, size_t n_idx, Row **ret, size_t *ret_n) {
        size_t cap = 0, n = 0;
        for (size_t i = 0; i < n_idx; i++)
                cap += t[idx[i]].verdict.n_groups;
        Row *rows = calloc(cap ?: 1, sizeof *rows);
        if (!rows)
                return -ENOMEM;
        for (size_t i = 0; i < n_idx; i++)
                for (size_t g = 0; g < t[idx[i]].verdict.n_groups; g++) {
                        const TrialGroup *G = &t[idx[i]].verdict.groups[g];
                        size_t j;
                        for (j = 0; j < n; j++)
                                if (rows[j].limit == G->limit && rows[j].swap == G->swap)
                                        break;
                        if (j == n)
                                rows[n++] = (Row) { G->limit, G->swap };
                }
        qsort(rows, n, sizeof *rows, row_cmp);
        *ret = rows;
        *ret_n = n;
        return 0;
}

static const TrialGroup *find_group(const TrialRecord *t, const Row *r) {
        for (size_t g = 0; g < t->verdict.n_groups; g++)
                if (t->verdict.groups[g].limit == r->limit && t->verdict.groups[g].swap == r->swap)
                        return &t->verdict.groups[g];
        return NULL;
}

/* The commands, in the order of their first trial; idx[k] the trials of command k. */
typedef struct Command {
        char *const *argv;
        size_t *idx;
        size_t n;
} Command;

static int group_commands(const TrialRecord *t, size_t n, char *const *filter, Command **ret, size_t *ret_n) {
        Command *c = calloc(n ?: 1, sizeof *c);
        size_t nc = 0;
        if (!c)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                if (filter && !strv_equal(filter, t[i].command))
                        continue;
                size_t k;
                for (k = 0; k < nc; k++)
                        if (strv_equal(c[k].argv, t[i].command))
                                break;
                if (k == nc) {
                        c[nc].argv = t[i].command;
                        c[nc].idx = calloc(n, sizeof *c[nc].idx);
                        if (!c[nc].idx) {
                                for (size_t j = 0; j < nc; j++)
                                        free(c[j].idx);
                                free(c);
                                return -ENOMEM;
                        }
                        nc++;
                }
                c[k].idx[c[k].n++] = i;
        }
        *ret = c;
        *ret_n = nc;
        return 0;
}

static void commands_free(Command *c, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(c[i].idx);
        free(c);
}

void trial_compare_print(FILE *f, const TrialRecord *t, size_t n, char *const *command) {
        Command *cs = NULL;
        size_t nc = 0;
        if (group_commands(t, n, command, &cs, &nc) < 0) {
                fprintf(f, "Out of memory.\n");
                return;
        }
        if (nc == 0)
                fprintf(f, "No trial%s recorded in " TRIAL_DIR ".\n", command ? " of this command" : "");
        for (size_t k = 0; k < nc; k++) {
                _cleanup_free_ char *cmd = command_line(cs[k].argv);
                fprintf(f, "%s%s\n", k ? "\n" : "", strempty(cmd));
                fprintf(f, "  %-22s", "limit / swap");
                for (size_t i = 0; i < cs[k].n; i++)
                        fprintf(f, " | %-48s", t[cs[k].idx[i]].id);
                fprintf(f, "\n  %-22s", "");
                for (size_t i = 0; i < cs[k].n; i++) {
                        const TrialNode *nd = &t[cs[k].idx[i]].node;
                        char col[64];
                        snprintf(col, sizeof col, "%s%s%s%s", strempty(nd->backend), nd->zram_algorithm ? " " : "",
                                 strempty(nd->zram_algorithm), "");
                        fprintf(f, " | %-48s", col);
                }
                fputc('\n', f);
                Row *rows = NULL;
                size_t nr = 0;
                if (collect_rows(t, cs[k].idx, cs[k].n, &rows, &nr) < 0) {
                        fprintf(f, "Out of memory.\n");
                        break;
                }
                for (size_t r = 0; r < nr; r++) {
                        char a[FORMAT_BYTES_MAX], label[64];
                        snprintf(label, sizeof label, "%s %s", fmt_limit(a, sizeof a, rows[r].limit),
                                 rows[r].swap ? "swap" : "no swap");
                        fprintf(f, "  %-22s", label);
                        for (size_t i = 0; i < cs[k].n; i++) {
                                const TrialGroup *G = find_group(&t[cs[k].idx[i]], &rows[r]);
                                char cell[128] = "", w[32], o[32], wr[32], z[FORMAT_BYTES_MAX];
                                if (G)
                                        snprintf(cell, sizeof cell, "%s %u/%u %s out %s w %s z %s",
                                                 trial_result_to_string(G->result), G->ok, G->runs,
                                                 fmt_num(w, sizeof w, usec_s(G->wall_usec), 1, "s"),
                                                 fmt_num(o, sizeof o, bytes_per(G->swapped_out, (double) GiB), 2, "G"),
                                                 fmt_num(wr, sizeof wr, bytes_per(G->disk_written_per_run, 1e9), 2, "G"),
                                                 fmt_bytes(z, sizeof z, G->zram_ram_peak));
                                fputs(" | ", f);
                                put_col(f, G ? cell : "", 48, false);
                        }
                        fputc('\n', f);
                }
                free(rows);
        }
        if (nc)
                fprintf(f, "\n  per cell: result, runs ok/runs, mean wall s of the ok runs, GiB swapped out,\n"
                           "  GB written to the swap's disk per run, zram RAM outside the limit (peak); " DASH ": not measured\n");
        commands_free(cs, nc);
}

int trial_compare_to_json(const TrialRecord *t, size_t n, char *const *command, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object(), *trials = json_object_new_array(),
                                   *cmds = json_object_new_array();
        Command *cs = NULL;
        size_t nc = 0;
        int e = 0;
        if (!o || !trials || !cmds || group_commands(t, n, command, &cs, &nc) < 0)
                return -ENOMEM;
        for (size_t k = 0; k < nc && !e; k++)
                for (size_t i = 0; i < cs[k].n && !e; i++) {
                        const TrialRecord *r = &t[cs[k].idx[i]];
                        json_object *x = json_object_new_object(), *c = json_object_new_array();
                        _cleanup_free_ char *started = iso_time(r->started_usec);
                        if (!x || !c) {
                                json_object_put(x);
                                json_object_put(c);
                                e = -ENOMEM;
                                break;
                        }
                        for (char **a = r->command; *a; a++)
                                e |= json_append_string(c, *a);
                        e |= json_add_string(x, "id", r->id);
                        e |= json_add_string(x, "started", started);
                        e |= json_add(x, "command", c);
                        e |= json_add_string(x, "backend", r->node.backend);
                        e |= json_add_string(x, "zram_algorithm", r->node.zram_algorithm);
                        e |= json_append(trials, x);
                }
        for (size_t k = 0; k < nc && !e; k++) {
                json_object *x = json_object_new_object(), *c = json_object_new_array(), *ids = json_object_new_array(),
                            *rows_j = json_object_new_array();
                if (!x || !c || !ids || !rows_j) {
                        json_object_put(x);
                        json_object_put(c);
                        json_object_put(ids);
                        json_object_put(rows_j);
                        e = -ENOMEM;
                        break;
                }
                for (char *const *a = cs[k].argv; *a; a++)
                        e |= json_append_string(c, *a);
                for (size_t i = 0; i < cs[k].n; i++)
                        e |= json_append_string(ids, t[cs[k].idx[i]].id);
                Row *rows = NULL;
                size_t nr = 0;
                if (collect_rows(t, cs[k].idx, cs[k].n, &rows, &nr) < 0)
                        e = -ENOMEM;
                for (size_t r = 0; r < nr && !e; r++) {
                        json_object *row = json_object_new_object(), *cells = json_object_new_array();
                        if (!row || !cells) {
                                json_object_put(row);
                                json_object_put(cells);
                                e = -ENOMEM;
                                break;
                        }
                        e |= add_u64_or_null(row, "limit_bytes", rows[r].limit);
                        e |= json_add_bool(row, "swap", rows[r].swap);
                        for (size_t i = 0; i < cs[k].n; i++) {
                                const TrialGroup *G = find_group(&t[cs[k].idx[i]], &rows[r]);
                                if (!G) {       /* no such runs in this trial: null */
                                        e |= json_object_array_add(cells, NULL) < 0;
                                        continue;
                                }
                                json_object *cell = json_object_new_object();
                                if (!cell) {
                                        e = -ENOMEM;
                                        break;
                                }
                                e |= json_add_string(cell, "id", t[cs[k].idx[i]].id);
                                e |= json_add_string(cell, "result", trial_result_to_string(G->result));
                                e |= json_add_u64(cell, "runs", G->runs);
                                e |= json_add_u64(cell, "ok", G->ok);
                                e |= add_secs(cell, "wall_s", G->wall_usec);
                                e |= add_double_or_null(cell, "slowdown", G->slowdown, 1000);
                                e |= add_u64_or_null(cell, "swapped_out_bytes", G->swapped_out);
                                e |= add_u64_or_null(cell, "disk_written_bytes", G->disk_written_per_run);
                                e |= add_u64_or_null(cell, "zram_ram_peak_bytes", G->zram_ram_peak);
                                e |= json_append(cells, cell);
                        }
                        e |= json_add(row, "cells", cells);
                        e |= json_append(rows_j, row);
                }
                free(rows);
                e |= json_add(x, "command", c);
                e |= json_add(x, "trials", ids);
                e |= json_add(x, "rows", rows_j);
                e |= json_append(cmds, x);
        }
        commands_free(cs, nc);
        e |= json_add(o, "trials", TAKE_PTR(trials));
        e |= json_add(o, "commands", TAKE_PTR(cmds));
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

/* --- --compare of density records ------------------------------------------------------------- */

/* A (replicas, swap) row of density points. */
typedef struct DensityRow {
        unsigned replicas;
        bool swap;
} DensityRow;

/* without swap first, then by replicas */
static int density_row_cmp(const void *x, const void *y) {
        const DensityRow *a = x, *b = y;
        if (a->swap != b->swap)
                return (int) a->swap - (int) b->swap;
        return a->replicas < b->replicas ? -1 : a->replicas > b->replicas;
}

static int density_rows(const TrialRecord *t, const size_t *idx, size_t n_idx, DensityRow **ret, size_t *ret_n) {
        size_t cap = 0, n = 0;
        for (size_t i = 0; i < n_idx; i++)
                cap += t[idx[i]].density->n_points;
        DensityRow *rows = calloc(cap ?: 1, sizeof *rows);
        if (!rows)
                return -ENOMEM;
        for (size_t i = 0; i < n_idx; i++)
                for (size_t k = 0; k < t[idx[i]].density->n_points; k++) {
                        const TrialDensityPoint *p = &t[idx[i]].density->points[k];
                        size_t j = 0;
                        while (j < n && !(rows[j].replicas == p->replicas && rows[j].swap == p->swap))
                                j++;
                        if (j == n)
                                rows[n++] = (DensityRow) { p->replicas, p->swap };
                }
        qsort(rows, n, sizeof *rows, density_row_cmp);
        *ret = rows;
        *ret_n = n;
        return 0;
}

/* The repeats of one (replicas, swap) point of a density trial, taken together. */
typedef struct DensityCell {
        unsigned runs, held;
        const char *result;             /* "held" when every repeat held, else the first that gave out */
        uint64_t settle_max_usec;       /* the highest; TRIAL_MISSING */
        double stall_percent;           /* the node's full stall over the hold, the highest; NAN */
        uint64_t swapped_out, swapped_in, disk_written;  /* means; TRIAL_MISSING */
        uint64_t zram_ram_peak;         /* the highest; TRIAL_MISSING */
} DensityCell;

static uint64_t max_known(uint64_t a, uint64_t b) {
        return a == TRIAL_MISSING ? b : b == TRIAL_MISSING ? a : a > b ? a : b;
}

/* sum of the known values, TRIAL_MISSING once one is not */
static uint64_t add_known(uint64_t sum, uint64_t v) {
        return sum == TRIAL_MISSING || v == TRIAL_MISSING ? TRIAL_MISSING : sum + v;
}

static bool density_cell(const TrialDensity *d, const DensityRow *row, DensityCell *c) {
        *c = (DensityCell) { .settle_max_usec = TRIAL_MISSING, .stall_percent = NAN, .zram_ram_peak = TRIAL_MISSING };
        for (size_t i = 0; i < d->n_points; i++) {
                const TrialDensityPoint *p = &d->points[i];
                if (p->replicas != row->replicas || p->swap != row->swap)
                        continue;
                bool held = streq_ptr(p->gave_out, "held");
                c->held += held;
                if (!held && (!c->result || streq(c->result, "held")))
                        c->result = p->gave_out ?: "?";
                else if (!c->result)
                        c->result = "held";
                c->settle_max_usec = max_known(c->settle_max_usec, p->settle_max_usec);
                if (p->hold_usec && p->stall_full_usec != TRIAL_MISSING) {
                        double pct = 100.0 * (double) p->stall_full_usec / (double) p->hold_usec;
                        c->stall_percent = isnan(c->stall_percent) || pct > c->stall_percent ? pct : c->stall_percent;
                }
                c->swapped_out = add_known(c->swapped_out, p->swapped_out);
                c->swapped_in = add_known(c->swapped_in, p->swapped_in);
                c->disk_written = add_known(c->disk_written, p->disk_written);
                c->zram_ram_peak = max_known(c->zram_ram_peak, p->zram_ram_peak);
                c->runs++;
        }
        if (c->runs == 0)
                return false;
        c->swapped_out = c->swapped_out == TRIAL_MISSING ? TRIAL_MISSING : c->swapped_out / c->runs;
        c->swapped_in = c->swapped_in == TRIAL_MISSING ? TRIAL_MISSING : c->swapped_in / c->runs;
        c->disk_written = c->disk_written == TRIAL_MISSING ? TRIAL_MISSING : c->disk_written / c->runs;
        return true;
}

#define DENSITY_COL 50

static void density_compare_line(FILE *f, const char *label, const TrialRecord *t, const size_t *idx, size_t n,
                                 void (*cell)(const TrialRecord *r, char *buf, size_t size)) {
        fprintf(f, "  %-24s", label);
        for (size_t i = 0; i < n; i++) {
                char buf[128];
                cell(&t[idx[i]], buf, sizeof buf);
                fputs(" | ", f);
                put_col(f, buf, DENSITY_COL, false);
        }
        fputc('\n', f);
}

static void cell_id(const TrialRecord *r, char *buf, size_t size) {
        snprintf(buf, size, "%s", r->id);
}

static void cell_backend(const TrialRecord *r, char *buf, size_t size) {
        snprintf(buf, size, "%s%s%s", strempty(r->node.backend), r->node.zram_algorithm ? " " : "",
                 strempty(r->node.zram_algorithm));
}

static void cell_replica(const TrialRecord *r, char *buf, size_t size) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];
        snprintf(buf, size, "%s / %s / %s", fmt_bytes(a, sizeof a, r->density->request),
                 fmt_bytes(b, sizeof b, r->density->limit), fmt_bytes(c, sizeof c, r->density->swap_max));
}

static void cell_node(const TrialRecord *r, char *buf, size_t size) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];
        snprintf(buf, size, "%s / %s / %s", fmt_bytes(a, sizeof a, r->node.mem_total),
                 fmt_bytes(b, sizeof b, r->node.swap_total), fmt_bytes(c, sizeof c, r->density->budget));
}

static void cell_densities(const TrialRecord *r, char *buf, size_t size) {
        const TrialDensity *d = r->density;
        char x[32];
        snprintf(buf, size, "%s%u / %s%u (%s)", d->at_least_no_swap ? "≥ " : "", d->density_no_swap,
                 d->at_least_swap ? "≥ " : "", d->density_swap, fmt_num(x, sizeof x, density_ratio(d), 2, "×"));
}

static void cell_ceiling(const TrialRecord *r, char *buf, size_t size) {
        const TrialDensity *d = r->density;
        char a[32], b[32];
        snprintf(buf, size, "%s%s%s%s", fmt_num(a, sizeof a, d->ceiling > 0 ? d->ceiling : NAN, 2, "×"),
                 isnan(d->ceiling_zram) ? "" : " (zram ", isnan(d->ceiling_zram) ? "" : fmt_num(b, sizeof b, d->ceiling_zram, 2, "×"),
                 isnan(d->ceiling_zram) ? "" : ")");
}

/* admitted at R; the request at which it admits the density with swap (none: no room, or maxPods) */
static void cell_scheduler(const TrialRecord *r, char *buf, size_t size) {
        const TrialDensity *d = r->density;
        char a[FORMAT_BYTES_MAX];
        if (d->density_swap == 0)
                snprintf(buf, size, "%u%s", d->admitted, d->by_max_pods ? " (maxPods)" : "");
        else if (d->request_for_swap == 0)
                snprintf(buf, size, "%u%s; %u at no request", d->admitted, d->by_max_pods ? " (maxPods)" : "",
                         d->density_swap);
        else
                snprintf(buf, size, "%u%s; %u at ≤ %s", d->admitted, d->by_max_pods ? " (maxPods)" : "",
                         d->density_swap, fmt_bytes(a, sizeof a, d->request_for_swap));
}

static void density_compare_points(FILE *f, const TrialRecord *t, const size_t *idx, size_t n) {
        _cleanup_free_ DensityRow *rows = NULL;
        size_t nr = 0;
        if (density_rows(t, idx, n, &rows, &nr) < 0) {
                fprintf(f, "Out of memory.\n");
                return;
        }
        for (size_t r = 0; r < nr; r++) {
                char label[64];
                snprintf(label, sizeof label, "%u %s", rows[r].replicas, rows[r].swap ? "swap" : "no swap");
                fprintf(f, "  %-24s", label);
                for (size_t i = 0; i < n; i++) {
                        DensityCell c;
                        char cell[256] = "", s[32], st[32], o[32], w[32], z[FORMAT_BYTES_MAX];
                        if (density_cell(t[idx[i]].density, &rows[r], &c))
                                snprintf(cell, sizeof cell, "%s %u/%u %s %s out %s w %s z %s", c.result, c.held, c.runs,
                                         fmt_num(s, sizeof s, usec_s(c.settle_max_usec), 1, "s"),
                                         fmt_num(st, sizeof st, c.stall_percent, 1, "%"),
                                         fmt_num(o, sizeof o, bytes_per(c.swapped_out, (double) GiB), 2, "G"),
                                         fmt_num(w, sizeof w, bytes_per(c.disk_written, 1e9), 2, "G"),
                                         fmt_bytes(z, sizeof z, c.zram_ram_peak));
                        fputs(" | ", f);
                        put_col(f, cell, DENSITY_COL, false);
                }
                fputc('\n', f);
        }
}

void trial_density_compare_print(FILE *f, const TrialRecord *t, size_t n, char *const *command) {
        Command *cs = NULL;
        size_t nc = 0;
        if (group_commands(t, n, command, &cs, &nc) < 0) {
                fprintf(f, "Out of memory.\n");
                return;
        }
        for (size_t k = 0; k < nc; k++) {
                _cleanup_free_ char *cmd = command_line(cs[k].argv);
                fprintf(f, "%sDensity trials of %s\n", k ? "\n" : "", strempty(cmd));
                density_compare_line(f, "trial", t, cs[k].idx, cs[k].n, cell_id);
                density_compare_line(f, "swap", t, cs[k].idx, cs[k].n, cell_backend);
                density_compare_line(f, "MemTotal / swap / budget", t, cs[k].idx, cs[k].n, cell_node);
                density_compare_line(f, "request / limit / swap", t, cs[k].idx, cs[k].n, cell_replica);
                density_compare_line(f, "density no swap / swap", t, cs[k].idx, cs[k].n, cell_densities);
                density_compare_line(f, "ceiling 1 + swap/RAM", t, cs[k].idx, cs[k].n, cell_ceiling);
                density_compare_line(f, "scheduler admits", t, cs[k].idx, cs[k].n, cell_scheduler);
                density_compare_points(f, t, cs[k].idx, cs[k].n);
        }
        if (nc)
                fprintf(f, "\n  density: the most replicas that held without swap / with swap, and their ratio; scheduler\n"
                           "  admits: how many more pods of the request it admits, then the largest request at which it\n"
                           "  admits the density with swap; per point (replicas, swap): held or what gave out first, runs\n"
                           "  held/runs,"
" the slowest settle s, the node's full stall in %% of the hold, GiB swapped out\n"
                           "  and GB written to the swap's disk (means of its runs), zram's RAM outside the limits (peak);\n"
                           "  " DASH ": not measured\n");
        if (nc)
                put_wrapped(f, "  ", TRIAL_POD_OVERHEAD_LEFT_OUT);
        commands_free(cs, nc);
}

static int density_trial_to_json(const TrialRecord *r, json_object **ret) {
        _cleanup_json_ json_object *x = json_object_new_object(), *c = json_object_new_array();
        _cleanup_free_ char *started = iso_time(r->started_usec);
        const TrialDensity *d = r->density;
        if (!x || !c)
                return -ENOMEM;
        int e = 0;
        for (char **a = r->command; *a; a++)
                e |= json_append_string(c, *a);
        e |= json_add_string(x, "id", r->id);
        e |= json_add_string(x, "started", started);
        e |= json_add(x, "command", TAKE_PTR(c));
        e |= json_add_string(x, "backend", r->node.backend);
        e |= json_add_string(x, "zram_algorithm", r->node.zram_algorithm);
        e |= add_u64_or_null(x, "mem_total_bytes", r->node.mem_total);
        e |= add_u64_or_null(x, "swap_total_bytes", r->node.swap_total);
        e |= add_u64_or_null(x, "budget_bytes", d->budget);
        e |= add_u64_or_null(x, "request_bytes", d->request);
        e |= add_u64_or_null(x, "limit_bytes", d->limit);
        e |= add_u64_or_null(x, "swap_max_bytes", d->swap_max);
        e |= json_add_u64(x, "density_no_swap", d->density_no_swap);
        e |= json_add_u64(x, "density_swap", d->density_swap);
        e |= json_add_bool(x, "at_least_no_swap", d->at_least_no_swap);
        e |= json_add_bool(x, "at_least_swap", d->at_least_swap);
        e |= add_double_or_null(x, "ratio", density_ratio(d), 100);
        e |= add_double_or_null(x, "ceiling", d->ceiling > 0 ? d->ceiling : NAN, 100);
        e |= add_double_or_null(x, "ceiling_zram", d->ceiling_zram, 100);
        e |= json_add_u64(x, "admitted", d->admitted);
        e |= json_add_bool(x, "admitted_by_max_pods", d->by_max_pods);
        e |= add_u64_or_null(x, "allocatable_bytes", d->allocatable);
        e |= d->request_for_swap ? json_add_u64(x, "request_for_density_swap_bytes", d->request_for_swap)
                                 : json_add_null(x, "request_for_density_swap_bytes");
        e |= json_add_null(x, "pod_overhead_bytes");
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(x);
        return 0;
}

static int density_cell_to_json(const char *id, const DensityCell *c, json_object **ret) {
        _cleanup_json_ json_object *x = json_object_new_object();
        if (!x)
                return -ENOMEM;
        int e = 0;
        e |= json_add_string(x, "id", id);
        e |= json_add_string(x, "result", c->result);
        e |= json_add_u64(x, "runs", c->runs);
        e |= json_add_u64(x, "held", c->held);
        e |= add_secs(x, "settle_max_s", c->settle_max_usec);
        e |= add_double_or_null(x, "node_stall_full_percent", c->stall_percent, 100);
        e |= add_u64_or_null(x, "swapped_out_bytes", c->swapped_out);
        e |= add_u64_or_null(x, "swapped_in_bytes", c->swapped_in);
        e |= add_u64_or_null(x, "disk_written_bytes", c->disk_written);
        e |= add_u64_or_null(x, "zram_ram_peak_bytes", c->zram_ram_peak);
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(x);
        return 0;
}

/* One row: replicas, swap and a cell per trial of cmd (null where it has no such point). */
static int density_row_to_json(const TrialRecord *t, const Command *cmd, const DensityRow *row, json_object **ret) {
        _cleanup_json_ json_object *x = json_object_new_object(), *cells = json_object_new_array();
        if (!x || !cells)
                return -ENOMEM;
        int e = json_add_u64(x, "replicas", row->replicas) | json_add_bool(x, "swap", row->swap);
        for (size_t i = 0; i < cmd->n && !e; i++) {
                const TrialRecord *r = &t[cmd->idx[i]];
                DensityCell c;
                json_object *cell = NULL;
                if (!density_cell(r->density, row, &c))
                        e |= json_object_array_add(cells, NULL) < 0;
                else
                        e |= density_cell_to_json(r->id, &c, &cell) < 0 || json_append(cells, cell) < 0;
        }
        e |= json_add(x, "cells", TAKE_PTR(cells));
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(x);
        return 0;
}

static int density_command_to_json(const TrialRecord *t, const Command *cmd, json_object **ret) {
        _cleanup_json_ json_object *x = json_object_new_object(), *c = json_object_new_array(),
                                   *ids = json_object_new_array(), *rows_j = json_object_new_array();
        _cleanup_free_ DensityRow *rows = NULL;
        size_t nr = 0;
        if (!x || !c || !ids || !rows_j || density_rows(t, cmd->idx, cmd->n, &rows, &nr) < 0)
                return -ENOMEM;
        int e = 0;
        for (char *const *a = cmd->argv; *a; a++)
                e |= json_append_string(c, *a);
        for (size_t i = 0; i < cmd->n; i++)
                e |= json_append_string(ids, t[cmd->idx[i]].id);
        for (size_t r = 0; r < nr && !e; r++) {
                json_object *row = NULL;
                e |= density_row_to_json(t, cmd, &rows[r], &row) < 0 || json_append(rows_j, row) < 0;
        }
        e |= json_add(x, "command", TAKE_PTR(c));
        e |= json_add(x, "trials", TAKE_PTR(ids));
        e |= json_add(x, "rows", TAKE_PTR(rows_j));
        if (e)
                return -ENOMEM;
        *ret = TAKE_PTR(x);
        return 0;
}

int trial_density_compare_to_json(const TrialRecord *t, size_t n, char *const *command, json_object *o) {
        _cleanup_json_ json_object *trials = json_object_new_array(), *cmds = json_object_new_array();
        Command *cs = NULL;
        size_t nc = 0;
        int e = 0;
        if (!trials || !cmds || group_commands(t, n, command, &cs, &nc) < 0)
                return -ENOMEM;
        for (size_t k = 0; k < nc && !e; k++)
                for (size_t i = 0; i < cs[k].n && !e; i++) {
                        json_object *x = NULL;
                        e |= density_trial_to_json(&t[cs[k].idx[i]], &x) < 0 || json_append(trials, x) < 0;
                }
        for (size_t k = 0; k < nc && !e; k++) {
                json_object *x = NULL;
                e |= density_command_to_json(t, &cs[k], &x) < 0 || json_append(cmds, x) < 0;
        }
        commands_free(cs, nc);
        e |= json_add(o, "density_trials", TAKE_PTR(trials));
        e |= json_add(o, "density_commands", TAKE_PTR(cmds));
        e |= json_add_string(o, "pod_overhead", TRIAL_POD_OVERHEAD_LEFT_OUT);
        return e ? -ENOMEM : 0;
}

/* --- --svg -------------------------------------------------------------------------------------- */

static double mib(uint64_t v) {
        return v == TRIAL_MISSING ? NAN : (double) v / (double) MiB;
}

/* The runs of t, with or without swap, by limit: wall time (which_out false) or MiB swapped out. */
static int runs_series(const TrialRecord *t, bool swap, bool which_out, SvgSeries *ret) {
        SvgPoint *p = calloc(t->n_runs ?: 1, sizeof *p);
        size_t n = 0;
        if (!p)
                return -ENOMEM;
        for (size_t i = 0; i < t->n_runs; i++) {
                const TrialRun *r = &t->runs[i];
                if (r->swap != swap || r->limit == TRIAL_MISSING)
                        continue;
                bool ok = r->result == TRIAL_RESULT_OK;
                p[n++] = (SvgPoint) { .x = mib(r->limit),
                                      .y = which_out ? mib(r->swapped_out) : usec_s(r->wall_usec),
                                      .marker = ok ? SVG_MARKER_DOT : SVG_MARKER_CROSS,
                                      .label = ok ? NULL : trial_result_to_string(r->result) };
        }
        /* by limit, so that the line runs left to right */
        for (size_t i = 1; i < n; i++)
                for (size_t k = i; k > 0 && p[k - 1].x > p[k].x; k--) {
                        SvgPoint x = p[k];
                        p[k] = p[k - 1];
                        p[k - 1] = x;
                }
        *ret = (SvgSeries) { .name = swap ? "with swap (MemorySwapMax= the allowance)" : "without swap",
                             .points = p, .n_points = n, .dashed = !swap };
        return 0;
}

static void panels_free(SvgPanel *p, size_t n) {
        for (size_t i = 0; i < n; i++) {
                for (size_t s = 0; s < p[i].n_series; s++)
                        free(p[i].series[s].points);
                free(p[i].series);
        }
}

static int density_series(const TrialDensity *d, bool swap, bool stall, SvgSeries *ret) {
        SvgPoint *p = calloc(d->n_points ?: 1, sizeof *p);
        size_t n = 0;
        if (!p)
                return -ENOMEM;
        for (size_t i = 0; i < d->n_points; i++) {
                const TrialDensityPoint *x = &d->points[i];
                if (x->swap != swap)
                        continue;
                bool held = streq_ptr(x->gave_out, "held");
                p[n++] = (SvgPoint) {
                        .x = x->replicas,
                        .y = stall ? (x->hold_usec && x->stall_full_usec != TRIAL_MISSING
                                              ? 100.0 * (double) x->stall_full_usec / (double) x->hold_usec : NAN)
                                   : usec_s(x->settle_max_usec),
                        .marker = held ? SVG_MARKER_DOT : SVG_MARKER_CROSS,
                        .label = held ? NULL : x->gave_out,
                };
                /* a point that gave out before the figure was taken (an OOM kill before the
                 * hold) still shows, on the axis, with what gave out */
                if (isnan(p[n - 1].y) && !held)
                        p[n - 1].y = 0;
        }
        for (size_t i = 1; i < n; i++)
                for (size_t k = i; k > 0 && p[k - 1].x > p[k].x; k--) {
                        SvgPoint x = p[k];
                        p[k] = p[k - 1];
                        p[k - 1] = x;
                }
        *ret = (SvgSeries) { .name = swap ? "replicas with swap" : "replicas without swap", .points = p,
                             .n_points = n, .dashed = !swap };
        return 0;
}

static int two_series(SvgPanel *pn, const char *title, const char *x_label, const char *y_label) {
        pn->series = calloc(2, sizeof *pn->series);
        pn->n_series = 2;
        pn->title = title;
        pn->x_label = x_label;
        pn->y_label = y_label;
        return pn->series ? 0 : -ENOMEM;
}

char *trial_svg(const TrialRecord *t, unsigned *ret_width, unsigned *ret_height) {
        SvgPanel pn[2] = {};
        char *svg = NULL;
        _cleanup_free_ char *cmd = command_line(t->command), *title = NULL;
        int r = two_series(&pn[0], NULL, NULL, NULL);
        if (r >= 0)
                r = two_series(&pn[1], NULL, NULL, NULL);
        if (r < 0)
                goto finish;
        if (t->density) {
                title = strdup_printf("Density trial %s: %s (%s swap)", t->id, strempty(cmd), strempty(t->node.backend));
                pn[0] = (SvgPanel) { "the slowest replica to settle", "replicas (count)", "settle time (s)", pn[0].series, 2 };
                pn[1] = (SvgPanel) { "the node's full memory stall over the hold", "replicas (count)",
                                     "full stall (% of the hold)", pn[1].series, 2 };
                for (int k = 0; k < 2 && r >= 0; k++)
                        r = density_series(t->density, false, k == 1, &pn[k].series[0]) < 0 ||
                                            density_series(t->density, true, k == 1, &pn[k].series[1]) < 0
                                    ? -ENOMEM : 0;
        } else {
                title = strdup_printf("Trial %s: %s (%s swap)", t->id, strempty(cmd), strempty(t->node.backend));
                pn[0] = (SvgPanel) { "wall time against the limit", "memory limit (MiB)", "wall time (s)", pn[0].series, 2 };
                pn[1] = (SvgPanel) { "swap traffic against the limit", "memory limit (MiB)", "swapped out (MiB)",
                                     pn[1].series, 2 };
                for (int k = 0; k < 2 && r >= 0; k++)
                        r = runs_series(t, false, k == 1, &pn[k].series[0]) < 0 ||
                                            runs_series(t, true, k == 1, &pn[k].series[1]) < 0
                                    ? -ENOMEM : 0;
        }
        if (r >= 0 && title)
                svg = svg_render(title, pn, 2, ret_width, ret_height);
finish:
        panels_free(pn, 2);
        return svg;
}

char *trial_compare_svg(const TrialRecord *t, size_t n, char *const *command, unsigned *ret_width,
                        unsigned *ret_height) {
        /* the trials of command (NULL: of the latest trial's command), one panel each */
        char *const *want = command;
        for (size_t i = n; !want && i > 0; i--)
                if (t[i - 1].n_runs > 0)
                        want = t[i - 1].command;
        size_t k = 0;
        for (size_t i = 0; want && i < n; i++)
                k += t[i].n_runs > 0 && strv_equal(t[i].command, want);
        SvgPanel *pn = calloc(k ?: 1, sizeof *pn);
        char **titles = calloc(k + 1, sizeof *titles);
        _cleanup_free_ char *cmd = want ? command_line(want) : NULL, *title = NULL;
        char *svg = NULL;
        size_t m = 0;
        int r = pn && titles ? 0 : -ENOMEM;
        for (size_t i = 0; r >= 0 && want && i < n; i++) {
                if (t[i].n_runs == 0 || !strv_equal(t[i].command, want))
                        continue;
                titles[m] = strdup_printf("%s: %s%s%s", t[i].id, strempty(t[i].node.backend),
                                          t[i].node.zram_algorithm ? " " : "", strempty(t[i].node.zram_algorithm));
                r = titles[m] ? two_series(&pn[m], titles[m], "memory limit (MiB)", "wall time (s)") : -ENOMEM;
                m++;
                if (r >= 0)
                        r = runs_series(&t[i], false, false, &pn[m - 1].series[0]) < 0 ||
                                            runs_series(&t[i], true, false, &pn[m - 1].series[1]) < 0
                                    ? -ENOMEM : 0;
        }
        if (r >= 0) {
                title = strdup_printf("nodeswap trial --compare: %s", cmd ?: "no trial recorded");
                svg = title ? svg_render(title, pn, m, ret_width, ret_height) : NULL;
        }
        if (pn)
                panels_free(pn, m);
        free(pn);
        for (size_t i = 0; titles && i < m; i++)
                free(titles[i]);
        free(titles);
        return svg;
}

/* The density records of command (NULL: the latest density record's), one panel each. */
static size_t density_panels_of(const TrialRecord *t, size_t n, char *const **want) {
        for (size_t i = n; !*want && i > 0; i--)
                if (t[i - 1].density)
                        *want = t[i - 1].command;
        size_t k = 0;
        for (size_t i = 0; *want && i < n; i++)
                k += t[i].density && strv_equal(t[i].command, *want);
        return k;
}

char *trial_density_compare_svg(const TrialRecord *t, size_t n, char *const *command, unsigned *ret_width,
                                unsigned *ret_height) {
        char *const *want = command;
        size_t k = density_panels_of(t, n, &want), m = 0;
        SvgPanel *pn = calloc(k ?: 1, sizeof *pn);
        char **titles = calloc(k + 1, sizeof *titles);
        _cleanup_free_ char *cmd = want ? command_line(want) : NULL, *title = NULL;
        char *svg = NULL;
        int r = pn && titles ? 0 : -ENOMEM;
        for (size_t i = 0; r >= 0 && want && i < n; i++) {
                const TrialDensity *d = t[i].density;
                if (!d || !strv_equal(t[i].command, want))
                        continue;
                titles[m] = strdup_printf("%s: %s%s%s, %u / %u replicas", t[i].id, strempty(t[i].node.backend),
                                          t[i].node.zram_algorithm ? " " : "", strempty(t[i].node.zram_algorithm),
                                          d->density_no_swap, d->density_swap);
                r = titles[m] ? two_series(&pn[m], titles[m], "replicas (count)", "settle time (s)") : -ENOMEM;
                m++;
                if (r >= 0)
                        r = density_series(d, false, false, &pn[m - 1].series[0]) < 0 ||
                                            density_series(d, true, false, &pn[m - 1].series[1]) < 0
                                    ? -ENOMEM : 0;
        }
        if (r >= 0) {
                title = strdup_printf("nodeswap trial --compare, density: %s", cmd ?: "no density trial recorded");
                svg = title ? svg_render(title, pn, m, ret_width, ret_height) : NULL;
        }
        if (pn)
                panels_free(pn, m);
        free(pn);
        for (size_t i = 0; titles && i < m; i++)
                free(titles[i]);
        free(titles);
        return svg;
}

