/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Compiled only with meson -Dfault-injection=true (fault.h). */
#include "execute/fault.h"

#include <signal.h>

void fault_step(const char *name) {
        static unsigned long steps = 0;
        static long kill_after = -2;    /* -2: not read yet, -1: no fault asked for */

        if (kill_after == -2) {
                const char *v = getenv("NODESWAP_FAULT_KILL_AFTER");
                int n;
                kill_after = v && safe_atoi(v, &n) >= 0 && n > 0 ? n : -1;
        }
        steps++;
        if (kill_after < 0 || steps != (unsigned long) kill_after)
                return;
        fprintf(stderr, "fault injection: killed after step %lu (%s)\n", steps, strempty(name));
        fflush(NULL);
        raise(SIGKILL);
}
