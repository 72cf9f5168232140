/* SPDX-License-Identifier: GPL-2.0-or-later */
/* floor-zram SIZE_BYTES ALGORITHM PRIORITY: the least work that gives a node a zram swap device,
 * the floor the zram provisioning benchmark compares against. hot_add a device, write
 * comp_algorithm and disksize, write a version-1 swap header (one page, fsync), swapon(2) with
 * the priority. No parsing, no probing, no checks beyond the syscalls' results. Prints the
 * device's id. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/swap.h>
#include <unistd.h>

static int write_attr(const char *path, const char *value) {
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ssize_t n = write(fd, value, strlen(value));
        int r = n < 0 ? -errno : 0;
        close(fd);
        return r;
}

static void die(const char *what, const char *path, int r) {
        fprintf(stderr, "floor-zram: %s %s: %s\n", what, path, strerror(-r));
        exit(1);
}

int main(int argc, char **argv) {
        char path[128], buf[32];

        if (argc != 4) {
                fprintf(stderr, "usage: floor-zram SIZE_BYTES ALGORITHM PRIORITY\n");
                return 2;
        }
        uint64_t size = strtoull(argv[1], NULL, 10);
        int prio = atoi(argv[3]);
        long ps = sysconf(_SC_PAGESIZE);

        int fd = open("/sys/class/zram-control/hot_add", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                die("open", "hot_add", -errno);
        ssize_t n = read(fd, buf, sizeof buf - 1);
        if (n <= 0)
                die("read", "hot_add", n < 0 ? -errno : -EIO);
        close(fd);
        buf[n] = 0;
        int id = atoi(buf);

        snprintf(path, sizeof path, "/sys/block/zram%d/comp_algorithm", id);
        int r = write_attr(path, argv[2]);
        if (r < 0)
                die("write", path, r);
        snprintf(path, sizeof path, "/sys/block/zram%d/disksize", id);
        r = write_attr(path, argv[1]);
        if (r < 0)
                die("write", path, r);

        snprintf(path, sizeof path, "/dev/zram%d", id);
        unsigned char *page = calloc(1, (size_t) ps);
        if (!page)
                return 1;
        uint32_t version = 1, last_page = (uint32_t) (size / (uint64_t) ps - 1);
        memcpy(page + 1024, &version, 4);       /* union swap_header: bootbits[1024], version */
        memcpy(page + 1028, &last_page, 4);     /* last_page, then nr_badpages = 0 */
        memcpy(page + ps - 10, "SWAPSPACE2", 10);
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
                die("open", path, -errno);
        if (pwrite(fd, page, (size_t) ps, 0) != ps)
                die("write", path, -errno);
        if (fsync(fd) < 0)
                die("fsync", path, -errno);
        close(fd);
        if (swapon(path, SWAP_FLAG_PREFER | ((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK)) < 0)
                die("swapon", path, -errno);
        printf("%d\n", id);
        return 0;
}
