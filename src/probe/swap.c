/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/swap.h"
#include "policy/knobs.h"
#include "shared/mnt-blkid-util.h"
#include "shared/page-size.h"

#include <blkid.h>
#include <fcntl.h>
#include <libmount.h>
#include <sys/stat.h>

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

