/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"

/* The kubelet's unit: the policy's [Kubelet] Unit=, or the first of k3s-agent, k3s, rke2-agent,
 * rke2-server and kubelet.service that has a unit file (a symlink to /dev/null is a mask, not a
 * unit) in systemd's unit directories; NULL: none. The one reader, for probe() and the generator
 * (NoSwapUnits='s "kubelet"); files only. */
const char *kubelet_unit_find(const char *root, const Policy *policy);
