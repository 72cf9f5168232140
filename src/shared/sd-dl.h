/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#include "shared/util.h"

/* libsystemd, loaded with dlopen() on first use, as systemd does for its optional libraries.
 *
 * Starting nodeswap with libsystemd in DT_NEEDED maps it and its dependencies (libcap, libgcrypt,
 * liblzma, libzstd, liblz4, libgpg-error): the benchmarks measured that at about 4.4 ms and 67
 * page faults per start, paid by every plan, status, check and no-op apply that never talks to
 * systemd. Only the headers are used at build time; the functions below are resolved by name
 * from "libsystemd.so.0" the first time sd_dl_load() is called, and every caller of sd-bus,
 * sd_notify() or the journal goes through these pointers. */

#define SD_DL_LIBRARY "libsystemd.so.0"

/* Load the library and resolve every symbol below, once. 0 on success (also on every later
 * call), -ELIBACC when the library cannot be loaded or lacks a symbol (the same error again on
 * later calls, without a second attempt); sd_dl_error() then says why. Never logs. */
int sd_dl_load(void);
/* dlerror()'s text from the failed sd_dl_load(), or NULL when nothing failed. */
const char *sd_dl_error(void);

#define SD_DL_SYMBOL(name) extern typeof(name) *sym_##name

SD_DL_SYMBOL(sd_booted);
SD_DL_SYMBOL(sd_notify);
SD_DL_SYMBOL(sd_journal_send_with_location);
SD_DL_SYMBOL(sd_bus_new);
SD_DL_SYMBOL(sd_bus_set_address);
SD_DL_SYMBOL(sd_bus_start);
SD_DL_SYMBOL(sd_bus_get_fd);
SD_DL_SYMBOL(sd_bus_open_system);
SD_DL_SYMBOL(sd_bus_is_bus_client);
SD_DL_SYMBOL(sd_bus_flush_close_unref);
SD_DL_SYMBOL(sd_bus_call);
SD_DL_SYMBOL(sd_bus_call_method);
SD_DL_SYMBOL(sd_bus_get_property_string);
SD_DL_SYMBOL(sd_bus_get_property_trivial);
SD_DL_SYMBOL(sd_bus_match_signal);
SD_DL_SYMBOL(sd_bus_process);
SD_DL_SYMBOL(sd_bus_wait);
SD_DL_SYMBOL(sd_bus_slot_unref);
SD_DL_SYMBOL(sd_bus_message_new_method_call);
SD_DL_SYMBOL(sd_bus_message_append);
/* a property's value of any signature in SetUnitProperties (execute/systemd-jobs.c) */
SD_DL_SYMBOL(sd_bus_message_appendv);
SD_DL_SYMBOL(sd_bus_message_append_strv);
SD_DL_SYMBOL(sd_bus_message_read);
SD_DL_SYMBOL(sd_bus_message_enter_container);
SD_DL_SYMBOL(sd_bus_message_exit_container);
/* nodeswap trial's StartTransientUnit properties (execute/trial.c) */
SD_DL_SYMBOL(sd_bus_message_open_container);
SD_DL_SYMBOL(sd_bus_message_close_container);
SD_DL_SYMBOL(sd_bus_message_unref);
SD_DL_SYMBOL(sd_bus_error_free);
SD_DL_SYMBOL(sd_bus_error_has_name);
/* the kubelet's version from its log (probe/kubelet-version.c) */
SD_DL_SYMBOL(sd_journal_open);
SD_DL_SYMBOL(sd_journal_open_directory);
SD_DL_SYMBOL(sd_journal_close);
SD_DL_SYMBOL(sd_journal_add_match);
SD_DL_SYMBOL(sd_journal_seek_head);
SD_DL_SYMBOL(sd_journal_seek_tail);
SD_DL_SYMBOL(sd_journal_next);
SD_DL_SYMBOL(sd_journal_previous);
SD_DL_SYMBOL(sd_journal_get_data);

#undef SD_DL_SYMBOL

/* Cleanup helpers going through the pointers (sd-bus.h's own *p helpers would call the real
 * symbols and so link libsystemd again). Each does nothing for NULL; any object passed to them
 * came from libsystemd, which is then loaded. */
static inline void sym_sd_bus_flush_close_unrefp(sd_bus **b) {
        if (*b)
                sym_sd_bus_flush_close_unref(*b);
}
static inline void sym_sd_bus_message_unrefp(sd_bus_message **m) {
        if (*m)
                sym_sd_bus_message_unref(*m);
}
static inline void sym_sd_journal_closep(sd_journal **j) {
        if (*j)
                sym_sd_journal_close(*j);
}
static inline void sym_sd_bus_slot_unrefp(sd_bus_slot **s) {
        if (*s)
                sym_sd_bus_slot_unref(*s);
}
/* An error still SD_BUS_ERROR_NULL owns nothing: no call into the library, loaded or not. */
static inline void sym_sd_bus_error_freep(sd_bus_error *e) {
        if (e->name || e->message)
                sym_sd_bus_error_free(e);
}

/* sd_notify(3), when $NOTIFY_SOCKET is set and the library loads; 0 otherwise. The text is
 * formatted here (no call into the library for it). */
int sd_dl_notifyf(const char *format, ...) _printf_(1, 2);
