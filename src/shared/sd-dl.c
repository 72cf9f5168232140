/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/sd-dl.h"

#include "shared/dl-util.h"
#include <stdarg.h>

#define SD_DL_DEFINE(name) typeof(name) *sym_##name = NULL

SD_DL_DEFINE(sd_booted);
SD_DL_DEFINE(sd_notify);
SD_DL_DEFINE(sd_journal_send_with_location);
SD_DL_DEFINE(sd_bus_new);
SD_DL_DEFINE(sd_bus_set_address);
SD_DL_DEFINE(sd_bus_start);
SD_DL_DEFINE(sd_bus_get_fd);
SD_DL_DEFINE(sd_bus_open_system);
SD_DL_DEFINE(sd_bus_is_bus_client);
SD_DL_DEFINE(sd_bus_flush_close_unref);
SD_DL_DEFINE(sd_bus_call);
SD_DL_DEFINE(sd_bus_call_method);
SD_DL_DEFINE(sd_bus_get_property_string);
SD_DL_DEFINE(sd_bus_get_property_trivial);
SD_DL_DEFINE(sd_bus_match_signal);
SD_DL_DEFINE(sd_bus_process);
SD_DL_DEFINE(sd_bus_wait);
SD_DL_DEFINE(sd_bus_slot_unref);
SD_DL_DEFINE(sd_bus_message_new_method_call);
SD_DL_DEFINE(sd_bus_message_append);
SD_DL_DEFINE(sd_bus_message_appendv);
SD_DL_DEFINE(sd_bus_message_append_strv);
SD_DL_DEFINE(sd_bus_message_read);
SD_DL_DEFINE(sd_bus_message_enter_container);
SD_DL_DEFINE(sd_bus_message_exit_container);
SD_DL_DEFINE(sd_bus_message_open_container);
SD_DL_DEFINE(sd_bus_message_close_container);
SD_DL_DEFINE(sd_bus_message_unref);
SD_DL_DEFINE(sd_bus_error_free);
SD_DL_DEFINE(sd_bus_error_has_name);
SD_DL_DEFINE(sd_journal_open);
SD_DL_DEFINE(sd_journal_open_directory);
SD_DL_DEFINE(sd_journal_close);
SD_DL_DEFINE(sd_journal_add_match);
SD_DL_DEFINE(sd_journal_seek_head);
SD_DL_DEFINE(sd_journal_seek_tail);
SD_DL_DEFINE(sd_journal_next);
SD_DL_DEFINE(sd_journal_previous);
SD_DL_DEFINE(sd_journal_get_data);

/* Every pointer with its name, resolved together: all or none. */
#define SD_DL_ENTRY(name) { #name, (void **) &sym_##name }
static const DlSymbol symbols[] = {
        SD_DL_ENTRY(sd_booted),
        SD_DL_ENTRY(sd_notify),
        SD_DL_ENTRY(sd_journal_send_with_location),
        SD_DL_ENTRY(sd_bus_new),
        SD_DL_ENTRY(sd_bus_set_address),
        SD_DL_ENTRY(sd_bus_start),
        SD_DL_ENTRY(sd_bus_get_fd),
        SD_DL_ENTRY(sd_bus_open_system),
        SD_DL_ENTRY(sd_bus_is_bus_client),
        SD_DL_ENTRY(sd_bus_flush_close_unref),
        SD_DL_ENTRY(sd_bus_call),
        SD_DL_ENTRY(sd_bus_call_method),
        SD_DL_ENTRY(sd_bus_get_property_string),
        SD_DL_ENTRY(sd_bus_get_property_trivial),
        SD_DL_ENTRY(sd_bus_match_signal),
        SD_DL_ENTRY(sd_bus_process),
        SD_DL_ENTRY(sd_bus_wait),
        SD_DL_ENTRY(sd_bus_slot_unref),
        SD_DL_ENTRY(sd_bus_message_new_method_call),
        SD_DL_ENTRY(sd_bus_message_append),
        SD_DL_ENTRY(sd_bus_message_appendv),
        SD_DL_ENTRY(sd_bus_message_append_strv),
        SD_DL_ENTRY(sd_bus_message_read),
        SD_DL_ENTRY(sd_bus_message_enter_container),
        SD_DL_ENTRY(sd_bus_message_exit_container),
        SD_DL_ENTRY(sd_bus_message_open_container),
        SD_DL_ENTRY(sd_bus_message_close_container),
        SD_DL_ENTRY(sd_bus_message_unref),
        SD_DL_ENTRY(sd_bus_error_free),
        SD_DL_ENTRY(sd_bus_error_has_name),
        SD_DL_ENTRY(sd_journal_open),
        SD_DL_ENTRY(sd_journal_open_directory),
        SD_DL_ENTRY(sd_journal_close),
        SD_DL_ENTRY(sd_journal_add_match),
        SD_DL_ENTRY(sd_journal_seek_head),
        SD_DL_ENTRY(sd_journal_seek_tail),
        SD_DL_ENTRY(sd_journal_next),
        SD_DL_ENTRY(sd_journal_previous),
        SD_DL_ENTRY(sd_journal_get_data),
};

static int load_result = 1;             /* 1 not tried yet, 0 loaded, < 0 failed */
static char load_error[256];

int sd_dl_load(void) {
        if (load_result <= 0)
                return load_result;
        return (load_result = dl_load_symbols(SD_DL_LIBRARY, symbols, ELEMENTSOF(symbols), load_error, sizeof load_error));
}

const char *sd_dl_error(void) {
        return load_result < 0 ? load_error : NULL;
}

int sd_dl_notifyf(const char *format, ...) {
        if (!getenv("NOTIFY_SOCKET"))
                return 0;
        int r = sd_dl_load();
        if (r < 0)
                return r;

        _cleanup_free_ char *s = NULL;
        va_list ap;
        va_start(ap, format);
        r = vasprintf(&s, format, ap);
        va_end(ap);
        if (r < 0)
                return -ENOMEM;
        return sym_sd_notify(false, s);
}
