/* SPDX-License-Identifier: GPL-2.0-or-later */
/* probe(): read what the host below root looks like. Only reads; never writes, never asks systemd. */
#include "probe/host.h"
#include "shared/mnt-blkid-util.h"
#include "probe/state.h"
#include "probe/swap.h"
#include "probe/swapfile.h"

#include <blkid.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libmount.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#define DROPIN_MAX (64 * 1024)

static const char *const unit_dirs[] = {
        "/etc/systemd/system",
        "/run/systemd/system",
        "/usr/local/lib/systemd/system",
        "/lib/systemd/system",
        "/usr/lib/systemd/system",
};

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

static const char *const kubelet_units[] = {
        "k3s-agent.service",
        "k3s.service",
        "rke2-agent.service",
        "rke2-server.service",
        "kubelet.service",
};

const char *swap_kind_to_string(SwapKind k) {
        switch (k) {
        case SWAP_KIND_PARTITION:
                return "partition";
        case SWAP_KIND_FILE:
                return "file";
        case SWAP_KIND_ZRAM:
                return "zram";
        }
        return NULL;
}

const char *swap_owner_to_string(SwapOwner o) {
        switch (o) {
        case SWAP_OWNER_OTHER:
                return "other";
        case SWAP_OWNER_NODESWAP:
                return "nodeswap";
        case SWAP_OWNER_CONFLICT:
                return "conflict";
        }
        return NULL;
}

const char *cgroup_mode_to_string(CgroupMode m) {
        switch (m) {
        case CGROUP_UNKNOWN:
                return "unknown";
        case CGROUP_V1:
                return "v1";
        case CGROUP_HYBRID:
                return "hybrid";
        case CGROUP_V2:
                return "v2";
        }
        return NULL;
}

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

/* --- page size, memory, sysctls --- */

static uint64_t probe_page_size(const char *root) {
        long sys = sysconf(_SC_PAGESIZE);
        uint64_t fallback = sys > 0 ? (uint64_t) sys : 4096;
        if (root_is_host(root))
                return fallback;

        _cleanup_free_ char *p = root_path(root, "/proc/self/smaps");
        if (!p)
                return fallback;
        _cleanup_fclose_ FILE *f = fopen(p, "re");
        if (!f)
                return fallback;
        char line[256];
        while (fgets(line, sizeof line, f)) {
                uint64_t kb;
                if (sscanf(line, "KernelPageSize: %" SCNu64 " kB", &kb) == 1 && kb > 0)
                        return kb * KiB;
        }
        return fallback;
}

static int probe_meminfo(const char *root, HostState *h) {
        _cleanup_free_ char *p = root_path(root, "/proc/meminfo");
        if (!p)
                return -ENOMEM;
        _cleanup_fclose_ FILE *f = fopen(p, "re");
        if (!f)
                return -errno;
        char line[256];
        while (fgets(line, sizeof line, f)) {
                char key[64];
                uint64_t kb;
                if (sscanf(line, "%63[^:]: %" SCNu64, key, &kb) != 2)
                        continue;
                if (streq(key, "MemTotal"))
                        h->mem_total = kb * KiB;
                else if (streq(key, "MemAvailable"))
                        h->mem_available = kb * KiB;
                else if (streq(key, "SwapTotal"))
                        h->swap_total = kb * KiB;
                else if (streq(key, "SwapFree"))
                        h->swap_free = kb * KiB;
                else if (streq(key, "Zswap")) {
                        h->zswap.meminfo = true;
                        h->zswap.pool_bytes = kb * KiB;
                } else if (streq(key, "Zswapped"))
                        h->zswap.stored_bytes = kb * KiB;
        }
        return 0;
}

static int read_sysctl(const char *root, const char *path) {
        _cleanup_free_ char *p = root_path(root, path);
        int v;
        if (!p || read_int_file(p, &v) < 0)
                return -1;
        return v;
}

/* --- /proc/swaps --- */

static int zram_id_from_path(const char *path) {
        if (!startswith(path, "/dev/zram"))
                return -1;
        const char *n = path + strlen("/dev/zram");
        int id;
        if (!isdigit((unsigned char) *n) || safe_atoi(n, &id) < 0 || id < 0)
                return -1;
        return id;
}

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
                        .zram_id = zram_id_from_path(src),
                };
                h->n_swaps++;
                d->unit = swap_unit_name(d->path);
                if (!d->unit && errno == ENOMEM) {
                        r = -ENOMEM;
                        break;
                }
                if (d->zram_id >= 0)
                        d->kind = SWAP_KIND_ZRAM;
                else if (type && streq(type, "partition"))
                        d->kind = SWAP_KIND_PARTITION;
                else
                        d->kind = SWAP_KIND_FILE;
        }
        swap_entries_free(entries, n_entries);
        return r;
}

/* --- zram --- */

static int parse_comp_algorithm(const char *line, ZramDevice *z) {
        _cleanup_strv_free_ char **words = strv_split_ws(line);
        if (!words)
                return -ENOMEM;
        for (char **w = words; *w; w++) {
                char *s = *w;
                size_t l = strlen(s);
                bool active = l >= 2 && s[0] == '[' && s[l - 1] == ']';
                if (active) {
                        memmove(s, s + 1, l - 2);
                        s[l - 2] = 0;
                        free(z->algorithm);
                        z->algorithm = strdup(s);
                        if (!z->algorithm)
                                return -ENOMEM;
                }
                int r = strv_extend(&z->algorithms_offered, s);
                if (r < 0)
                        return r;
        }
        return 0;
}

static void zram_device_done(ZramDevice *z) {
        zram_writeback_done(&z->wb);
        strv_free(z->algorithms_offered);
        free(z->algorithm);
}

static int probe_one_zram(const char *root, int id, const HostState *h, ZramDevice *z) {
        char rel[PATH_MAX];
        _cleanup_free_ char *line = NULL;
        snprintf(rel, sizeof rel, "/sys/block/zram%d", id);
        _cleanup_free_ char *dir = root_path(root, rel);
        if (!dir)
                return -ENOMEM;
        char attr[PATH_MAX];

        z->id = id;
        snprintf(attr, sizeof attr, "%s/disksize", dir);
        if (read_u64_file(attr, &z->disksize) < 0)
                z->disksize = 0;

        snprintf(attr, sizeof attr, "%s/comp_algorithm", dir);
        if (read_one_line(attr, &line) >= 0) {
                int r = parse_comp_algorithm(line, z);
                if (r < 0)
                        return r;
        }

        snprintf(attr, sizeof attr, "%s/algorithm_params", dir);
        z->has_algorithm_params = access(attr, F_OK) == 0;
        if (zram_writeback_probe(dir, &z->wb) < 0)
                return -ENOMEM;

        /* mem_limit itself is write-only; mm_stat's fourth field reports it, in bytes. */
        free(line);
        line = NULL;
        snprintf(attr, sizeof attr, "%s/mm_stat", dir);
        if (read_one_line(attr, &line) >= 0 &&
            sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64, &z->orig_data_size, &z->compr_data_size,
                   &z->mem_used_total, &z->mem_limit) < 3)
                z->orig_data_size = z->compr_data_size = z->mem_used_total = z->mem_limit = 0;

        free(line);
        line = NULL;
        snprintf(attr, sizeof attr, "%s/bd_stat", dir);
        if (read_one_line(attr, &line) >= 0 &&
            sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64, &z->bd_count, &z->bd_reads, &z->bd_writes) == 3) {
                z->has_bd_stat = true;
                z->bd_count *= 4 * KiB;
                z->bd_reads *= 4 * KiB;
                z->bd_writes *= 4 * KiB;
        } else
                z->bd_count = z->bd_reads = z->bd_writes = 0;

        /* Documentation/block/stat.rst: the 7th field is the sectors written, 512 bytes each. */
        free(line);
        line = NULL;
        snprintf(attr, sizeof attr, "%s/stat", dir);
        uint64_t f[7];
        if (read_one_line(attr, &line) >= 0 &&
            sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
                   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6]) == 7) {
                z->has_stat = true;
                z->written_bytes = f[6] * 512;
        }

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

static int zram_cmp(const void *a, const void *b) {
        const ZramDevice *x = a, *y = b;
        return (x->id > y->id) - (x->id < y->id);
}

static int probe_zrams(const char *root, HostState *h) {
        h->zram_control = root_exists(root, "/sys/class/zram-control");

        _cleanup_free_ char *p = root_path(root, "/sys/block");
        if (!p)
                return -ENOMEM;
        _cleanup_(closedirp) DIR *d = opendir(p);
        if (!d)
                return 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!startswith(de->d_name, "zram"))
                        continue;
                const char *n = de->d_name + 4;
                int id;
                if (!isdigit((unsigned char) *n) || safe_atoi(n, &id) < 0 || id < 0)
                        continue;
                ZramDevice *nz = realloc(h->zrams, sizeof(ZramDevice) * (h->n_zrams + 1));
                if (!nz)
                        return -ENOMEM;
                h->zrams = nz;
                ZramDevice *z = &h->zrams[h->n_zrams++];
                *z = (ZramDevice) {};
                int r = probe_one_zram(root, id, h, z);
                if (r < 0)
                        return r;
        }
        if (h->n_zrams > 1)
                qsort(h->zrams, h->n_zrams, sizeof(ZramDevice), zram_cmp);
        return 0;
}

/* --- zswap --- */

static char *read_line_or_null(const char *root, const char *path) {
        _cleanup_free_ char *p = root_path(root, path);
        char *line = NULL;
        if (!p || read_one_line(p, &line) < 0)
                return NULL;
        return line;
}

/* The parameters are world-readable; debugfs is root's (and may not be mounted). Nothing here is
 * an error: what cannot be read stays unknown. Not part of probe(): only metrics reports zswap,
 * and apply's probe should not pay for it. */
int probe_zswap(const char *root, HostState *h) {
        ZswapState *z = &h->zswap;
        _cleanup_free_ char *enabled = read_line_or_null(root, "/sys/module/zswap/parameters/enabled");
        z->enabled = !enabled ? -1 : streq(enabled, "Y") || streq(enabled, "1");
        z->compressor = read_line_or_null(root, "/sys/module/zswap/parameters/compressor");
        z->zpool = read_line_or_null(root, "/sys/module/zswap/parameters/zpool");
        z->max_pool_percent = read_sysctl(root, "/sys/module/zswap/parameters/max_pool_percent");

        _cleanup_free_ char *stored = root_path(root, "/sys/kernel/debug/zswap/stored_pages");
        _cleanup_free_ char *wb = root_path(root, "/sys/kernel/debug/zswap/written_back_pages");
        if (!stored || !wb)
                return -ENOMEM;
        z->debugfs = read_u64_file(stored, &z->stored_pages) >= 0 &&
                     read_u64_file(wb, &z->written_back_pages) >= 0;
        if (!z->debugfs)
                z->stored_pages = z->written_back_pages = 0;
        return 0;
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

static bool root_is_dir(const char *root, const char *path) {
        _cleanup_free_ char *p = root_path(root, path);
        struct stat st;
        return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The nearest existing directory at or above dirname(path), as a host path. */
static int nearest_existing_dir(const char *root, const char *path, char **ret) {
        _cleanup_free_ char *p = strdup(path);
        if (!p)
                return -ENOMEM;
        for (;;) {
                char *slash = strrchr(p, '/');
                if (!slash)
                        return -EINVAL;
                if (slash == p)
                        p[1] = 0;
                else
                        *slash = 0;
                if (root_is_dir(root, p) || streq(p, "/")) {
                        *ret = p;
                        p = NULL;
                        return 0;
                }
        }
}

/* The swap header of the regular file p that lstat() found as st, opened without following a
 * symlink and only if it is still that file: > 0 and *ret filled when there is one, 0 otherwise. */
static int probe_header_nofollow(const char *p, const struct stat *st, SwapHeaderInfo *ret) {
        _cleanup_close_ int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
        struct stat fst;
        if (fd < 0 && (errno == EACCES || errno == EPERM))
                return -EACCES;         /* a non-root caller: the header is unknown, not absent */
        if (fd < 0 || fstat(fd, &fst) < 0 || !S_ISREG(fst.st_mode) || fst.st_dev != st->st_dev ||
            fst.st_ino != st->st_ino)
                return 0;
        return swap_header_probe(fd, ret) > 0;
}

static int probe_file(const char *root, const char *path, HostState *h) {
        SwapFileState *f = &h->file;
        _cleanup_free_ char *p = root_path(root, path);
        if (!p)
                return -ENOMEM;

        struct stat st;
        if (lstat(p, &st) < 0) {
                if (errno == EACCES || errno == EPERM) {
                        /* a non-root status or check: judged as unknown, never fatal */
                        f->unreadable = true;
                        return 0;
                }
                if (errno != ENOENT && errno != ENOTDIR)
                        return -errno;
        } else {
                f->exists = true;
                f->is_regular = S_ISREG(st.st_mode);
                f->size = (uint64_t) st.st_size;
                f->allocated = (uint64_t) st.st_blocks * 512;
                f->mode = st.st_mode & 07777;
                f->uid = st.st_uid;
        }

        SwapHeaderInfo info;
        int hr = f->is_regular ? probe_header_nofollow(p, &st, &info) : 0;
        if (hr == -EACCES)
                f->unreadable = true;   /* plan judges nothing of the file; check says so */
        if (hr > 0) {
                f->has_header = true;
                f->header_page_size = info.page_size;
                if (info.label[0] && !(f->label = strdup(info.label)))
                        return -ENOMEM;
        }

        const SwapDevice *sw = host_find_swap(h, path);
        if (sw) {
                f->swap_on = true;
                f->priority = sw->priority;
        }

        /* The file system and the disk under it, as the swap file backend sees them. */
        _cleanup_free_ char *dir = NULL;
        int r = nearest_existing_dir(root, path, &dir);
        if (r < 0)
                return r;
        _cleanup_(swapfile_fs_done) SwapFileFs fs = {};
        r = swapfile_inspect_fs(root, dir, &fs);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return 0;       /* unknown: plan() says so */
        f->fstype = fs.fstype;
        fs.fstype = NULL;
        f->fs_mount_point = fs.mount_point;
        fs.mount_point = NULL;
        f->storage_device = fs.device;
        fs.device = NULL;
        f->storage = fs.kind;
        f->fs_free = fs.free;
        f->fs_read_only = fs.read_only;
        f->fs_btrfs_multi_device = fs.btrfs_multi_device;
        f->fs_compressed = fs.compressed;
        return 0;
}

/* The swap files the state records as nodeswap's: present, a regular file, labelled, active. */
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
                f->labelled = probe_header_nofollow(p, &st, &info) > 0 && streq(info.label, SWAP_LABEL);
        }
        return 0;
}

/* --- units --- */

static bool unit_file_in(const char *root, const char *const *dirs, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *rel = strdup_printf("%s/%s", dirs[i], name);
                _cleanup_free_ char *p = rel ? root_path(root, rel) : NULL;
                if (!p)
                        continue;
                struct stat st;
                if (lstat(p, &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        char t[PATH_MAX];
                        ssize_t k = readlink(p, t, sizeof t - 1);
                        if (k > 0) {
                                t[k] = 0;
                                if (streq(t, "/dev/null"))
                                        continue;       /* a mask, not a unit */
                        }
                }
                return true;
        }
        return false;
}

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

int conflict_units_compute(const Policy *policy, const RpiSwapConfig *rpi, char ***ret) {
        _cleanup_strv_free_ char **l = strv_copy(policy->conflict_units);
        int r;
        if (!l)
                return -ENOMEM;
        if (rpi && (r = rpi_swap_units(rpi, policy->file.path, &l)) < 0)
                return r;
        *ret = TAKE_PTR(l);
        return 0;
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
        const char *name = policy->kubelet_unit;
        if (!name)
                for (size_t i = 0; i < ELEMENTSOF(kubelet_units) && !name; i++)
                        if (unit_file_in(root, unit_dirs, ELEMENTSOF(unit_dirs), kubelet_units[i]))
                                name = kubelet_units[i];
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
                         streq_ptr(h->file.label, "nodeswap"))
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
        };
        nodeswap_state_init(&h.state);
        _cleanup_(mnt_unref_tablep) struct libmnt_table *mounts = NULL;
        int r;

        h.page_size = probe_page_size(root);

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

        r = probe_zrams(root, &h);
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

        r = probe_dropin(root, policy, &h);
        if (r < 0)
                goto fail;

        r = probe_kubelet_unit(root, policy, &h);
        if (r < 0)
                goto fail;

        r = kubelet_config_read(root, h.kubelet_unit, policy->dropin, &h.kubelet);
        if (r < 0)
                goto fail;

        r = probe_units(root, policy, &h);
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
        }
        free(h->swaps);
        for (size_t i = 0; i < h->n_zrams; i++)
                zram_device_done(&h->zrams[i]);
        free(h->zrams);
        writeback_target_done(&h->writeback);
        free(h->file.label);
        free(h->file.fstype);
        free(h->file.fs_mount_point);
        free(h->file.storage_device);
        free(h->dropin_path);
        free(h->dropin);
        free(h->kubelet_unit);
        free(h->zswap.compressor);
        free(h->zswap.zpool);
        kubelet_config_done(&h->kubelet);
        for (size_t i = 0; i < h->n_units; i++)
                free(h->units[i].name);
        free(h->units);
        strv_free(h->conflict_units);
        rpi_swap_config_done(&h->rpi_swap);
        for (size_t i = 0; i < h->n_recorded_files; i++)
                free(h->recorded_files[i].path);
        free(h->recorded_files);
        nodeswap_state_done(&h->state);
        *h = (HostState) { .swappiness = -1, .page_cluster = -1, .kubelet_active = -1 };
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
