/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "plan/verdict.h"
#include "probe/host.h"

/* The parts of a zram device beyond size, algorithm, priority and mem_limit (issue 17): algorithm
 * parameters, recompression and writeback. Pure functions of (policy, host). */

/* The parameters the policy gives algorithm (one of [Zram] Algorithm=), in the kernel's form, or
 * NULL when it gives none. */
const char *zram_knobs_params_for(const Policy *p, const char *algorithm);

/* Adds an error finding for each knob the kernel lacks (algorithm_params for the chosen
 * algorithm's parameters, recomp_algorithm, backing_dev, writeback_limit) and for a Writeback=
 * that names no usable block device or file. The kernel's offer is read off any zram device; with
 * none, nothing can be told and nothing is added. Returns the number of errors added, -ENOMEM. */
int zram_knobs_check(const Policy *p, const HostState *h, const char *algorithm, Findings *fs);

/* The backing device a device of ours should have: the block device Writeback= names, or for its
 * file the dm-crypt mapping of nodeswap's over it (WritebackEncrypt=yes) or the loop device
 * already backed by it (no); NULL when the policy wants none or that device does not exist yet. */
const char *zram_knobs_backing_dev(const Policy *p, const HostState *h);

/* Whether device z's writeback set-up is what the policy wants (the backing device). */
bool zram_knobs_match(const Policy *p, const HostState *h, const ZramDevice *z);

/* Whether device z's backing device is the policy's Writeback= file, through its loop device or
 * its mapping, whichever the policy wants: zram cannot share it with a new device, so a device of
 * ours that holds it is taken down before another is set up on it (plan/zram.c). */
bool zram_knobs_holds_file(const Policy *p, const HostState *h, const ZramDevice *z);

/* ", writeback to F (a loop device nodeswap attaches), at most 1G a day" for the plan's text; ""
 * when no writeback is wanted. malloc'd; NULL on ENOMEM. */
char *zram_knobs_describe(const Policy *p, const char *algorithm);
