/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report/metrics.h"
#include "plan/allowance.h"

#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <sys/stat.h>

#include "plan/kubelet.h"
#include "probe/kubelet-config.h"

char *metrics_escape_label(const char *s) {
        size_t n = 0;
        for (const char *p = s; *p; p++)
                n += (*p == '\\' || *p == '"' || *p == '\n') ? 2 : 1;
        char *r = malloc(n + 1), *q = r;
        if (!r)
                return NULL;
        for (const char *p = s; *p; p++) {
                if (*p == '\\' || *p == '"') {
                        *q++ = '\\';
                        *q++ = *p;
                } else if (*p == '\n') {
                        *q++ = '\\';
                        *q++ = 'n';
                } else
                        *q++ = *p;
        }
        *q = 0;
        return r;
}

/* The last path component of s that starts with a pod cgroup's name. */
static const char *last_component(const char *s, size_t *ret_len, const char **ret_rest) {
        const char *slash = strchr(s, '/');
        *ret_len = slash ? (size_t) (slash - s) : strlen(s);
        *ret_rest = slash ? slash + 1 : NULL;
        return s;
}

int metrics_container_labels(const char *cgroup, char **ret_pod_uid, char **ret_container_id) {
        _cleanup_free_ char *pod = NULL, *container = NULL;
        const char *p = cgroup, *rest;
        size_t len;

        /* Walk the components: the pod's is the one naming "pod", the container's the one after. */
        while (p) {
                const char *c = last_component(p, &len, &rest);
                _cleanup_free_ char *name = strndup(c, len);
                if (!name)
                        return -ENOMEM;
                if (!pod) {
                        const char *u = NULL;
                        char *dash;
                        if (startswith(name, "kubepods") && (dash = strstr(name, "-pod")) && endswith(name, ".slice")) {
                                u = dash + 4;
                                name[strlen(name) - strlen(".slice")] = 0;
                        } else if (startswith(name, "pod"))
                                u = name + 3;
                        if (u) {
                                pod = strdup(u);
                                if (!pod)
                                        return -ENOMEM;
                                /* systemd escapes the UID's '-' as '_' in slice names. */
                                for (char *x = pod; *x; x++)
                                        if (*x == '_')
                                                *x = '-';
                        }
                } else if (!container) {
                        static const struct {
                                const char *prefix, *scheme;
                        } runtimes[] = {
                                { "cri-containerd-", "containerd://" },
                                { "crio-", "cri-o://" },
                                { "docker-", "docker://" },
                        };
                        for (size_t i = 0; i < ELEMENTSOF(runtimes) && !container; i++)
                                if (startswith(name, runtimes[i].prefix) && endswith(name, ".scope")) {
                                        const char *id = name + strlen(runtimes[i].prefix);
                                        container = strdup_printf("%s%.*s", runtimes[i].scheme,
                                                                  (int) (strlen(id) - strlen(".scope")), id);
                                        if (!container)
                                                return -ENOMEM;
                                }
                        if (!container && !(container = strdup(name)))
                                return -ENOMEM;
                }
                p = rest;
        }
        *ret_pod_uid = pod ? TAKE_PTR(pod) : strdup("");
        *ret_container_id = container ? TAKE_PTR(container) : strdup("");
        if (!*ret_pod_uid || !*ret_container_id) {
                free(*ret_pod_uid);
                free(*ret_container_id);
                return -ENOMEM;
        }
        return 0;
}

/* --- the writer ------------------------------------------------------------------------------ */

typedef struct Out {
        FILE *f;
        bool oom;
} Out;

static void family(Out *o, const char *name, const char *type, const char *help) {
        /* HELP text escapes backslash and newline; ours has neither but the error text may. */
        fprintf(o->f, "# HELP %s ", name);
        for (const char *p = help; *p; p++) {
                if (*p == '\\')
                        fputs("\\\\", o->f);
                else if (*p == '\n')
                        fputs("\\n", o->f);
                else
                        fputc(*p, o->f);
        }
        fprintf(o->f, "\n# TYPE %s %s\n", name, type);
}

/* One sample. labels: NULL-terminated name, value pairs (values escaped here). */
static void sample_labels(Out *o, const char *name, char *const *labels) {
        fputs(name, o->f);
        if (labels && labels[0]) {
                fputc('{', o->f);
                for (size_t i = 0; labels[i]; i += 2) {
                        _cleanup_free_ char *v = metrics_escape_label(strempty(labels[i + 1]));
                        if (!v) {
                                o->oom = true;
                                return;
                        }
                        fprintf(o->f, "%s%s=\"%s\"", i > 0 ? "," : "", labels[i], v);
                }
                fputc('}', o->f);
        }
        fputc(' ', o->f);
}

#define LABELS(...) ((char *const[]) { __VA_ARGS__, NULL })

static void sample_u64(Out *o, const char *name, char *const *labels, uint64_t v) {
        sample_labels(o, name, labels);
        fprintf(o->f, "%" PRIu64 "\n", v);
}

static void sample_i64(Out *o, const char *name, char *const *labels, int64_t v) {
        sample_labels(o, name, labels);
        fprintf(o->f, "%" PRId64 "\n", v);
}

static void sample_double(Out *o, const char *name, char *const *labels, double v) {
        sample_labels(o, name, labels);
        fprintf(o->f, "%.6g\n", v);
}

/* Seconds from µs, exactly (no rounding through a double). */
static void sample_usec(Out *o, const char *name, char *const *labels, uint64_t usec) {
        sample_labels(o, name, labels);
        fprintf(o->f, "%" PRIu64 ".%06" PRIu64 "\n", usec / USEC_PER_SEC, usec % USEC_PER_SEC);
}

/* --- the families ---------------------------------------------------------------------------- */

static void render_swaps(Out *o, const HostState *h) {
        family(o, "nodeswap_page_size_bytes", "gauge",
               "The kernel's page size: the unit of node_vmstat_pswpin and node_vmstat_pswpout.");
        sample_u64(o, "nodeswap_page_size_bytes", NULL, h->page_size);
        family(o, "nodeswap_swap_info", "gauge",
               "Every swap area in /proc/swaps: its kind (zram, file, partition), whose it is (nodeswap, "
               "conflict: a distribution unit nodeswap replaces, other) and its .swap unit; always 1.");
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                sample_u64(o, "nodeswap_swap_info",
                           LABELS("path", s->path, "kind", (char *) strempty(swap_kind_to_string(s->kind)),
                                  "owner", (char *) strempty(swap_owner_to_string(s->owner)), "unit", s->unit),
                           1);
        }
        family(o, "nodeswap_swap_owned", "gauge", "1 when nodeswap created the swap area, else 0.");
        for (size_t i = 0; i < h->n_swaps; i++)
                sample_u64(o, "nodeswap_swap_owned", LABELS("path", h->swaps[i].path),
                           h->swaps[i].owner == SWAP_OWNER_NODESWAP);
        family(o, "nodeswap_swap_size_bytes", "gauge", "The size of the swap area (/proc/swaps).");
        for (size_t i = 0; i < h->n_swaps; i++)
                sample_u64(o, "nodeswap_swap_size_bytes", LABELS("path", h->swaps[i].path), h->swaps[i].size);
        family(o, "nodeswap_swap_used_bytes", "gauge", "The swap area's space in use (/proc/swaps).");
        for (size_t i = 0; i < h->n_swaps; i++)
                sample_u64(o, "nodeswap_swap_used_bytes", LABELS("path", h->swaps[i].path), h->swaps[i].used);
        family(o, "nodeswap_swap_priority", "gauge",
               "The swap area's priority; higher is used first (negative: none was given).");
        for (size_t i = 0; i < h->n_swaps; i++)
                sample_i64(o, "nodeswap_swap_priority", LABELS("path", h->swaps[i].path), h->swaps[i].priority);
        family(o, "nodeswap_swap_encrypted", "gauge",
               "1 when the swap area on a disk is encrypted (nodeswap's dm-crypt mapping with an ephemeral key, "
               "shown by its file's path), 0 when its pages reach the disk in clear; for zram, present only when "
               "it writes pages back to a disk: 1 through nodeswap's mapping of its writeback file.");
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                const ZramDevice *z = s->kind == SWAP_KIND_ZRAM ? host_find_zram(h, s->zram_id) : NULL;
                if (s->kind != SWAP_KIND_ZRAM)
                        sample_u64(o, "nodeswap_swap_encrypted", LABELS("path", s->path), s->encrypted);
                else if (z && z->wb.backing_dev)
                        sample_u64(o, "nodeswap_swap_encrypted", LABELS("path", s->path), z->wb.backing_encrypted);
        }
}

static void render_zram(Out *o, const HostState *h) {
        /* Initialised devices only: a device with disksize 0 holds nothing. */
        char ids[h->n_zrams ? h->n_zrams : 1][16];
        for (size_t i = 0; i < h->n_zrams; i++)
                snprintf(ids[i], sizeof ids[i], "zram%d", h->zrams[i].id);
#define FOREACH_ZRAM(z, i) \
        for (size_t i = 0; i < h->n_zrams; i++) \
                for (const ZramDevice *z = &h->zrams[i]; z && z->disksize > 0; z = NULL)

        family(o, "nodeswap_zram_info", "gauge",
               "Every initialised zram device: its compression algorithm, whether it is swap and whether "
               "nodeswap created it; always 1.");
        FOREACH_ZRAM(z, i)
                sample_u64(o, "nodeswap_zram_info",
                           LABELS("device", ids[i], "algorithm", z->algorithm, "swap", z->swap_on ? "1" : "0",
                                  "owned", z->ours ? "1" : "0"),
                           1);
        static const struct {
                const char *name, *help;
                size_t offset;
        } fams[] = {
                { "nodeswap_zram_disksize_bytes", "The zram device's uncompressed size (disksize).",
                  offsetof(ZramDevice, disksize) },
                { "nodeswap_zram_original_bytes",
                  "The data stored in the zram device, uncompressed (mm_stat orig_data_size).",
                  offsetof(ZramDevice, orig_data_size) },
                { "nodeswap_zram_compressed_bytes",
                  "The data stored in the zram device, compressed (mm_stat compr_data_size).",
                  offsetof(ZramDevice, compr_data_size) },
                { "nodeswap_zram_memory_used_bytes",
                  "The RAM the zram device uses, allocator overhead included (mm_stat mem_used_total); "
                  "charged to no cgroup, so outside every pod's memory limit.",
                  offsetof(ZramDevice, mem_used_total) },
                { "nodeswap_zram_memory_limit_bytes", "The zram device's mem_limit; 0: none.",
                  offsetof(ZramDevice, mem_limit) },
        };
        for (size_t f = 0; f < ELEMENTSOF(fams); f++) {
                family(o, fams[f].name, "gauge", fams[f].help);
                FOREACH_ZRAM(z, i)
                        sample_u64(o, fams[f].name, LABELS("device", ids[i]),
                                   *(const uint64_t *) ((const char *) z + fams[f].offset));
        }
        family(o, "nodeswap_zram_written_bytes_total", "counter",
               "Data written to the zram device since it was set up: the pages swapped out to it "
               "(/sys/block/zramN/stat sectors written).");
        FOREACH_ZRAM(z, i)
                if (z->has_stat)
                        sample_u64(o, "nodeswap_zram_written_bytes_total", LABELS("device", ids[i]), z->written_bytes);
        family(o, "nodeswap_zram_compression_ratio", "gauge",
               "Original over compressed size; absent while the device is empty.");
        FOREACH_ZRAM(z, i)
                if (z->compr_data_size > 0)
                        sample_double(o, "nodeswap_zram_compression_ratio", LABELS("device", ids[i]),
                                      (double) z->orig_data_size / (double) z->compr_data_size);
        family(o, "nodeswap_zram_backing_stored_bytes", "gauge",
               "Data the zram device has written back to its backing device and still keeps there (bd_stat "
               "bd_count); only for devices with a backing device.");
        FOREACH_ZRAM(z, i)
                if (z->has_bd_stat)
                        sample_u64(o, "nodeswap_zram_backing_stored_bytes", LABELS("device", ids[i]), z->bd_count);
        family(o, "nodeswap_zram_backing_written_bytes_total", "counter",
               "Data written back to the zram device's backing device since it was set up (bd_stat bd_writes).");
        FOREACH_ZRAM(z, i)
                if (z->has_bd_stat)
                        sample_u64(o, "nodeswap_zram_backing_written_bytes_total", LABELS("device", ids[i]), z->bd_writes);
        family(o, "nodeswap_zram_backing_read_bytes_total", "counter",
               "Data read back from the zram device's backing device since it was set up (bd_stat bd_reads).");
        FOREACH_ZRAM(z, i)
                if (z->has_bd_stat)
                        sample_u64(o, "nodeswap_zram_backing_read_bytes_total", LABELS("device", ids[i]), z->bd_reads);
#undef FOREACH_ZRAM
}

static void render_zswap(Out *o, const HostState *h) {
        const ZswapState *z = &h->zswap;
        family(o, "nodeswap_zswap_enabled", "gauge",
               "1 when zswap is enabled (/sys/module/zswap/parameters/enabled), 0 when not; absent when the "
               "kernel has no zswap.");
        if (z->enabled >= 0)
                sample_u64(o, "nodeswap_zswap_enabled", NULL, z->enabled);
        family(o, "nodeswap_zswap_info", "gauge", "zswap's compressor and zpool (empty: not readable); always 1.");
        if (z->enabled >= 0)
                sample_u64(o, "nodeswap_zswap_info", LABELS("compressor", z->compressor, "zpool", z->zpool), 1);
        family(o, "nodeswap_zswap_max_pool_ratio", "gauge", "zswap's max_pool_percent as a ratio of RAM.");
        if (z->max_pool_percent >= 0)
                sample_double(o, "nodeswap_zswap_max_pool_ratio", NULL, z->max_pool_percent / 100.0);
        family(o, "nodeswap_zswap_pool_bytes", "gauge", "The RAM zswap's pool uses (/proc/meminfo Zswap).");
        if (z->meminfo)
                sample_u64(o, "nodeswap_zswap_pool_bytes", NULL, z->pool_bytes);
        family(o, "nodeswap_zswap_stored_bytes", "gauge",
               "The pages zswap holds, uncompressed (/proc/meminfo Zswapped).");
        if (z->meminfo)
                sample_u64(o, "nodeswap_zswap_stored_bytes", NULL, z->stored_bytes);
        family(o, "nodeswap_zswap_debugfs_readable", "gauge",
               "1 when /sys/kernel/debug/zswap could be read (root, debugfs mounted); the page counters "
               "below need it.");
        sample_u64(o, "nodeswap_zswap_debugfs_readable", NULL, z->debugfs);
        family(o, "nodeswap_zswap_stored_pages", "gauge", "Pages zswap holds (debugfs stored_pages).");
        if (z->debugfs)
                sample_u64(o, "nodeswap_zswap_stored_pages", NULL, z->stored_pages);
        family(o, "nodeswap_zswap_written_back_pages_total", "counter",
               "Pages zswap has moved on to the swap device since boot (debugfs written_back_pages).");
        if (z->debugfs)
                sample_u64(o, "nodeswap_zswap_written_back_pages_total", NULL, z->written_back_pages);
}

static void render_sysctls(Out *o, const HostState *h) {
        family(o, "nodeswap_vm_swappiness", "gauge", "vm.swappiness; absent when unreadable.");
        if (h->swappiness >= 0)
                sample_i64(o, "nodeswap_vm_swappiness", NULL, h->swappiness);
        family(o, "nodeswap_vm_page_cluster", "gauge",
               "vm.page-cluster: swap readahead of 2^N pages; absent when unreadable.");
        if (h->page_cluster >= 0)
                sample_i64(o, "nodeswap_vm_page_cluster", NULL, h->page_cluster);
}

static void render_kubelet(Out *o, const HostState *h) {
        KubeletEffective e;
        kubelet_config_effective(&h->kubelet, NULL, NULL, &e);
        const char *behavior = e.swap_behavior_unknown ? "invalid" :
                               e.swap_behavior == SWAP_BEHAVIOR_UNSET ? "NoSwap" :
                               swap_behavior_to_string(e.swap_behavior);
        _cleanup_free_ char *source = kubelet_source(e.swap_behavior_from, e.swap_behavior_from ?
                                                     e.swap_behavior_from->swap_behavior_line : 0);
        if (!source)
                o->oom = true;

        family(o, "nodeswap_kubelet_info", "gauge",
               "The kubelet unit and its effective swapBehavior, every file it reads merged in its order "
               "(NoSwap, LimitedSwap, invalid: a value the kubelet refuses), and the FILE:LINE that decides "
               "it; always 1.");
        sample_u64(o, "nodeswap_kubelet_info",
                   LABELS("unit", h->kubelet_unit, "swap_behavior", (char *) behavior, "source", source), 1);
        family(o, "nodeswap_kubelet_limited_swap", "gauge",
               "1 when the kubelet's effective swapBehavior is LimitedSwap, else 0.");
        sample_u64(o, "nodeswap_kubelet_limited_swap", NULL,
                   !e.swap_behavior_unknown && e.swap_behavior == SWAP_BEHAVIOR_LIMITED_SWAP);
        family(o, "nodeswap_kubelet_active", "gauge", "1 when the kubelet unit is active; absent when unknown.");
        if (h->kubelet_active >= 0)
                sample_u64(o, "nodeswap_kubelet_active", NULL, h->kubelet_active);
        int stale = kubelet_capacity_stale(h);
        family(o, "nodeswap_kubelet_swap_stale", "gauge",
               "1 when the kubelet started before nodeswap's last swap change, so it still works with the "
               "old swap capacity (restart it); absent when its start time is unknown.");
        if (stale >= 0)
                sample_u64(o, "nodeswap_kubelet_swap_stale", NULL, stale);
        family(o, "nodeswap_kubelet_start_timestamp_seconds", "gauge",
               "When the kubelet unit last became active; absent when unknown.");
        if (h->kubelet_started_usec > 0)
                sample_usec(o, "nodeswap_kubelet_start_timestamp_seconds", NULL, h->kubelet_started_usec);
}

static void render_nodeswap(Out *o, const MetricsInput *in) {
        const HostState *h = in->host;
        const NodeswapState *s = &h->state;

        family(o, "nodeswap_policy_present", "gauge",
               "1 when a policy file was found; without one nodeswap leaves the node alone.");
        sample_u64(o, "nodeswap_policy_present", NULL, in->policy->found);
        family(o, "nodeswap_policy_match", "gauge",
               "1 when the node matches the policy: apply would change nothing and nothing stops it "
               "(nodeswap plan is empty); absent without a policy.");
        /* The errors of the whole verdict (the policy's too), else the plan's. */
        size_t errors = in->findings ? findings_count(in->findings, SEVERITY_ERROR) : in->plan ? plan_errors(in->plan) : 0;
        if (in->plan)
                sample_u64(o, "nodeswap_policy_match", NULL, in->plan->n_actions == 0 && errors == 0);
        family(o, "nodeswap_plan_actions", "gauge", "The changes nodeswap apply would make now; absent without a policy.");
        if (in->plan)
                sample_u64(o, "nodeswap_plan_actions", NULL, in->plan->n_actions);
        family(o, "nodeswap_plan_errors", "gauge", "What stops nodeswap apply now; absent without a policy.");
        if (in->plan)
                sample_u64(o, "nodeswap_plan_errors", NULL, errors);

        family(o, "nodeswap_findings", "gauge",
               "The findings of nodeswap check (policy and node), by severity; nodeswap check lists them.");
        if (in->findings)
                for (Severity v = SEVERITY_INFO; v <= SEVERITY_ERROR; v++)
                        sample_u64(o, "nodeswap_findings", LABELS("severity", (char *) severity_to_string(v)),
                                   findings_count(in->findings, v));

        const char *cmd = s->last_run_revert ? "revert" : "apply";
        family(o, "nodeswap_last_run_timestamp_seconds", "gauge",
               "When the last nodeswap apply or revert that changed something ended (nodeswap's state); "
               "absent when none did.");
        if (s->last_run_usec > 0)
                sample_usec(o, "nodeswap_last_run_timestamp_seconds", LABELS("command", (char *) cmd), s->last_run_usec);
        family(o, "nodeswap_last_run_success", "gauge", "1 when every action of that run succeeded, 0 when one failed.");
        if (s->last_run_usec > 0)
                sample_u64(o, "nodeswap_last_run_success", LABELS("command", (char *) cmd), !s->last_run_failed);
        family(o, "nodeswap_swap_change_timestamp_seconds", "gauge",
               "When nodeswap last changed the node's swap; absent when it never did.");
        if (s->swap_changed_usec > 0)
                sample_usec(o, "nodeswap_swap_change_timestamp_seconds", NULL, s->swap_changed_usec);
        family(o, "nodeswap_unreadable_info", "gauge",
               "A file this user may not read (run as root for it); its facts are left out; always 1.");
        for (char **f = s->unreadable; f && *f; f++)
                sample_u64(o, "nodeswap_unreadable_info", LABELS("path", *f), 1);
        if (h->file.unreadable && in->policy->file.path)
                sample_u64(o, "nodeswap_unreadable_info", LABELS("path", in->policy->file.path), 1);
}

/* --- memory pressure (probe/pressure.h): PSI's stall totals and the swap traffic, as counters ---- */

static void pressure_samples(Out *o, const char *name, char *const *labels, const PressureLine *l) {
        if (l->present)
                sample_usec(o, name, labels, l->total_us);
}

static void traffic_samples(Out *o, const char *in_name, const char *out_name, char *const *labels,
                            const SwapTraffic *t, bool in) {
        /* labels end in the name "via" and a NULL value slot, filled here (then the terminating NULL) */
        size_t n = 0;
        while (labels[n])
                n++;
        char **l = (char **) labels;
        if (t->has_pswp) {
                l[n] = (char *) "device";
                sample_u64(o, in ? in_name : out_name, labels, in ? t->pswpin : t->pswpout);
        }
        if (t->has_zswp) {
                l[n] = (char *) "zswap";
                sample_u64(o, in ? in_name : out_name, labels, in ? t->zswpin : t->zswpout);
        }
        l[n] = NULL;
}

static void render_pressure(Out *o, const HostState *h) {
        const NodePressure *np = &h->pressure;
        if (!np->probed)
                return;
        family(o, "nodeswap_memory_stall_some_seconds_total", "counter",
               "Time at least one task of the node waited for memory (/proc/pressure/memory some total); "
               "absent when PSI is off.");
        if (np->memory.present)
                pressure_samples(o, "nodeswap_memory_stall_some_seconds_total", NULL, &np->memory.some);
        family(o, "nodeswap_memory_stall_full_seconds_total", "counter",
               "Time all non-idle tasks of the node waited for memory at once (/proc/pressure/memory full "
               "total); absent when PSI is off. On zram it includes compression.");
        if (np->memory.present)
                pressure_samples(o, "nodeswap_memory_stall_full_seconds_total", NULL, &np->memory.full);
        static const char *const dirs[] = { "nodeswap_swapin_pages_total", "nodeswap_swapout_pages_total" };
        for (size_t d = 0; d < 2; d++) {
                family(o, dirs[d], "counter",
                       d == 0 ? "Pages read back in from swap (/proc/vmstat): via=\"device\" pswpin (zram, files, "
                                "partitions), via=\"zswap\" zswpin; absent when the kernel does not count them."
                              : "Pages written out to swap (/proc/vmstat): via=\"device\" pswpout, via=\"zswap\" "
                                "zswpout; absent when the kernel does not count them.");
                char *labels[] = { (char *) "via", NULL, NULL };
                traffic_samples(o, dirs[0], dirs[1], labels, &np->traffic, d == 0);
        }
}

static void render_pods_pressure(Out *o, const MetricsInput *in, char **uids, char **cids) {
        size_t n = in->n_pod_swaps;
        family(o, "nodeswap_pod_memory_stall_full_seconds_total", "counter",
               "Time all of a pod's tasks waited for memory at once (its cgroup's memory.pressure full total), "
               "by pod UID; rate() over a few minutes is the share of time it was stalled. Absent when PSI "
               "is off.");
        for (size_t i = 0; i < n; i++) {
                const PodSwap *p = &in->pod_swaps[i];
                const char *slash = strrchr(p->name, '/');
                size_t len = slash ? (size_t) (slash - p->name) : 0;
                /* the containers are sorted by cgroup: a pod's are next to each other, the first speaks */
                if (!slash || !uids[i] || !p->pressure.pod.present || !p->pressure.pod.full.present)
                        continue;
                if (i > 0 && strncmp(in->pod_swaps[i - 1].name, p->name, len + 1) == 0)
                        continue;
                _cleanup_free_ char *pod = strndup(p->name, len);
                if (!pod) {
                        o->oom = true;
                        return;
                }
                sample_usec(o, "nodeswap_pod_memory_stall_full_seconds_total",
                            LABELS("pod_uid", uids[i], "qos", (char *) pod_qos_to_string(p->qos), "cgroup", pod),
                            p->pressure.pod.full.total_us);
        }
        family(o, "nodeswap_container_memory_stall_full_seconds_total", "counter",
               "Time all of a container's tasks waited for memory at once (memory.pressure full total).");
        for (size_t i = 0; i < n; i++) {
                const PodSwap *p = &in->pod_swaps[i];
                if (p->pressure.container.present)
                        pressure_samples(o, "nodeswap_container_memory_stall_full_seconds_total",
                                         LABELS("pod_uid", uids[i], "container_id", cids[i], "qos",
                                                (char *) pod_qos_to_string(p->qos), "cgroup", p->name),
                                         &p->pressure.container.full);
        }
        static const char *const dirs[] = { "nodeswap_container_swapin_pages_total",
                                             "nodeswap_container_swapout_pages_total" };
        for (size_t d = 0; d < 2; d++) {
                family(o, dirs[d], "counter",
                       d == 0 ? "A container's pages read back from swap (memory.stat pswpin: via=\"device\", "
                                "kernels after 6.12; zswpin: via=\"zswap\"); absent where the kernel keeps none."
                              : "A container's pages written to swap (memory.stat pswpout: via=\"device\", Linux "
                                "after 6.12; zswpout: via=\"zswap\"); absent where the kernel keeps none.");
                for (size_t i = 0; i < n; i++) {
                        const PodSwap *p = &in->pod_swaps[i];
                        char *labels[] = { (char *) "pod_uid", uids[i], (char *) "container_id", cids[i],
                                           (char *) "qos", (char *) pod_qos_to_string(p->qos), (char *) "cgroup",
                                           p->name, (char *) "via", NULL, NULL };
                        traffic_samples(o, dirs[0], dirs[1], labels, &p->pressure.traffic, d == 0);
                }
        }
}

/* Each container against its allowance, and the node's density (issue 26): so that a panel
 * shows which containers live at their allowance. */
static void render_pods_allowance(Out *o, const MetricsInput *in, char **uids, char **cids) {
        const HostState *h = in->host;
        size_t n = in->n_pod_swaps;
        if (!h || h->mem_total == 0)
                return;
        _cleanup_free_ ContainerNeed *needs = calloc(n + 1, sizeof(ContainerNeed));
        if (!needs) {
                o->oom = true;
                return;
        }
        for (size_t i = 0; i < n; i++)
                (void) allowance_container(&in->pod_swaps[i], h->mem_total, h->swap_total, h->page_size, &needs[i]);
#define CONTAINER_LABELS(i) LABELS("pod_uid", uids[i], "container_id", cids[i], "qos",                   \
                                   (char *) pod_qos_to_string(in->pod_swaps[i].qos), "cgroup", in->pod_swaps[i].name)

        family(o, "nodeswap_container_swap_peak_bytes", "gauge",
               "The most the container had in swap (memory.swap.peak, kernels from 6.5); absent without the file.");
        for (size_t i = 0; i < n; i++)
                if (in->pod_swaps[i].swap_peak != CGROUP_VALUE_UNKNOWN && in->pod_swaps[i].swap_peak != CGROUP_VALUE_MAX)
                        sample_u64(o, "nodeswap_container_swap_peak_bytes", CONTAINER_LABELS(i), in->pod_swaps[i].swap_peak);

        family(o, "nodeswap_container_swap_events_total", "counter",
               "memory.swap.events: high (over memory.swap.high), max (a swap-out refused at memory.swap.max), "
               "fail (a swap-out failed: at the limit or the node's swap full); absent without the file.");
        for (size_t i = 0; i < n; i++) {
                const PodSwap *p = &in->pod_swaps[i];
                if (!p->swap_events)
                        continue;
                const struct { const char *event; uint64_t v; } ev[] = {
                        { "high", p->swap_high }, { "max", p->swap_max_hits }, { "fail", p->swap_fail },
                };
                for (size_t e = 0; e < ELEMENTSOF(ev); e++)
                        sample_u64(o, "nodeswap_container_swap_events_total",
                                   LABELS("pod_uid", uids[i], "container_id", cids[i], "qos",
                                          (char *) pod_qos_to_string(p->qos), "cgroup", p->name, "event",
                                          (char *) ev[e].event),
                                   ev[e].v);
        }

        /* one family after the other: the exposition keeps a family's samples together */
        static const struct {
                const char *name, *help;
        } fams[] = {
                { "nodeswap_container_swap_allowance_bytes",
                  "A Burstable container's allowance (its memory.swap.max); absent for containers without one." },
                { "nodeswap_container_swap_at_allowance",
                  "1 when the container reached its allowance (memory.swap.events max > 0, or its peak is its "
                  "limit) or is over it, 0 below it; absent without an allowance." },
                { "nodeswap_container_memory_request_bytes",
                  "The container's memory request: memory.min where the kubelet keeps it, else derived from "
                  "memory.swap.max x MemTotal / SwapTotal; absent when unknown." },
                { "nodeswap_container_needed_request_bytes",
                  "For a container at or over its allowance: the request, in whole MiB, whose allowance covers "
                  "its peak swap (what it reserves at the scheduler)." },
        };
        for (size_t f = 0; f < ELEMENTSOF(fams); f++) {
                family(o, fams[f].name, "gauge", fams[f].help);
                for (size_t i = 0; i < n; i++) {
                        const ContainerNeed *c = &needs[i];
                        bool has = f == 0 || f == 1 ? c->state != CONTAINER_SWAP_NO_ALLOWANCE
                                 : f == 2 ? c->request_known : c->need_known && !c->need_over_memtotal;
                        uint64_t v = f == 0 ? c->allowance : f == 1 ? c->state != CONTAINER_SWAP_BELOW
                                   : f == 2 ? c->request : c->need_request;
                        if (has)
                                sample_u64(o, fams[f].name, CONTAINER_LABELS(i), v);
                }
        }
#undef CONTAINER_LABELS

        Density d;
        if (allowance_density(h, in->pod_swaps, n, &d) < 0)
                return;
        family(o, "nodeswap_swap_allowances_bytes", "gauge",
               "The sum of the running containers' allowances: how much of the node's swap they may take.");
        sample_u64(o, "nodeswap_swap_allowances_bytes", NULL, d.allowances);
        family(o, "nodeswap_density_ceiling", "gauge",
               "1 + SwapTotal / MemTotal: how many times what fits in RAM alone the pods hold at most.");
        sample_double(o, "nodeswap_density_ceiling", NULL, d.ceiling);
        if (d.zram_ratio_known) {
                family(o, "nodeswap_density_ceiling_zram", "gauge",
                       "The ceiling with zram's compressed pages in RAM, at the ratio zram achieves now.");
                sample_double(o, "nodeswap_density_ceiling_zram", NULL, d.ceiling_zram);
        }
}

static void render_pods(Out *o, const MetricsInput *in) {
        family(o, "nodeswap_pods_readable", "gauge",
               "1 when the kubelet's cgroup v2 tree could be read for --pods (absent or empty reads as 1: no "
               "containers), 0 when not.");
        sample_u64(o, "nodeswap_pods_readable", NULL, in->pods_error == 0);

        size_t n = in->n_pod_swaps;
        char **uids = calloc(n + 1, sizeof(char *)), **cids = calloc(n + 1, sizeof(char *));
        if (!uids || !cids) {
                o->oom = true;
                goto finish;
        }
        for (size_t i = 0; i < n; i++)
                if (metrics_container_labels(in->pod_swaps[i].name, &uids[i], &cids[i]) < 0) {
                        o->oom = true;
                        goto finish;
                }
        static const struct {
                const char *name, *help;
                size_t offset;
        } fams[] = {
                { "nodeswap_container_swap_bytes",
                  "The container's swap in use (memory.swap.current), by pod UID and container ID as the "
                  "kubelet names them.", offsetof(PodSwap, swap_current) },
                { "nodeswap_container_zswap_bytes",
                  "The container's pages in zswap, compressed (memory.zswap.current), where the kernel "
                  "accounts them.", offsetof(PodSwap, zswap_current) },
                { "nodeswap_container_swap_limit_bytes",
                  "The container's swap limit (memory.swap.max); absent when unlimited.", offsetof(PodSwap, swap_max) },
                { "nodeswap_container_memory_limit_bytes",
                  "The container's memory limit (memory.max); absent when unlimited.", offsetof(PodSwap, memory_max) },
        };
        for (size_t f = 0; f < ELEMENTSOF(fams); f++) {
                family(o, fams[f].name, "gauge", fams[f].help);
                for (size_t i = 0; i < n; i++) {
                        const PodSwap *p = &in->pod_swaps[i];
                        uint64_t v = *(const uint64_t *) ((const char *) p + fams[f].offset);
                        if (v == CGROUP_VALUE_UNKNOWN || v == CGROUP_VALUE_MAX)
                                continue;
                        sample_u64(o, fams[f].name,
                                   LABELS("pod_uid", uids[i], "container_id", cids[i], "qos",
                                          (char *) pod_qos_to_string(p->qos), "cgroup", p->name),
                                   v);
                }
        }
        render_pods_pressure(o, in, uids, cids);
        render_pods_allowance(o, in, uids, cids);
finish:
        for (size_t i = 0; i < n && uids && cids; i++) {
                free(uids[i]);
                free(cids[i]);
        }
        free(uids);
        free(cids);
}

int metrics_render(const MetricsInput *in, char **ret) {
        char *buf = NULL;
        size_t len = 0;
        Out o = { .f = open_memstream(&buf, &len) };
        if (!o.f)
                return -ENOMEM;

        bool up = in->policy && in->host;
        family(&o, "nodeswap_up", "gauge",
               up ? "1 when nodeswap could read its policy and the node."
                  : strempty(in->error));
        sample_u64(&o, "nodeswap_up", NULL, up);
        family(&o, "nodeswap_build_info", "gauge", "The nodeswap version that wrote these metrics; always 1.");
        sample_u64(&o, "nodeswap_build_info", LABELS("version", NODESWAP_VERSION), 1);

        if (up) {
                render_swaps(&o, in->host);
                render_zram(&o, in->host);
                render_zswap(&o, in->host);
                render_sysctls(&o, in->host);
                render_kubelet(&o, in->host);
                render_pressure(&o, in->host);
                render_nodeswap(&o, in);
                if (in->pods)
                        render_pods(&o, in);
        }

        bool failed = o.oom || ferror(o.f);
        if (fclose(o.f) != 0)
                failed = true;
        if (failed) {
                free(buf);
                return -ENOMEM;
        }
        *ret = buf;
        return 0;
}

int metrics_write_file(const char *path, const char *text) {
        /* 0644: node-exporter reads it as its own user. */
        return write_file_atomic(path, text, 0644);
}
