/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Checks of single values shared by several keys' parsers (values.c). */

#include "shared/util.h"

/* A plain decimal number (digits only), no larger than max: 0, -EINVAL, -ERANGE. */
int parse_plain_uint(const char *v, uint64_t max, uint64_t *ret);
/* Whether path is dir or below it. */
bool path_is_under(const char *path, const char *dir);
/* An absolute path naming a file: collapses "//" and "/./", refuses "..", white space, control
 * characters and a trailing '/'. 0; -EINVAL with *ret_reason (static) saying why; -ENOMEM. */
int path_normalize(const char *v, char **ret, const char **ret_reason);
