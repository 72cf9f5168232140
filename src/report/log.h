/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/plan.h"
#include "plan/result.h"

#include <syslog.h>

/* Messages for people from the nodeswap command and the generator. Library-like code (policy,
 * probe, plan) never logs: it returns -errno and, where a person needs to know why, puts the
 * message into its result (PolicyErrors, Findings, an action's message); the caller logs it once.
 * At the point of failure in a command the idiom is one line that logs and returns:
 *
 *         if (r < 0)
 *                 return log_error_errno(r, "Failed to read the policy '%s': %m", path);
 *
 * naming what failed (with the path or value) and why (%m is the error's text, here strerror(-r)).
 * log_*_errno() return the error as a negative errno whatever sign it was given; log_error() and
 * the others without _errno return 0. errno is left as it was.
 *
 * Where the messages go: standard error (with the program's name in front when log_setup() gave
 * one), each line prefixed with its syslog priority ("<3>") when standard error is the journal's
 * stream, so the journal keeps the level; or, for the generator, the kernel log (/dev/kmsg), as
 * systemd's generators do, unless SYSTEMD_LOG_TARGET is console or stderr. */
typedef enum LogTarget {
        LOG_TARGET_STDERR,
        LOG_TARGET_KMSG,
} LogTarget;
void log_setup(const char *program, LogTarget target);
/* Whether fd is the stream JOURNAL_STREAM names (systemd sets it for a service's output). */
bool log_fd_is_journal(int fd);

_printf_(3, 4)
int log_internal(int level, int error, const char *format, ...);

#define log_error(...) log_internal(LOG_ERR, 0, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __VA_ARGS__)
#define log_notice(...) log_internal(LOG_NOTICE, 0, __VA_ARGS__)
#define log_info(...) log_internal(LOG_INFO, 0, __VA_ARGS__)
#define log_error_errno(error, ...) log_internal(LOG_ERR, (error), __VA_ARGS__)
#define log_warning_errno(error, ...) log_internal(LOG_WARNING, (error), __VA_ARGS__)
#define log_oom() log_error_errno(ENOMEM, "Out of memory.")

/* One line for an action as it happens (log-action.c): to the journal with a priority and structured fields
 * (NODESWAP_ACTION, NODESWAP_TARGET, NODESWAP_RESULT, and NODESWAP_UNIT or NODESWAP_DEVICE), or to
 * stdout for people, coloured on a terminal: the action in words, its result and message. */
void log_action(const Action *a, const ActionResult *r);
