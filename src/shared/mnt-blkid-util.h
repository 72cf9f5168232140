/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* _cleanup_() helpers for the libmount and libblkid objects probe.c, swap.c and mounts.c use. */

#include <blkid.h>
#include <libmount.h>

static inline void mnt_unref_tablep(struct libmnt_table **t) {
        if (*t)
                mnt_unref_table(*t);
}

static inline void mnt_free_iterp(struct libmnt_iter **i) {
        if (*i)
                mnt_free_iter(*i);
}

static inline void blkid_free_probep(blkid_probe *p) {
        if (*p)
                blkid_free_probe(*p);
}
