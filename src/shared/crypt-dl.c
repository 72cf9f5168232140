/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/crypt-dl.h"

#include <dlfcn.h>

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
static const struct {
        const char *name;
        void **ptr;
} symbols[] = {
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

        /* RTLD_NODELETE: the pointers stay valid for the life of the process; never closed. */
        void *dl = dlopen(CRYPT_DL_LIBRARY, RTLD_NOW | RTLD_NODELETE);
        if (!dl) {
                const char *e = dlerror();
                snprintf(load_error, sizeof load_error, "%s", e ?: CRYPT_DL_LIBRARY ": cannot be loaded");
                return (load_result = -ELIBACC);
        }
        for (size_t i = 0; i < ELEMENTSOF(symbols); i++) {
                (void) dlerror();
                void *p = dlsym(dl, symbols[i].name);
                if (!p) {
                        const char *e = dlerror();
                        snprintf(load_error, sizeof load_error, "%s: %s", CRYPT_DL_LIBRARY,
                                 e ?: "a symbol is missing");
                        for (size_t j = 0; j < ELEMENTSOF(symbols); j++)
                                *symbols[j].ptr = NULL;
                        dlclose(dl);
                        return (load_result = -ELIBACC);
                }
                *symbols[i].ptr = p;
        }
        return (load_result = 0);
}

const char *crypt_dl_error(void) {
        return load_result < 0 ? load_error : NULL;
}
