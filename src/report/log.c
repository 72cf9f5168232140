/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "report/log.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "report/report.h"
#include "shared/sd-dl.h"

/* The longest record written to /dev/kmsg; the kernel takes up to 1 KiB of text per record. */
#define LOG_KMSG_LINE_MAX 1024

static const char *log_program;         /* NULL: no prefix */
static int log_kmsg_fd = -EBADF;

/* Whether fd is the stream JOURNAL_STREAM names (systemd sets it for a service's output). */
static bool fd_is_journal(int fd) {
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
        if (fd_is_journal(STDERR_FILENO))
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

static bool action_is_unit(ActionKind k) {
        return k == ACTION_MASK_UNIT || k == ACTION_UNMASK_UNIT || k == ACTION_STOP_UNIT || k == ACTION_START_UNIT ||
               k == ACTION_RESTART_UNIT;
}

void log_action(const Action *a, const char *result, const char *message) {
        _cleanup_free_ char *s = action_describe(a);
        bool failed = streq(result, "failed"), partial = streq(result, "not-done") || streq(result, "skipped");

        /* libsystemd is loaded only here, when the journal is where stdout goes; if it cannot be
         * loaded, the line goes to stdout, which is the journal anyway (without the fields). */
        if (fd_is_journal(STDOUT_FILENO) && sd_dl_load() >= 0) {
                const char *target = strempty(a->target);
                bool dev = a->kind == ACTION_SWAPON || a->kind == ACTION_SWAPOFF || a->kind == ACTION_ZRAM_REMOVE ||
                           a->kind == ACTION_FILE_CREATE || a->kind == ACTION_FILE_MKSWAP ||
                           a->kind == ACTION_FILE_REMOVE;
                sym_sd_journal_send_with_location("CODE_FILE=" __FILE__, "CODE_LINE=" _SD_STRINGIFY(__LINE__), __func__,
                                "MESSAGE=%s ... %s%s%s", strempty(s), result, message ? ": " : "", strempty(message),
                                "PRIORITY=%i", failed ? LOG_ERR : partial ? LOG_WARNING : LOG_NOTICE,
                                "NODESWAP_ACTION=%s", action_kind_to_string(a->kind), "NODESWAP_TARGET=%s", target,
                                "NODESWAP_RESULT=%s", result, action_is_unit(a->kind) ? "NODESWAP_UNIT=%s" : dev ? "NODESWAP_DEVICE=%s" : "NODESWAP_OTHER=%s",
                                target, NULL);
                return;
        }

        bool tty = colors_enabled(STDOUT_FILENO);
        const char *col = !tty ? "" : failed ? "\033[31m" : partial ? "\033[33m" : "\033[32m";
        printf("%s ... %s%s%s%s%s\n", strempty(s), col, result, tty ? "\033[0m" : "", message ? ": " : "",
               strempty(message));
        fflush(stdout);
}
