/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/crypt-dl.h"

#include "shared/dl-util.h"

#define CRYPT_DL_DEFINE(name) typeof(name) *sym_##name = NULL

CRYPT_DL_DEFINE(crypt_init);
CRYPT_DL_DEFINE(crypt_init_by_name);
CRYPT_DL_DEFINE(crypt_format);
CRYPT_DL_DEFINE(crypt_activate_by_volume_key);
CRYPT_DL_DEFINE(crypt_deactivate);
CRYPT_DL_DEFINE(crypt_free);
CRYPT_DL_DEFINE(crypt_set_log_callback);
CRYPT_DL_DEFINE(crypt_safe_alloc);
CRYPT_DL_DEFINE(crypt_safe_free);
CRYPT_DL_DEFINE(crypt_safe_memzero);
CRYPT_DL_DEFINE(crypt_benchmark);

/* Every pointer with its name, resolved together: all or none. */
#define CRYPT_DL_ENTRY(name) { #name, (void **) &sym_##name }
static const DlSymbol symbols[] = {
        CRYPT_DL_ENTRY(crypt_init),
        CRYPT_DL_ENTRY(crypt_init_by_name),
        CRYPT_DL_ENTRY(crypt_format),
        CRYPT_DL_ENTRY(crypt_activate_by_volume_key),
        CRYPT_DL_ENTRY(crypt_deactivate),
        CRYPT_DL_ENTRY(crypt_free),
        CRYPT_DL_ENTRY(crypt_set_log_callback),
        CRYPT_DL_ENTRY(crypt_safe_alloc),
        CRYPT_DL_ENTRY(crypt_safe_free),
        CRYPT_DL_ENTRY(crypt_safe_memzero),
        CRYPT_DL_ENTRY(crypt_benchmark),
};

static int load_result = 1;             /* 1 not tried yet, 0 loaded, < 0 failed */
static char load_error[256];

int crypt_dl_load(void) {
        if (load_result <= 0)
                return load_result;
        return (load_result = dl_load_symbols(CRYPT_DL_LIBRARY, symbols, ELEMENTSOF(symbols), load_error, sizeof load_error));
}

const char *crypt_dl_error(void) {
        return load_result < 0 ? load_error : NULL;
}
