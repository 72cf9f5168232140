/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "shared/dl-util.h"

#include <dlfcn.h>

int dl_load_symbols(const char *library, const DlSymbol *symbols, size_t n, char *error, size_t error_size) {
        void *dl = dlopen(library, RTLD_NOW | RTLD_NODELETE);
        if (!dl) {
                const char *e = dlerror();
                snprintf(error, error_size, "%s%s", e ?: library, e ? "" : ": cannot be loaded");
                return -ELIBACC;
        }
        for (size_t i = 0; i < n; i++) {
                (void) dlerror();
                void *p = dlsym(dl, symbols[i].name);
                if (!p) {
                        const char *e = dlerror();
                        snprintf(error, error_size, "%s: %s", library, e ?: "a symbol is missing");
                        for (size_t j = 0; j < n; j++)
                                *symbols[j].ptr = NULL;
                        dlclose(dl);
                        return -ELIBACC;
                }
                *symbols[i].ptr = p;
        }
        return 0;
}
