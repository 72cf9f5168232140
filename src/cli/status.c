/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodeswap status [--pods]
 *
 * The node's swap as it is now (read only): every swap area, zram's real RAM cost, the sysctls,
 * what the kubelet is told, the conflict units' masks, and with --pods each container's swap.
 *
 * --json prints one object:
 *   swaps            array, in /proc/swaps order, of
 *     path           as in /proc/swaps
 *     kind           "zram" | "file" | "partition"
 *     size, used     bytes
 *     priority       the kernel's priority (negative when none was given)
 *     owner          "nodeswap" | "conflict" (the distribution's, from a [Conflicts] unit) | "other"
 *     unit           the .swap unit name for the path, or null
 *     zram           (kind "zram" only) object:
 *       id               N of /dev/zramN
 *       algorithm        the active compression algorithm, or null
 *       orig_data_size   bytes stored (uncompressed)
 *       compr_data_size  bytes they take compressed
 *       mem_used_total   bytes of RAM the device really uses; charged to no cgroup, so no
 *                        pod's memory limit accounts for it
 *       mem_limit        bytes, 0 = none
 *       ratio            orig_data_size / compr_data_size, or null when empty
 *       writeback        null without a backing device; else an object (bd_stat, bytes):
 *         backing_dev      the device pages are written back to (/dev/loopN for a Writeback= file)
 *         stored           bytes written back and still kept there (bd_count)
 *         written          bytes written back since the device was set up (bd_writes)
 *         read             bytes read back from it (bd_reads)
 *         limit_left       bytes left of the day's WritebackLimit= budget, or null when uncapped
 *     storage        (kind "file" only) "nvme" | "ssd" | "virtual" | "rotational" | "mmc" | null
 *                    (known for the policy's [File] Path= only)
 *     storage_device (kind "file" only) e.g. "nvme0n1", or null
 *   mem_total, mem_available, swap_total, swap_free   bytes, from /proc/meminfo
 *   page_size        bytes: the kernel's page size (a swap header is written for it; 16384 on
 *                    a Raspberry Pi 5)
 *   zram_mem_used    bytes of RAM all zram swap uses (sum of mem_used_total)
 *   zswap            null when the kernel has no zswap, else object:
 *     enabled        true | false
 *     compressor, max_pool_percent, accept_threshold_percent, shrinker_enabled
 *                    each parameter as the kernel shows it, null when the kernel lacks it
 *     pool_bytes     RAM the pool uses (/proc/meminfo Zswap), null when not shown
 *     stored_bytes   the pages it holds, uncompressed (Zswapped), null when not shown
 *     stored_pages, written_back_pages   debugfs counters, null unless readable (root, mounted)
 *     cmdline        object: the zswap parameters the kernel command line sets, NAME: value
 *   swappiness       vm.swappiness, or null when unreadable
 *   page_cluster     vm.page-cluster, or null when unreadable
 *   kubelet          object:
 *     unit           the kubelet unit (policy's Unit= or the first present), or null
 *     active         true | false | null (unknown: systemd not asked)
 *     dropin         the drop-in path nodeswap manages, or null
 *     dropin_present true when that file exists
 *     swap_behavior  the kubelet's effective swapBehavior, every file it reads merged in its order:
 *                    "LimitedSwap" | "NoSwap" | "invalid" (a value the kubelet refuses) | null (no
 *                    file sets it: the kubelet's default, NoSwap)
 *     swap_behavior_source  "FILE:LINE" of the file that decides it, or null (the default)
 *     fail_swap_on   the effective failSwapOn (true: the default)
 *     fail_swap_on_source   "FILE:LINE", the --fail-swap-on flag that wins ("--fail-swap-on=false
 *                    (KUBELET_EXTRA_ARGS in /etc/default/kubelet:4)"), or null (the default)
 *     flags          array of strings: the kubelet flags nodeswap decides on (--fail-swap-on,
 *                    --config, --config-dir) and the memory eviction flags, each the one that
 *                    wins, named with how it reaches the kubelet and FILE:LINE
 *     config_dir     the drop-in directory the kubelet reads (--config-dir), or null
 *     config_dir_source  where config_dir comes from: the flag, or the directory of DropIn=
 *     config_files   array, in merge order, of every file the kubelet reads:
 *       path, invalid (why the kubelet refuses it, or null), invalid_line (or null),
 *       swap_behavior (the value it sets, or null), swap_behavior_line (null: the file does not
 *       set it; a line with a null swap_behavior: set to null, back to the default),
 *       fail_swap_on (true | false | null: not set)
 *     swap_stale     true when the unit started before nodeswap's last swap change (the kubelet
 *                    still works with the old SwapTotal), false when after, null when unknown
 *   units            array, one per conflict unit ([Conflicts] Units= in policy order, then what
 *                    follows from rpi-swap's configuration and [File] Path=), of
 *     name, exists, masked, masked_runtime (masked in /run by nodeswap), active (true|false|null)
 *   rpi_swap         Raspberry Pi OS's rpi-swap, null when its generator is not installed:
 *     mechanism      its [Main] Mechanism= ("auto", "zram+file", "zram", "swapfile", ...)
 *     source         "FILE:LINE" of the Mechanism= in effect, null for the default (auto)
 *     path           its [File] Path= (default /var/swap)
 *     units          the units its generator makes for that mechanism (and its remove service
 *                    for the policy's [File] Path=), each also in "units" above
 *   cgroup           "v1" | "hybrid" | "v2" | "unknown"
 *   psi              true when /proc/pressure/memory is readable
 *   reverted         true when "nodeswap revert" ran last
 *   swap_files       array, in state order, of the swap files nodeswap created (state swap_file=):
 *     path           the file
 *     state          "on" | "off" | "gone" | "not-regular" (a symlink ...) | "unlabelled" (no
 *                    longer carries nodeswap's swap label); the last two are never deleted
 *     policy_path    true when it is the policy's [File] Path= (apply keeps it; the others are
 *                    deleted by the next apply, every one by revert --purge)
 *   policy_files     the policy files read, in the order applied (empty: no policy, nodeswap
 *                    leaves the node alone)
 *   pods             (--pods only) array, sorted by cgroup, of
 *     cgroup         the container's cgroup below the v2 mount
 *     qos            "burstable" | "guaranteed" | "besteffort" (from the cgroup path)
 *     memory_max, memory_current, swap_max, swap_current, zswap_current
 *                    bytes; "max" for no limit; null when the file is absent (zswap_current:
 *                    memory.zswap.current, the container's pages in zswap, compressed)
 *
 * Exit status: 0; 1 when the host cannot be read; 2 for an invalid policy.
 */
#include <json-c/json.h>

#include "plan/allowance.h"
#include "plan/check.h"
#include "plan/kubelet.h"
#include "cli/cli.h"
#include "report/log.h"
#include "report/report.h"
#include <time.h>
#include "probe/pods.h"
#include "probe/probe.h"
#include "report/zswap.h"

#define STRV_FOREACH_CONST(i, l) for (char *const *i = (l); i && *i; i++)

static const char *recorded_file_state(const RecordedSwapFile *f) {
        return !f->exists ? "gone" : !f->is_regular ? "not-regular" : !f->labelled ? "unlabelled"
                                                                    : f->swap_on ? "on" : "off";
}

static double zram_ratio(const ZramDevice *z) {
        return z->compr_data_size > 0 ? (double) z->orig_data_size / (double) z->compr_data_size : 0.0;
}

static const char *owner_text(SwapOwner o) {
        switch (o) {
        case SWAP_OWNER_NODESWAP: return "nodeswap";
        case SWAP_OWNER_CONFLICT: return "distro (conflict)";
        default:                  return "other";
        }
}

/* The storage under a swap file, when it is the policy's file (the only one probed). */
static const SwapFileState *file_state_for(const Policy *p, const HostState *h, const SwapDevice *s) {
        if (s->kind != SWAP_KIND_FILE || !p->file.path || !streq(p->file.path, s->path))
                return NULL;
        return &h->file;
}

/* The kubelet's effective swapBehavior as text: "LimitedSwap", "NoSwap", "invalid" (a value the
 * kubelet refuses), NULL when no file sets it (the default, NoSwap). */
static const char *effective_text(const KubeletEffective *e) {
        if (e->swap_behavior_unknown)
                return "invalid";
        return e->swap_behavior == SWAP_BEHAVIOR_UNSET ? NULL : swap_behavior_to_string(e->swap_behavior);
}

static json_object *json_source(const KubeletConfigFile *f, unsigned line) {
        _cleanup_free_ char *s = f ? kubelet_source(f, line) : NULL;
        return s ? json_object_new_string(s) : NULL;
}

static json_object *kubelet_files_json(const KubeletConfig *c) {
        json_object *a = json_object_new_array();
        if (!a)
                return NULL;
        for (size_t i = 0; i < c->n_files; i++) {
                const KubeletConfigFile *f = &c->files[i];
                json_object *o = json_object_new_object();
                if (!o) {
                        json_object_put(a);
                        return NULL;
                }
                json_object_object_add(o, "path", json_object_new_string(f->path));
                json_object_object_add(o, "invalid", f->invalid ? json_object_new_string(f->invalid_reason) : NULL);
                json_object_object_add(o, "invalid_line", f->invalid && f->invalid_line > 0 ?
                                       json_object_new_int((int) f->invalid_line) : NULL);
                json_object_object_add(o, "swap_behavior",
                                       f->swap_behavior_field == KUBELET_FIELD_SET ?
                                       json_object_new_string(f->swap_behavior_value) : NULL);
                json_object_object_add(o, "swap_behavior_line",
                                       f->swap_behavior_field != KUBELET_FIELD_ABSENT ?
                                       json_object_new_int((int) f->swap_behavior_line) : NULL);
                json_object_object_add(o, "fail_swap_on",
                                       f->fail_swap_on_field == KUBELET_FIELD_SET ?
                                       json_object_new_boolean(f->fail_swap_on) : NULL);
                json_object_array_add(a, o);
        }
        return a;
}


static uint64_t zram_mem_used(const HostState *h) {
        uint64_t sum = 0;
        for (size_t i = 0; i < h->n_swaps; i++) {
                const ZramDevice *z = h->swaps[i].kind == SWAP_KIND_ZRAM ? host_find_zram(h, h->swaps[i].zram_id) : NULL;
                if (z)
                        sum += z->mem_used_total;
        }
        return sum;
}

/* --- JSON ------------------------------------------------------------------------------------ */

static json_object *json_string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

static json_object *json_tristate(int v) {
        return v < 0 ? NULL : json_object_new_boolean(v > 0);
}

static json_object *json_cgroup_value(uint64_t v) {
        if (v == CGROUP_VALUE_UNKNOWN)
                return NULL;
        if (v == CGROUP_VALUE_MAX)
                return json_object_new_string("max");
        return json_object_new_uint64(v);
}

static json_object *json_swap(const Policy *p, const HostState *h, const SwapDevice *s) {
        json_object *o = json_object_new_object();
        if (!o)
                return NULL;
        json_object_object_add(o, "path", json_object_new_string(s->path));
        json_object_object_add(o, "kind", json_object_new_string(strempty(swap_kind_to_string(s->kind))));
        json_object_object_add(o, "size", json_object_new_uint64(s->size));
        json_object_object_add(o, "used", json_object_new_uint64(s->used));
        json_object_object_add(o, "priority", json_object_new_int(s->priority));
        json_object_object_add(o, "owner", json_object_new_string(strempty(swap_owner_to_string(s->owner))));
        json_object_object_add(o, "unit", json_string_or_null(s->unit));

        if (s->kind == SWAP_KIND_ZRAM) {
                const ZramDevice *z = host_find_zram(h, s->zram_id);
                json_object *zo = NULL;
                if (z) {
                        zo = json_object_new_object();
                        if (!zo) {
                                json_object_put(o);
                                return NULL;
                        }
                        json_object_object_add(zo, "id", json_object_new_int(z->id));
                        json_object_object_add(zo, "algorithm", json_string_or_null(z->algorithm));
                        json_object_object_add(zo, "orig_data_size", json_object_new_uint64(z->orig_data_size));
                        json_object_object_add(zo, "compr_data_size", json_object_new_uint64(z->compr_data_size));
                        json_object_object_add(zo, "mem_used_total", json_object_new_uint64(z->mem_used_total));
                        json_object_object_add(zo, "mem_limit", json_object_new_uint64(z->mem_limit));
                        json_object_object_add(zo, "ratio", z->compr_data_size > 0 ?
                                               json_object_new_double(zram_ratio(z)) : NULL);
                        json_object *wo = NULL;
                        if (z->wb.backing_dev && (wo = json_object_new_object())) {
                                json_object_object_add(wo, "backing_dev", json_object_new_string(z->wb.backing_dev));
                                json_object_object_add(wo, "stored", json_object_new_uint64(z->bd_count));
                                json_object_object_add(wo, "written", json_object_new_uint64(z->bd_writes));
                                json_object_object_add(wo, "read", json_object_new_uint64(z->bd_reads));
                                json_object_object_add(wo, "limit_left", z->wb.writeback_limit_enabled
                                                       ? json_object_new_uint64(z->wb.writeback_limit) : NULL);
                        }
                        json_object_object_add(zo, "writeback", wo);
                }
                json_object_object_add(o, "zram", zo);
        }

        if (s->kind == SWAP_KIND_FILE) {
                const SwapFileState *f = file_state_for(p, h, s);
                json_object_object_add(o, "storage",
                                       json_string_or_null(f ? storage_kind_to_string(f->storage) : NULL));
                json_object_object_add(o, "storage_device", json_string_or_null(f ? f->storage_device : NULL));
        }
        return o;
}

static json_object *json_pods(const PodSwap *pods, size_t n) {
        json_object *a = json_object_new_array();
        if (!a)
                return NULL;
        for (size_t i = 0; i < n; i++) {
                json_object *o = json_object_new_object();
                if (!o) {
                        json_object_put(a);
                        return NULL;
                }
                json_object_object_add(o, "cgroup", json_object_new_string(pods[i].name));
                json_object_object_add(o, "qos", json_object_new_string(pod_qos_to_string(pods[i].qos)));
                json_object_object_add(o, "memory_max", json_cgroup_value(pods[i].memory_max));
                json_object_object_add(o, "memory_current", json_cgroup_value(pods[i].memory_current));
                json_object_object_add(o, "swap_max", json_cgroup_value(pods[i].swap_max));
                json_object_object_add(o, "swap_current", json_cgroup_value(pods[i].swap_current));
                json_object_object_add(o, "zswap_current", json_cgroup_value(pods[i].zswap_current));
                json_object_array_add(a, o);
        }
        return a;
}

/* Whether the node matches the policy, judged as plan judges it. */
typedef struct StatusVerdict {
        Findings findings;      /* the policy's errors, then the plan's and the rules' findings */
        bool have_policy;       /* a policy was found (valid or not) */
        bool policy_valid;
        size_t pending;         /* actions the plan has */
} StatusVerdict;

/* 1 matches, 0 differs, -1 unknown (no policy, or an invalid one). */
static int status_matches(const StatusVerdict *v) {
        if (!v->have_policy || !v->policy_valid || findings_has(&v->findings, VERDICT_HOST_UNREADABLE))
                return -1;
        return v->pending == 0 && findings_count(&v->findings, SEVERITY_ERROR) == 0;
}

static char *format_usec(uint64_t usec) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;
        char buf[64];
        if (!gmtime_r(&t, &tm) || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
                return NULL;
        return strdup(buf);
}

static json_object *json_last_run(const NodeswapState *st) {
        if (st->last_run_usec == 0)
                return NULL;
        json_object *o = json_object_new_object();
        if (!o)
                return NULL;
        _cleanup_free_ char *t = format_usec(st->last_run_usec);
        json_object_object_add(o, "verb", json_object_new_string(st->last_run_revert ? "revert" : "apply"));
        json_object_object_add(o, "time_usec", json_object_new_uint64(st->last_run_usec));
        json_object_object_add(o, "time", json_string_or_null(t));
        json_object_object_add(o, "result", json_object_new_string(st->last_run_failed ? "failed" : "ok"));
        return o;
}

static int print_json(const Policy *p, const HostState *h, const PodSwap *pods, size_t n_pods, bool with_pods,
                      const StatusVerdict *v) {
        json_object *o = json_object_new_object(), *swaps = json_object_new_array(),
                    *kubelet = json_object_new_object(), *units = json_object_new_array();
        if (!o || !swaps || !kubelet || !units)
                goto oom;
        json_object_object_add(o, "version", json_object_new_int(NODESWAP_JSON_VERSION));
        json_object_object_add(o, "swaps", swaps);
        json_object_object_add(o, "kubelet", kubelet);
        json_object_object_add(o, "units", units);

        for (size_t i = 0; i < h->n_swaps; i++) {
                json_object *s = json_swap(p, h, &h->swaps[i]);
                if (!s)
                        goto oom_o;
                json_object_array_add(swaps, s);
        }
        json_object_object_add(o, "mem_total", json_object_new_uint64(h->mem_total));
        json_object_object_add(o, "mem_available", json_object_new_uint64(h->mem_available));
        json_object_object_add(o, "swap_total", json_object_new_uint64(h->swap_total));
        json_object_object_add(o, "swap_free", json_object_new_uint64(h->swap_free));
        json_object_object_add(o, "page_size", json_object_new_uint64(h->page_size));
        json_object_object_add(o, "zram_mem_used", json_object_new_uint64(zram_mem_used(h)));
        bool oom = false;
        json_object_object_add(o, "zswap", zswap_to_json(&h->zswap, &oom));
        if (oom)
                goto oom_o;
        json_object_object_add(o, "swappiness", h->swappiness >= 0 ? json_object_new_int(h->swappiness) : NULL);
        json_object_object_add(o, "page_cluster", h->page_cluster >= 0 ? json_object_new_int(h->page_cluster) : NULL);

        KubeletEffective eff;
        kubelet_config_effective(&h->kubelet, NULL, NULL, &eff);
        json_object *cfiles = kubelet_files_json(&h->kubelet);
        if (!cfiles)
                goto oom_o;
        json_object_object_add(kubelet, "unit", json_string_or_null(h->kubelet_unit));
        json_object_object_add(kubelet, "active", json_tristate(h->kubelet_active));
        json_object_object_add(kubelet, "dropin", json_string_or_null(h->dropin_path ?: p->dropin));
        json_object_object_add(kubelet, "dropin_present", json_object_new_boolean(h->dropin != NULL));
        json_object_object_add(kubelet, "swap_behavior", json_string_or_null(effective_text(&eff)));
        json_object_object_add(kubelet, "swap_behavior_source",
                               json_source(eff.swap_behavior_from, eff.swap_behavior_from ?
                                           eff.swap_behavior_from->swap_behavior_line : 0));
        json_object_object_add(kubelet, "fail_swap_on", json_object_new_boolean(eff.fail_swap_on));
        {
                _cleanup_free_ char *fso_src = eff.fail_swap_on_flag || eff.fail_swap_on_from ?
                        kubelet_fail_swap_on_source(&eff) : NULL;
                _cleanup_strv_free_ char **flags = NULL;
                json_object *jflags = kubelet_decided_flags(&h->kubelet, &flags) < 0 ? NULL : json_object_new_array();
                for (char **f = flags; jflags && f && *f; f++)
                        json_object_array_add(jflags, json_object_new_string(*f));
                json_object_object_add(kubelet, "fail_swap_on_source", json_string_or_null(fso_src));
                json_object_object_add(kubelet, "flags", jflags);
        }
        json_object_object_add(kubelet, "config_dir", json_string_or_null(h->kubelet.config_dir));
        json_object_object_add(kubelet, "config_dir_source", json_string_or_null(h->kubelet.config_dir_source));
        json_object_object_add(kubelet, "config_files", cfiles);
        json_object_object_add(kubelet, "swap_stale", json_tristate(kubelet_capacity_stale(h)));

        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                json_object *uo = json_object_new_object();
                if (!uo)
                        goto oom_o;
                json_object_object_add(uo, "name", json_object_new_string(u->name));
                json_object_object_add(uo, "exists", json_object_new_boolean(u->exists));
                json_object_object_add(uo, "masked", json_object_new_boolean(u->masked));
                json_object_object_add(uo, "masked_runtime", json_object_new_boolean(u->masked_runtime));
                json_object_object_add(uo, "active", json_tristate(u->active));
                json_object_array_add(units, uo);
        }

        if (h->rpi_swap.installed) {
                json_object *rpi = json_object_new_object(), *ru = json_object_new_array();
                _cleanup_strv_free_ char **names = NULL;
                if (!rpi || !ru || rpi_swap_units(&h->rpi_swap, p->file.path, &names) < 0) {
                        json_object_put(rpi);
                        json_object_put(ru);
                        goto oom_o;
                }
                json_object_object_add(rpi, "mechanism",
                                       json_object_new_string(rpi_swap_mechanism_to_string(h->rpi_swap.mechanism)));
                json_object_object_add(rpi, "source", json_string_or_null(h->rpi_swap.mechanism_source));
                json_object_object_add(rpi, "path", json_string_or_null(h->rpi_swap.path));
                for (char **n = names; n && *n; n++)
                        json_object_array_add(ru, json_object_new_string(*n));
                json_object_object_add(rpi, "units", ru);
                json_object_object_add(o, "rpi_swap", rpi);
        } else
                json_object_object_add(o, "rpi_swap", NULL);

        json_object_object_add(o, "cgroup", json_object_new_string(strempty(cgroup_mode_to_string(h->cgroup))));
        json_object_object_add(o, "psi", json_object_new_boolean(h->psi));
        json_object_object_add(o, "reverted", json_object_new_boolean(h->state.reverted));
        json_object *recorded = json_object_new_array();
        if (!recorded)
                goto oom_o;
        json_object_object_add(o, "swap_files", recorded);
        for (size_t i = 0; i < h->n_recorded_files; i++) {
                const RecordedSwapFile *f = &h->recorded_files[i];
                json_object *fo = json_object_new_object();
                if (!fo)
                        goto oom_o;
                json_object_object_add(fo, "path", json_object_new_string(f->path));
                json_object_object_add(fo, "state", json_object_new_string(recorded_file_state(f)));
                json_object_object_add(fo, "policy_path", json_object_new_boolean(streq_ptr(f->path, p->file.path)));
                json_object_array_add(recorded, fo);
        }
        int m = status_matches(v);
        json_object_object_add(o, "matches_policy", json_tristate(m));
        json_object_object_add(o, "pending_actions",
                               m >= 0 ? json_object_new_uint64(v->pending) : NULL);
        json_object_object_add(o, "policy_valid", json_object_new_boolean(v->policy_valid));
        json_object_object_add(o, "last_run", json_last_run(&h->state));
        json_object *fa = findings_to_json(&v->findings);
        if (!fa)
                goto oom_o;
        json_object_object_add(o, "findings", fa);
        json_object_object_add(o, "errors", json_object_new_uint64(findings_count(&v->findings, SEVERITY_ERROR)));
        json_object_object_add(o, "warnings", json_object_new_uint64(findings_count(&v->findings, SEVERITY_WARNING)));
        json_object *files = json_object_new_array();
        if (!files)
                goto oom_o;
        json_object_object_add(o, "policy_files", files);
        STRV_FOREACH_CONST(f, p->files)
                json_object_array_add(files, json_object_new_string(*f));
        if (with_pods) {
                json_object *a = json_pods(pods, n_pods);
                if (!a)
                        goto oom_o;
                json_object_object_add(o, "pods", a);
        }

        puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
        return 0;

oom:
        json_object_put(swaps);
        json_object_put(kubelet);
        json_object_put(units);
oom_o:
        json_object_put(o);
        return -ENOMEM;
}

/* --- text ------------------------------------------------------------------------------------ */

static const char *cgroup_value_text(char *buf, size_t len, uint64_t v) {
        if (v == CGROUP_VALUE_UNKNOWN)
                return "-";
        if (v == CGROUP_VALUE_MAX)
                return "max";
        return format_bytes(buf, len, v);
}

static void print_pods_text(const PodSwap *pods, size_t n) {
        printf("\nContainers:\n");
        if (n == 0) {
                printf("  none found (no kubelet cgroup tree)\n");
                return;
        }
        printf("  %-11s %-11s %-11s %-11s %-11s %-11s %s\n", "QOS", "MEM.MAX", "MEM.CUR", "SWAP.MAX", "SWAP.CUR",
               "ZSWAP.CUR", "CGROUP");
        for (size_t i = 0; i < n; i++) {
                char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX],
                        e[FORMAT_BYTES_MAX];
                printf("  %-11s %-11s %-11s %-11s %-11s %-11s %s\n",
                       pod_qos_to_string(pods[i].qos),
                       cgroup_value_text(a, sizeof a, pods[i].memory_max),
                       cgroup_value_text(b, sizeof b, pods[i].memory_current),
                       cgroup_value_text(c, sizeof c, pods[i].swap_max),
                       cgroup_value_text(d, sizeof d, pods[i].swap_current),
                       cgroup_value_text(e, sizeof e, pods[i].zswap_current),
                       pods[i].name);
        }
}

/* The one-line verdict, also all that -q prints. */
static void print_verdict_line(const StatusVerdict *v) {
        size_t errors = findings_count(&v->findings, SEVERITY_ERROR);
        if (!v->have_policy)
                printf("Verdict:  no policy: nodeswap leaves this node alone\n");
        else if (findings_has(&v->findings, VERDICT_POLICY_UNREADABLE) && errors == 0)
                printf("Verdict:  not judged: this user may not read the whole policy (run as root)\n");
        else if (!v->policy_valid)
                printf("Verdict:  the policy has %zu error%s: not judged (nodeswap check lists them)\n", errors,
                       errors == 1 ? "" : "s");
        else if (findings_has(&v->findings, VERDICT_HOST_UNREADABLE))
                printf("Verdict:  not judged: this user may not read all of the node (run as root)\n");
        else if (errors > 0)
                printf("Verdict:  apply would refuse the policy: %zu error%s (nodeswap check lists them)\n", errors,
                       errors == 1 ? "" : "s");
        else if (v->pending > 0)
                printf("Verdict:  the node differs from the policy: %zu change%s pending (nodeswap plan shows them)\n",
                       v->pending, v->pending == 1 ? "" : "s");
        else
                printf("Verdict:  the node matches the policy\n");
}

static void print_text(const Policy *p, const HostState *h, const PodSwap *pods, size_t n_pods, bool with_pods,
                       const StatusVerdict *v, int verbosity) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX];

        printf("Swap:\n");
        if (h->n_swaps == 0)
                printf("  none\n");
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                printf("  %-28s %-9s %10s  used %10s  priority %6d  owner %s\n",
                       s->path, strempty(swap_kind_to_string(s->kind)),
                       format_bytes(a, sizeof a, s->size), format_bytes(b, sizeof b, s->used),
                       s->priority, owner_text(s->owner));

                if (s->kind == SWAP_KIND_ZRAM) {
                        const ZramDevice *z = host_find_zram(h, s->zram_id);
                        if (!z)
                                continue;
                        printf("      algorithm %s", z->algorithm ?: "unknown");
                        if (z->compr_data_size > 0)
                                printf(", %s stored in %s (%.1f:1)",
                                       format_bytes(a, sizeof a, z->orig_data_size),
                                       format_bytes(b, sizeof b, z->compr_data_size), zram_ratio(z));
                        printf(", RAM used %s%s%s\n", format_bytes(c, sizeof c, z->mem_used_total),
                               z->mem_limit ? " of at most " : "",
                               z->mem_limit ? format_bytes(a, sizeof a, z->mem_limit) : "");
                        printf("      this RAM is charged to no cgroup: no pod's memory limit accounts for it\n");
                        if (z->wb.backing_dev) {
                                printf("      writeback to %s: %s written back, %s kept there, %s read back",
                                       z->wb.backing_dev, format_bytes(a, sizeof a, z->bd_writes),
                                       format_bytes(b, sizeof b, z->bd_count), format_bytes(c, sizeof c, z->bd_reads));
                                if (z->wb.writeback_limit_enabled)
                                        printf("; %s left of the day's limit",
                                               format_bytes(a, sizeof a, z->wb.writeback_limit));
                                putchar('\n');
                        }
                } else if (s->kind == SWAP_KIND_FILE) {
                        const SwapFileState *f = file_state_for(p, h, s);
                        const char *kind = f ? storage_kind_to_string(f->storage) : NULL;
                        printf("      on %s storage%s%s%s\n", kind ?: "unknown",
                               f && f->storage_device ? " (" : "",
                               f && f->storage_device ? f->storage_device : "",
                               f && f->storage_device ? ")" : "");
                }
        }
        printf("  total %s, free %s; RAM %s, available %s", format_bytes(a, sizeof a, h->swap_total),
               format_bytes(b, sizeof b, h->swap_free), format_bytes(c, sizeof c, h->mem_total),
               format_bytes(d, sizeof d, h->mem_available));
        uint64_t zused = zram_mem_used(h);
        if (zused > 0)
                printf("; zram holds %s of RAM", format_bytes(a, sizeof a, zused));
        printf("\n  page size %s (swap headers are written for it)\n", format_bytes(a, sizeof a, h->page_size));

        zswap_print_text(stdout, &h->zswap);

        printf("\nSysctl:\n");
        if (h->swappiness >= 0)
                printf("  vm.swappiness   %d\n", h->swappiness);
        else
                printf("  vm.swappiness   unreadable\n");
        if (h->page_cluster >= 0)
                printf("  vm.page-cluster %d\n", h->page_cluster);
        else
                printf("  vm.page-cluster unreadable\n");

        KubeletEffective eff;
        kubelet_config_effective(&h->kubelet, NULL, NULL, &eff);
        _cleanup_free_ char *src = kubelet_source(eff.swap_behavior_from, eff.swap_behavior_from ?
                                                  eff.swap_behavior_from->swap_behavior_line : 0);
        printf("\nKubelet:\n");
        printf("  unit            %s%s\n", h->kubelet_unit ?: "none found",
               !h->kubelet_unit ? "" : h->kubelet_active > 0 ? " (active)" :
               h->kubelet_active == 0 ? " (inactive)" : "");
        printf("  drop-in         %s%s\n", strempty(h->dropin_path ?: p->dropin), h->dropin ? "" : " (absent)");
        if (eff.swap_behavior_unknown)
                printf("  swapBehavior    %s from %s: not NoSwap or LimitedSwap, the kubelet refuses it\n",
                       eff.swap_behavior_value, strempty(src));
        else if (!eff.swap_behavior_from)
                printf("  swapBehavior    NoSwap (the kubelet's default: no file sets it)\n");
        else
                printf("  swapBehavior    %s from %s%s\n",
                       swap_behavior_to_string(eff.swap_behavior == SWAP_BEHAVIOR_UNSET ? SWAP_BEHAVIOR_NO_SWAP
                                                                                         : eff.swap_behavior),
                       strempty(src), eff.swap_behavior == SWAP_BEHAVIOR_UNSET ? " (empty: the default)" : "");
        if (eff.fail_swap_on_flag || (eff.fail_swap_on && eff.fail_swap_on_from)) {
                _cleanup_free_ char *fsrc = kubelet_fail_swap_on_source(&eff);
                printf("  failSwapOn      %s from %s%s\n", eff.fail_swap_on ? "true" : "false", strempty(fsrc),
                       eff.fail_swap_on ? ": the kubelet does not start while the node has swap" : "");
        }
        if (h->kubelet.config_dir)
                printf("  drop-in dir     %s%s\n", h->kubelet.config_dir,
                       h->kubelet.config_dir_error ? " (cannot be read: the kubelet does not start)" : "");
        _cleanup_strv_free_ char **flags = NULL;
        if (kubelet_decided_flags(&h->kubelet, &flags) >= 0)
                for (char **f = flags; f && *f; f++)
                        printf("  flag            %s\n", *f);
        for (size_t i = 0; i < h->kubelet.n_files; i++) {
                const KubeletConfigFile *f = &h->kubelet.files[i];
                if (!f->invalid)
                        continue;
                _cleanup_free_ char *isrc = kubelet_source(f, f->invalid_line);
                printf("  invalid file    %s: %s (the kubelet does not start)\n", strempty(isrc), f->invalid_reason);
        }
        printf("  cgroup          %s%s\n", strempty(cgroup_mode_to_string(h->cgroup)),
               cgroup_mode_is_v1(h->cgroup) ? " (LimitedSwap needs v2)" : "");
        if (kubelet_capacity_stale(h) > 0)
                printf("  swap capacity   stale: the unit started before the last swap change; restart it\n");
        printf("  PSI             %s\n", h->psi ? "on" : "off");

        printf("\nConflict units:\n");
        size_t shown = 0;
        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                if (!u->exists && !u->masked)
                        continue;
                printf("  %-36s %s%s\n", u->name,
                       u->masked ? (u->masked_runtime ? "masked (runtime, by nodeswap)" : "masked") : "not masked",
                       u->active > 0 ? ", active" : "");
                shown++;
        }
        if (shown == 0)
                printf("  none present\n");

        if (h->rpi_swap.installed) {
                _cleanup_strv_free_ char **names = NULL;
                size_t n = 0, masked = 0;
                if (rpi_swap_units(&h->rpi_swap, p->file.path, &names) >= 0)
                        for (size_t i = 0; i < h->n_units; i++)
                                if (strv_contains(names, h->units[i].name)) {
                                        n++;
                                        masked += h->units[i].masked;
                                }
                printf("\nRaspberry Pi OS rpi-swap:\n");
                printf("  mechanism       %s (%s%s)\n", rpi_swap_mechanism_to_string(h->rpi_swap.mechanism),
                       h->rpi_swap.mechanism_source ? "Mechanism= in " : "the default",
                       strempty(h->rpi_swap.mechanism_source));
                printf("  swap file       %s\n", strempty(h->rpi_swap.path));
                printf("  its units       %zu of %zu masked%s\n", masked, n,
                       h->state.reverted ? " (nodeswap is reverted: rpi-swap runs the swap)"
                       : masked == n && n > 0 ? " (kept off while nodeswap is in charge)" : "");
        }

        if (h->n_recorded_files > 0) {
                printf("\nSwap files nodeswap created:\n");
                for (size_t i = 0; i < h->n_recorded_files; i++) {
                        const RecordedSwapFile *f = &h->recorded_files[i];
                        bool current = streq_ptr(f->path, p->file.path);
                        const char *st = recorded_file_state(f);
                        printf("  %-36s %s%s\n", f->path, st,
                               streq(st, "not-regular") || streq(st, "unlabelled") ? " (left alone, never deleted)"
                               : streq(st, "gone")                                 ? " (forgotten by the next apply)"
                               : current                                           ? " (the policy's Path=)"
                                         : " (no longer the policy's Path=: the next apply deletes it)");
                }
        }

        printf("\nReverted: %s\n", h->state.reverted ? "yes (nodeswap revert ran last; nodeswap apply undoes it)" : "no");
        if (h->state.last_run_usec > 0) {
                _cleanup_free_ char *t = format_usec(h->state.last_run_usec);
                printf("Last run: %s at %s, %s\n", h->state.last_run_revert ? "revert" : "apply", strempty(t),
                       h->state.last_run_failed ? "failed (journalctl -u nodeswap, or run nodeswap apply)" : "ok");
        } else
                printf("Last run: %s\n", h->state.unreadable ? "unknown (nodeswap's records are unreadable for this user)"
                                                              : "none recorded");
        if (strv_length(p->files) == 0)
                printf("Policy:   none (nodeswap leaves this node alone)\n");
        else {
                _cleanup_free_ char *list = strv_join(p->files, " ");
                printf("Policy:   %s\n", strempty(list));
        }

        print_verdict_line(v);
        bool any = false, color = colors_enabled(STDOUT_FILENO);
        for (size_t i = 0; i < v->findings.n; i++) {
                if (verbosity <= 0 && v->findings.f[i].severity == SEVERITY_INFO)
                        continue;
                if (!any)
                        printf("\nFindings:\n");
                finding_print(stdout, &v->findings.f[i], color);
                any = true;
        }

        if (with_pods)
                print_pods_text(pods, n_pods);
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

        if (c->json) {
                r = print_json(&p, &h, pods, n_pods, c->pods, &v);
                if (r < 0)
                        log_error_errno(r, "Failed to build the JSON output: %m");
        } else if (c->verbosity < 0) {
                print_verdict_line(&v);
                r = 0;
        } else {
                if (c->verbosity > 0)
                        explain_print(stdout, &p, &h, false);
                print_text(&p, &h, pods, n_pods, c->pods, &v, c->verbosity);
                r = 0;
        }

        pod_swaps_free(pods, n_pods);
        findings_done(&v.findings);
        host_state_done(&h);
        policy_done(&p);
        return r < 0 ? EXIT_FAIL : EXIT_OK;
}
