/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include <stdbool.h>

/* systemd unit names: the one validity test (the policy's [Conflicts] Units= and [Kubelet] Unit=,
 * the generator's mask symlinks) and names made from paths (systemd-escape --path). */

typedef enum UnitNameFlags {
        UNIT_NAME_PLAIN = 1 << 0,       /* foo.service */
        UNIT_NAME_INSTANCE = 1 << 1,    /* foo@bar.service */
        UNIT_NAME_TEMPLATE = 1 << 2,    /* foo@.service */
        UNIT_NAME_ANY = UNIT_NAME_PLAIN | UNIT_NAME_INSTANCE | UNIT_NAME_TEMPLATE,
} UnitNameFlags;

/* A unit name systemd accepts, of one of the kinds in flags: shorter than 256 bytes, a known type
 * suffix (.service, .socket, ...) after a non-empty prefix of letters, digits and ":-_.\" with at
 * most one '@', not first (systemd itself lets further '@' into an instance; nodeswap refuses
 * them). Nothing in a valid name can leave a directory when it is used as a file name. */
bool unit_name_is_valid(const char *name, UnitNameFlags flags);

/* Unit names from paths, as systemd-escape --path does it: "/var/swap" -> "var-swap". NULL with
 * errno EINVAL (relative path, a ".." component) or ENOMEM. */
char *unit_name_path_escape(const char *path);
char *unit_name_from_path(const char *path, const char *suffix);               /* var-swap.swap */
char *unit_name_path_instance(const char *prefix, const char *path, const char *suffix);
                                                /* rpi-setup-loop@var-swap.service */

/* Where systemd finds a unit file, in its order (the first found wins; drop-ins come from all of
 * them, systemd.unit(5)): the initializer of one array per reader. */
#define SYSTEMD_UNIT_DIRS                                                                       \
        "/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",         \
        "/lib/systemd/system", "/usr/lib/systemd/system"
