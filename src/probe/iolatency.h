/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemons' I/O ([Kubelet] IOLatencyTargetSec=, plan/iolatency.h): which whole disk nodeswap's
 * swap ends up on, whether the node's daemons use the same disk, and what system.slice's
 * io.latency says of it. Read-only; nothing here logs.
 *
 * A swap area reaches its disk through layers, each read from sysfs below root: a partition's
 * disk is the directory above it (/sys/class/block/PART is a symlink into .../DISK/PART); a
 * device-mapper device (dm-crypt, a one-volume LVM) stands on its one slave
 * (/sys/class/block/dm-N/slaves/); a loop device on its backing file
 * (/sys/block/loopN/loop/backing_file); a file on the device of the mount that holds it
 * (/proc/self/mountinfo, the longest mount point that is a prefix of its path). nodeswap's
 * encrypted swap file is all of them: /dev/dm-N over /dev/loopN over the file on, say,
 * /dev/vda1 of /dev/vda; so is a zram writeback file (a loop device over a file). blockdev.h
 * does the partition and device-mapper steps, mounts.h the file's mount; this module adds the
 * loop device's step and the disk's number. */

#include "policy/policy.h"
#include "probe/host.h"

/* The daemons' state, whose disk counts: the root file system, the kubelet's (kubeadm's and
 * rke2's /var/lib/kubelet), containerd's, and k3s's (its agent's containerd and kubelet below
 * /var/lib/rancher). */
#define IO_DAEMON_PATHS "/", "/var/lib/kubelet", "/var/lib/containerd", "/var/lib/rancher"

/* How many layers (device-mapper, partition, loop device, mount) a swap area may stand on. */
#define IO_DISK_DEPTH 8

/* system.slice's io.latency line for MAJ:MIN ("8:0 target=25000"): the target in µs, 0 when the
 * text has no line for it (no target), -EINVAL for a line that does not parse. */
int io_latency_parse(const char *text, unsigned major, unsigned minor, uint64_t *ret_usec);

/* Fill h->io_latency for the policy: the disks under nodeswap's swap (the policy's [File] Path=,
 * a [Zram] Writeback= file or device, the swap areas of /proc/swaps that are not zram, an encrypted
 * one's mapping), the daemons' disks, the first disk in both with its number and whether it
 * rotates, the io controller, and system.slice's io.latency and control drop-in. Call after the
 * swaps and the cgroup mode are probed. */
int io_latency_probe(const char *root, const Policy *p, HostState *h);
void io_latency_state_done(IoLatencyState *s);
