/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "policy/policy.h"

/* Block devices as ROOT/sys shows them: which whole disk a device stands on, and its kind.
 * Read-only; nothing here logs. */

/* The disk name and kind behind a block device name as found in ROOT/sys/class/block (for
 * example "nvme0n1p2" -> "nvme0n1", STORAGE_NVME). A partition counts as its whole disk, a
 * device-mapper device with one slave as that slave. Classification: nvme* is STORAGE_NVME,
 * mmcblk* STORAGE_MMC, vd*, xvd*, loop*, anything on a virtio bus and SCSI/SATA disks a
 * hypervisor emulates STORAGE_VIRTUAL whatever their rotational flag, queue/rotational = 1
 * STORAGE_ROTATIONAL, anything else STORAGE_SSD; 0 when the kind cannot be told.
 * Returns 0, -EINVAL for a name that is no plain device name, -ENOENT when sysfs does not know
 * the device, other -errno. */
int blockdev_storage(const char *root, const char *name, char **ret_disk, StorageKind *ret_kind);
