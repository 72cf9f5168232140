/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* Write value to the sysctl name ("vm.swappiness", "vm.page-cluster", "vm.min_free_kbytes",
 * "vm.watermark_scale_factor") below root, as
 * /proc/sys/vm/swappiness. -EINVAL for a name that is not one nodeswap sets. */
int sysctl_write(const char *root, const char *name, int value);
