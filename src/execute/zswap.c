/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The writer of zswap's module parameters (the only code that writes them). */
#include "execute/zswap.h"

int zswap_write_param(const char *root, ZswapParam p, const char *value, char **ret_shown) {
        const char *name = zswap_param_to_string(p);
        if (!name || !value)
                return -EINVAL;
        _cleanup_free_ char *rel = strdup_printf(ZSWAP_PARAMETERS_DIR "/%s", name);
        _cleanup_free_ char *path = rel ? path_join_root(root, rel) : NULL;
        if (!path)
                return -ENOMEM;
        int r = write_string_file(path, value);
        if (r < 0)
                return r;

        _cleanup_free_ char *shown = NULL;
        r = read_one_line(path, &shown);
        if (r < 0)
                return r;
        if (!zswap_value_equal(p, shown, value)) {
                if (ret_shown) {
                        *ret_shown = shown;
                        shown = NULL;
                }
                return -EIO;
        }
        return 0;
}
