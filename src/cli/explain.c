/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plan, apply and revert with -v: before the plan, what it was made from. The policy as read
 * (the files in the order applied, each effective value, and the file and line it came from
 * where the parser records one) and the facts of the host the plan depends on. With these an
 * operator can tell why a plan is what it is: why lz4 and not zstd, why that size, why the swap
 * file is refused on that disk, why nothing is masked. */
#include "cli/cli.h"

#include <inttypes.h>
#include <stdio.h>

static const char *strdash(const char *s) {
        return s ?: "-";
}

/* one line of the policy block: the key in a column of its own, then the value */
static void key(FILE *f, const char *k) {
        fprintf(f, "  %-24s", k);
}

static void origin(FILE *f, const Origin *o) {
        if (o->file)
                fprintf(f, "  (%s:%u)", o->file, o->line);
        else
                fputs("  (default)", f);
}

/* "[Zram] Size=  8G = 8.0 GiB  (FILE:LINE)": a size as written, in bytes, and where it was set */
/* "[Zram] Size=  8G = 8.0 GiB  (FILE:LINE)": a size as written, in bytes, and where it was set */
static void size_print(FILE *f, const char *k, const char *expr, uint64_t bytes, const Origin *o) {
        char b[FORMAT_BYTES_MAX];
        key(f, k);
        fprintf(f, "%s = %s", strdash(expr), format_bytes(b, sizeof b, bytes));
        origin(f, o);
        fputc('\n', f);
}

static void strv_print(FILE *f, char **l, const char *empty) {
        if (!l || !*l) {
                fputs(empty, f);
                return;
        }
        for (char **s = l; *s; s++)
                fprintf(f, "%s%s", s == l ? "" : " ", *s);
}

static void storage_print(FILE *f, unsigned kinds) {
        bool first = true;
        for (unsigned bit = 1; bit <= STORAGE_MMC; bit <<= 1)
                if (kinds & bit) {
                        fprintf(f, "%s%s", first ? "" : " ", storage_kind_to_string((StorageKind) bit));
                        first = false;
                }
        if (first)
                fputs("none", f);
}

static void key_of(FILE *f, PolicyKey k) {
        char buf[64];
        snprintf(buf, sizeof buf, "[%s] %s=", policy_key_section(k), policy_key_name(k));
        key(f, buf);
}

static void end_line(FILE *f, const Policy *p, PolicyKey k) {
        origin(f, &p->origin[k]);
        fputc('\n', f);
}

/* Algorithm parameters, recompression and writeback (issue 17): only what is set. */
static void knobs_print(FILE *f, const Policy *p) {
        char b[FORMAT_BYTES_MAX], t[64];
        for (size_t i = 0; p->zram.algorithm_params && p->zram.algorithm_params[i]; i++)
                if (*p->zram.algorithm_params[i]) {
                        key(f, "  parameters");
                        fprintf(f, "%s: %s\n", p->zram.algorithms[i], p->zram.algorithm_params[i]);
                }
        if (p->zram.recompress) {
                key_of(f, POLICY_KEY_ZRAM_RECOMPRESS_ALGORITHM);
                strv_print(f, p->zram.recompress, "(none)");
                end_line(f, p, POLICY_KEY_ZRAM_RECOMPRESS_ALGORITHM);
        }
        if (!p->zram.writeback)
                return;
        key_of(f, POLICY_KEY_ZRAM_WRITEBACK);
        fprintf(f, "%s%s", p->zram.writeback, policy_writeback_is_file(p) ? " (a file, on nodeswap's loop device)" : "");
        end_line(f, p, POLICY_KEY_ZRAM_WRITEBACK);
        key_of(f, POLICY_KEY_ZRAM_WRITEBACK_IDLE_AFTER);
        fputs(timespan_format_sec(t, sizeof t, p->zram.writeback_idle_after), f);
        end_line(f, p, POLICY_KEY_ZRAM_WRITEBACK_IDLE_AFTER);
        key_of(f, POLICY_KEY_ZRAM_WRITEBACK_INTERVAL);
        fputs(p->zram.writeback_interval ? timespan_format_sec(t, sizeof t, p->zram.writeback_interval) : "0 (no timer)", f);
        end_line(f, p, POLICY_KEY_ZRAM_WRITEBACK_INTERVAL);
        key_of(f, POLICY_KEY_ZRAM_WRITEBACK_LIMIT);
        fprintf(f, "%s", p->zram.writeback_limit ? format_bytes(b, sizeof b, p->zram.writeback_limit) : "none");
        fputs(p->zram.writeback_limit ? " a day" : "", f);
        end_line(f, p, POLICY_KEY_ZRAM_WRITEBACK_LIMIT);
        key_of(f, POLICY_KEY_ZRAM_WRITEBACK_ENCRYPT);
        fputs(!policy_writeback_is_file(p) ? "(a block device is used as it is)"
                                           : p->zram.writeback_encrypt ? "yes" : "no", f);
        end_line(f, p, POLICY_KEY_ZRAM_WRITEBACK_ENCRYPT);
}

static void sysctl_print(FILE *f, const Policy *p, PolicyKey k, int want) {
        key_of(f, k);
        if (want < 0)
                fputs("(empty: left alone)", f);
        else
                fprintf(f, "%d", want);
        end_line(f, p, k);
}

/* A reclaim key: a number, auto or keep. */
static void reclaim_print(FILE *f, const Policy *p, PolicyKey k, int want) {
        key_of(f, k);
        if (want == SYSCTL_AUTO)
                fputs("auto (nodeswap's rule when pods get swap)", f);
        else if (want < 0)
                fputs("keep (left alone)", f);
        else
                fprintf(f, "%d", want);
        end_line(f, p, k);
}

static void policy_print(FILE *f, const Policy *p, bool revert) {
        char b[FORMAT_BYTES_MAX];

        fputs("Policy files, in the order applied:", f);
        if (!p->files || !*p->files)
                fputs(" none (built-in defaults)", f);
        fputc('\n', f);
        for (char **s = p->files; s && *s; s++)
                fprintf(f, "  %s\n", *s);
        if (revert) {
                /* revert plans from its built-in NoSwap policy, not from these values */
                fputs("revert: nodeswap's swap off, the saved sysctls and the distro's units back, the "
                      "drop-in removed; the files above only name the swap file, drop-in and conflict units\n", f);
                return;
        }

        fputs("Policy:\n", f);
        key_of(f, POLICY_KEY_SWAP_BACKEND);
        if (!p->backend_set)
                fputs("not set: swap left alone", f);
        else if (p->backends == 0)
                fputs("none", f);
        else {
                const char *sep = "";
                for (size_t i = 0; i < policy_n_backends; i++)
                        if (p->backends & policy_backends[i].bit) {
                                fprintf(f, "%s%s", sep, policy_backends[i].name);
                                sep = " ";
                        }
        }
        end_line(f, p, POLICY_KEY_SWAP_BACKEND);

        if (p->backends & BACKEND_ZRAM) {
                size_print(f, "[Zram] Size=", p->zram.size_expr, p->zram.size, &p->origin[POLICY_KEY_ZRAM_SIZE]);
                key_of(f, POLICY_KEY_ZRAM_ALGORITHM);
                strv_print(f, p->zram.algorithms, "(none)");
                end_line(f, p, POLICY_KEY_ZRAM_ALGORITHM);
                key_of(f, POLICY_KEY_ZRAM_PRIORITY);
                fprintf(f, "%d", p->zram.priority);
                end_line(f, p, POLICY_KEY_ZRAM_PRIORITY);
                key_of(f, POLICY_KEY_ZRAM_MEM_LIMIT);
                fputs(p->zram.mem_limit ? format_bytes(b, sizeof b, p->zram.mem_limit) : "none", f);
                end_line(f, p, POLICY_KEY_ZRAM_MEM_LIMIT);
                knobs_print(f, p);
        }
        if (p->backends & BACKEND_FILE || p->file.path) {
                key_of(f, POLICY_KEY_FILE_PATH);
                fputs(strdash(p->file.path), f);
                end_line(f, p, POLICY_KEY_FILE_PATH);
                if (p->backends & BACKEND_FILE) {
                        size_print(f, "[File] Size=", p->file.size_expr, p->file.size, &p->origin[POLICY_KEY_FILE_SIZE]);
                        key_of(f, POLICY_KEY_FILE_PRIORITY);
                        fprintf(f, "%d", p->file.priority);
                        end_line(f, p, POLICY_KEY_FILE_PRIORITY);
                        key_of(f, POLICY_KEY_FILE_STORAGE);
                        storage_print(f, p->file.storage);
                        end_line(f, p, POLICY_KEY_FILE_STORAGE);
                        key_of(f, POLICY_KEY_FILE_DISCARD);
                        fputs(swap_discard_to_string(p->file.discard), f);
                        end_line(f, p, POLICY_KEY_FILE_DISCARD);
                        key_of(f, POLICY_KEY_FILE_ENCRYPT);
                        fputs(p->file.encrypt ? "yes" : "no", f);
                        end_line(f, p, POLICY_KEY_FILE_ENCRYPT);
                }
        }
        if (p->backends & BACKEND_ZSWAP) {
                key_of(f, POLICY_KEY_ZSWAP_COMPRESSOR);
                strv_print(f, p->zswap.compressors, "(none)");
                end_line(f, p, POLICY_KEY_ZSWAP_COMPRESSOR);
                sysctl_print(f, p, POLICY_KEY_ZSWAP_MAX_POOL_PERCENT, p->zswap.max_pool_percent);
                sysctl_print(f, p, POLICY_KEY_ZSWAP_ACCEPT_THRESHOLD_PERCENT, p->zswap.accept_threshold_percent);
                key_of(f, POLICY_KEY_ZSWAP_SHRINKER);
                fputs(p->zswap.shrinker < 0 ? "(empty: the kernel's value)" : p->zswap.shrinker ? "yes" : "no", f);
                end_line(f, p, POLICY_KEY_ZSWAP_SHRINKER);
        }
        sysctl_print(f, p, POLICY_KEY_SYSCTL_SWAPPINESS, p->swappiness);
        sysctl_print(f, p, POLICY_KEY_SYSCTL_PAGE_CLUSTER, p->page_cluster);
        reclaim_print(f, p, POLICY_KEY_SYSCTL_MIN_FREE_KBYTES, p->min_free_kbytes);
        reclaim_print(f, p, POLICY_KEY_SYSCTL_WATERMARK_SCALE_FACTOR, p->watermark_scale_factor);
        key_of(f, POLICY_KEY_KUBELET_SWAP_BEHAVIOR);
        fputs(p->swap_behavior == SWAP_BEHAVIOR_UNSET ? "(empty: kubelet left alone)"
                                                      : swap_behavior_to_string(p->swap_behavior), f);
        end_line(f, p, POLICY_KEY_KUBELET_SWAP_BEHAVIOR);
        key_of(f, POLICY_KEY_KUBELET_DROPIN);
        fputs(strdash(p->dropin), f);
        end_line(f, p, POLICY_KEY_KUBELET_DROPIN);
        key_of(f, POLICY_KEY_KUBELET_UNIT);
        fputs(p->kubelet_unit ?: "auto", f);
        end_line(f, p, POLICY_KEY_KUBELET_UNIT);
        key_of(f, POLICY_KEY_KUBELET_NO_SWAP_UNITS);
        strv_print(f, p->no_swap_units, "(none)");
        end_line(f, p, POLICY_KEY_KUBELET_NO_SWAP_UNITS);
        key_of(f, POLICY_KEY_CONFLICTS_UNITS);
        strv_print(f, p->conflict_units, "(none)");
        end_line(f, p, POLICY_KEY_CONFLICTS_UNITS);
}

static void host_print(FILE *f, const Policy *p, const HostState *h) {
        char a[FORMAT_BYTES_MAX], b[FORMAT_BYTES_MAX];

        fputs("Host:\n", f);
        key(f, "memory");
        fprintf(f, "%s total, %s available; page size %" PRIu64 "\n",
                format_bytes(a, sizeof a, h->mem_total), format_bytes(b, sizeof b, h->mem_available),
                h->page_size);
        if (h->n_swaps == 0) {
                key(f, "swap");
                fputs("none active\n", f);
        }
        for (size_t i = 0; i < h->n_swaps; i++) {
                const SwapDevice *s = &h->swaps[i];
                key(f, "swap");
                fprintf(f, "%s: %s, %s, %s used, priority %d, owner %s\n", s->path,
                        swap_kind_to_string(s->kind), format_bytes(a, sizeof a, s->size),
                        format_bytes(b, sizeof b, s->used), s->priority, swap_owner_to_string(s->owner));
        }
        if (p->backends & BACKEND_ZRAM) {
                if (!h->zram_control) {
                        key(f, "zram");
                        fputs("no /sys/class/zram-control (zram module not loaded?)\n", f);
                } else if (h->n_zrams == 0) {
                        key(f, "zram");
                        fputs("no device yet: the algorithms offered are read from one\n", f);
                } else {
                        key(f, "zram algorithms");
                        strv_print(f, h->zrams[0].algorithms_offered, "(unreadable)");
                        fprintf(f, "   (offered by this kernel, from zram%d)\n", h->zrams[0].id);
                }
        }
        if (p->backends & BACKEND_ZSWAP) {
                const ZswapState *z = &h->zswap;
                key(f, "zswap");
                if (z->enabled < 0)
                        fputs("none in this kernel (no /sys/module/zswap/parameters)\n", f);
                else {
                        fprintf(f, "%s, compressor %s; the crypto API offers ", z->enabled ? "on" : "off",
                                z->compressor ?: "unknown");
                        strv_print(f, z->compressors_offered, "(/proc/crypto unreadable)");
                        fputc('\n', f);
                }
        }
        if (p->backends & BACKEND_FILE && p->file.path) {
                const SwapFileState *s = &h->file;
                key(f, "swap file");
                fprintf(f, "%s", !s->exists ? "absent" : !s->is_regular ? "present, not a regular file" : "present");
                if (s->exists && s->is_regular)
                        fprintf(f, ", %s, mode %04o, %s%s", format_bytes(a, sizeof a, s->size), s->mode,
                                s->has_header ? "swap header" : "no swap header", s->swap_on ? ", on" : "");
                fputc('\n', f);
                key(f, "under it");
                fprintf(f, "%s on %s (%s), mounted at %s, %s free\n", strdash(s->fstype),
                        strdash(s->storage_device), s->storage ? storage_kind_to_string(s->storage) : "kind unknown",
                        strdash(s->fs_mount_point), format_bytes(a, sizeof a, s->fs_free));
        }
        for (size_t i = 0; i < h->n_recorded_files; i++) {
                const RecordedSwapFile *r = &h->recorded_files[i];
                key(f, "made by nodeswap");
                fprintf(f, "%s: %s\n", r->path,
                        !r->exists ? "gone" : !r->is_regular ? "not a regular file" :
                        !r->labelled ? "without nodeswap's label" : r->swap_on ? "on" : "off");
        }
        key(f, "sysctls");
        fprintf(f, "vm.swappiness=%d vm.page-cluster=%d%s\n", h->swappiness,
                h->page_cluster, h->swappiness < 0 || h->page_cluster < 0 ? " (-1: unreadable)" : "");
        fprintf(f, "vm.min_free_kbytes=%d vm.watermark_scale_factor=%d (at most %d on this kernel)%s\n",
                h->min_free_kbytes, h->watermark_scale_factor,
                h->watermark_scale_factor_max > 0 ? h->watermark_scale_factor_max : RECLAIM_WSF_MAX_NEW,
                h->min_free_kbytes < 0 || h->watermark_scale_factor < 0 ? " (-1: unreadable)" : "");
        key(f, "kubelet");
        fprintf(f, "%s%s; drop-in %s\n", h->kubelet_unit ?: "no unit found",
                !h->kubelet_unit ? "" : h->kubelet_active > 0 ? " (active)" : h->kubelet_active == 0 ? " (inactive)" : "",
                h->dropin ? "present" : "absent");
        key(f, "cgroup");
        fprintf(f, "%s\n", strdash(cgroup_mode_to_string(h->cgroup)));
        key(f, "systemd");
        fprintf(f, "%s\n",
                h->systemd_booted ? "booted (PID 1): units can be masked" : "not running: nothing is masked");
}

void explain_print(FILE *f, const Policy *p, const HostState *h, bool revert) {
        policy_print(f, p, revert);
        host_print(f, p, h);
        fputc('\n', f);
}
