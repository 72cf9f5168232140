/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The control drop-in systemd wrote for nodeswap's SetUnitProperties(runtime=true, MemorySwapMax=)
 * (probe/noswap.h): removed below root, and its UNIT.d directory when that is left empty. 0 when it
 * was not there; -EINVAL for a name that is no unit name (it must not leave the directory). */
int unit_props_remove_control(const char *root, const char *unit);
