#!/usr/bin/env bash
# Run the unit tests under valgrind's memcheck: any invalid access, use of uninitialised memory or
# definite/indirect leak fails the test. Shell-script tests are run as they are (valgrind does not
# follow into their children). --integration (root) adds the real-kernel tests: only on a machine
# nobody else is testing on, since not every integration test takes /run/lock/nodeswap-kernel.lock.
#   tests/valgrind.sh BUILD_DIR [--integration] [meson test options]
set -uo pipefail
BUILD=${1:?usage: $0 BUILD_DIR}
command -v valgrind >/dev/null || { echo "SKIP: valgrind not installed (apt-get install valgrind)"; exit 77; }

shift
suites=(--suite unit)
if [ "${1:-}" = --integration ]; then
	shift
	[ "$(id -u)" = 0 ] || { echo "SKIP: --integration needs root"; exit 77; }
	suites+=(--suite integration)
fi
# valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect, on the
# compiled tests only (valgrind-wrap.sh)
wrapper=$(readlink -f "$(dirname "$0")/valgrind-wrap.sh")
meson test -C "$BUILD" "${suites[@]}" --wrapper "$wrapper" --print-errorlogs --timeout-multiplier 10 "$@"
rc=$?
echo "valgrind run over ${suites[*]}: exit $rc (full log: $BUILD/meson-logs/testlog-valgrind.txt)"
exit $rc
