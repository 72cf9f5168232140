/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "shared/util.h"

/* Fault injection for the robustness tests, in the test build only.
 *
 * Built with meson -Dfault-injection=true (the test build: the README's test command and .ci/run;
 * never the release build nor the Debian package, whose default is false), nodeswap reads
 * NODESWAP_FAULT_KILL_AFTER=N and kills itself with SIGKILL right after its Nth step, as a power
 * cut or the OOM killer would stop it, and "nodeswap --version" says "+fault-injection". A step is
 * each plan action that execute_plan() carries out; a writer that does several things the node
 * depends on in one action marks each of them with fault_step() too, so that every one of them
 * can be cut short. Without the option fault_step() is an empty inline function: the release
 * binary has neither the variable nor the code.
 *
 * Faults of single system calls (ENOMEM, EBUSY, ENOSPC) come from outside the binary, with
 * strace --inject (tests/integration/test-faults-kernel.sh). */

#if NODESWAP_FAULT_INJECTION
#define FAULT_INJECTION_BUILT true
/* One step is done (name: what it was, for the message on stderr). */
void fault_step(const char *name);
#else
#define FAULT_INJECTION_BUILT false
static inline void fault_step(const char *name) {
}
#endif
