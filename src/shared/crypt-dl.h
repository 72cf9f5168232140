/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <libcryptsetup.h>

#include "shared/util.h"

/* libcryptsetup, loaded with dlopen() on first use, as libsystemd is (shared/sd-dl.h): with it in
 * DT_NEEDED every start of nodeswap mapped it and what it brings (libcrypto, libdevmapper,
 * libargon2, libudev...), 17 shared objects instead of 10 and about 4 ms a start on the
 * development machine, paid by every status, metrics and plan that never makes a mapping. Only
 * the header is used at build time; only the encrypted swap file's setup and teardown
 * (execute/crypt.c) load it. */

#define CRYPT_DL_LIBRARY "libcryptsetup.so.12"

/* Load the library and resolve every symbol below, once. 0 on success (also on every later call),
 * -ELIBACC when it cannot be loaded or lacks a symbol (the same on later calls, without a second
 * attempt); crypt_dl_error() then says why. Never logs. */
int crypt_dl_load(void);
const char *crypt_dl_error(void);

#define CRYPT_DL_SYMBOL(name) extern typeof(name) *sym_##name

CRYPT_DL_SYMBOL(crypt_init);
CRYPT_DL_SYMBOL(crypt_init_by_name);
CRYPT_DL_SYMBOL(crypt_format);
CRYPT_DL_SYMBOL(crypt_activate_by_volume_key);
CRYPT_DL_SYMBOL(crypt_deactivate);
CRYPT_DL_SYMBOL(crypt_free);
CRYPT_DL_SYMBOL(crypt_set_log_callback);
CRYPT_DL_SYMBOL(crypt_safe_alloc);
CRYPT_DL_SYMBOL(crypt_safe_free);
CRYPT_DL_SYMBOL(crypt_safe_memzero);
CRYPT_DL_SYMBOL(crypt_benchmark);

#undef CRYPT_DL_SYMBOL
