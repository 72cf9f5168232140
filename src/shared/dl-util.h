/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* A library's functions resolved by name after dlopen(), for the optional libraries nodeswap
 * loads on first use (shared/sd-dl.h, shared/crypt-dl.h). */
typedef struct DlSymbol {
        const char *name;
        void **ptr;
} DlSymbol;

/* dlopen() library (RTLD_NOW | RTLD_NODELETE: never closed, so the pointers stay valid for the
 * life of the process) and set every *symbols[i].ptr: all or none. 0, or -ELIBACC with the reason
 * in error (error_size bytes). Never logs. */
int dl_load_symbols(const char *library, const DlSymbol *symbols, size_t n, char *error, size_t error_size);
