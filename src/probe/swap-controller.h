/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Whether the kubelet has a swap controller: on cgroup v2 the kubelet checks that memory.swap.max
 * exists in its own cgroup (kubernetes/kubernetes pkg/kubelet/kuberuntime/
 * kuberuntime_container_linux.go, swapControllerAvailable()) and, without it, sets no swap limit
 * on any container: LimitedSwap grants nothing the kernel enforces and NoSwap keeps no pod out of
 * swap. The kubelet runs in its unit's cgroup, /sys/fs/cgroup/system.slice/UNIT.
 * 1: memory.swap.max is there, 0: the cgroup is there without it (swap accounting off, e.g.
 * swapaccount=0 or cgroup.memory=noswap), -1: unknown (no unit, or its cgroup is absent). */
int swap_controller_probe(const char *root, const char *unit);
