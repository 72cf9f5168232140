/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdio.h>

#include "probe/zswap.h"

struct json_object;

/* status's "Zswap:" block: nothing when the kernel has no zswap (enabled < 0). */
void zswap_print_text(FILE *f, const ZswapState *z);
/* status's "zswap" object, or NULL (JSON null) when the kernel has no zswap; *ret_oom on ENOMEM. */
struct json_object *zswap_to_json(const ZswapState *z, bool *ret_oom);
