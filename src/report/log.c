/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Messages for people (log.h). Nothing here loads libsystemd: the generator links it. */
#include "report/log.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>

/* The longest record written to /dev/kmsg; the kernel takes up to 1 KiB of text per record. */
#define LOG_KMSG_LINE_MAX 1024

static const char *log_program;         /* NULL: no prefix */
static int log_kmsg_fd = -EBADF;

bool log_fd_is_journal(int fd) {
        const char *e = getenv("JOURNAL_STREAM");
        struct stat st;
        uint64_t dev, ino;
        if (!e || sscanf(e, "%" SCNu64 ":%" SCNu64, &dev, &ino) != 2 || fstat(fd, &st) < 0)
                return false;
        return (uint64_t) st.st_dev == dev && (uint64_t) st.st_ino == ino;
}

void log_setup(const char *program, LogTarget target) {
        const char *t = getenv("SYSTEMD_LOG_TARGET");

        log_program = program;
        if (log_kmsg_fd >= 0)
                close(log_kmsg_fd);
        log_kmsg_fd = -EBADF;
        if (target != LOG_TARGET_KMSG || (t && (streq(t, "console") || streq(t, "stderr"))))
                return;
        /* Without /dev/kmsg (a container), standard error. */
        log_kmsg_fd = open("/dev/kmsg", O_WRONLY | O_NOCTTY | O_CLOEXEC);
}

static void log_write(int level, const char *msg) {
        const char *prog = log_program ?: "", *sep = log_program ? ": " : "";

        if (log_kmsg_fd >= 0) {
                /* One write() is one kernel log record. */
                char line[LOG_KMSG_LINE_MAX];
                int n = snprintf(line, sizeof(line), "<%d>%s%s%s\n", level, prog, sep, msg);
                if (n > 0 && write(log_kmsg_fd, line, (size_t) n < sizeof(line) ? (size_t) n : sizeof(line) - 1) >= 0)
                        return;
        }
        if (log_fd_is_journal(STDERR_FILENO))
                fprintf(stderr, "<%d>%s%s%s\n", level, prog, sep, msg);
        else
                fprintf(stderr, "%s%s%s\n", prog, sep, msg);
}

int log_internal(int level, int error, const char *format, ...) {
        int saved = errno, e = error < 0 ? -error : error;
        char *msg = NULL;
        va_list ap;

        errno = e;              /* for %m */
        va_start(ap, format);
        if (vasprintf(&msg, format, ap) < 0)
                msg = NULL;
        va_end(ap);
        log_write(level, msg ?: format);
        free(msg);
        errno = saved;
        return -e;
}
