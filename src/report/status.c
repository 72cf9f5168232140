/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodeswap status as text and as JSON, both rendered from one StatusModel (report/status.h). */
#include "report/status.h"
#include "probe/iolatency.h"

#include "probe/crypt.h"

#include <time.h>

#include "plan/allowance.h"
#include "plan/kubelet.h"
#include "plan/noswap.h"
#include "report/json.h"
#include "report/pressure.h"
#include "report/zswap.h"

/* --- the model ------------------------------------------------------------------------------- */

static const char *recorded_file_state(const RecordedSwapFile *f) {
        return !f->exists ? "gone" : !f->is_regular ? "not-regular" : !f->labelled ? "unlabelled"
                                                                    : f->swap_on ? "on" : "off";
}

static double zram_ratio(const ZramDevice *z) {
        return z->compr_data_size > 0 ? (double) z->orig_data_size / (double) z->compr_data_size : 0.0;
}

/* The storage under a swap file, when it is the policy's file (the only one probed). */
static const SwapFileState *file_state_for(const StatusModel *m, const SwapDevice *s) {
        if (s->kind != SWAP_KIND_FILE || !m->policy->file.path || !streq(m->policy->file.path, s->path))
                return NULL;
        return &m->host->file;
}

/* The kubelet's effective swapBehavior as JSON shows it: "LimitedSwap", "NoSwap", "invalid" (a
 * value the kubelet refuses), NULL when no file sets it (the default, NoSwap). */
static const char *effective_text(const KubeletEffective *e) {
        if (e->swap_behavior_unknown)
                return "invalid";
        return e->swap_behavior == SWAP_BEHAVIOR_UNSET ? NULL : swap_behavior_to_string(e->swap_behavior);
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

/* 1 matches, 0 differs, -1 unknown (no policy, or an invalid one). */
static int status_matches(const StatusVerdict *v) {
        if (!v->have_policy || !v->policy_valid || findings_has(&v->findings, VERDICT_HOST_UNREADABLE))
                return -1;
        return v->pending == 0 && findings_count(&v->findings, SEVERITY_ERROR) == 0;
}

static int format_usec(uint64_t usec, char **ret) {
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;
        char buf[64];
        if (!gmtime_r(&t, &tm) || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0) {
                *ret = NULL;    /* a time gmtime() cannot show: JSON null, text "" */
                return 0;
        }
        *ret = strdup(buf);
        return *ret ? 0 : -ENOMEM;
}

/* "FILE:LINE" of a kubelet value, NULL for the default (no file). */
static int kubelet_source_of(const KubeletConfigFile *f, unsigned line, char **ret) {
        *ret = f ? kubelet_source(f, line) : NULL;
        return f && !*ret ? -ENOMEM : 0;
}

/* Each container against its allowance and the node's density (issue 26). */
static int status_model_containers(StatusModel *m) {
        const HostState *h = m->host;
        m->needs = calloc(m->n_pods + 1, sizeof(ContainerNeed));
        if (!m->needs)
                return -ENOMEM;
        for (size_t i = 0; i < m->n_pods; i++) {
                int r = allowance_container(&m->pods[i], h->mem_total, h->swap_total, h->page_size, &m->needs[i]);
                if (r < 0)
                        return r;
        }
        int r = allowance_density(h, m->pods, m->n_pods, &m->density);
        if (r < 0)
                return r;
        m->density_known = true;
        return 0;
}

int status_model_build(const Policy *p, const HostState *h, const StatusVerdict *v, const PodSwap *pods,
                       size_t n_pods, bool with_pods, StatusModel *ret) {
        StatusModel m = {
                .policy = p,
                .host = h,
                .verdict = v,
                .pods = pods,
                .n_pods = n_pods,
                .with_pods = with_pods,
                .zram_mem_used = zram_mem_used(h),
                .matches = status_matches(v),
        };
        int r;

        kubelet_config_effective(&h->kubelet, NULL, NULL, &m.kubelet);
        const KubeletEffective *e = &m.kubelet;
        if ((r = kubelet_source_of(e->swap_behavior_from, e->swap_behavior_from ? e->swap_behavior_from->swap_behavior_line : 0,
                                   &m.swap_behavior_source)) < 0 ||
            kubelet_decided_flags(&h->kubelet, &m.kubelet_flags) < 0 ||
            (h->state.last_run_usec > 0 && (r = format_usec(h->state.last_run_usec, &m.last_run_time)) < 0))
                goto fail;
        /* a flag (and the file that carries it) or FILE:LINE; NULL for the kubelet's default */
        if (e->fail_swap_on_flag || e->fail_swap_on_from) {
                m.fail_swap_on_source = kubelet_fail_swap_on_source(e);
                if (!m.fail_swap_on_source) {
                        r = -ENOMEM;
                        goto fail;
                }
        }

        m.memory_eviction_source = kubelet_memory_eviction_source(e);
        if (!m.memory_eviction_source) {
                r = -ENOMEM;
                goto fail;
        }

        if (h->rpi_swap.installed) {
                r = rpi_swap_units(&h->rpi_swap, p->file.path, &m.rpi_units);
                if (r < 0)
                        goto fail;
                for (size_t i = 0; i < h->n_units; i++)
                        if (strv_contains(m.rpi_units, h->units[i].name)) {
                                m.rpi_units_present++;
                                m.rpi_units_masked += h->units[i].masked;
                        }
        }
        if (with_pods && h->mem_total > 0) {
                r = status_model_containers(&m);
                if (r < 0)
                        goto fail;
        }
        *ret = m;
        return 0;

fail:
        status_model_done(&m);
        return r;
}

void status_model_done(StatusModel *m) {
        free(m->swap_behavior_source);
        free(m->fail_swap_on_source);
        free(m->memory_eviction_source);
        strv_free(m->kubelet_flags);
        strv_free(m->rpi_units);
        free(m->last_run_time);
        free(m->needs);
        *m = (StatusModel) {};
}

/* --- text ------------------------------------------------------------------------------------ */

static const char *owner_text(SwapOwner o) {
        switch (o) {
        case SWAP_OWNER_NODESWAP: return "nodeswap";
        case SWAP_OWNER_CONFLICT: return "distro (conflict)";
        default:                  return "other";
        }
}

static void print_zram_text(FILE *f, const ZramDevice *z) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX];

        fprintf(f, "      algorithm %s", z->algorithm ?: "unknown");
        if (z->compr_data_size > 0)
                fprintf(f, ", %s stored in %s (%.1f:1)", format_bytes(a, sizeof a, z->orig_data_size),
                        format_bytes(b, sizeof b, z->compr_data_size), zram_ratio(z));
        fprintf(f, ", RAM used %s%s%s\n", format_bytes(c, sizeof c, z->mem_used_total),
                z->mem_limit ? " of at most " : "", z->mem_limit ? format_bytes(a, sizeof a, z->mem_limit) : "");
        fprintf(f, "      this RAM is charged to no cgroup: no pod's memory limit accounts for it\n");
        if (z->wb.backing_dev) {
                fprintf(f, "      writeback to %s: %s written back, %s kept there, %s read back", z->wb.backing_dev,
                        format_bytes(a, sizeof a, z->bd_writes), format_bytes(b, sizeof b, z->bd_count),
                        format_bytes(c, sizeof c, z->bd_reads));
                if (z->wb.writeback_limit_enabled)
                        fprintf(f, "; %s left of the day's limit", format_bytes(a, sizeof a, z->wb.writeback_limit));
                fputc('\n', f);
                /* As for a swap file on a disk (print_encryption_text()): from nodeswap's own
                 * definition, never the kernel's table, which carries the key. */
                if (z->wb.backing_encrypted)
                        fprintf(f, "      writeback file %s encrypted: dm-crypt %s-%s, %d-bit key, ephemeral (made at "
                                "setup, never stored); loop device %s\n", z->wb.backing_file, CRYPT_CIPHER,
                                CRYPT_CIPHER_MODE, CRYPT_KEY_BYTES * 8,
                                z->wb.backing_dio ? "with direct I/O" : "WITHOUT direct I/O");
                else
                        fprintf(f, "      writeback not encrypted: pages written back stay readable on the disk\n");
        }
}

/* A swap area on a disk: encrypted through nodeswap's mapping, with the parameters nodeswap makes
 * it with (probe/crypt.h: read from nodeswap's own definition, so that status never asks the kernel
 * for the table, which carries the key), or in clear. zram keeps its pages in RAM: nothing said. */
static void print_encryption_text(FILE *f, const SwapDevice *s) {
        if (s->kind == SWAP_KIND_ZRAM)
                return;
        if (s->encrypted)
                fprintf(f, "      encrypted: dm-crypt %s-%s, %d-bit key, ephemeral (made at setup, never stored); "
                        "mapping %s, loop device %s\n", CRYPT_CIPHER, CRYPT_CIPHER_MODE, CRYPT_KEY_BYTES * 8,
                        strempty(s->mapping), s->loop_dio ? "with direct I/O" : "WITHOUT direct I/O");
        else
                fprintf(f, "      not encrypted: swapped-out pages stay readable on the disk\n");
}

static void print_swaps_text(FILE *f, const StatusModel *m) {
        const HostState *h = m->host;
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX];

        fprintf(f, "Swap:\n");
        if (h->n_swaps == 0)
                fprintf(f, "  none\n");
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                fprintf(f, "  %-28s %-9s %10s  used %10s  priority %6d  owner %s\n", s->path,
                        strempty(swap_kind_to_string(s->kind)), format_bytes(a, sizeof a, s->size),
                        format_bytes(b, sizeof b, s->used), s->priority, owner_text(s->owner));

                if (s->kind == SWAP_KIND_ZRAM) {
                        const ZramDevice *z = host_find_zram(h, s->zram_id);
                        if (z)
                                print_zram_text(f, z);
                } else if (s->kind == SWAP_KIND_FILE) {
                        const SwapFileState *fs = file_state_for(m, s);
                        const char *kind = fs ? storage_kind_to_string(fs->storage) : NULL;
                        bool dev = fs && fs->storage_device;
                        fprintf(f, "      on %s storage%s%s%s\n", kind ?: "unknown", dev ? " (" : "",
                                dev ? fs->storage_device : "", dev ? ")" : "");
                }
                print_encryption_text(f, s);
        }
        fprintf(f, "  total %s, free %s; RAM %s, available %s", format_bytes(a, sizeof a, h->swap_total),
                format_bytes(b, sizeof b, h->swap_free), format_bytes(c, sizeof c, h->mem_total),
                format_bytes(d, sizeof d, h->mem_available));
        if (m->zram_mem_used > 0)
                fprintf(f, "; zram holds %s of RAM", format_bytes(a, sizeof a, m->zram_mem_used));
        fprintf(f, "\n  page size %s (swap headers are written for it)\n", format_bytes(a, sizeof a, h->page_size));
}

static void print_sysctl_text(FILE *f, const HostState *h) {
        fprintf(f, "\nSysctl:\n");
        if (h->swappiness >= 0)
                fprintf(f, "  vm.swappiness   %d\n", h->swappiness);
        else
                fprintf(f, "  vm.swappiness   unreadable\n");
        if (h->page_cluster >= 0)
                fprintf(f, "  vm.page-cluster %d\n", h->page_cluster);
        else
                fprintf(f, "  vm.page-cluster unreadable\n");
}

/* The reclaim headroom (issue 38): vm.min_free_kbytes, vm.watermark_scale_factor and, beside them,
 * each zone's free pages and min/low/high watermarks from /proc/zoneinfo (kswapd wakes below low
 * and reclaims to high; allocations below min reclaim directly, then the OOM killer acts). */
static void print_reclaim_text(FILE *f, const HostState *h) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX];
        fprintf(f, "\nReclaim headroom:\n");
        if (h->min_free_kbytes >= 0)
                fprintf(f, "  vm.min_free_kbytes        %d (%s)", h->min_free_kbytes,
                        format_bytes(a, sizeof a, (uint64_t) h->min_free_kbytes * 1024));
        else
                fprintf(f, "  vm.min_free_kbytes        unreadable");
        if (h->min_free_kbytes >= 0 && h->state.set_min_free_kbytes >= 0 && h->min_free_kbytes != h->state.set_min_free_kbytes)
                fprintf(f, "; nodeswap set %d, rewritten since%s", h->state.set_min_free_kbytes,
                        h->thp_enabled > 0 ? " (khugepaged raises it when transparent huge pages are enabled)" : "");
        fputc('\n', f);
        if (h->watermark_scale_factor >= 0)
                fprintf(f, "  vm.watermark_scale_factor %d (low and high each %d.%02d %% of RAM above the last, "
                        "at least min/4)\n", h->watermark_scale_factor, h->watermark_scale_factor / 100,
                        h->watermark_scale_factor % 100);
        else
                fprintf(f, "  vm.watermark_scale_factor unreadable\n");
        uint64_t t[4] = {};
        for (size_t i = 0; i < h->n_zones; i++) {
                const ZoneWatermarks *z = &h->zones[i];
                fprintf(f, "  node %d %-8s free %-10s min %-10s low %-10s high %s\n", z->node, z->name,
                        format_bytes(a, sizeof a, z->free * h->page_size),
                        format_bytes(b, sizeof b, z->min * h->page_size),
                        format_bytes(c, sizeof c, z->low * h->page_size),
                        format_bytes(d, sizeof d, z->high * h->page_size));
                t[0] += z->free;
                t[1] += z->min;
                t[2] += z->low;
                t[3] += z->high;
        }
        if (h->n_zones > 1)
                fprintf(f, "  all zones       free %-10s min %-10s low %-10s high %s\n",
                        format_bytes(a, sizeof a, t[0] * h->page_size), format_bytes(b, sizeof b, t[1] * h->page_size),
                        format_bytes(c, sizeof c, t[2] * h->page_size), format_bytes(d, sizeof d, t[3] * h->page_size));
        else if (h->n_zones == 0)
                fprintf(f, "  zones           /proc/zoneinfo unreadable\n");
}

/* The same as JSON: min_free_kbytes, watermark_scale_factor (null: unreadable), zones[]. */
static int reclaim_to_json(const HostState *h, json_object *o) {
        _cleanup_json_ json_object *zones = json_object_new_array();
        if (!zones)
                return -ENOMEM;
        for (size_t i = 0; i < h->n_zones; i++) {
                const ZoneWatermarks *z = &h->zones[i];
                _cleanup_json_ json_object *j = json_object_new_object();
                if (!j ||
                    json_add_int(j, "node", z->node) < 0 ||
                    json_add_string(j, "zone", z->name) < 0 ||
                    json_add_u64(j, "free", z->free * h->page_size) < 0 ||
                    json_add_u64(j, "min", z->min * h->page_size) < 0 ||
                    json_add_u64(j, "low", z->low * h->page_size) < 0 ||
                    json_add_u64(j, "high", z->high * h->page_size) < 0 ||
                    json_add_u64(j, "managed", z->managed * h->page_size) < 0 ||
                    json_append(zones, TAKE_PTR(j)) < 0)
                        return -ENOMEM;
        }
        if ((h->min_free_kbytes >= 0 ? json_add_int(o, "min_free_kbytes", h->min_free_kbytes)
                                     : json_add_null(o, "min_free_kbytes")) < 0 ||
            (h->state.set_min_free_kbytes >= 0 ? json_add_int(o, "min_free_kbytes_set", h->state.set_min_free_kbytes)
                                               : json_add_null(o, "min_free_kbytes_set")) < 0 ||
            (h->watermark_scale_factor >= 0 ? json_add_int(o, "watermark_scale_factor", h->watermark_scale_factor)
                                            : json_add_null(o, "watermark_scale_factor")) < 0 ||
            json_add(o, "zones", TAKE_PTR(zones)) < 0)
                return -ENOMEM;
        return 0;
}

static void print_kubelet_text(FILE *f, const StatusModel *m) {
        const HostState *h = m->host;
        const KubeletEffective *eff = &m->kubelet;
        const char *src = strempty(m->swap_behavior_source);

        fprintf(f, "\nKubelet:\n");
        fprintf(f, "  unit            %s%s\n", h->kubelet_unit ?: "none found",
                !h->kubelet_unit ? "" : h->kubelet_active > 0 ? " (active)" :
                h->kubelet_active == 0 ? " (inactive)" : "");
        fprintf(f, "  drop-in         %s%s\n", strempty(h->dropin_path ?: m->policy->dropin), h->dropin ? "" : " (absent)");
        if (eff->swap_behavior_unknown)
                fprintf(f, "  swapBehavior    %s from %s: not NoSwap or LimitedSwap, the kubelet refuses it\n",
                        eff->swap_behavior_value, src);
        else if (!eff->swap_behavior_from)
                fprintf(f, "  swapBehavior    NoSwap (the kubelet's default: no file sets it)\n");
        else
                fprintf(f, "  swapBehavior    %s from %s%s\n",
                        swap_behavior_to_string(eff->swap_behavior == SWAP_BEHAVIOR_UNSET ? SWAP_BEHAVIOR_NO_SWAP
                                                                                           : eff->swap_behavior),
                        src, eff->swap_behavior == SWAP_BEHAVIOR_UNSET ? " (empty: the default)" : "");
        if (eff->fail_swap_on_flag || (eff->fail_swap_on && eff->fail_swap_on_from))
                fprintf(f, "  failSwapOn      %s from %s%s%s\n", eff->fail_swap_on ? "true" : "false",
                        strempty(m->fail_swap_on_source),
                        kubelet_fail_swap_on_null(eff) ? " (null: the kubelet's default)" : "",
                        eff->fail_swap_on ? ": the kubelet does not start while the node has swap" : "");
        uint64_t threshold = 0;
        const char *why = NULL;
        int t = eff->memory_available ? kubelet_threshold_parse(eff->memory_available, h->mem_total, &threshold, &why) : 0;
        if (t < 0)
                fprintf(f, "  memory eviction memory.available<%s from %s: %s, the kubelet does not start\n",
                        eff->memory_available, strempty(m->memory_eviction_source), strempty(why));
        else if (eff->memory_available && strchr(eff->memory_available, '%')) {
                char b[32], total[32];
                fprintf(f, "  memory eviction memory.available<%s (%s of MemTotal %s) from %s\n", eff->memory_available,
                        format_bytes(b, sizeof b, threshold), format_bytes(total, sizeof total, h->mem_total),
                        strempty(m->memory_eviction_source));
        } else if (eff->memory_available)
                fprintf(f, "  memory eviction memory.available<%s from %s\n", eff->memory_available,
                        strempty(m->memory_eviction_source));
        else if (!eff->eviction_hard_flag && !eff->eviction_hard_from)
                fprintf(f, "  memory eviction none: no --config file (the kubelet's default evictionHard comes "
                        "with one only) and no file or flag sets memory.available (the OOM killer decides)\n");
        else
                fprintf(f, "  memory eviction none: %s sets evictionHard without memory.available (the OOM "
                        "killer decides)\n", strempty(m->memory_eviction_source));
        if (h->kubelet.version.text)
                fprintf(f, "  version         %s (from %s): drop-ins merged the %s way\n", h->kubelet.version.text,
                        h->kubelet.version.path,
                        kubelet_config_rule(&h->kubelet) == KUBELET_MERGE_LEGACY ? "1.30-1.31" : "1.32+");
        else if (h->kubelet_unit)
                fprintf(f, "  version         unknown: drop-ins read the 1.32+ way\n");
        if (h->kubelet.config_file_missing)
                fprintf(f, "  config file     %s (missing: the kubelet does not start)\n", h->kubelet.config_file);
        if (h->kubelet.config_dir)
                fprintf(f, "  drop-in dir     %s%s\n", h->kubelet.config_dir,
                        h->kubelet.config_dir_error ? " (cannot be read: the kubelet does not start)" : "");
        const KubeletFlag *copies[] = { &h->kubelet.flags.k3s_config, &h->kubelet.flags.k3s_config_dir };
        for (size_t i = 0; i < ELEMENTSOF(copies); i++)
                if (copies[i]->name && h->kubelet.config_dir && !startswith(copies[i]->value, h->kubelet.config_dir))
                        /* k3s's extractConfigArgs(): read as drop-ins, never as --config (kubelet-config.h) */
                        fprintf(f, "  k3s copies      %s to %s/%s before every start (kubelet-arg %s= in %s:%u)\n",
                                copies[i]->value, h->kubelet.config_dir, i == 0 ? "10-cli-config.conf" : "20-cli-config-dir/",
                                copies[i]->name, copies[i]->file, copies[i]->line);
        for (char **fl = m->kubelet_flags; fl && *fl; fl++)
                fprintf(f, "  flag            %s\n", *fl);
        for (size_t i = 0; i < h->kubelet.n_files; i++) {
                const KubeletConfigFile *kf = &h->kubelet.files[i];
                if (!kf->invalid)
                        continue;
                _cleanup_free_ char *isrc = kubelet_source(kf, kf->invalid_line);
                fprintf(f, "  invalid file    %s: %s (the kubelet does not start)\n", strempty(isrc), kf->invalid_reason);
        }
        fprintf(f, "  cgroup          %s%s\n", strempty(cgroup_mode_to_string(h->cgroup)),
                cgroup_mode_is_v1(h->cgroup) ? " (LimitedSwap needs v2)" : "");
        if (kubelet_capacity_stale(h) > 0)
                fprintf(f, "  swap capacity   stale: the unit started before the last swap change; restart it\n");
        fprintf(f, "  PSI             %s\n", h->psi ? "on" : "off");
}

static void print_units_text(FILE *f, const StatusModel *m) {
        const HostState *h = m->host;
        size_t shown = 0;

        fprintf(f, "\nConflict units:\n");
        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                if (!u->exists && !u->masked)
                        continue;
                fprintf(f, "  %-36s %s%s\n", u->name,
                        u->masked ? (u->masked_runtime ? "masked (runtime, by nodeswap)" : "masked") : "not masked",
                        u->active > 0 ? ", active" : "");
                shown++;
        }
        if (shown == 0)
                fprintf(f, "  none present\n");

        if (!h->rpi_swap.installed)
                return;
        size_t n = m->rpi_units_present, masked = m->rpi_units_masked;
        fprintf(f, "\nRaspberry Pi OS rpi-swap:\n");
        fprintf(f, "  mechanism       %s (%s%s)\n", rpi_swap_mechanism_to_string(h->rpi_swap.mechanism),
                h->rpi_swap.mechanism_source ? "Mechanism= in " : "the default", strempty(h->rpi_swap.mechanism_source));
        fprintf(f, "  swap file       %s\n", strempty(h->rpi_swap.path));
        fprintf(f, "  its units       %zu of %zu masked%s\n", masked, n,
                h->state.reverted ? " (nodeswap is reverted: rpi-swap runs the swap)"
                : masked == n && n > 0 ? " (kept off while nodeswap is in charge)" : "");
}

/* [Kubelet] NoSwapUnits=: who keeps each unit out of swap, if anyone. */
static const char *no_swap_by(const StatusModel *m, const NoSwapUnit *u) {
        if (u->operator_where)
                return "operator";
        if ((u->recorded && u->control_zero) || u->generator_dropin)
                return "nodeswap";
        return NULL;
}

static void print_no_swap_text(FILE *f, const StatusModel *m) {
        const HostState *h = m->host;
        if (h->n_no_swap_units == 0)
                return;
        fprintf(f, "\nKept out of swap ([Kubelet] NoSwapUnits=):\n");
        for (size_t i = 0; i < h->n_no_swap_units; i++) {
                const NoSwapUnit *u = &h->no_swap_units[i];
                _cleanup_free_ char *now = no_swap_now(u);
                const char *by = no_swap_by(m, u);
                fprintf(f, "  %-36s %s", u->name, strempty(now));
                if (by && streq(by, "operator"))
                        fprintf(f, " (MemorySwapMax=%s in %s)", strempty(u->operator_value), u->operator_where);
                else if (by)
                        fprintf(f, " (MemorySwapMax=0 by nodeswap)");
                else
                        fprintf(f, " (%s)", !u->listed       ? "not kept out"
                                            : u->loaded == 0 ? "not found by systemd"
                                                             : "not yet: nodeswap apply sets MemorySwapMax=0");
                fprintf(f, "%s\n", u->kubelet ? ", the kubelet's unit" : "");
        }
}

/* [Kubelet] IOLatencyTargetSec=: the disk swap shares with the daemons and system.slice's target
 * on it. Nothing when swap shares no disk with them and nodeswap set no target. */
static void print_io_latency_text(FILE *f, const StatusModel *m) {
        const HostState *h = m->host;
        const IoLatencyState *s = &h->io_latency;
        const NodeswapState *st = &h->state;
        if (!s->probed || (!s->shared_disk && st->io_latency_usec == 0))
                return;
        fprintf(f, "\nThe daemons' I/O ([Kubelet] IOLatencyTargetSec=):\n");
        if (s->shared_disk)
                fprintf(f, "  swap shares      %s (%u:%u%s) with %s\n", s->shared_disk, s->major, s->minor,
                        s->rotational == 1 ? ", rotational" : "", s->shared_path);
        if (h->cgroup != CGROUP_V2 || !s->io_controller) {
                fprintf(f, "  io.latency       none: %s\n",
                        h->cgroup == CGROUP_V2        ? "the io controller is not enabled"
                        : h->cgroup == CGROUP_UNKNOWN ? "no cgroup file system at /sys/fs/cgroup"
                                                      : "cgroup v1, io.latency is cgroup v2's");
                return;
        }
        if (s->kernel == 0) {
                fprintf(f, "  io.latency       none: the kernel has none (CONFIG_BLK_CGROUP_IOLATENCY, %s)\n",
                        s->kernel_from);
                return;
        }
        unsigned ma = st->io_latency_usec ? st->io_latency_major : s->major;
        unsigned mi = st->io_latency_usec ? st->io_latency_minor : s->minor;
        uint64_t now = 0;
        if (!s->current || io_latency_parse(s->current, ma, mi, &now) < 0)
                now = 0;
        if (now)
                fprintf(f, "  io.latency       " IO_LATENCY_SLICE " %u:%u target=%" PRIu64 "us%s\n", ma, mi, now,
                        st->io_latency_usec == now ? " (by nodeswap)" : "");
        else
                fprintf(f, "  io.latency       " IO_LATENCY_SLICE " no target on %u:%u%s\n", ma, mi,
                        !s->current ? " (no io.latency: the slice has no io controller yet)" : "");
}

static void print_recorded_text(FILE *f, const StatusModel *m) {
        const HostState *h = m->host;
        if (h->n_recorded_files == 0)
                return;
        fprintf(f, "\nSwap files nodeswap created:\n");
        for (size_t i = 0; i < h->n_recorded_files; i++) {
                const RecordedSwapFile *rf = &h->recorded_files[i];
                bool current = streq_ptr(rf->path, m->policy->file.path);
                const char *st = recorded_file_state(rf);
                fprintf(f, "  %-36s %s%s\n", rf->path, st,
                        streq(st, "not-regular") || streq(st, "unlabelled") ? " (left alone, never deleted)"
                        : streq(st, "gone")                                 ? " (forgotten by the next apply)"
                        : current                                           ? " (the policy's Path=)"
                                  : " (no longer the policy's Path=: the next apply deletes it)");
        }
}

static void print_runs_text(FILE *f, const StatusModel *m) {
        const HostState *h = m->host;
        fprintf(f, "\nReverted: %s\n", h->state.reverted ? "yes (nodeswap revert ran last; nodeswap apply undoes it)" : "no");
        if (h->state.last_run_usec > 0)
                fprintf(f, "Last run: %s at %s, %s\n", h->state.last_run_revert ? "revert" : "apply",
                        strempty(m->last_run_time),
                        h->state.last_run_failed ? "failed (journalctl -u nodeswap, or run nodeswap apply)" : "ok");
        else
                fprintf(f, "Last run: %s\n", h->state.unreadable ? "unknown (nodeswap's records are unreadable for this user)"
                                                                 : "none recorded");
        if (strv_length(m->policy->files) == 0)
                fprintf(f, "Policy:   none (nodeswap leaves this node alone)\n");
        else {
                _cleanup_free_ char *list = strv_join(m->policy->files, " ");
                fprintf(f, "Policy:   %s\n", strempty(list));
        }
}

static const char *cgroup_value_text(char *buf, size_t len, uint64_t v) {
        if (v == CGROUP_VALUE_UNKNOWN)
                return "-";
        if (v == CGROUP_VALUE_MAX)
                return "max";
        return format_bytes(buf, len, v);
}

static void print_pods_text(FILE *f, const PodSwap *pods, size_t n) {
        fprintf(f, "\nContainers:\n");
        if (n == 0) {
                fprintf(f, "  none found (no kubelet cgroup tree)\n");
                return;
        }
        fprintf(f, "  %-11s %-11s %-11s %-11s %-11s %-11s %s\n", "QOS", "MEM.MAX", "MEM.CUR", "SWAP.MAX", "SWAP.CUR",
                "ZSWAP.CUR", "CGROUP");
        for (size_t i = 0; i < n; i++) {
                char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], c[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX],
                        e[FORMAT_BYTES_MAX];
                fprintf(f, "  %-11s %-11s %-11s %-11s %-11s %-11s %s\n", pod_qos_to_string(pods[i].qos),
                        cgroup_value_text(a, sizeof a, pods[i].memory_max),
                        cgroup_value_text(b, sizeof b, pods[i].memory_current),
                        cgroup_value_text(c, sizeof c, pods[i].swap_max),
                        cgroup_value_text(d, sizeof d, pods[i].swap_current),
                        cgroup_value_text(e, sizeof e, pods[i].zswap_current), pods[i].name);
        }
}

/* A cgroup file's value in the requests block: "missing" for a file the kernel does not have. */
static const char *missing_text(char *buf, size_t len, uint64_t v) {
        return v == CGROUP_VALUE_UNKNOWN ? "missing" : cgroup_value_text(buf, len, v);
}

/* Each Burstable container with an allowance: its request, allowance, swap now and at its peak,
 * memory.swap.events, and for one that hit its allowance the request its peak needed (issue 26). */
static void print_requests_text(FILE *f, const StatusModel *m) {
        if (!m->needs)
                return;
        const HostState *h = m->host;
        size_t shown = 0;
        for (size_t i = 0; i < m->n_pods; i++) {
                const PodSwap *c = &m->pods[i];
                const ContainerNeed *n = &m->needs[i];
                if (n->state == CONTAINER_SWAP_NO_ALLOWANCE)
                        continue;
                if (!shown++)
                        fprintf(f, "\nRequests and allowances (Burstable containers with a swap limit):\n"
                                   "  %-11s %-11s %-11s %-11s %-17s %-6s %s\n", "REQUEST", "ALLOWANCE", "SWAP.CUR",
                                "SWAP.PEAK", "HIGH/MAX/FAIL", "STATE", "CGROUP");
                char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX], cc[FORMAT_BYTES_MAX], d[FORMAT_BYTES_MAX], ev[64];
                if (c->swap_events)
                        snprintf(ev, sizeof ev, "%" PRIu64 "/%" PRIu64 "/%" PRIu64, c->swap_high, c->swap_max_hits,
                                 c->swap_fail);
                else
                        snprintf(ev, sizeof ev, "missing");
                fprintf(f, "  %-11s %-11s %-11s %-11s %-17s %-6s %s\n",
                        n->request_known ? format_bytes(a, sizeof a, n->request) : "unknown",
                        format_bytes(b, sizeof b, n->allowance), missing_text(cc, sizeof cc, c->swap_current),
                        missing_text(d, sizeof d, c->swap_peak), ev, container_swap_state_to_string(n->state), c->name);
                if (!n->need_known)
                        continue;
                char s1[FORMAT_BYTES_MAX], s2[FORMAT_BYTES_MAX], s3[FORMAT_BYTES_MAX], s4[FORMAT_BYTES_MAX];
                if (n->need_over_memtotal) {
                        fprintf(f, "      its %s%s of swap needs a request above MemTotal (%s): no request gives it\n",
                                n->need_at_least ? "more than " : "", format_bytes(s1, sizeof s1, n->need_swap),
                                format_bytes(s2, sizeof s2, h->mem_total));
                        continue;
                }
                if (n->need_at_least && n->request_known && n->need_request <= n->request) {
                        /* Its peak is its limit: what it wanted beyond is not known. */
                        fprintf(f, "      hit its allowance %" PRIu64 " time%s: it needs a request above %s; each 1Mi more "
                                   "gives %s of swap and reserves 1Mi of the node's %s at the scheduler\n",
                                c->swap_max_hits, c->swap_max_hits == 1 ? "" : "s", format_bytes(s1, sizeof s1, n->request),
                                format_bytes(s2, sizeof s2, (uint64_t) ((double) MiB * (double) h->swap_total /
                                                                        (double) h->mem_total)),
                                format_bytes(s4, sizeof s4, h->mem_total));
                        continue;
                }
                fprintf(f, "      for %s%s of swap (%s): request %" PRIu64 "Mi, which gives %s of swap and reserves "
                           "%s of the node's %s at the scheduler",
                        n->need_at_least ? "more than " : "", format_bytes(s1, sizeof s1, n->need_swap),
                        c->swap_peak != CGROUP_VALUE_UNKNOWN ? "its peak" : "now; no memory.swap.peak on this kernel",
                        n->need_request / MiB, format_bytes(s2, sizeof s2, n->need_allowance),
                        format_bytes(s3, sizeof s3, n->need_request), format_bytes(s4, sizeof s4, h->mem_total));
                if (n->request_known && n->need_request > n->request)
                        fprintf(f, " (+%s)", format_bytes(s1, sizeof s1, n->need_request - n->request));
                fprintf(f, "\n");
        }
        if (shown)
                fprintf(f, "  REQUEST: memory.min where the kubelet keeps it, else memory.swap.max × MemTotal / "
                           "SwapTotal; missing: the kernel has no such file\n");
}

/* How much of the node's swap the allowances take, and the ceiling 1 + swap/RAM (issue 26). */
void density_print_text(FILE *f, const Density *d) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];
        fprintf(f, "Density:  the allowances of %zu container%s take %s of the node's %s of swap", d->n_containers,
                d->n_containers == 1 ? "" : "s", format_bytes(a, sizeof a, d->allowances),
                format_bytes(b, sizeof b, d->swap_total));
        if (d->swap_total > 0)
                fprintf(f, " (%.1f %%)", 100.0 * (double) d->allowances / (double) d->swap_total);
        fprintf(f, "\n          pods hold at most %.2f × what fits in RAM alone (1 + swap/RAM)", d->ceiling);
        if (d->zram_ratio_known)
                fprintf(f, "; %.2f × with zram's pages in RAM at its %.2f:1", d->ceiling_zram, d->zram_ratio);
        else if (d->zram)
                fprintf(f, "; less with zram (its pages stay in RAM; its ratio is not known while it is empty)");
        fprintf(f, "\n");
}

void status_print_verdict(FILE *f, const StatusVerdict *v) {
        size_t errors = findings_count(&v->findings, SEVERITY_ERROR);
        if (!v->have_policy)
                fprintf(f, "Verdict:  no policy: nodeswap leaves this node alone\n");
        else if (findings_has(&v->findings, VERDICT_POLICY_UNREADABLE) && errors == 0)
                fprintf(f, "Verdict:  not judged: this user may not read the whole policy (run as root)\n");
        else if (!v->policy_valid)
                fprintf(f, "Verdict:  the policy has %zu error%s: not judged (nodeswap check lists them)\n", errors,
                        errors == 1 ? "" : "s");
        else if (findings_has(&v->findings, VERDICT_HOST_UNREADABLE))
                fprintf(f, "Verdict:  not judged: this user may not read all of the node (run as root)\n");
        else if (errors > 0)
                fprintf(f, "Verdict:  apply would refuse the policy: %zu error%s (nodeswap check lists them)\n", errors,
                        errors == 1 ? "" : "s");
        else if (v->pending > 0)
                fprintf(f, "Verdict:  the node differs from the policy: %zu change%s pending (nodeswap plan shows them)\n",
                        v->pending, v->pending == 1 ? "" : "s");
        else
                fprintf(f, "Verdict:  the node matches the policy\n");
}

void status_print_text(FILE *f, const StatusModel *m, int verbosity, bool color) {
        const Findings *fs = &m->verdict->findings;

        print_swaps_text(f, m);
        zswap_print_text(f, &m->host->zswap);
        print_sysctl_text(f, m->host);
        print_reclaim_text(f, m->host);
        print_kubelet_text(f, m);
        pressure_print_text(f, &m->host->pressure);
        print_units_text(f, m);
        print_no_swap_text(f, m);
        print_io_latency_text(f, m);
        print_recorded_text(f, m);
        print_runs_text(f, m);

        status_print_verdict(f, m->verdict);
        bool any = false;
        for (size_t i = 0; i < fs->n; i++) {
                if (verbosity <= 0 && fs->f[i].severity == SEVERITY_INFO)
                        continue;
                if (!any)
                        fprintf(f, "\nFindings:\n");
                finding_print(f, &fs->f[i], color);
                any = true;
        }

        if (m->with_pods) {
                print_pods_text(f, m->pods, m->n_pods);
                pressure_print_pods_text(f, m->pods, m->n_pods);
                print_requests_text(f, m);
                if (m->density_known) {
                        fputc('\n', f);
                        density_print_text(f, &m->density);
                }
        }
}

/* --- JSON ------------------------------------------------------------------------------------ */

static int zram_to_json(const ZramDevice *z, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object(), *wb = NULL;
        if (!o ||
            json_add_int(o, "id", z->id) < 0 ||
            json_add_string(o, "algorithm", z->algorithm) < 0 ||
            json_add_u64(o, "orig_data_size", z->orig_data_size) < 0 ||
            json_add_u64(o, "compr_data_size", z->compr_data_size) < 0 ||
            json_add_u64(o, "mem_used_total", z->mem_used_total) < 0 ||
            json_add_u64(o, "mem_limit", z->mem_limit) < 0 ||
            (z->compr_data_size > 0 ? json_add_double(o, "ratio", zram_ratio(z)) : json_add_null(o, "ratio")) < 0)
                return -ENOMEM;
        if (z->wb.backing_dev) {
                wb = json_object_new_object();
                if (!wb ||
                    json_add_string(wb, "backing_dev", z->wb.backing_dev) < 0 ||
                    json_add_u64(wb, "stored", z->bd_count) < 0 ||
                    json_add_u64(wb, "written", z->bd_writes) < 0 ||
                    json_add_u64(wb, "read", z->bd_reads) < 0 ||
                    (z->wb.writeback_limit_enabled ? json_add_u64(wb, "limit_left", z->wb.writeback_limit)
                                                   : json_add_null(wb, "limit_left")) < 0 ||
                    json_add_bool(wb, "encrypted", z->wb.backing_encrypted) < 0 ||
                    json_add_string(wb, "cipher", z->wb.backing_encrypted ? CRYPT_CIPHER "-" CRYPT_CIPHER_MODE : NULL) < 0 ||
                    (z->wb.backing_encrypted ? json_add_int(wb, "key_bits", CRYPT_KEY_BYTES * 8)
                                             : json_add_null(wb, "key_bits")) < 0 ||
                    json_add_bool(wb, "ephemeral_key", z->wb.backing_encrypted) < 0 ||
                    json_add_string(wb, "file", z->wb.backing_file) < 0 ||
                    (z->wb.backing_encrypted ? json_add_bool(wb, "loop_dio", z->wb.backing_dio)
                                             : json_add_null(wb, "loop_dio")) < 0 ||
                    json_add(o, "writeback", TAKE_PTR(wb)) < 0)
                        return -ENOMEM;
        } else if (json_add_null(o, "writeback") < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

static int swap_to_json(const StatusModel *m, const SwapDevice *s, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o ||
            json_add_string(o, "path", s->path) < 0 ||
            json_add_string(o, "kind", strempty(swap_kind_to_string(s->kind))) < 0 ||
            json_add_u64(o, "size", s->size) < 0 ||
            json_add_u64(o, "used", s->used) < 0 ||
            json_add_int(o, "priority", s->priority) < 0 ||
            json_add_string(o, "owner", strempty(swap_owner_to_string(s->owner))) < 0 ||
            json_add_string(o, "unit", s->unit) < 0)
                return -ENOMEM;

        if (s->kind == SWAP_KIND_ZRAM) {
                const ZramDevice *z = host_find_zram(m->host, s->zram_id);
                json_object *zo = NULL;
                if (z && zram_to_json(z, &zo) < 0)
                        return -ENOMEM;
                if ((zo ? json_add(o, "zram", zo) : json_add_null(o, "zram")) < 0)
                        return -ENOMEM;
        }
        if (s->kind == SWAP_KIND_FILE) {
                const SwapFileState *f = file_state_for(m, s);
                if (json_add_string(o, "storage", f ? storage_kind_to_string(f->storage) : NULL) < 0 ||
                    json_add_string(o, "storage_device", f ? f->storage_device : NULL) < 0)
                        return -ENOMEM;
        }
        if (s->kind != SWAP_KIND_ZRAM) {
                _cleanup_json_ json_object *e = json_object_new_object();
                if (!e ||
                    json_add_bool(e, "encrypted", s->encrypted) < 0 ||
                    json_add_string(e, "cipher", s->encrypted ? CRYPT_CIPHER "-" CRYPT_CIPHER_MODE : NULL) < 0 ||
                    (s->encrypted ? json_add_int(e, "key_bits", CRYPT_KEY_BYTES * 8) : json_add_null(e, "key_bits")) < 0 ||
                    json_add_bool(e, "ephemeral_key", s->encrypted) < 0 ||
                    json_add_string(e, "mapping", s->mapping) < 0 ||
                    (s->encrypted ? json_add_bool(e, "loop_direct_io", s->loop_dio) : json_add_null(e, "loop_direct_io")) < 0 ||
                    json_add(o, "encryption", TAKE_PTR(e)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(o);
        return 0;
}

static int kubelet_file_to_json(const KubeletConfigFile *f, json_object **ret) {
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o ||
            json_add_string(o, "path", f->path) < 0 ||
            json_add_string(o, "invalid", f->invalid ? f->invalid_reason : NULL) < 0 ||
            (f->invalid && f->invalid_line > 0 ? json_add_int(o, "invalid_line", f->invalid_line)
                                                : json_add_null(o, "invalid_line")) < 0 ||
            json_add_string(o, "swap_behavior",
                            f->swap_behavior_field == KUBELET_FIELD_SET ? f->swap_behavior_value : NULL) < 0 ||
            (f->swap_behavior_field != KUBELET_FIELD_ABSENT ? json_add_int(o, "swap_behavior_line", f->swap_behavior_line)
                                                            : json_add_null(o, "swap_behavior_line")) < 0 ||
            json_add_tristate(o, "fail_swap_on", f->fail_swap_on_field == KUBELET_FIELD_SET ? f->fail_swap_on : -1) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

/* The kubelet flags that decide (kubelet_decided_flags()), as a JSON array of strings; NULL when
 * out of memory (json_add() then fails). */
static json_object *flags_to_json(char **flags) {
        _cleanup_json_ json_object *a = json_object_new_array();
        if (!a)
                return NULL;
        for (char **fl = flags; fl && *fl; fl++)
                if (json_append_string(a, *fl) < 0)
                        return NULL;
        return TAKE_PTR(a);
}

static int kubelet_to_json(const StatusModel *m, json_object **ret) {
        const HostState *h = m->host;
        _cleanup_json_ json_object *o = json_object_new_object(), *files = json_object_new_array(),
                *eviction = json_object_new_object();
        if (!o || !files || !eviction)
                return -ENOMEM;
        uint64_t bytes = 0;
        const char *why = NULL;
        int t = m->kubelet.memory_available ? kubelet_threshold_parse(m->kubelet.memory_available, h->mem_total,
                                                                      &bytes, &why) : 0;
        if ((t > 0 ? json_add_u64(eviction, "threshold_bytes", bytes) : json_add_null(eviction, "threshold_bytes")) < 0 ||
            (why ? json_add_string(eviction, "invalid", why) : json_add_null(eviction, "invalid")) < 0 ||
            json_add_string(eviction, "threshold", m->kubelet.memory_available) < 0 ||
            json_add_string(eviction, "source", m->memory_eviction_source) < 0 ||
            json_add_bool(eviction, "default", m->kubelet.memory_available && m->kubelet.memory_available_default) < 0)
                return -ENOMEM;
        for (size_t i = 0; i < h->kubelet.n_files; i++) {
                json_object *fo;
                if (kubelet_file_to_json(&h->kubelet.files[i], &fo) < 0 || json_append(files, fo) < 0)
                        return -ENOMEM;
        }
        if (json_add_string(o, "unit", h->kubelet_unit) < 0 ||
            json_add_tristate(o, "active", h->kubelet_active) < 0 ||
            json_add_bool(o, "starts", kubelet_config_starts(&h->kubelet, &m->kubelet)) < 0 ||
            json_add_string(o, "version", h->kubelet.version.text) < 0 ||
            json_add_string(o, "version_source", h->kubelet.version.path) < 0 ||
            json_add_string(o, "merge_rule", kubelet_config_rule(&h->kubelet) == KUBELET_MERGE_LEGACY ? "1.30" : "1.32") < 0 ||
            json_add_string(o, "dropin", h->dropin_path ?: m->policy->dropin) < 0 ||
            json_add_bool(o, "dropin_present", h->dropin != NULL) < 0 ||
            json_add_string(o, "swap_behavior", effective_text(&m->kubelet)) < 0 ||
            json_add_string(o, "swap_behavior_source", m->swap_behavior_source) < 0 ||
            json_add_bool(o, "fail_swap_on", m->kubelet.fail_swap_on) < 0 ||
            json_add_string(o, "fail_swap_on_source", m->fail_swap_on_source) < 0 ||
            json_add(o, "flags", flags_to_json(m->kubelet_flags)) < 0 ||
            json_add_string(o, "config_dir", h->kubelet.config_dir) < 0 ||
            json_add_string(o, "config_dir_source", h->kubelet.config_dir_source) < 0 ||
            json_add(o, "config_files", TAKE_PTR(files)) < 0 ||
            json_add_tristate(o, "swap_stale", kubelet_capacity_stale(h)) < 0 ||
            json_add(o, "memory_eviction", TAKE_PTR(eviction)) < 0)
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}

static int units_to_json(const HostState *h, json_object **ret) {
        _cleanup_json_ json_object *a = json_object_new_array();
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < h->n_units; i++) {
                const UnitState *u = &h->units[i];
                _cleanup_json_ json_object *o = json_object_new_object();
                if (!o ||
                    json_add_string(o, "name", u->name) < 0 ||
                    json_add_bool(o, "exists", u->exists) < 0 ||
                    json_add_bool(o, "masked", u->masked) < 0 ||
                    json_add_bool(o, "masked_runtime", u->masked_runtime) < 0 ||
                    json_add_tristate(o, "active", u->active) < 0 ||
                    json_append(a, TAKE_PTR(o)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(a);
        return 0;
}

static int rpi_swap_to_json(const StatusModel *m, json_object *parent) {
        const RpiSwapConfig *r = &m->host->rpi_swap;
        if (!r->installed)
                return json_add_null(parent, "rpi_swap");
        _cleanup_json_ json_object *o = json_object_new_object(), *units = json_object_new_array();
        if (!o || !units)
                return -ENOMEM;
        for (char **n = m->rpi_units; n && *n; n++)
                if (json_append_string(units, *n) < 0)
                        return -ENOMEM;
        if (json_add_string(o, "mechanism", rpi_swap_mechanism_to_string(r->mechanism)) < 0 ||
            json_add_string(o, "source", r->mechanism_source) < 0 ||
            json_add_string(o, "path", r->path) < 0 ||
            json_add(o, "units", TAKE_PTR(units)) < 0)
                return -ENOMEM;
        return json_add(parent, "rpi_swap", TAKE_PTR(o));
}

static int recorded_to_json(const StatusModel *m, json_object **ret) {
        const HostState *h = m->host;
        _cleanup_json_ json_object *a = json_object_new_array();
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < h->n_recorded_files; i++) {
                const RecordedSwapFile *f = &h->recorded_files[i];
                _cleanup_json_ json_object *o = json_object_new_object();
                if (!o ||
                    json_add_string(o, "path", f->path) < 0 ||
                    json_add_string(o, "state", recorded_file_state(f)) < 0 ||
                    json_add_bool(o, "policy_path", streq_ptr(f->path, m->policy->file.path)) < 0 ||
                    json_append(a, TAKE_PTR(o)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(a);
        return 0;
}

static int last_run_to_json(const StatusModel *m, json_object *parent) {
        const NodeswapState *st = &m->host->state;
        if (st->last_run_usec == 0)
                return json_add_null(parent, "last_run");
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o ||
            json_add_string(o, "verb", st->last_run_revert ? "revert" : "apply") < 0 ||
            json_add_u64(o, "time_usec", st->last_run_usec) < 0 ||
            json_add_string(o, "time", m->last_run_time) < 0 ||
            json_add_string(o, "result", st->last_run_failed ? "failed" : "ok") < 0)
                return -ENOMEM;
        return json_add(parent, "last_run", TAKE_PTR(o));
}

static int cgroup_value_to_json(json_object *o, const char *key, uint64_t v) {
        if (v == CGROUP_VALUE_UNKNOWN)
                return json_add_null(o, key);
        if (v == CGROUP_VALUE_MAX)
                return json_add_string(o, key, "max");
        return json_add_u64(o, key, v);
}

static int no_swap_to_json(const StatusModel *m, json_object **ret) {
        const HostState *h = m->host;
        _cleanup_json_ json_object *a = json_object_new_array();
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < h->n_no_swap_units; i++) {
                const NoSwapUnit *u = &h->no_swap_units[i];
                _cleanup_json_ json_object *o = json_object_new_object();
                const char *by = no_swap_by(m, u);
                uint64_t v = u->cgroup_read == 1 ? u->cgroup_swap_max : CGROUP_VALUE_UNKNOWN;
                if (v == NO_SWAP_MAX)
                        v = CGROUP_VALUE_MAX;
                if (!o ||
                    json_add_string(o, "unit", u->name) < 0 ||
                    cgroup_value_to_json(o, "memory_swap_max", v) < 0 ||
                    json_add_bool(o, "listed", u->listed) < 0 ||
                    json_add_bool(o, "kubelet", u->kubelet) < 0 ||
                    json_add_string(o, "set_by", by) < 0 ||
                    json_add_string(o, "source", u->operator_where) < 0 ||
                    json_append(a, TAKE_PTR(o)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(a);
        return 0;
}

static int io_latency_to_json(const StatusModel *m, json_object *o) {
        const HostState *h = m->host;
        const IoLatencyState *s = &h->io_latency;
        const NodeswapState *st = &h->state;
        _cleanup_json_ json_object *j = json_object_new_object();
        char dev[32] = "";
        uint64_t now = 0;
        if (!j)
                return -ENOMEM;
        if (s->shared_disk)
                snprintf(dev, sizeof dev, "%u:%u", s->major, s->minor);
        unsigned ma = st->io_latency_usec ? st->io_latency_major : s->major;
        unsigned mi = st->io_latency_usec ? st->io_latency_minor : s->minor;
        bool has = (s->shared_disk || st->io_latency_usec) && s->current &&
                   io_latency_parse(s->current, ma, mi, &now) >= 0 && now > 0;
        if (json_add_string(j, "disk", s->shared_disk) < 0 ||
            json_add_string(j, "device", *dev ? dev : NULL) < 0 ||
            json_add_string(j, "shared_with", s->shared_path) < 0 ||
            json_add_bool(j, "io_controller", s->io_controller) < 0 ||
            (s->kernel >= 0 ? json_add_bool(j, "kernel_io_latency", s->kernel == 1)
                            : json_add_null(j, "kernel_io_latency")) < 0 ||
            (has ? json_add_u64(j, "target_usec", now) : json_add_null(j, "target_usec")) < 0 ||
            json_add_string(j, "set_by", has && st->io_latency_usec == now ? "nodeswap" : NULL) < 0)
                return -ENOMEM;
        return json_add(o, "io_latency", TAKE_PTR(j));
}

/* The issue 26 members of a container: its swap's peak and events, request, allowance, need. */
static int need_to_json(const PodSwap *c, const ContainerNeed *n, json_object *o) {
        _cleanup_json_ json_object *ev = NULL, *need = NULL;
        if (cgroup_value_to_json(o, "swap_peak", c->swap_peak) < 0 ||
            cgroup_value_to_json(o, "memory_min", c->memory_min) < 0)
                return -ENOMEM;
        if (c->swap_events) {
                ev = json_object_new_object();
                if (!ev || json_add_u64(ev, "high", c->swap_high) < 0 || json_add_u64(ev, "max", c->swap_max_hits) < 0 ||
                    json_add_u64(ev, "fail", c->swap_fail) < 0 || json_add(o, "swap_events", TAKE_PTR(ev)) < 0)
                        return -ENOMEM;
        } else if (json_add_null(o, "swap_events") < 0)
                return -ENOMEM;
        if (!n)
                return 0;
        if ((n->request_known ? json_add_u64(o, "request", n->request) : json_add_null(o, "request")) < 0 ||
            json_add_string(o, "request_source", n->request_known ? n->request_source : NULL) < 0 ||
            (n->state != CONTAINER_SWAP_NO_ALLOWANCE ? json_add_u64(o, "allowance", n->allowance)
                                                      : json_add_null(o, "allowance")) < 0 ||
            json_add_string(o, "allowance_state", container_swap_state_to_string(n->state)) < 0)
                return -ENOMEM;
        if (!n->need_known)
                return json_add_null(o, "needed");
        _cleanup_free_ char *q = strdup_printf("%" PRIu64 "Mi", n->need_request / MiB);
        need = json_object_new_object();
        if (!q || !need ||
            json_add_u64(need, "swap", n->need_swap) < 0 || json_add_bool(need, "at_least", n->need_at_least) < 0 ||
            json_add_u64(need, "request", n->need_request) < 0 ||
            json_add_string(need, "quantity", n->need_over_memtotal ? NULL : q) < 0 ||
            json_add_u64(need, "allowance", n->need_allowance) < 0 ||
            json_add_bool(need, "over_memtotal", n->need_over_memtotal) < 0)
                return -ENOMEM;
        return json_add(o, "needed", TAKE_PTR(need));
}

int density_to_json(const Density *d, json_object *parent) {
        if (!d)
                return json_add_null(parent, "density");
        _cleanup_json_ json_object *o = json_object_new_object();
        if (!o ||
            json_add_u64(o, "containers", d->n_containers) < 0 ||
            json_add_u64(o, "allowances", d->allowances) < 0 ||
            json_add_u64(o, "swap_total", d->swap_total) < 0 ||
            (d->swap_total > 0 ? json_add_double(o, "share", (double) d->allowances / (double) d->swap_total)
                               : json_add_null(o, "share")) < 0 ||
            json_add_double(o, "ceiling", d->ceiling) < 0 ||
            (d->zram_ratio_known ? json_add_double(o, "zram_ratio", d->zram_ratio) : json_add_null(o, "zram_ratio")) < 0 ||
            (d->zram_ratio_known ? json_add_double(o, "ceiling_zram", d->ceiling_zram)
                                 : json_add_null(o, "ceiling_zram")) < 0)
                return -ENOMEM;
        return json_add(parent, "density", TAKE_PTR(o));
}

static int pods_to_json(const PodSwap *pods, const ContainerNeed *needs, size_t n, json_object **ret) {
        _cleanup_json_ json_object *a = json_object_new_array();
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                _cleanup_json_ json_object *o = json_object_new_object();
                if (!o ||
                    json_add_string(o, "cgroup", pods[i].name) < 0 ||
                    json_add_string(o, "qos", pod_qos_to_string(pods[i].qos)) < 0 ||
                    cgroup_value_to_json(o, "memory_max", pods[i].memory_max) < 0 ||
                    cgroup_value_to_json(o, "memory_current", pods[i].memory_current) < 0 ||
                    cgroup_value_to_json(o, "swap_max", pods[i].swap_max) < 0 ||
                    cgroup_value_to_json(o, "swap_current", pods[i].swap_current) < 0 ||
                    cgroup_value_to_json(o, "zswap_current", pods[i].zswap_current) < 0 ||
                    cgroup_pressure_to_json(&pods[i].pressure, o) < 0 ||
                    need_to_json(&pods[i], needs ? &needs[i] : NULL, o) < 0 ||
                    json_append(a, TAKE_PTR(o)) < 0)
                        return -ENOMEM;
        }
        *ret = TAKE_PTR(a);
        return 0;
}

/* The swaps, the node's numbers, zswap and the sysctls, in the document's order. */
static int node_to_json(const StatusModel *m, json_object *o) {
        const HostState *h = m->host;
        _cleanup_json_ json_object *swaps = json_object_new_array(), *kubelet = NULL, *units = NULL;
        if (!swaps)
                return -ENOMEM;
        for (size_t i = 0; i < h->n_swaps; i++) {
                json_object *s;
                if (swap_to_json(m, &h->swaps[i], &s) < 0 || json_append(swaps, s) < 0)
                        return -ENOMEM;
        }
        bool zswap_oom = false;
        json_object *zswap = zswap_to_json(&h->zswap, &zswap_oom);
        if (zswap_oom ||
            kubelet_to_json(m, &kubelet) < 0 ||
            units_to_json(h, &units) < 0 ||
            json_add(o, "swaps", TAKE_PTR(swaps)) < 0 ||
            json_add(o, "kubelet", TAKE_PTR(kubelet)) < 0 ||
            json_add(o, "units", TAKE_PTR(units)) < 0 ||
            json_add_u64(o, "mem_total", h->mem_total) < 0 ||
            json_add_u64(o, "mem_available", h->mem_available) < 0 ||
            json_add_u64(o, "swap_total", h->swap_total) < 0 ||
            json_add_u64(o, "swap_free", h->swap_free) < 0 ||
            json_add_u64(o, "page_size", h->page_size) < 0 ||
            json_add_u64(o, "zram_mem_used", m->zram_mem_used) < 0) {
                json_object_put(zswap);
                return -ENOMEM;
        }
        if ((zswap ? json_add(o, "zswap", zswap) : json_add_null(o, "zswap")) < 0 ||
            (h->swappiness >= 0 ? json_add_int(o, "swappiness", h->swappiness) : json_add_null(o, "swappiness")) < 0 ||
            (h->page_cluster >= 0 ? json_add_int(o, "page_cluster", h->page_cluster)
                                  : json_add_null(o, "page_cluster")) < 0 ||
            reclaim_to_json(h, o) < 0)
                return -ENOMEM;
        return 0;
}

int status_to_json(const StatusModel *m, json_object **ret) {
        const HostState *h = m->host;
        const StatusVerdict *v = m->verdict;
        _cleanup_json_ json_object *o = json_object_new_object(), *recorded = NULL, *files = NULL, *pods = NULL,
                                   *no_swap = NULL;
        if (!o ||
            json_add_int(o, "version", NODESWAP_JSON_VERSION) < 0 ||
            node_to_json(m, o) < 0 ||
            rpi_swap_to_json(m, o) < 0 ||
            json_add_string(o, "cgroup", strempty(cgroup_mode_to_string(h->cgroup))) < 0 ||
            json_add_bool(o, "psi", h->psi) < 0 ||
            (h->pressure.probed && node_pressure_to_json(&h->pressure, o) < 0) ||
            json_add_bool(o, "reverted", h->state.reverted) < 0 ||
            recorded_to_json(m, &recorded) < 0 ||
            json_add(o, "swap_files", TAKE_PTR(recorded)) < 0 ||
            no_swap_to_json(m, &no_swap) < 0 ||
            json_add(o, "no_swap_units", TAKE_PTR(no_swap)) < 0 ||
            io_latency_to_json(m, o) < 0 ||
            json_add_tristate(o, "matches_policy", m->matches) < 0 ||
            (m->matches >= 0 ? json_add_u64(o, "pending_actions", v->pending) : json_add_null(o, "pending_actions")) < 0 ||
            json_add_bool(o, "policy_valid", v->policy_valid) < 0 ||
            last_run_to_json(m, o) < 0 ||
            json_add(o, "findings", findings_to_json(&v->findings)) < 0 ||
            json_add_u64(o, "errors", findings_count(&v->findings, SEVERITY_ERROR)) < 0 ||
            json_add_u64(o, "warnings", findings_count(&v->findings, SEVERITY_WARNING)) < 0)
                return -ENOMEM;

        files = json_object_new_array();
        if (!files)
                return -ENOMEM;
        for (char *const *f = m->policy->files; f && *f; f++)
                if (json_append_string(files, *f) < 0)
                        return -ENOMEM;
        if (json_add(o, "policy_files", TAKE_PTR(files)) < 0)
                return -ENOMEM;
        if (m->with_pods &&
            (pods_to_json(m->pods, m->needs, m->n_pods, &pods) < 0 || json_add(o, "pods", TAKE_PTR(pods)) < 0 ||
             density_to_json(m->density_known ? &m->density : NULL, o) < 0))
                return -ENOMEM;
        *ret = TAKE_PTR(o);
        return 0;
}
