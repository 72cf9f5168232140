/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The machine-wide lock that serialises every test and benchmark using this machine's kernel
 * (zram devices, swap areas, sysctls): the shell tests take it with flock(1) in
 * tests/lib/common.sh, tests/bench/run.sh too. Held until the process exits. */
#pragma once

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>

static inline int kernel_test_lock(void) {
        (void) mkdir("/run/lock", 0755);
        int fd = open("/run/lock/nodeswap-kernel.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 || flock(fd, LOCK_EX) < 0) {
                perror("/run/lock/nodeswap-kernel.lock");
                return -1;
        }
        return fd;      /* deliberately kept open: the lock lasts as long as the test */
}
