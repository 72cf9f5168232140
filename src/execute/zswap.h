/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/zswap.h"

/* Write one zswap module parameter below root (ZSWAP_PARAMETERS_DIR/NAME, O_NOFOLLOW, no newline)
 * and read it back: 0 when the kernel now shows value (booleans as the kernel reads them), -EIO
 * when it shows something else, with what it shows in *ret_shown (may be NULL); the kernel's
 * -errno when it refuses the write (-ENOENT: a compressor the crypto API lacks). */
int zswap_write_param(const char *root, ZswapParam p, const char *value, char **ret_shown);
