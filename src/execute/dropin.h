/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* The kubelet drop-in nodeswap writes (its text comes from plan/kubelet.h). Nothing here logs. */

/* Write content to path (below root) atomically: a temporary file in the same directory
 * (O_CREAT|O_EXCL|O_NOFOLLOW, 0644), fsync, rename over path, fsync of the directory. The
 * directory is created 0700 when missing. */
int kubelet_write_dropin(const char *root, const char *path, const char *content);
/* Remove the drop-in; 0 when it was not there. */
int kubelet_remove_dropin(const char *root, const char *path);
