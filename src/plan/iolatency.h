/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/context.h"

/* [Kubelet] IOLatencyTargetSec=: the daemons' I/O while pods swap (nodeswap.conf(5), "The
 * daemons' I/O").
 *
 * Kubernetes' "Swap memory management" page (and KEP-2400's best practices, "Protect system
 * critical daemons for iolatency") asks to protect the system daemons' I/O with cgroup v2's
 * io.latency when swap shares their disk: pods' swap-outs and swap-ins are their cgroups' I/O on
 * the swap's disk, and a storm of them queues in front of the kubelet's, containerd's and the
 * journal's reads and writes. io.latency throttles only sibling cgroups of the one whose target is
 * missed (Documentation/admin-guide/cgroup-v2.rst, "IO Latency": "The limits are only applied at
 * the peer level in the hierarchy"), so the target goes on system.slice, whose sibling is
 * kubepods.slice; a target on the kubelet's unit alone would throttle only its siblings in
 * system.slice and never the pods.
 *
 * auto: the kernel's own default latency target for the disk's class, block/blk-iocost.c's
 * autop[] (QOS_RLAT and QOS_WLAT): 250ms for a rotational disk (AUTOP_HDD), 25ms otherwise
 * (AUTOP_SSD_DFL). cgroup-v2.rst asks for a target above the latency the device normally has;
 * these are what the kernel itself takes as that when it knows nothing else of the device. */
#define IO_LATENCY_AUTO_ROTATIONAL_USEC UINT64_C(250000)
#define IO_LATENCY_AUTO_USEC UINT64_C(25000)

/* One io-latency action when system.slice's target should change: set on the disk swap shares with
 * the daemons while pods get swap, taken away (revert, no longer wanted, another disk) when nodeswap
 * recorded one; the finding io-latency-unsupported on cgroup v1 or without the io controller. */
int plan_io_latency(PlanContext *c);

/* The target the policy asks for on h's shared disk (auto resolved), 0 when none. */
uint64_t io_latency_wanted(const Policy *p, const HostState *h);
