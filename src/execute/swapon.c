/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The swap area writers: a swap header written in-process, swapon(2), swapoff(2), loop detach. */
#include "execute/swapon.h"
#include "policy/knobs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/swap.h>

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

/* wipe_more: whether the bytes after the header page, up to SWAP_WIPE_SIZE, are zeroed too. */
static int header_write(int fd, uint64_t size, uint64_t page_size, const char *label, bool wipe_more) {
        int r;

        if (fd < 0 || !swap_page_size_valid(page_size))
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
        if (wipe_more && wipe < SWAP_WIPE_SIZE)
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

int swap_header_write(int fd, uint64_t size, uint64_t page_size, const char *label) {
        return header_write(fd, size, page_size, label, true);
}

int swap_header_write_zeroed(int fd, uint64_t size, uint64_t page_size, const char *label) {
        return header_write(fd, size, page_size, label, false);
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
