/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* node-feature-discovery's local feature files: nfd-worker reads every file in features.d (names
 * that start with a dot are ignored, so a writer renames a hidden file into place; files larger
 * than 64 KiB are skipped whole: kubernetes-sigs/node-feature-discovery source/local/local.go,
 * MaxFeatureFileSize = 65536, and docs/usage/customization-guide.md, "Feature files"). nodeswap
 * keeps one file there, NODESWAP_FEATURE_FILE; plan/features.c decides its text. */
#define NFD_FEATURES_DIR "/etc/kubernetes/node-feature-discovery/features.d"
#define NODESWAP_FEATURE_FILE NFD_FEATURES_DIR "/nodeswap"
#define NFD_FEATURE_FILE_MAX 65536

/* What is at NODESWAP_FEATURE_FILE now. */
typedef struct FeatureFileState {
        bool exists;            /* something is at the path (lstat) */
        char *content;          /* its text, NULL when absent, not a regular file or too large */
        bool nfd_dir;           /* NFD_FEATURES_DIR exists (NFD's worker, or an earlier run, made it) */
} FeatureFileState;

void feature_file_state_done(FeatureFileState *s);
/* Read the file below root. Absent or unreadable is no error (content NULL); -ENOMEM only. */
int feature_file_probe(const char *root, FeatureFileState *ret);
