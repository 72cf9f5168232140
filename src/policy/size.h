/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Size expressions ([Zram] Size=, MemLimit=, [File] Size=) and Kubernetes quantities (size.c). */

#include "shared/util.h"

/* Evaluate "512M", "1.5G", "50%", "min(ram / 2, 8G)" ... with ram in bytes. The result is rounded
 * down to page_size. Returns 0, or -EINVAL with *ret_reason set to a static string saying why
 * (syntax, division by zero, overflow, zero or negative result). */
int size_eval(const char *expr, uint64_t ram, uint64_t page_size, uint64_t *ret, const char **ret_reason);
/* Whether a size expression means what it says: -EINVAL (with *ret_msg, when ret_msg is not
 * NULL, spelling out the reading) when a number written without a unit, below 1 MiB, stands as a
 * size of its own: "4096" or "min(ram / 2, 4096)" is bytes here, but MiB in zram-generator's
 * zram-size=. A size with a suffix (40K) is taken as meant. 0 otherwise; -ENOMEM. */
int size_check_meant(const char *expr, char **ret_msg);
/* Kubernetes quantities (256Mi, 1Gi, 500M, 1.5G, 1e9) in bytes. */
int quantity_parse(const char *s, uint64_t *ret);
