/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "probe/kubelet-config.h"
#include "plan/plan.h"

/* The first line of every drop-in nodeswap writes. */
#define KUBELET_DROPIN_HEADER "# Written by nodeswap; changes are overwritten. See nodeswap.conf(5).\n"

/* What the kubelet reads once nodeswap has written its drop-in at path for b (b UNSET: once it has
 * removed it): c merged with that drop-in in its place. *ours receives nodeswap's file, which
 * ret points into: free it with kubelet_config_file_done() after ret's last use. Pure. */
int kubelet_effective_with_dropin(const KubeletConfig *c, const char *path, SwapBehavior b,
                                  KubeletConfigFile *ours, KubeletEffective *ret);

/* "FILE:LINE" (or FILE when line is 0), "the kubelet's default" for f NULL. malloc'd. */
char *kubelet_source(const KubeletConfigFile *f, unsigned line);

/* Write content to path (below root) atomically: a temporary file in the same directory
 * (O_CREAT|O_EXCL|O_NOFOLLOW, 0644), fsync, rename over path, fsync of the directory. The
 * directory is created 0700 when missing. */
int kubelet_write_dropin(const char *root, const char *path, const char *content);
/* Remove the drop-in; 0 when it was not there. */
int kubelet_remove_dropin(const char *root, const char *path);

/* Whether the kubelet still works with an old swap capacity: 1 when its unit last started before
 * nodeswap's last swap change (the kubelet reads SwapTotal when it starts), 0 when after (or no
 * change), -1 when unknown (no start time: systemd not asked). */
int kubelet_capacity_stale(const HostState *h);
