/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "execute/unit-props.h"

#include <unistd.h>

#include "probe/noswap.h"
#include "shared/unit-name.h"
#include "shared/util.h"

int unit_props_remove_control(const char *root, const char *unit, const char *dropin) {
        if (!unit_name_is_valid(unit, UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE) || !dropin || strchr(dropin, '/'))
                return -EINVAL;
        _cleanup_free_ char *rel = strdup_printf(NO_SWAP_CONTROL_DIR "/%s.d", unit);
        _cleanup_free_ char *dir = rel ? path_join_root(root, rel) : NULL;
        _cleanup_free_ char *file = dir ? strdup_printf("%s/%s", dir, dropin) : NULL;
        if (!file)
                return -ENOMEM;
        /* unlink() does not follow a symlink in the last component; every directory above is root's
         * (/run/systemd/system.control is systemd's). */
        if (unlink(file) < 0 && errno != ENOENT)
                return -errno;
        /* systemd removes the directory of the drop-ins it wrote neither: leave it when others are in it. */
        if (rmdir(dir) < 0 && errno != ENOENT && errno != ENOTEMPTY && errno != EEXIST)
                return -errno;
        return 0;
}
