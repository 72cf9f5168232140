/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe(): read what the host below root looks like. Only reads; never writes, never asks systemd. */
#include "probe/probe.h"
#include "shared/mnt-blkid-util.h"
#include "shared/string-table.h"
#include "shared/unit-name.h"
#include "probe/conflicts.h"
#include "probe/kubelet-unit.h"
#include "probe/meminfo.h"
#include "probe/state.h"
#include "probe/swap.h"
#include "probe/swapfile.h"
#include "probe/crypt.h"
#include "probe/iolatency.h"
#include "probe/zram.h"

#include <blkid.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libmount.h>
#include <limits.h>

#include "probe/swap-controller.h"
#include <sys/stat.h>
#include <sys/statvfs.h>

#define DROPIN_MAX READ_SMALL_MAX

static const char *const unit_dirs[] = { SYSTEMD_UNIT_DIRS };

static const char *const generator_dirs[] = {
        "/run/systemd/generator.early",
        "/run/systemd/generator",
        "/run/systemd/generator.late",
};

/* Where a symlink to /dev/null masks a unit. */
static const char *const mask_dirs[] = {
        "/etc/systemd/system",
        "/run/systemd/system",
        "/run/systemd/generator.early",
};


static const char *const swap_kind_table[_SWAP_KIND_MAX] = {
        [SWAP_KIND_PARTITION] = "partition",
        [SWAP_KIND_FILE] = "file",
        [SWAP_KIND_ZRAM] = "zram",
};
DEFINE_STRING_TABLE_TO_STRING(swap_kind, SwapKind, swap_kind_table);

static const char *const swap_owner_table[_SWAP_OWNER_MAX] = {
        [SWAP_OWNER_OTHER] = "other",
        [SWAP_OWNER_NODESWAP] = "nodeswap",
        [SWAP_OWNER_CONFLICT] = "conflict",
};
DEFINE_STRING_TABLE_TO_STRING(swap_owner, SwapOwner, swap_owner_table);

static const char *const cgroup_mode_table[_CGROUP_MODE_MAX] = {
        [CGROUP_UNKNOWN] = "unknown",
        [CGROUP_V1] = "v1",
        [CGROUP_HYBRID] = "hybrid",
        [CGROUP_V2] = "v2",
};
DEFINE_STRING_TABLE_TO_STRING(cgroup_mode, CgroupMode, cgroup_mode_table);

char *swap_unit_name(const char *path) {
        return unit_name_from_path(path, ".swap");
}

static char *root_path(const char *root, const char *path) {
        return path_join_root(root, path);
}

static bool root_exists(const char *root, const char *path) {
        _cleanup_free_ char *p = root_path(root, path);
        struct stat st;
        return p && lstat(p, &st) == 0;
}

/* --- memory, sysctls --- */

static int probe_meminfo(const char *root, HostState *h) {
        MemInfo m;
        int r = meminfo_read(root, &m);
        if (r < 0)
                return r;
        h->mem_total = m.mem_total;
        h->mem_available = m.mem_available;
        h->swap_total = m.swap_total;
        h->swap_free = m.swap_free;
        h->zswap.meminfo = m.has_zswap;
        h->zswap.pool_bytes = m.zswap;
        h->zswap.stored_bytes = m.zswapped;
        return 0;
}

static int read_sysctl(const char *root, const char *path) {
        _cleanup_free_ char *p = root_path(root, path);
        int v;
        if (!p || read_int_file(p, &v) < 0)
                return -1;
        return v;
}

/* The running kernel's release (/proc/sys/kernel/osrelease) into *ret, NULL when it cannot be
 * read; -ENOMEM only. */
static int kernel_release_read(const char *root, char **ret) {
        _cleanup_free_ char *p = path_join_root(root, "/proc/sys/kernel/osrelease");
        if (!p)
                return -ENOMEM;
        int r = read_one_line(p, ret);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                *ret = NULL;    /* a fixture tree without it: unknown */
        return 0;
}

/* --- /proc/swaps --- */

static int probe_swaps(const char *root, HostState *h) {
        SwapEntry *entries = NULL;
        size_t n_entries = 0;
        int r = swaps_read(root, &entries, &n_entries);
        if (r < 0)
                return r;

        r = 0;
        for (size_t i = 0; i < n_entries; i++) {
                const char *src = entries[i].path, *type = entries[i].type;
                SwapDevice *n = realloc(h->swaps, sizeof(SwapDevice) * (h->n_swaps + 1));
                if (!n) {
                        r = -ENOMEM;
                        break;
                }
                h->swaps = n;
                SwapDevice *d = &h->swaps[h->n_swaps];
                *d = (SwapDevice) {
                        .path = TAKE_PTR(entries[i].path),
                        .size = entries[i].size,
                        .used = entries[i].used,
                        .priority = entries[i].priority,
                        .owner = SWAP_OWNER_OTHER,
                        .zram_id = zram_id_from_swap_path(src),
                };
                h->n_swaps++;
                /* An encrypted swap file of nodeswap's is listed as its mapping ("/dev/dm-3"): it
                 * is known by its file's path, as a plain one, and keeps the mapping beside. */
                _cleanup_free_ char *file = NULL;
                int k = crypt_swap_resolve(root, d->path, &file, NULL, &d->loop_dio);
                if (k < 0) {
                        r = k;
                        break;
                }
                if (k > 0) {
                        d->mapping = TAKE_PTR(d->path);
                        d->path = TAKE_PTR(file);
                        d->encrypted = true;
                }
                d->unit = swap_unit_name(d->path);
                if (!d->unit && errno == ENOMEM) {
                        r = -ENOMEM;
                        break;
                }
                if (d->zram_id >= 0)
                        d->kind = SWAP_KIND_ZRAM;
                else if (type && streq(type, "partition") && !d->encrypted)
                        d->kind = SWAP_KIND_PARTITION;
                else
                        d->kind = SWAP_KIND_FILE;
        }
        swap_entries_free(entries, n_entries);
        return r;
}

/* --- zram --- */

static void zram_device_done(ZramDevice *z) {
        zram_writeback_done(&z->wb);
        strv_free(z->algorithms_offered);
        free(z->algorithm);
}

static int probe_one_zram(const char *root, int id, const HostState *h, ZramDevice *z) {
        char rel[PATH_MAX];
        snprintf(rel, sizeof rel, "/sys/block/zram%d", id);
        _cleanup_free_ char *dir = root_path(root, rel);
        if (!dir)
                return -ENOMEM;

        z->id = id;
        if (zram_read_disksize(root, id, &z->disksize) < 0)
                z->disksize = 0;

        /* Unreadable or malformed: the algorithm is unknown, the device is still listed. */
        int r = zram_read_comp_algorithm(root, id, &z->algorithms_offered, &z->algorithm);
        if (r == -ENOMEM)
                return r;

        z->has_algorithm_params = zram_has_attr(root, id, "algorithm_params");
        if (zram_writeback_probe(dir, &z->wb) < 0)
                return -ENOMEM;
        /* A Writeback= file under WritebackEncrypt=yes: zram's backing device is nodeswap's mapping. */
        if (z->wb.backing_dev) {
                r = crypt_swap_resolve(root, z->wb.backing_dev, &z->wb.backing_file, NULL, &z->wb.backing_dio);
                if (r == -ENOMEM)
                        return r;
                z->wb.backing_encrypted = r > 0;
        }

        /* mem_limit itself is write-only; mm_stat's fourth field reports it, in bytes. */
        ZramMmStat mm;
        r = zram_read_mm_stat(root, id, &mm);
        if (r == -ENOMEM)
                return r;
        if (r >= 0) {
                z->orig_data_size = mm.orig_data_size;
                z->compr_data_size = mm.compr_data_size;
                z->mem_used_total = mm.mem_used_total;
                z->mem_limit = mm.mem_limit;
        }

        ZramBdStat bd;
        r = zram_read_bd_stat(root, id, &bd);
        if (r == -ENOMEM)
                return r;
        z->has_bd_stat = r >= 0;
        z->bd_count = z->has_bd_stat ? bd.count : 0;
        z->bd_reads = z->has_bd_stat ? bd.reads : 0;
        z->bd_writes = z->has_bd_stat ? bd.writes : 0;

        r = zram_read_written_bytes(root, id, &z->written_bytes);
        if (r == -ENOMEM)
                return r;
        z->has_stat = r >= 0;
        if (!z->has_stat)
                z->written_bytes = 0;

        for (size_t i = 0; i < h->n_swaps; i++)
                if (h->swaps[i].kind == SWAP_KIND_ZRAM && h->swaps[i].zram_id == id)
                        z->swap_on = true;
        z->ours = state_has_zram_id(&h->state, id);
        if (!z->ours && z->disksize > 0) {
                /* An apply killed between swapon and saving its state: the header still says whose
                 * device it is (nodeswap only ever writes its label on devices it hot_add'ed). */
                char dev[64];
                snprintf(dev, sizeof dev, "/dev/zram%d", id);
                _cleanup_free_ char *p = root_path(root, dev);
                _cleanup_close_ int fd = p ? open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) : -1;
                SwapHeaderInfo info;
                if (fd >= 0 && swap_header_probe(fd, &info) > 0 && streq(info.label, SWAP_LABEL))
                        z->ours = true;
        }
        return 0;
}

static int probe_zrams(const char *root, HostState *h) {
        h->zram_control = root_exists(root, "/sys/class/zram-control");

        _cleanup_free_ int *ids = NULL;
        size_t n = 0;
        int r = zram_list_ids(root, &ids, &n);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;       /* an unreadable /sys/block: no device known */
        if (n == 0)
                return 0;
        h->zrams = calloc(n, sizeof(ZramDevice));
        if (!h->zrams)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                r = probe_one_zram(root, ids[i], h, &h->zrams[h->n_zrams++]);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* --- zswap --- */

int probe_zswap(const char *root, HostState *h) {
        return zswap_probe_all(root, &h->zswap);
}

/* Only what the policy needs: every parameter, the command line and the crypto API's compressors
 * when the policy wants zswap or nodeswap saved zswap parameters to put back (revert, or a
 * Backend= that dropped zswap); otherwise enabled alone, for the rule zswap-with-zram. */
static int probe_zswap_for_policy(const char *root, const Policy *policy, HostState *h) {
        bool saved = false;
        for (size_t i = 0; i < _ZSWAP_PARAM_MAX; i++)
                saved = saved || h->state.saved_zswap[i];
        if (saved || (policy->backend_set && (policy->backends & BACKEND_ZSWAP)))
                return zswap_probe_params(root, &h->zswap);
        return zswap_probe_enabled(root, &h->zswap);
}

/* --- mounts (from <root>/proc/self/mountinfo) --- */

static struct libmnt_table *load_mountinfo(const char *root) {
        _cleanup_free_ char *p = root_path(root, "/proc/self/mountinfo");
        if (!p || access(p, R_OK) < 0)
                return NULL;
        struct libmnt_table *tb = mnt_new_table();
        if (!tb)
                return NULL;
        if (mnt_table_parse_file(tb, p) < 0) {
                mnt_unref_table(tb);
                return NULL;
        }
        return tb;
}


/* The mount holding path: the longest target that is a prefix of path; of equal ones the last
 * mounted (mounted over the others). */
static struct libmnt_fs *find_mount_at(struct libmnt_table *tb, const char *target) {
        if (!tb)
                return NULL;
        _cleanup_(mnt_free_iterp) struct libmnt_iter *itr = mnt_new_iter(MNT_ITER_FORWARD);
        if (!itr)
                return NULL;
        struct libmnt_fs *fs, *found = NULL;
        while (mnt_table_next_fs(tb, itr, &fs) == 0)
                if (streq_ptr(mnt_fs_get_target(fs), target))
                        found = fs;
        return found;
}

static CgroupMode probe_cgroup(struct libmnt_table *tb) {
        struct libmnt_fs *fs = find_mount_at(tb, "/sys/fs/cgroup");
        if (!fs)
                return CGROUP_UNKNOWN;
        const char *type = mnt_fs_get_fstype(fs);
        if (streq_ptr(type, "cgroup2"))
                return CGROUP_V2;
        if (!streq_ptr(type, "tmpfs"))
                return CGROUP_UNKNOWN;
        fs = find_mount_at(tb, "/sys/fs/cgroup/unified");
        if (fs && streq_ptr(mnt_fs_get_fstype(fs), "cgroup2"))
                return CGROUP_HYBRID;
        return CGROUP_V1;
}

static int probe_file(const char *root, const char *path, HostState *h) {
        int r = swapfile_probe(root, path, h->page_size, &h->file);
        if (r <= 0)
                return r;       /* 0: this user may not look at it */
        const SwapDevice *sw = host_find_swap(h, path);
        if (sw) {
                h->file.swap_on = true;
                h->file.priority = sw->priority;
        }
        return 0;
}

/* The swap files the state records as nodeswap's. The one at the policy's Path= was probed by
 * probe_file() already: taken from h->file, not read twice. */
static int probe_recorded_files(const char *root, const Policy *policy, HostState *h) {
        size_t n = strv_length(h->state.swap_files);
        if (n == 0)
                return 0;
        h->recorded_files = calloc(n, sizeof(RecordedSwapFile));
        if (!h->recorded_files)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                RecordedSwapFile *f = &h->recorded_files[h->n_recorded_files++];
                f->path = strdup(h->state.swap_files[i]);
                if (!f->path)
                        return -ENOMEM;
                f->swap_on = host_find_swap(h, f->path) != NULL;
                if (streq_ptr(f->path, policy->file.path)) {
                        f->exists = h->file.exists;
                        f->is_regular = h->file.is_regular;
                        f->labelled = streq_ptr(h->file.label, SWAP_LABEL);
                        continue;
                }
                _cleanup_free_ char *p = root_path(root, f->path);
                if (!p)
                        return -ENOMEM;
                struct stat st;
                if (lstat(p, &st) < 0)
                        continue;       /* gone (or unreadable): not ours to touch */
                f->exists = true;
                f->is_regular = S_ISREG(st.st_mode);
                if (!f->is_regular)
                        continue;
                SwapHeaderInfo info;
                f->labelled = swapfile_read_header_nofollow(p, &st, &info) > 0 && streq(info.label, SWAP_LABEL);
        }
        return 0;
}

/* The [Zram] Writeback= files the state records as nodeswap's: there?, a regular file?, and the
 * loop device on it, if any. */
static int probe_recorded_wb_files(const char *root, HostState *h) {
        size_t n = strv_length(h->state.writeback_files);
        if (n == 0)
                return 0;
        h->recorded_wb_files = calloc(n, sizeof(RecordedWritebackFile));
        if (!h->recorded_wb_files)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                RecordedWritebackFile *f = &h->recorded_wb_files[h->n_recorded_wb_files++];
                f->path = strdup(h->state.writeback_files[i]);
                if (!f->path)
                        return -ENOMEM;
                _cleanup_free_ char *p = root_path(root, f->path);
                if (!p)
                        return -ENOMEM;
                struct stat st;
                if (lstat(p, &st) < 0)
                        continue;       /* gone (or unreadable): not ours to touch */
                f->exists = true;
                f->is_regular = S_ISREG(st.st_mode);
                /* unreadable sysfs reads as "no loop device": execute checks again before deleting */
                if (loop_find_by_backing_file(root, f->path, &f->loop_device) == -ENOMEM)
                        return -ENOMEM;
        }
        return 0;
}

/* --- units --- */

/* "foo@bar.service" -> "foo@.service"; NULL when name is no template instance. */
static char *unit_template(const char *name) {
        const char *at = strchr(name, '@'), *dot = strrchr(name, '.');
        if (!at || !dot || dot < at || dot == at + 1)
                return NULL;
        return strdup_printf("%.*s%s", (int) (at - name + 1), name, dot);
}

static bool unit_exists(const char *root, const char *name) {
        if (unit_file_in(root, unit_dirs, ELEMENTSOF(unit_dirs), name) ||
            unit_file_in(root, generator_dirs, ELEMENTSOF(generator_dirs), name))
                return true;
        _cleanup_free_ char *tmpl = unit_template(name);
        return tmpl && unit_file_in(root, unit_dirs, ELEMENTSOF(unit_dirs), tmpl);
}

static bool unit_masked_in(const char *root, const char *dir, const char *name) {
        _cleanup_free_ char *rel = strdup_printf("%s/%s", dir, name);
        _cleanup_free_ char *p = rel ? root_path(root, rel) : NULL;
        if (!p)
                return false;
        char t[PATH_MAX];
        ssize_t k = readlink(p, t, sizeof t - 1);
        if (k <= 0)
                return false;
        t[k] = 0;
        return streq(t, "/dev/null");
}

static int probe_units(const char *root, const Policy *policy, HostState *h) {
        int r = rpi_swap_load(root, &h->rpi_swap);
        if (r < 0)
                return r;
        r = conflict_units_compute(policy, &h->rpi_swap, &h->conflict_units);
        if (r < 0)
                return r;
        size_t n = strv_length(h->conflict_units);
        if (n == 0)
                return 0;
        h->units = calloc(n, sizeof(UnitState));
        if (!h->units)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                const char *name = h->conflict_units[i];
                UnitState *u = &h->units[h->n_units++];
                *u = (UnitState) { .name = strdup(name), .active = -1 };
                if (!u->name)
                        return -ENOMEM;
                u->exists = unit_exists(root, name);
                for (size_t j = 0; j < ELEMENTSOF(mask_dirs); j++)
                        if (unit_masked_in(root, mask_dirs[j], name)) {
                                u->masked = true;
                                if (streq(mask_dirs[j], "/run/systemd/system"))
                                        u->masked_runtime = true;
                        }
        }
        return 0;
}

static int probe_kubelet_unit(const char *root, const Policy *policy, HostState *h) {
        h->kubelet_active = -1;
        const char *name = kubelet_unit_find(root, policy);
        if (!name)
                return 0;
        h->kubelet_unit = strdup(name);
        return h->kubelet_unit ? 0 : -ENOMEM;
}

/* --- drop-in --- */

static int read_prefix(const char *path, size_t max, char **ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        return read_fd_full(fd, max, true, ret, NULL);
}

static int probe_dropin(const char *root, const Policy *policy, HostState *h) {
        if (!policy->dropin)
                return 0;
        h->dropin_path = strdup(policy->dropin);
        if (!h->dropin_path)
                return -ENOMEM;
        _cleanup_free_ char *p = root_path(root, policy->dropin);
        if (!p)
                return -ENOMEM;
        int r = read_prefix(p, DROPIN_MAX, &h->dropin);
        if (r == -ENOMEM)
                return r;
        return 0;       /* absent or unreadable: NULL */
}

/* --- owners --- */

static void assign_owners(const Policy *policy, HostState *h) {
        for (size_t i = 0; i < h->n_swaps; i++) {
                SwapDevice *d = &h->swaps[i];
                const ZramDevice *z = d->kind == SWAP_KIND_ZRAM ? host_find_zram(h, d->zram_id) : NULL;
                const RecordedSwapFile *rf;
                if (d->kind == SWAP_KIND_ZRAM &&
                    (state_has_zram_id(&h->state, d->zram_id) || (z && z->ours)))
                        d->owner = SWAP_OWNER_NODESWAP;
                else if (policy->file.path && streq(d->path, policy->file.path) &&
                         streq_ptr(h->file.label, SWAP_LABEL))
                        d->owner = SWAP_OWNER_NODESWAP;
                else if (d->kind == SWAP_KIND_FILE && (rf = host_find_recorded_file(h, d->path)) &&
                         rf->is_regular && rf->labelled)
                        /* one nodeswap created at an earlier [File] Path= (state swap_file=) */
                        d->owner = SWAP_OWNER_NODESWAP;
                else if (d->unit && strv_contains(h->conflict_units, d->unit))
                        d->owner = SWAP_OWNER_CONFLICT;
                else
                        d->owner = SWAP_OWNER_OTHER;
        }
}

int probe(const char *root, const Policy *policy, HostState *ret) {
        static const Policy empty_policy = {};
        if (!policy)
                policy = &empty_policy;

        HostState h = {
                .kubelet_active = -1,
                .writeback_timer_active = -1,
                .zswap = { .enabled = -1, .max_pool_percent = -1 },
        };
        nodeswap_state_init(&h.state);
        _cleanup_(mnt_unref_tablep) struct libmnt_table *mounts = NULL;
        int r;

        h.page_size = page_size_read(root);
        r = kernel_release_read(root, &h.kernel_release);
        if (r < 0)
                goto fail;

        r = probe_meminfo(root, &h);
        if (r < 0)
                goto fail;

        r = state_load(root, &h.state);
        if (r < 0)
                goto fail;

        r = probe_swaps(root, &h);
        if (r < 0)
                goto fail;

        h.swappiness = read_sysctl(root, "/proc/sys/vm/swappiness");
        h.page_cluster = read_sysctl(root, "/proc/sys/vm/page-cluster");
        h.min_free_kbytes = read_sysctl(root, "/proc/sys/vm/min_free_kbytes");
        h.watermark_scale_factor = read_sysctl(root, "/proc/sys/vm/watermark_scale_factor");
        h.watermark_scale_factor_max = reclaim_wsf_max(root);
        h.thp_enabled = thp_enabled(root);
        r = zoneinfo_read(root, &h.zones, &h.n_zones);
        if (r < 0)
                goto fail;

        r = probe_zrams(root, &h);
        if (r < 0)
                goto fail;

        r = probe_zswap_for_policy(root, policy, &h);
        if (r < 0)
                goto fail;

        mounts = load_mountinfo(root);
        h.cgroup = probe_cgroup(mounts);

        /* Only a policy that names a file gets it probed (Backend=file without Path= has none). */
        if (policy->file.path) {
                r = probe_file(root, policy->file.path, &h);
                if (r < 0)
                        goto fail;
        }

        if (policy->zram.writeback && (policy->backends & BACKEND_ZRAM)) {
                r = writeback_target_probe(root, policy->zram.writeback, &h.writeback);
                if (r < 0)
                        goto fail;
        }

        r = probe_recorded_files(root, policy, &h);
        if (r < 0)
                goto fail;

        r = probe_recorded_wb_files(root, &h);
        if (r < 0)
                goto fail;

        r = probe_dropin(root, policy, &h);
        if (r < 0)
                goto fail;

        r = feature_file_probe(root, &h.features);
        if (r < 0)
                goto fail;

        r = probe_kubelet_unit(root, policy, &h);
        if (r < 0)
                goto fail;

        r = kubelet_config_read(root, h.kubelet_unit, policy->dropin, &h.kubelet);
        if (r < 0)
                goto fail;
        h.kubelet_no_swap_controller = h.cgroup == CGROUP_V2 && swap_controller_probe(root, h.kubelet_unit) == 0;

        r = probe_units(root, policy, &h);
        if (r < 0)
                goto fail;

        r = no_swap_probe(root, policy, h.kubelet_unit, &h.state, &h.no_swap_units, &h.n_no_swap_units);
        if (r < 0)
                goto fail;

        {
                _cleanup_free_ char *psi = root_path(root, "/proc/pressure/memory");
                if (!psi) {
                        r = -ENOMEM;
                        goto fail;
                }
                h.psi = access(psi, R_OK) == 0;
        }
        {
                struct stat st;
                _cleanup_free_ char *sd = root_path(root, "/run/systemd/system");
                if (!sd) {
                        r = -ENOMEM;
                        goto fail;
                }
                h.systemd_booted = lstat(sd, &st) == 0 && S_ISDIR(st.st_mode);
        }

        r = io_latency_probe(root, policy, &h);
        if (r < 0)
                goto fail;

        assign_owners(policy, &h);

        *ret = h;
        return 0;

fail:
        host_state_done(&h);
        return r;
}

void host_state_done(HostState *h) {
        if (!h)
                return;
        for (size_t i = 0; i < h->n_swaps; i++) {
                free(h->swaps[i].path);
                free(h->swaps[i].unit);
                free(h->swaps[i].mapping);
        }
        free(h->swaps);
        io_latency_state_done(&h->io_latency);
        for (size_t i = 0; i < h->n_zrams; i++)
                zram_device_done(&h->zrams[i]);
        free(h->zrams);
        free(h->zones);
        writeback_target_done(&h->writeback);
        free(h->file.label);
        free(h->file.path_problem);
        free(h->file.allocation_problem);
        free(h->file.nocow_problem);
        free(h->file.header_problem);
        free(h->file.fstype);
        free(h->file.fs_mount_point);
        free(h->file.storage_device);
        free(h->dropin_path);
        free(h->dropin);
        free(h->kubelet_unit);
        free(h->kernel_release);
        no_swap_units_free(h->no_swap_units, h->n_no_swap_units);
        zswap_state_done(&h->zswap);
        feature_file_state_done(&h->features);
        kubelet_config_done(&h->kubelet);
        for (size_t i = 0; i < h->n_units; i++)
                free(h->units[i].name);
        free(h->units);
        strv_free(h->conflict_units);
        rpi_swap_config_done(&h->rpi_swap);
        for (size_t i = 0; i < h->n_recorded_files; i++)
                free(h->recorded_files[i].path);
        free(h->recorded_files);
        for (size_t i = 0; i < h->n_recorded_wb_files; i++) {
                free(h->recorded_wb_files[i].path);
                free(h->recorded_wb_files[i].loop_device);
        }
        free(h->recorded_wb_files);
        pod_swaps_free(h->pressure_pods, h->n_pressure_pods);
        nodeswap_state_done(&h->state);
        *h = (HostState) { .swappiness = -1, .page_cluster = -1, .min_free_kbytes = -1,
                .watermark_scale_factor = -1, .thp_enabled = -1, .kubelet_active = -1, .writeback_timer_active = -1 };
        nodeswap_state_init(&h->state);
}

const SwapDevice *host_find_swap(const HostState *h, const char *path) {
        if (!h || !path)
                return NULL;
        for (size_t i = 0; i < h->n_swaps; i++)
                if (streq(h->swaps[i].path, path))
                        return &h->swaps[i];
        return NULL;
}

const RecordedSwapFile *host_find_recorded_file(const HostState *h, const char *path) {
        if (!h || !path)
                return NULL;
        for (size_t i = 0; i < h->n_recorded_files; i++)
                if (streq(h->recorded_files[i].path, path))
                        return &h->recorded_files[i];
        return NULL;
}

const ZramDevice *host_find_zram(const HostState *h, int id) {
        if (!h)
                return NULL;
        for (size_t i = 0; i < h->n_zrams; i++)
                if (h->zrams[i].id == id)
                        return &h->zrams[i];
        return NULL;
}
