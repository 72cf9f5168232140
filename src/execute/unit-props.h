/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The control drop-in systemd wrote for nodeswap's SetUnitProperties(runtime=true, PROPERTY=), the
 * file name dropin ("50-MemorySwapMax.conf", probe/noswap.h; "50-IODeviceLatencyTargetUSec.conf"):
 * removed below root, and its UNIT.d directory when that is left empty. 0 when it was not there;
 * -EINVAL for a name that is no unit name or a drop-in name with a '/' (it must not leave the
 * directory). */
int unit_props_remove_control(const char *root, const char *unit, const char *dropin);
