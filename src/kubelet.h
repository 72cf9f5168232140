/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan.h"

/* The first line of every drop-in nodeswap writes. */
#define KUBELET_DROPIN_HEADER "# Written by nodeswap; changes are overwritten. See nodeswap.conf(5).\n"

/* The units tried, in order, for [Kubelet] Unit=auto. */
extern const char *const kubelet_units[];

/* Parse "swapBehavior: X" out of a drop-in's text. Returns SWAP_BEHAVIOR_UNSET when absent. */
SwapBehavior kubelet_dropin_behavior(const char *text);

/* Write content to path (below root) atomically: a temporary file in the same directory
 * (O_CREAT|O_EXCL|O_NOFOLLOW, 0644), fsync, rename over path, fsync of the directory. The
 * directory is created 0700 when missing. */
int kubelet_write_dropin(const char *root, const char *path, const char *content);
/* Remove the drop-in; 0 when it was not there. */
int kubelet_remove_dropin(const char *root, const char *path);
