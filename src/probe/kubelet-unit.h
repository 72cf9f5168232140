/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"

#include <stdbool.h>
#include <stddef.h>

/* Whether name has a unit file in one of the n directories below root; a symlink to /dev/null is
 * a mask, not a unit. Files only. */
bool unit_file_in(const char *root, const char *const *dirs, size_t n, const char *name);

/* The kubelet's unit: the policy's [Kubelet] Unit=, or the first of k3s-agent, k3s, rke2-agent,
 * rke2-server and kubelet.service that has a unit file (a symlink to /dev/null is a mask, not a
 * unit) in systemd's unit directories; NULL: none. The one reader, for probe() and the generator
 * (NoSwapUnits='s "kubelet"); files only. */
const char *kubelet_unit_find(const char *root, const Policy *policy);

/* [Kubelet] DropIn='s default for the kubelet of unit when the policy leaves it unset: rke2's
 * agent passes its kubelet --config-dir=/var/lib/rancher/rke2/agent/etc/kubelet.conf.d (k3s's
 * agent code with rke2's data directory), so the built-in default in k3s's directory would be a
 * file that kubelet never reads. NULL: the built-in default holds (k3s, kubeadm, none). */
const char *kubelet_unit_default_dropin(const char *unit);
