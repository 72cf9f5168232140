/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/swap.h"
#include "policy/knobs.h"
#include "shared/mnt-blkid-util.h"

#include <blkid.h>
#include <fcntl.h>
#include <libmount.h>
#include <sys/stat.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/swap.h>
#include <sys/random.h>

/* The version-1 swap header, as the kernel reads it (union swap_header in linux/swap.h): the
 * first 1024 bytes are left for a boot loader, then these 32-bit fields in the byte order of the
 * kernel that will use the area, and the magic in the last 10 bytes of the first page. */
#define SWAP_HDR_VERSION_OFFSET    1024
#define SWAP_HDR_LAST_PAGE_OFFSET  1028
#define SWAP_HDR_NR_BADPAGES_OFFSET 1032
#define SWAP_HDR_UUID_OFFSET       1036
#define SWAP_HDR_LABEL_OFFSET      1052
#define SWAP_HDR_LABEL_SIZE        16
#define SWAP_HDR_UUID_SIZE         16
#define SWAP_MAGIC                 "SWAPSPACE2"
#define SWAP_MAGIC_SIZE            10
#define SWAP_MIN_PAGES             10

/* Largest page size we write a header for (and the largest of any Linux architecture). */
#define SWAP_PAGE_SIZE_MAX         (256 * KiB)
/* Zeroed at the start of a new area, so that no stale magic of an area made for a bigger page
 * size (8, 16, 32, 64 KiB) survives a rewrite at a smaller one. The bytes after the header page
 * are swap slots: nothing there is worth keeping when a new area is made. */
#define SWAP_WIPE_SIZE             (64 * KiB)

static bool page_size_valid(uint64_t page_size) {
        return page_size >= 4096 && page_size <= SWAP_PAGE_SIZE_MAX && (page_size & (page_size - 1)) == 0;
}

static void put_u32(uint8_t *buf, size_t offset, uint32_t v) {
        memcpy(buf + offset, &v, sizeof(v));   /* host byte order, as the kernel expects */
}

static int pwrite_full(int fd, const void *buf, size_t len, off_t offset) {
        const uint8_t *p = buf;
        while (len > 0) {
                ssize_t k = pwrite(fd, p, len, offset);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (k == 0)
                        return -EIO;
                p += k;
                len -= (size_t) k;
                offset += k;
        }
        return 0;
}

/* A version 4 (random) UUID, RFC 4122 4.4: 122 random bits, version 4, variant 10. Made here
 * from getrandom() rather than with sd_id128_randomize(), so that writing a header does not
 * need libsystemd (nodeswap loads it only to talk to systemd; see sd-dl.h). */
static int random_uuid(uint8_t ret[static SWAP_HDR_UUID_SIZE]) {
        size_t got = 0;
        while (got < SWAP_HDR_UUID_SIZE) {
                ssize_t k = getrandom(ret + got, SWAP_HDR_UUID_SIZE - got, 0);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                got += (size_t) k;
        }
        ret[6] = (ret[6] & 0x0F) | 0x40;
        ret[8] = (ret[8] & 0x3F) | 0x80;
        return 0;
}

int swap_header_write(int fd, uint64_t size, uint64_t page_size, const char *label) {
        int r;

        if (fd < 0 || !page_size_valid(page_size))
                return -EINVAL;
        if (size / page_size < SWAP_MIN_PAGES)
                return -EINVAL;
        uint64_t last_page = size / page_size - 1;
        if (last_page > UINT32_MAX)
                return -EFBIG;

        uint8_t uuid[SWAP_HDR_UUID_SIZE];
        r = random_uuid(uuid);
        if (r < 0)
                return r;

        size_t wipe = page_size;
        if (wipe < SWAP_WIPE_SIZE)
                wipe = size < SWAP_WIPE_SIZE ? (size_t) (size / page_size * page_size) : SWAP_WIPE_SIZE;

        _cleanup_free_ uint8_t *buf = calloc(1, wipe);
        if (!buf)
                return -ENOMEM;

        put_u32(buf, SWAP_HDR_VERSION_OFFSET, 1);
        put_u32(buf, SWAP_HDR_LAST_PAGE_OFFSET, (uint32_t) last_page);
        put_u32(buf, SWAP_HDR_NR_BADPAGES_OFFSET, 0);
        memcpy(buf + SWAP_HDR_UUID_OFFSET, uuid, SWAP_HDR_UUID_SIZE);
        if (label)
                /* Truncated to the 16 bytes of the field; NUL-terminated only when shorter. */
                memcpy(buf + SWAP_HDR_LABEL_OFFSET, label, strnlen(label, SWAP_HDR_LABEL_SIZE));
        memcpy(buf + page_size - SWAP_MAGIC_SIZE, SWAP_MAGIC, SWAP_MAGIC_SIZE);

        r = pwrite_full(fd, buf, wipe, 0);
        if (r < 0)
                return r;
        if (fsync(fd) < 0)
                return -errno;
        return 0;
}

static int pread_u32(int fd, off_t offset, uint32_t *ret) {
        uint32_t v;
        ssize_t k;
        do
                k = pread(fd, &v, sizeof(v), offset);
        while (k < 0 && errno == EINTR);
        if (k < 0)
                return -errno;
        if ((size_t) k != sizeof(v))
                return -EIO;
        *ret = v;
        return 0;
}

int swap_header_probe(int fd, SwapHeaderInfo *ret) {
        _cleanup_(blkid_free_probep) blkid_probe pr = NULL;
        const char *v;
        int r;

        if (fd < 0 || !ret)
                return -EINVAL;

        errno = 0;
        pr = blkid_new_probe();
        if (!pr)
                return errno > 0 ? -errno : -ENOMEM;

        errno = 0;
        if (blkid_probe_set_device(pr, fd, 0, 0) < 0)
                return errno > 0 ? -errno : -EIO;

        if (blkid_probe_enable_superblocks(pr, 1) < 0 ||
            blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE |
                                                  BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_VERSION) < 0)
                return -EIO;
        /* Partition tables are no swap signature; leave them out so only superblocks count. And only
         * the swap probers run: every other file system's check costs reads (and page faults: the
         * benchmarks showed half of a no-op apply spent here) for a signature nodeswap never uses. */
        (void) blkid_probe_enable_partitions(pr, 0);
        char *only[] = { (char *) "swap", (char *) "swsuspend", NULL };
        if (blkid_probe_filter_superblocks_type(pr, BLKID_FLTR_ONLYIN, only) < 0)
                return -EIO;

        errno = 0;
        r = blkid_do_safeprobe(pr);
        if (r == 1)
                return 0;               /* nothing found */
        if (r == -2)
                return -EUCLEAN;        /* more than one signature: ambiguous, not ours to guess */
        if (r < 0)
                return errno > 0 ? -errno : -EIO;

        /* "swsuspend" (a hibernation image) is no swap area for us, nor is the old "SWAP-SPACE". */
        if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) < 0 || !streq(v, "swap"))
                return 0;
        if (blkid_probe_lookup_value(pr, "SBMAGIC", &v, NULL) < 0 || !streq(v, SWAP_MAGIC))
                return 0;

        uint64_t magic_offset;
        if (blkid_probe_lookup_value(pr, "SBMAGIC_OFFSET", &v, NULL) < 0 || safe_atou64(v, &magic_offset) < 0)
                return -EIO;

        SwapHeaderInfo info = { .page_size = magic_offset + SWAP_MAGIC_SIZE };

        uint32_t last_page = 0;
        r = pread_u32(fd, SWAP_HDR_LAST_PAGE_OFFSET, &last_page);
        if (r < 0)
                return r;
        info.last_page = last_page;

        if (blkid_probe_lookup_value(pr, "LABEL", &v, NULL) >= 0)
                snprintf(info.label, sizeof(info.label), "%s", v);
        if (blkid_probe_lookup_value(pr, "UUID", &v, NULL) >= 0)
                snprintf(info.uuid, sizeof(info.uuid), "%s", v);

        *ret = info;
        return 1;
}

void swap_entries_free(SwapEntry *entries, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(entries[i].path);
                free(entries[i].type);
        }
        free(entries);
}

int swaps_read(const char *root, SwapEntry **ret, size_t *ret_n) {
        _cleanup_(mnt_unref_tablep) struct libmnt_table *tb = NULL;
        _cleanup_(mnt_free_iterp) struct libmnt_iter *itr = NULL;
        SwapEntry *entries = NULL;
        size_t n = 0;
        int r;

        if (!ret || !ret_n)
                return -EINVAL;
        _cleanup_free_ char *p = path_join_root(root, "/proc/swaps");
        if (!p)
                return -ENOMEM;
        if (access(p, R_OK) < 0)
                return -errno;

        tb = mnt_new_table();
        itr = mnt_new_iter(MNT_ITER_FORWARD);
        if (!tb || !itr)
                return -ENOMEM;
        r = mnt_table_parse_swaps(tb, p);
        if (r < 0)
                return r;

        struct libmnt_fs *fs;
        while (mnt_table_next_fs(tb, itr, &fs) == 0) {
                const char *src = mnt_fs_get_source(fs);
                if (!src)
                        continue;
                SwapEntry *m = realloc(entries, sizeof(SwapEntry) * (n + 1));
                if (!m) {
                        r = -ENOMEM;
                        goto fail;
                }
                entries = m;
                const char *type = mnt_fs_get_swaptype(fs);
                entries[n] = (SwapEntry) {
                        .path = strdup(src),
                        .type = type ? strdup(type) : NULL,
                        .size = (uint64_t) mnt_fs_get_size(fs) * KiB,
                        .used = (uint64_t) mnt_fs_get_usedsize(fs) * KiB,
                        .priority = mnt_fs_get_priority(fs),
                };
                n++;
                if (!entries[n - 1].path || (type && !entries[n - 1].type)) {
                        r = -ENOMEM;
                        goto fail;
                }
        }
        *ret = entries;
        *ret_n = n;
        return 0;
fail:
        swap_entries_free(entries, n);
        return r;
}

int swap_on(const char *root, const char *path, int priority) {
        return swap_on_flags(root, path, priority, 0);
}

int swap_on_flags(const char *root, const char *path, int priority, int discard_flags) {
        if (!path || priority < 0 || priority > SWAP_PRIORITY_MAX ||
            (discard_flags & ~(SWAP_FLAG_DISCARD | SWAP_FLAG_DISCARD_ONCE | SWAP_FLAG_DISCARD_PAGES)))
                return -EINVAL;
        if (!root_is_host(root))
                return -EOPNOTSUPP;

        int flags = SWAP_FLAG_PREFER | ((priority << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK) | discard_flags;
        if (swapon(path, flags) < 0)
                return -errno;
        return 0;
}

int swap_off(const char *root, const char *path) {
        if (!path)
                return -EINVAL;
        if (!root_is_host(root))
                return -EOPNOTSUPP;

        if (swapoff(path) < 0)
                return -errno;
        return 0;
}

int loop_detach_file(const char *root, const char *path) {
        if (!root_is_host(root))
                return -EOPNOTSUPP;
        _cleanup_(closedirp) DIR *d = opendir("/sys/block");
        if (!d)
                return -errno;
        int n = 0, ret = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!startswith(de->d_name, "loop"))
                        continue;
                _cleanup_free_ char *bf = strdup_printf("/sys/block/%s/loop/backing_file", de->d_name);
                _cleanup_free_ char *backing = NULL;
                if (!bf)
                        return -ENOMEM;
                /* No loop/ directory: not attached. The kernel appends " (deleted)" to a file
                 * unlinked since; such a device does not hold path any more. */
                if (read_one_line(bf, &backing) < 0 || !streq(backing, path))
                        continue;
                _cleanup_free_ char *dev = strdup_printf("/dev/%s", de->d_name);
                if (!dev)
                        return -ENOMEM;
                _cleanup_close_ int fd = open(dev, O_RDONLY | O_CLOEXEC | O_NOCTTY);
                if (fd < 0 || ioctl(fd, LOOP_CLR_FD) < 0) {
                        if (errno != ENXIO)     /* detached meanwhile */
                                ret = -errno;
                        continue;
                }
                n++;
        }
        return ret < 0 ? ret : n;
}
