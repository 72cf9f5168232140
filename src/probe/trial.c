/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/trial.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "probe/blockdev.h"
#include "probe/pressure.h"
#include "probe/systemd.h"
#include "probe/zram.h"
#include "shared/path-util.h"
#include "shared/string-table.h"

static const char *const trial_result_table[_TRIAL_RESULT_MAX] = {
        [TRIAL_RESULT_OK] = "ok",
        [TRIAL_RESULT_OOM] = "oom",
        [TRIAL_RESULT_TIMEOUT] = "timeout",
        [TRIAL_RESULT_FAILED] = "failed",
};
DEFINE_STRING_TABLE_LOOKUP(trial_result, TrialResult, trial_result_table);

static const char *const trial_swap_source_table[_TRIAL_SWAP_SOURCE_MAX] = {
        [TRIAL_SWAP_SOURCE_NONE] = "none",
        [TRIAL_SWAP_SOURCE_CGROUP] = "memory.stat",
        [TRIAL_SWAP_SOURCE_VMSTAT] = "vmstat",
};
DEFINE_STRING_TABLE_LOOKUP(trial_swap_source, TrialSwapSource, trial_swap_source_table);

void trial_run_done(TrialRun *r) {
        free(r->disk);
        free(r->log);
        r->disk = r->log = NULL;
}

void trial_node_done(TrialNode *n) {
        for (size_t i = 0; i < n->n_swaps; i++) {
                free(n->swaps[i].path);
                free(n->swaps[i].kind);
                free(n->swaps[i].disk);
        }
        free(n->swaps);
        free(n->backend);
        free(n->zram_algorithm);
        free(n->kernel);
        *n = (TrialNode) {};
}

void trial_record_done(TrialRecord *t) {
        free(t->id);
        strv_free(t->command);
        free(t->cwd);
        free(t->upper_source);
        free(t->search_end);
        trial_node_done(&t->node);
        for (size_t i = 0; i < t->n_refusals; i++)
                free(t->refusals[i].reason);
        free(t->refusals);
        for (size_t i = 0; i < t->n_runs; i++)
                trial_run_done(&t->runs[i]);
        free(t->runs);
        trial_verdict_done(&t->verdict);
        if (t->density) {
                trial_density_done(t->density);
                free(t->density);
        }
        free(t->path);
        *t = (TrialRecord) {};
}

void trial_density_done(TrialDensity *d) {
        for (size_t i = 0; i < d->n_points; i++)
                free(d->points[i].gave_out);
        free(d->points);
        free(d->eviction_source);
        free(d->budget_source);
        free(d->kube_reserved_source);
        free(d->system_reserved_source);
        free(d->max_pods_source);
        *d = (TrialDensity) {};
}

void trial_verdict_done(TrialVerdict *v) {
        free(v->groups);
        *v = (TrialVerdict) {};
}

/* --- The run's cgroup ------------------------------------------------------------------------- */

/* "KEY VALUE" lines (memory.events, cpu.stat; cgroup-v2.rst "Format": flat keyed): the value of
 * key, or TRIAL_MISSING. */
static uint64_t keyed_value(const char *text, const char *key) {
        size_t k = strlen(key);
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                if (strncmp(l, key, k) != 0 || l[k] != ' ')
                        continue;
                char buf[32];
                size_t n = strcspn(l + k + 1, "\n");
                if (n == 0 || n >= sizeof buf)
                        return TRIAL_MISSING;
                memcpy(buf, l + k + 1, n);
                buf[n] = 0;
                uint64_t v;
                return safe_atou64(buf, &v) < 0 ? TRIAL_MISSING : v;
        }
        return TRIAL_MISSING;
}

static uint64_t keyed_file(const char *dir, const char *file, const char *key) {
        _cleanup_free_ char *p = path_join(dir, file), *text = NULL;
        if (!p || read_full_file(p, READ_TEXT_MAX, &text) < 0)
                return TRIAL_MISSING;
        return keyed_value(text, key);
}

static uint64_t u64_file(const char *dir, const char *file) {
        _cleanup_free_ char *p = path_join(dir, file);
        uint64_t v;
        if (!p || read_u64_file(p, &v) < 0)
                return TRIAL_MISSING;
        return v;
}

int trial_cgroup_read(const char *dir, TrialCgroupSample *ret) {
        struct stat st;
        if (stat(dir, &st) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOTDIR;

        TrialCgroupSample s = {
                .memory_peak = u64_file(dir, "memory.peak"),
                .swap_peak = u64_file(dir, "memory.swap.peak"),
                .oom_kill = keyed_file(dir, "memory.events", "oom_kill"),
                .user_usec = keyed_file(dir, "cpu.stat", "user_usec"),
                .system_usec = keyed_file(dir, "cpu.stat", "system_usec"),
                .pswpin = TRIAL_MISSING,
                .pswpout = TRIAL_MISSING,
                .zswpout = TRIAL_MISSING,
                .full_total_usec = TRIAL_MISSING,
        };
        _cleanup_free_ char *stat_path = path_join(dir, "memory.stat"), *psi = path_join(dir, "memory.pressure");
        if (!stat_path || !psi)
                return -ENOMEM;
        SwapTraffic t;
        if (swap_traffic_read(stat_path, &t) >= 0) {
                if (t.has_pswp) {
                        s.pswpin = t.pswpin;
                        s.pswpout = t.pswpout;
                }
                if (t.has_zswp)
                        s.zswpout = t.zswpout;
        }
        Pressure p;
        if (pressure_read(psi, &p) >= 0 && p.present && !p.malformed && p.full.present)
                s.full_total_usec = p.full.total_us;
        *ret = s;
        return 0;
}

int trial_cgroup_footprint(const char *dir, uint64_t *ret_memory, uint64_t *ret_swap) {
        uint64_t m = u64_file(dir, "memory.current");
        if (m == TRIAL_MISSING)
                return -ENOENT;
        *ret_memory = m;
        *ret_swap = u64_file(dir, "memory.swap.current");
        return 0;
}

/* --- The node --------------------------------------------------------------------------------- */

int trial_parse_block_stat(const char *text, uint64_t *ret_read_sectors, uint64_t *ret_written_sectors) {
        uint64_t f[7];
        const char *p = text;
        for (size_t i = 0; i < ELEMENTSOF(f); i++) {
                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                char *end;
                errno = 0;
                unsigned long long v = strtoull(p, &end, 10);
                if (errno || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
                        return -EINVAL;
                f[i] = v;
                p = end;
        }
        /* fields: read I/Os, read merges, read sectors, read ticks, write I/Os, write merges,
         * write sectors, ... */
        *ret_read_sectors = f[2];
        *ret_written_sectors = f[6];
        return 0;
}

int trial_node_read(const char *root, const char *disk, const int *zram_ids, size_t n_zram_ids,
                    TrialNodeSample *ret) {
        TrialNodeSample s = {
                .pswpin = TRIAL_MISSING,
                .pswpout = TRIAL_MISSING,
                .disk_read_sectors = TRIAL_MISSING,
                .disk_written_sectors = TRIAL_MISSING,
                .zram_mem_used = TRIAL_MISSING,
        };
        _cleanup_free_ char *vm = path_join_root(root, "/proc/vmstat");
        if (!vm)
                return -ENOMEM;
        SwapTraffic t;
        if (swap_traffic_read(vm, &t) >= 0 && t.has_pswp) {
                s.pswpin = t.pswpin;
                s.pswpout = t.pswpout;
        }
        if (disk) {
                _cleanup_free_ char *rel = strdup_printf("/sys/block/%s/stat", disk);
                _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL, *text = NULL;
                if (!p)
                        return -ENOMEM;
                uint64_t rd, wr;
                if (read_full_file(p, READ_SMALL_MAX, &text) >= 0 && trial_parse_block_stat(text, &rd, &wr) >= 0) {
                        s.disk_read_sectors = rd;
                        s.disk_written_sectors = wr;
                }
        }
        if (n_zram_ids > 0) {
                uint64_t sum = 0;
                bool all = true;
                for (size_t i = 0; i < n_zram_ids; i++) {
                        ZramMmStat mm;
                        if (zram_read_mm_stat(root, zram_ids[i], &mm) < 0) {
                                all = false;
                                break;
                        }
                        sum += mm.mem_used_total;
                }
                if (all)
                        s.zram_mem_used = sum;
        }
        *ret = s;
        return 0;
}

/* The whole disk holding the block device dev (major:minor), through /sys/dev/block. NULL: none
 * (an anonymous device: tmpfs, overlayfs, btrfs subvolumes). */
static char *disk_of_dev(const char *root, dev_t dev) {
        if (major(dev) == 0)
                return NULL;
        _cleanup_free_ char *rel = strdup_printf("/sys/dev/block/%u:%u", major(dev), minor(dev));
        _cleanup_free_ char *p = rel ? path_join_root(root, rel) : NULL, *target = NULL;
        if (!p || readlink_malloc(p, &target) < 0)
                return NULL;
        const char *name = strrchr(target, '/');
        name = name ? name + 1 : target;
        char *disk = NULL;
        StorageKind kind;
        if (blockdev_storage(root, name, &disk, &kind) < 0)
                return NULL;
        return disk;
}

static char *disk_of_path(const char *root, const char *path, bool device) {
        _cleanup_free_ char *p = path_join_root(root, path);
        struct stat st;
        if (!p || stat(p, &st) < 0)
                return NULL;
        if (device)
                return S_ISBLK(st.st_mode) ? disk_of_dev(root, st.st_rdev) : NULL;
        return disk_of_dev(root, st.st_dev);
}

uint64_t trial_node_stall_full(const char *root) {
        _cleanup_free_ char *p = path_join_root(root, "/proc/pressure/memory");
        Pressure ps;
        if (!p || pressure_read(p, &ps) < 0 || !ps.present || ps.malformed || !ps.full.present)
                return TRIAL_MISSING;
        return ps.full.total_us;
}

int trial_node_describe(const char *root, const HostState *h, TrialNode *ret) {
        TrialNode n = {
                .mem_total = h->mem_total,
                .swap_total = h->swap_total,
                .swap_free = h->swap_free,
                .page_size = h->page_size,
        };
        int r = -ENOMEM;
        bool kinds[_SWAP_KIND_MAX] = {};
        _cleanup_strv_free_ char **parts = NULL;

        n.swaps = calloc(h->n_swaps ?: 1, sizeof *n.swaps);
        if (!n.swaps)
                goto fail;
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *d = &h->swaps[i];
                TrialSwap *s = &n.swaps[n.n_swaps++];
                s->path = strdup(d->path);
                s->kind = strdup(swap_kind_to_string(d->kind));
                s->size = d->size;
                if (!s->path || !s->kind)
                        goto fail;
                kinds[d->kind] = true;
                if (d->kind == SWAP_KIND_ZRAM) {
                        const ZramDevice *z = host_find_zram(h, d->zram_id);
                        if (z && z->algorithm && !n.zram_algorithm && !(n.zram_algorithm = strdup(z->algorithm)))
                                goto fail;
                        if (z && z->wb.backing_dev)
                                s->disk = disk_of_path(root, z->wb.backing_dev, true);
                } else
                        s->disk = disk_of_path(root, d->path, d->kind == SWAP_KIND_PARTITION);
        }
        for (SwapKind k = 0; k < _SWAP_KIND_MAX; k++)
                if (kinds[k] && strv_extend(&parts, swap_kind_to_string(k)) < 0)
                        goto fail;
        n.backend = parts ? strv_join(parts, "+") : strdup("none");
        if (!n.backend)
                goto fail;
        if (h->kernel_release && !(n.kernel = strdup(h->kernel_release)))
                goto fail;
        *ret = n;
        return 0;
fail:
        trial_node_done(&n);
        return r;
}

int trial_disk_for(const char *root, const TrialNode *n, const char *cwd, char **ret_disk) {
        for (size_t i = 0; i < n->n_swaps; i++)
                if (n->swaps[i].disk) {
                        *ret_disk = strdup(n->swaps[i].disk);
                        return *ret_disk ? 0 : -ENOMEM;
                }
        *ret_disk = cwd ? disk_of_path(root, cwd, false) : NULL;
        return 0;
}

/* --- The service ------------------------------------------------------------------------------ */

void trial_unit_state_done(TrialUnitState *s) {
        free(s->active_state);
        free(s->sub_state);
        free(s->result);
        *s = (TrialUnitState) {};
}

#define SERVICE_IFACE "org.freedesktop.systemd1.Service"

int trial_unit_read(sd_bus *b, const char *path, TrialUnitState *ret) {
        _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
        TrialUnitState s = {};
        int r = systemd_bus_ready(b);
        if (r < 0)
                return r;
        if ((r = sym_sd_bus_get_property_string(b, SYSTEMD_DEST, path, SYSTEMD_UNIT_IFACE, "ActiveState", &e,
                                                &s.active_state)) < 0 ||
            (r = sym_sd_bus_get_property_string(b, SYSTEMD_DEST, path, SYSTEMD_UNIT_IFACE, "SubState", &e,
                                                &s.sub_state)) < 0 ||
            (r = sym_sd_bus_get_property_string(b, SYSTEMD_DEST, path, SERVICE_IFACE, "Result", &e, &s.result)) < 0 ||
            (r = sym_sd_bus_get_property_trivial(b, SYSTEMD_DEST, path, SERVICE_IFACE, "ExecMainCode", &e, 'i',
                                                 &s.exec_main_code)) < 0 ||
            (r = sym_sd_bus_get_property_trivial(b, SYSTEMD_DEST, path, SERVICE_IFACE, "ExecMainStatus", &e, 'i',
                                                 &s.exec_main_status)) < 0 ||
            (r = sym_sd_bus_get_property_trivial(b, SYSTEMD_DEST, path, SERVICE_IFACE,
                                                 "ExecMainStartTimestampMonotonic", &e, 't', &s.start_usec)) < 0 ||
            (r = sym_sd_bus_get_property_trivial(b, SYSTEMD_DEST, path, SERVICE_IFACE,
                                                 "ExecMainExitTimestampMonotonic", &e, 't', &s.exit_usec)) < 0) {
                trial_unit_state_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}

bool trial_unit_ended(const TrialUnitState *s) {
        return streq_ptr(s->active_state, "inactive") || streq_ptr(s->active_state, "failed") ||
               (streq_ptr(s->active_state, "active") && streq_ptr(s->sub_state, "exited"));
}

/* --- The command ------------------------------------------------------------------------------ */

static int executable_at(const char *p) {
        struct stat st;
        if (stat(p, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EACCES;
        if (access(p, X_OK) < 0)
                return -errno;
        return 0;
}

int trial_find_executable(const char *name, const char *path_env, const char *cwd, char **ret) {
        if (!name || !*name)
                return -EINVAL;
        if (strchr(name, '/')) {
                _cleanup_free_ char *p = name[0] == '/' ? strdup(name) : path_join(cwd ?: "/", name);
                if (!p)
                        return -ENOMEM;
                int r = executable_at(p);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(p);
                return 0;
        }
        _cleanup_free_ char *dirs = strdup(path_env && *path_env ? path_env
                                                                : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        if (!dirs)
                return -ENOMEM;
        int last = -ENOENT;
        for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
                if (d[0] != '/')        /* a relative $PATH entry would depend on the unit's directory */
                        continue;
                _cleanup_free_ char *p = path_join(d, name);
                if (!p)
                        return -ENOMEM;
                int r = executable_at(p);
                if (r == 0) {
                        *ret = TAKE_PTR(p);
                        return 0;
                }
                if (r == -EACCES)
                        last = r;
        }
        return last;
}

/* --- Records ---------------------------------------------------------------------------------- */

static void json_putp(json_object **o) {
        json_object_put(*o);
}

static json_object *member(json_object *o, const char *key) {
        json_object *v = NULL;
        return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* A number or null: TRIAL_MISSING for null or absent. */
static uint64_t get_u64(json_object *o, const char *key) {
        json_object *v = member(o, key);
        if (!v || json_object_get_type(v) == json_type_null)
                return TRIAL_MISSING;
        if (json_object_get_type(v) == json_type_double) {
                double d = json_object_get_double(v);
                return d < 0 ? TRIAL_MISSING : (uint64_t) d;
        }
        int64_t i = json_object_get_int64(v);
        return i < 0 ? TRIAL_MISSING : (uint64_t) i;
}

/* seconds (a double) to µs */
static uint64_t get_usec(json_object *o, const char *key) {
        json_object *v = member(o, key);
        if (!v || json_object_get_type(v) == json_type_null)
                return TRIAL_MISSING;
        double d = json_object_get_double(v);
        return d < 0 ? TRIAL_MISSING : (uint64_t) (d * 1e6 + 0.5);
}

static int get_str(json_object *o, const char *key, char **ret) {
        json_object *v = member(o, key);
        if (!v || json_object_get_type(v) != json_type_string) {
                *ret = NULL;
                return 0;
        }
        *ret = strdup(json_object_get_string(v));
        return *ret ? 0 : -ENOMEM;
}

static int parse_run(json_object *o, TrialRun *r, char **ret_reason) {
        json_object *res = member(o, "result");
        if (!res || json_object_get_type(res) != json_type_string ||
            trial_result_from_string(json_object_get_string(res), &r->result) < 0) {
                *ret_reason = strdup("a run without a valid \"result\"");
                return -EINVAL;
        }
        r->index = (unsigned) get_u64(o, "index");
        r->limit = get_u64(o, "limit_bytes");
        r->swap = json_object_get_boolean(member(o, "swap"));
        r->swap_max = get_u64(o, "swap_max_bytes");
        uint64_t es = get_u64(o, "exit_status");
        r->exit_status = es == TRIAL_MISSING ? -1 : (int) es;
        r->oom_kills = get_u64(o, "oom_kills");
        r->oom_at_usec = get_usec(o, "oom_at_s");
        r->wall_usec = get_usec(o, "wall_s");
        r->cpu_user_usec = get_usec(o, "cpu_user_s");
        r->cpu_system_usec = get_usec(o, "cpu_system_s");
        r->memory_peak = get_u64(o, "memory_peak_bytes");
        r->swap_peak = get_u64(o, "swap_peak_bytes");
        r->swapped_out = get_u64(o, "swapped_out_bytes");
        r->swapped_in = get_u64(o, "swapped_in_bytes");
        json_object *src = member(o, "swap_counters");
        if (!src || json_object_get_type(src) != json_type_string ||
            trial_swap_source_from_string(json_object_get_string(src), &r->swap_source) < 0)
                r->swap_source = TRIAL_SWAP_SOURCE_NONE;
        r->disk_written = get_u64(o, "disk_written_bytes");
        r->disk_read = get_u64(o, "disk_read_bytes");
        r->zram_ram = get_u64(o, "zram_ram_bytes");
        r->zram_ram_peak = get_u64(o, "zram_ram_peak_bytes");
        r->stall_full_usec = get_u64(o, "stall_full_us");
        if (get_str(o, "disk", &r->disk) < 0 || get_str(o, "log", &r->log) < 0)
                return -ENOMEM;
        return 0;
}

static unsigned get_count(json_object *o, const char *key) {
        uint64_t v = get_u64(o, key);
        return v == TRIAL_MISSING || v > UINT_MAX ? 0 : (unsigned) v;
}

static double get_double(json_object *o, const char *key) {
        json_object *v = member(o, key);
        return v && json_object_get_type(v) != json_type_null ? json_object_get_double(v) : NAN;
}

static int parse_density_point(json_object *o, TrialDensityPoint *p) {
        *p = (TrialDensityPoint) {
                .replicas = get_count(o, "replicas"),
                .swap = json_object_get_boolean(member(o, "swap")),
                .repeat = get_count(o, "repeat"),
                .oom = get_count(o, "oom_killed"),
                .failed = get_count(o, "failed"),
                .unsettled = get_count(o, "unsettled"),
                .settle_max_usec = get_usec(o, "settle_max_s"),
                .settle_mean_usec = get_usec(o, "settle_mean_s"),
                .hold_usec = get_usec(o, "hold_s"),
                .stall_full_usec = get_usec(o, "node_stall_full_s"),
                .budget_stall_full_usec = get_usec(o, "budget_stall_full_s"),
                .replicas_stall_full_usec = get_usec(o, "replicas_stall_full_s"),
                .memory = get_u64(o, "memory_bytes"),
                .swapped = get_u64(o, "swap_bytes"),
                .swapped_out = get_u64(o, "swapped_out_bytes"),
                .swapped_in = get_u64(o, "swapped_in_bytes"),
                .disk_written = get_u64(o, "disk_written_bytes"),
                .zram_ram_peak = get_u64(o, "zram_ram_peak_bytes"),
                .wall_usec = get_usec(o, "wall_s"),
        };
        if (p->hold_usec == TRIAL_MISSING)     /* null: no hold */
                p->hold_usec = 0;
        return get_str(o, "result", &p->gave_out);
}

/* The record's "scheduler" object into d. */
static int parse_density_scheduler(json_object *s, TrialDensity *d) {
        uint64_t rq = get_u64(s, "request_for_density_swap_bytes");
        d->kube_reserved = get_u64(s, "kube_reserved_bytes");
        d->system_reserved = get_u64(s, "system_reserved_bytes");
        d->eviction_hard = get_u64(s, "eviction_hard_bytes");
        d->max_pods = get_count(s, "max_pods");
        d->by_max_pods = json_object_get_boolean(member(s, "admitted_by_max_pods"));
        d->allocatable = get_u64(s, "allocatable_bytes");
        d->requests_on_node = get_u64(s, "requests_on_node_bytes");
        d->pods_on_node = get_count(s, "pods_on_node");
        d->requests_unknown = get_count(s, "requests_unknown");
        d->admitted = get_count(s, "admitted");
        d->request_for_swap = rq == TRIAL_MISSING ? 0 : rq;
        if (get_str(s, "kube_reserved_source", &d->kube_reserved_source) < 0 ||
            get_str(s, "system_reserved_source", &d->system_reserved_source) < 0 ||
            get_str(s, "eviction_source", &d->eviction_source) < 0 ||
            get_str(s, "max_pods_source", &d->max_pods_source) < 0)
                return -ENOMEM;
        return 0;
}

/* A density record's "density" object (nodeswap(8) TRIAL, The density trial) into *ret. A figure
 * that is absent or null is TRIAL_MISSING (a count 0, a ratio NAN). -ENOMEM. */
static int parse_density(json_object *o, TrialDensity **ret) {
        _cleanup_free_ TrialDensity *d = calloc(1, sizeof *d);
        json_object *pts = member(o, "points");
        size_t n = pts && json_object_get_type(pts) == json_type_array ? json_object_array_length(pts) : 0;
        if (!d)
                return -ENOMEM;
        uint64_t lone = get_usec(o, "lone_settle_s");
        *d = (TrialDensity) {
                .request = get_u64(o, "request_bytes"), .limit = get_u64(o, "limit_bytes"),
                .swap_max = get_u64(o, "swap_max_bytes"),
                .kubelet_mem_total = get_u64(o, "kubelet_mem_total_bytes"),
                .kubelet_swap_total = get_u64(o, "kubelet_swap_total_bytes"),
                .replicas_max = get_count(o, "replicas_max"), .around = get_count(o, "around"),
                .hold_usec = get_usec(o, "hold_s"), .settle_timeout_usec = get_usec(o, "settle_timeout_s"),
                .mem_available = get_u64(o, "mem_available_bytes"), .budget = get_u64(o, "budget_bytes"),
                .lone_settle_usec = lone == TRIAL_MISSING ? 0 : lone,
                .lone_footprint = get_u64(o, "lone_footprint_bytes"),
                .predicted_no_swap = get_count(o, "predicted_no_swap"), .predicted_swap = get_count(o, "predicted_swap"),
                .density_no_swap = get_count(o, "density_no_swap"), .density_swap = get_count(o, "density_swap"),
                .at_least_no_swap = json_object_get_boolean(member(o, "at_least_no_swap")),
                .at_least_swap = json_object_get_boolean(member(o, "at_least_swap")),
                .ceiling = get_double(o, "ceiling"), .ceiling_zram = get_double(o, "ceiling_zram"),
                .points = calloc(n ?: 1, sizeof(TrialDensityPoint)),
        };
        if (!d->points || get_str(o, "budget_source", &d->budget_source) < 0 ||
            parse_density_scheduler(member(o, "scheduler"), d) < 0)
                goto fail;
        for (; d->n_points < n; d->n_points++)
                if (parse_density_point(json_object_array_get_idx(pts, d->n_points), &d->points[d->n_points]) < 0) {
                        d->n_points++;
                        goto fail;
                }
        *ret = TAKE_PTR(d);
        return 0;
fail:
        trial_density_done(d);
        return -ENOMEM;
}

int trial_record_parse(const char *text, TrialRecord *ret, char **ret_reason) {
        _cleanup_(json_putp) json_object *d = NULL;
        TrialRecord t = {};
        int r = -ENOMEM;
        *ret_reason = NULL;

        d = json_tokener_parse(text);
        if (!d || json_object_get_type(d) != json_type_object) {
                *ret_reason = strdup("not a JSON object");
                return -EINVAL;
        }
        if (get_u64(d, "version") != TRIAL_RECORD_VERSION) {
                *ret_reason = strdup("not a version 1 trial record");
                return -EINVAL;
        }
        json_object *cmd = member(d, "command"), *runs = member(d, "runs"), *node = member(d, "node");
        if (!cmd || json_object_get_type(cmd) != json_type_array || json_object_array_length(cmd) == 0 ||
            !runs || json_object_get_type(runs) != json_type_array) {
                *ret_reason = strdup("no \"command\" or \"runs\" list");
                return -EINVAL;
        }
        if (get_str(d, "id", &t.id) < 0 || get_str(d, "cwd", &t.cwd) < 0 ||
            get_str(d, "upper_source", &t.upper_source) < 0)
                goto fail;
        if (!t.id) {
                *ret_reason = strdup("no \"id\"");
                r = -EINVAL;
                goto fail;
        }
        for (size_t i = 0; i < json_object_array_length(cmd); i++) {
                json_object *a = json_object_array_get_idx(cmd, i);
                if (json_object_get_type(a) != json_type_string) {
                        *ret_reason = strdup("a \"command\" element that is not a string");
                        r = -EINVAL;
                        goto fail;
                }
                if (strv_extend(&t.command, json_object_get_string(a)) < 0)
                        goto fail;
        }
        t.started_usec = get_u64(d, "started_usec");
        json_object *mode = member(d, "mode");
        t.find_floor = mode && streq(json_object_get_string(mode), "find-floor");
        t.density_mode = mode && streq(json_object_get_string(mode), "density");
        json_object *dens = member(d, "density");
        if (t.density_mode && dens && json_object_get_type(dens) == json_type_object && parse_density(dens, &t.density) < 0)
                goto fail;
        t.seed = get_u64(d, "seed");
        t.runs_per_point = (unsigned) get_u64(d, "runs_per_point");
        uint64_t cpus = get_u64(d, "cpus"), timeout = get_usec(d, "timeout_s");
        t.cpus = cpus == TRIAL_MISSING ? 0 : (unsigned) cpus;
        t.timeout_usec = timeout == TRIAL_MISSING ? 0 : timeout;
        json_object *tbw = member(d, "drive_tbw_tb");
        t.drive_tbw = tbw && json_object_get_type(tbw) != json_type_null ? json_object_get_double(tbw) : 0;
        t.search_floor_no_swap = TRIAL_MISSING;
        t.search_floor_swap = TRIAL_MISSING;

        if (node) {
                t.node.mem_total = get_u64(node, "mem_total_bytes");
                t.node.swap_total = get_u64(node, "swap_total_bytes");
                t.node.swap_free = get_u64(node, "swap_free_bytes");
                t.node.page_size = get_u64(node, "page_size");
                if (get_str(node, "backend", &t.node.backend) < 0 ||
                    get_str(node, "zram_algorithm", &t.node.zram_algorithm) < 0 ||
                    get_str(node, "kernel", &t.node.kernel) < 0)
                        goto fail;
        }
        if (!t.node.backend && !(t.node.backend = strdup("none")))
                goto fail;

        size_t n = json_object_array_length(runs);
        t.runs = calloc(n ?: 1, sizeof *t.runs);
        if (!t.runs)
                goto fail;
        for (size_t i = 0; i < n; i++) {
                r = parse_run(json_object_array_get_idx(runs, i), &t.runs[t.n_runs++], ret_reason);
                if (r < 0)
                        goto fail;
        }
        t.search_lower = get_u64(d, "search_lower_bytes");
        t.search_upper = get_u64(d, "search_upper_bytes");
        if (get_str(d, "search_end", &t.search_end) < 0)
                goto fail;
        json_object *v = member(d, "verdict");
        if (v) {
                t.search_floor_no_swap = get_u64(v, "floor_no_swap_bytes");
                t.search_floor_swap = get_u64(v, "floor_swap_bytes");
        }
        *ret = t;
        return 0;
fail:
        if (r == -ENOMEM && !*ret_reason)
                *ret_reason = NULL;
        trial_record_done(&t);
        return r;
}

void trial_records_free(TrialRecord *t, size_t n) {
        for (size_t i = 0; i < n; i++)
                trial_record_done(&t[i]);
        free(t);
}

static int record_cmp(const void *a, const void *b) {
        const TrialRecord *x = a, *y = b;
        return strcmp(x->id, y->id);
}

int trial_records_read(const char *root, TrialRecord **ret, size_t *ret_n, char ***ret_skipped) {
        _cleanup_free_ char *dir = path_join_root(root, TRIAL_DIR);
        if (!dir)
                return -ENOMEM;
        *ret = NULL;
        *ret_n = 0;
        *ret_skipped = NULL;
        DIR *d = opendir(dir);
        if (!d)
                return errno == ENOENT ? 0 : -errno;
        TrialRecord *t = NULL;
        size_t n = 0;
        char **skipped = NULL;
        int r = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.' || !endswith(de->d_name, ".json"))
                        continue;
                _cleanup_free_ char *p = path_join(dir, de->d_name), *text = NULL, *why = NULL;
                if (!p) {
                        r = -ENOMEM;
                        break;
                }
                /* never follow a symlink planted in the directory */
                _cleanup_close_ int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
                int q = fd < 0 ? -errno : read_fd_full(fd, TRIAL_RECORD_MAX, false, &text, NULL);
                TrialRecord rec = {};
                if (q >= 0)
                        q = trial_record_parse(text, &rec, &why);
                if (q == -ENOMEM) {
                        r = q;
                        break;
                }
                if (q < 0) {
                        char *s = strdup_printf("%s: %s", p, why ?: strerror(-q));
                        if (!s || strv_push(&skipped, s) < 0) {
                                r = -ENOMEM;
                                break;
                        }
                        continue;
                }
                rec.path = TAKE_PTR(p);
                TrialRecord *nt = realloc(t, (n + 1) * sizeof *t);
                if (!nt) {
                        trial_record_done(&rec);
                        r = -ENOMEM;
                        break;
                }
                t = nt;
                t[n++] = rec;
        }
        closedir(d);
        if (r < 0) {
                trial_records_free(t, n);
                strv_free(skipped);
                return r;
        }
        if (n > 1)
                qsort(t, n, sizeof *t, record_cmp);
        *ret = t;
        *ret_n = n;
        *ret_skipped = skipped;
        return 0;
}
