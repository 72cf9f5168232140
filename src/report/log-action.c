/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log_action() (log.h), apart from log.c: it loads libsystemd for the journal's fields, and the
 * generator, which links log.c, need not carry that. */
#include "report/log.h"

#include "report/report.h"
#include "shared/sd-dl.h"

static bool action_is_unit(ActionKind k) {
        return k == ACTION_MASK_UNIT || k == ACTION_UNMASK_UNIT || k == ACTION_STOP_UNIT || k == ACTION_START_UNIT ||
               k == ACTION_RESTART_UNIT;
}

void log_action(const Action *a, const ActionResult *r) {
        _cleanup_free_ char *s = action_describe(a);
        const char *result = strempty(action_status_to_string(r->status)), *message = r->message;
        bool failed = r->status == ACTION_STATUS_FAILED,
             partial = r->status == ACTION_STATUS_NOT_DONE || r->status == ACTION_STATUS_SKIPPED;

        /* libsystemd is loaded only here, when the journal is where stdout goes; if it cannot be
         * loaded, the line goes to stdout, which is the journal anyway (without the fields). */
        if (log_fd_is_journal(STDOUT_FILENO) && sd_dl_load() >= 0) {
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
