/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once
/* Raspberry Pi OS's rpi-swap, read as its generator reads it: /etc/rpi/swap.conf (the first of
 * /etc, /run, /usr/local/lib, /usr/lib) and every rpi/swap.conf.d/\*.conf drop-in of those four
 * directories in file-name order (a same-named file in an earlier directory replaces a later one,
 * a symlink to /dev/null masks one), later assignments winning. Only reads; never logs.
 *
 * From that configuration follow the units rpi-swap-generator makes for its mechanism, which are
 * the units nodeswap masks besides [Conflicts] Units= (DOMAIN.md, "Raspberry Pi OS swap"). */

#include "shared/util.h"

typedef enum RpiSwapMechanism {
        RPI_SWAP_AUTO,
        RPI_SWAP_SWAPFILE,
        RPI_SWAP_SWAPDEV,
        RPI_SWAP_ZRAM,
        RPI_SWAP_ZRAM_FILE,
        RPI_SWAP_ZRAM_DEVICE,
        RPI_SWAP_NONE,
        _RPI_SWAP_MECHANISM_MAX,
} RpiSwapMechanism;

const char *rpi_swap_mechanism_to_string(RpiSwapMechanism m);
int rpi_swap_mechanism_from_string(const char *s, RpiSwapMechanism *ret);

typedef struct RpiSwapConfig {
        bool installed;                 /* rpi-swap-generator is in a system-generators directory */
        RpiSwapMechanism mechanism;     /* as configured (unknown values read as auto, as rpi-swap does) */
        char *mechanism_source;         /* "FILE:LINE" of the Mechanism= that won, NULL for the default */
        char *path;                     /* [File] Path=, default /var/swap */
        bool writeback_timer;           /* [Zram] WritebackTrigger= is not "manual" */
} RpiSwapConfig;

/* Read rpi-swap's configuration below root. A missing configuration is the defaults; not
 * installed and not configured is ret->installed == false with the defaults. */
int rpi_swap_load(const char *root, RpiSwapConfig *ret);
void rpi_swap_config_done(RpiSwapConfig *c);

/* What rpi-swap-generator makes from this configuration that would bring swap back, create,
 * resize or delete a swap file, or hold a loop device: the unit names, appended to *units
 * (no duplicates). policy_path (nodeswap's [File] Path=, may be NULL) adds the remove service
 * rpi-swap would make for that path, so rpi-swap cannot delete nodeswap's file. Nothing is
 * added when rpi-swap is not installed. */
int rpi_swap_units(const RpiSwapConfig *c, const char *policy_path, char ***units);

/* name is the unit that holds rpi-swap's loop device on its swap file (rpi-setup-loop@PATH.service). */
bool rpi_swap_loop_unit(const RpiSwapConfig *c, const char *name);
