/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "execute/loop.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>

#include "shared/reason.h"

#define LOOP_GET_FREE_TRIES 8           /* another losetup may take the free device first */

/* reason_set() with errno set to -r first, so that %m in fmt names the error. */
#define fail(ret_reason, r, ...) (errno = -(r), reason_set((ret_reason), (r), __VA_ARGS__))

/* /sys/block/loopN/loop/dio: whether the kernel kept direct I/O on. */
static bool loop_dio_on(int n) {
        _cleanup_free_ char *p = strdup_printf("/sys/block/loop%d/loop/dio", n);
        uint64_t v = 0;
        return p && read_u64_file(p, &v) >= 0 && v == 1;
}

int loop_attach(int file_fd, const char *path, uint32_t block_size, bool need_dio, int *ret_fd, char **ret_dev,
                char **ret_reason) {
        _cleanup_close_ int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (ctl < 0)
                return fail(ret_reason, -errno, "Failed to open /dev/loop-control: %m");

        int r = -EBUSY;
        for (int attempt = 0; attempt < LOOP_GET_FREE_TRIES && r == -EBUSY; attempt++) {
                int n = ioctl(ctl, LOOP_CTL_GET_FREE);
                if (n < 0)
                        return fail(ret_reason, -errno, "Failed to get a free loop device: %m");
                _cleanup_free_ char *dev = strdup_printf("/dev/loop%d", n);
                if (!dev)
                        return -ENOMEM;
                _cleanup_close_ int fd = open(dev, O_RDWR | O_CLOEXEC | O_NOCTTY);
                if (fd < 0)
                        return fail(ret_reason, -errno, "Failed to open %s: %m", dev);
                struct loop_config cfg = {
                        .fd = (unsigned) file_fd,
                        .block_size = block_size,
                        .info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO,
                };
                snprintf((char *) cfg.info.lo_file_name, sizeof cfg.info.lo_file_name, "%s", path);
                r = ioctl(fd, LOOP_CONFIGURE, &cfg) < 0 ? -errno : 0;
                if (r == -EINVAL && need_dio)
                        return fail(ret_reason, -EOPNOTSUPP,
                                    "The file system of '%s' refuses direct I/O for a loop device: %m", path);
                if (r == -EINVAL) {
                        /* A file system without direct I/O for it: through the page cache then. */
                        cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
                        r = ioctl(fd, LOOP_CONFIGURE, &cfg) < 0 ? -errno : 0;
                }
                if (r == 0 && need_dio && !loop_dio_on(n)) {
                        (void) ioctl(fd, LOOP_CLR_FD);
                        return fail(ret_reason, -EOPNOTSUPP,
                                    "%s over '%s' fell back to buffered I/O (loop/dio reads 0), which can stall "
                                    "reclaim in the file system's write path", dev, path);
                }
                if (r == 0) {
                        *ret_fd = TAKE_FD(fd);
                        *ret_dev = TAKE_PTR(dev);
                        return 0;
                }
        }
        errno = -r;
        return fail(ret_reason, r, "Failed to attach a loop device to '%s': %m", path);
}
