/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The parse state shared by the policy's loader (load.c), its line reader in front of inih
 * (parse.c), the key parsers (schema.c), the suggestions (suggest.c) and the cross-key checks
 * (validate.c). Not part of the policy's public interface (policy.h). */

#include "policy/policy.h"

#include <stdarg.h>

typedef struct Err {
        PolicyError e;
        size_t rank;            /* order of the file among all files considered */
        size_t seq;             /* order of creation, to keep the sort stable */
} Err;

typedef enum SectionState {
        SECTION_NONE,           /* no section header yet */
        SECTION_KNOWN,
        SECTION_IGNORED,        /* unknown or malformed; its keys are skipped (already reported) */
} SectionState;

typedef struct ParseState {
        Policy *p;
        const PolicyContext *ctx;

        Err *errors;
        size_t n_errors;
        bool oom;
        int read_error;         /* first -errno from reading a file, other than refusals */

        /* The file being parsed. */
        const char *path;       /* display path (points into p->files while parsing) */
        size_t rank;
        size_t *file_ranks;     /* rank of each p->files[i] */
        unsigned line;
        SectionState section_state;
        const char *section;    /* canonical name when SECTION_KNOWN */
} ParseState;

/* Whether ctx can evaluate sizes: some RAM, a page size that is a power of two. */
bool policy_context_valid(const PolicyContext *ctx);
void policy_error_done(PolicyError *e);

/* Records one error at FILE:LINE; err_at() in the file being parsed, err_file() about a file or
 * directory as a whole. Return 0, or -ENOMEM (then st->oom is set). */
_printf_(6, 7)
int err_at(ParseState *st, unsigned line, const char *section, const char *key, const char *value,
           const char *fmt, ...);
_printf_(3, 4)
int err_file(ParseState *st, const char *file, const char *fmt, ...);
/* err_file() for a file that could not be read: keeps the first err (-errno) as st->read_error. */
int record_read_error(ParseState *st, const char *path, const char *what, int err);

/* Where the key being parsed is. */
Origin origin_here(ParseState *st);

/* Parses buf as one policy file, st->path, through the line reader and inih. */
void parse_buffer(ParseState *st, const char *buf, size_t len);

/* Sorts the errors by file and line, for policy_load(). */
void parse_state_sort_errors(ParseState *st);
void parse_state_done(ParseState *st);
