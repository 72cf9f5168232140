/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* Host paths ("/var/lib/x"), and walking them below a root prefix without following symlinks.
 * Nothing here logs. */

/* Absolute, no empty, "." or ".." component, no trailing slash, no component longer than 255
 * bytes, and not "/" itself. */
bool path_is_normalized_file(const char *path);

/* The directory holding path: "/var/lib/x" -> "/var/lib", "/x" -> "/". NULL on ENOMEM. */
char *path_dirname(const char *path);

/* Whether prefix is path or one of its parent directories ("/" is everyone's). */
bool path_has_prefix(const char *path, const char *prefix);

/* dir + "/" + name, without doubling a trailing slash. NULL on ENOMEM. */
char *path_join(const char *dir, const char *name);

/* readlink(2) into a malloc'd string. Returns 0 or -errno (-EINVAL: not a symlink). */
int readlink_malloc(const char *path, char **ret);

/* The number of entries of a directory besides . and .., and the first one's name when
 * ret_first is not NULL. Returns the count or -errno. */
int dir_count_entries(const char *path, char **ret_first);

/* Open the directory holding path below root (an O_PATH descriptor), one component at a time
 * with openat(O_PATH|O_NOFOLLOW|O_DIRECTORY), never following a symlink: every directory on the
 * way, the root included, must be owned by root and not writable by group or others. With
 * create, missing directories are made root-owned 0700. what names the file the caller will put
 * there in the reasons ("a swap file").
 * Returns 0 with *ret_dirfd and *ret_name (the last component), or -errno with *ret_reason set:
 * -EINVAL a path that is not normalised, -ELOOP a symlink on the way, -EPERM an unsafe directory,
 * -ENOENT/-ENOTDIR a missing or non-directory component. */
int path_open_parent_secure(const char *root, const char *path, bool create, const char *what,
                            int *ret_dirfd, char **ret_name, char **ret_reason);

/* fsync(2) of the directory dirfd refers to (an O_PATH descriptor will do). 0 or -errno. */
int fsync_directory(int dirfd);
