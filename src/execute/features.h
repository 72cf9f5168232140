/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* nodeswap's feature file for node-feature-discovery (probe/features.h; its text comes from
 * plan/features.h). Nothing here logs. */

/* Write content to NODESWAP_FEATURE_FILE below root: NFD_FEATURES_DIR made 0755 when missing (NFD's
 * worker reads it from a host mount), the text written under a hidden name (nfd-worker skips
 * names that start with a dot) and renamed into place (shared/util.h write_file_atomic(), 0644, no
 * symlink followed), so the worker never reads half a file. -EFBIG over NFD_FEATURE_FILE_MAX,
 * which the worker would skip whole. */
int features_write(const char *root, const char *content);
/* Remove it; 0 when it was not there, 1 when removed. */
int features_remove(const char *root);
