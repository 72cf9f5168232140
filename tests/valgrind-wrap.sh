#!/bin/sh
# The wrapper of tests/valgrind.sh: memcheck for a compiled program (a compiled test, or one of
# nodeswap's binaries that a shell test starts through tests/lib/common.sh's under_test); a shell
# script runs as it is (valgrind would only check bash, whose leaks are not ours).
# Any invalid access, use of uninitialised memory or definite/indirect leak makes the program exit
# 99, which no test expects. With NODESWAP_VALGRIND_LOGDIR set, each run's report goes to a file
# of its own there (empty when clean): shell tests send the binary's stderr to files or /dev/null,
# and tests/valgrind.sh prints what is in them.
if [ "$(head -c 4 "$1" 2>/dev/null)" = "$(printf '\177ELF')" ]; then
	set -- --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
		--show-leak-kinds=definite,indirect --track-origins=yes --quiet "$@"
	if [ -n "${NODESWAP_VALGRIND_LOGDIR:-}" ]; then
		set -- --log-file="$NODESWAP_VALGRIND_LOGDIR/%p.log" "$@"
	fi
	exec valgrind "$@"
fi
exec "$@"
