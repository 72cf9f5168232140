/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Checks across keys, once every file is merged (validate.c). */

#include "policy/parse.h"

/* Records an error at the later of the two lines for each contradiction between keys. */
void policy_check_merged(ParseState *st);
