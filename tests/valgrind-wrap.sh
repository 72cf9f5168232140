#!/bin/sh
# The wrapper of tests/valgrind.sh: memcheck for a compiled program (a compiled test, or one of
# nodeswap's binaries that a shell test starts through tests/lib/common.sh's under_test); a shell
# script runs as it is (valgrind would only check bash, whose leaks are not ours).
# Any invalid access, use of uninitialised memory or definite/indirect leak makes the program exit
# 99, which no test expects. --track-origins=yes finds nothing more: it only says where an
# uninitialised value came from, and costs about 40 % more CPU a run (1.1-1.25 s of user time
# against 0.75 s for one `nodeswap status` here, and the suite starts the binary some 700 times);
# NODESWAP_VALGRIND_ORIGINS=1 turns it on to chase a report, and with it the inlined frames in
# the stack traces: --read-inline-info=no skips reading them from the debug information, which
# finds every error it found before and took a run here from 0.45 to 0.38 s of user time
# (`nodeswap --version`, the suite's some 700 starts). With NODESWAP_VALGRIND_LOGDIR set,
# each run's report goes to a file of its own there (empty when clean): shell tests send the
# binary's stderr to files or /dev/null, and tests/valgrind.sh prints what is in them.
if [ "$(head -c 4 "$1" 2>/dev/null)" = "$(printf '\177ELF')" ]; then
	inline=no
	if [ "${NODESWAP_VALGRIND_ORIGINS:-0}" = 1 ]; then
		set -- --track-origins=yes "$@"
		inline=yes
	fi
	set -- --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --read-inline-info=$inline --quiet "$@"
	if [ -n "${NODESWAP_VALGRIND_LOGDIR:-}" ]; then
		set -- --log-file="$NODESWAP_VALGRIND_LOGDIR/%p.log" "$@"
	fi
	exec valgrind "$@"
fi
exec "$@"
