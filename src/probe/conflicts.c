/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "probe/conflicts.h"

int conflict_units_compute(const Policy *policy, const RpiSwapConfig *rpi, char ***ret) {
        _cleanup_strv_free_ char **l = strv_copy(policy->conflict_units);
        int r;
        if (!l)
                return -ENOMEM;
        if (rpi && (r = rpi_swap_units(rpi, policy->file.path, &l)) < 0)
                return r;
        *ret = TAKE_PTR(l);
        return 0;
}
