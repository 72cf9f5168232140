#!/usr/bin/env bash
# Run the tests under valgrind's memcheck: the compiled tests, and every run of nodeswap,
# nodeswap-generator and swapfile-driver that the shell tests start (they run them through
# under_test of tests/lib/common.sh, which honours NODESWAP_TEST_WRAPPER). Any invalid access, use
# of uninitialised memory or definite/indirect leak fails the test that ran it (exit 99).
#   tests/valgrind.sh BUILD_DIR [--integration | --integration-only] [meson test options]
# --integration (root) adds the tests on this machine's kernel; --integration-only runs only
# those (.ci/run runs the unit tests beside the README's run and these after it). They take
# /run/lock/nodeswap-kernel.lock, so they wait for other kernel tests and benchmarks rather than
# disturb them. Those that swap on real devices need a valgrind that knows swapon(2) and
# swapoff(2): valgrind 3.19 (Debian 12) does not (it prints "unhandled amd64-linux syscall: 167"
# and fails the call with ENOSYS), so with such a valgrind only check-live is added; the others
# run under ASan+UBSan+LeakSanitizer instead (.ci/run).
# Prints at the end how many programs ran under memcheck, and every report valgrind wrote.
# NODESWAP_VALGRIND_ORIGINS=1 adds --track-origins=yes (tests/valgrind-wrap.sh) to trace a report.
set -uo pipefail
BUILD=$(readlink -f "${1:?usage: $0 BUILD_DIR [--integration] [meson test options]}")
command -v valgrind >/dev/null || { echo "SKIP: valgrind not installed (apt-get install valgrind)"; exit 77; }
shift

tests=()
if [ "${1:-}" != --integration-only ]; then
	# status-report replaces malloc() itself to fail the Nth allocation. memcheck replaces malloc()
	# in the executable too, so the test's counter never moves, its "total > 20" check fails and
	# cmocka's longjmp out of each failed case leaves the case's memory behind (40 KiB "definitely
	# lost", all from the cases; the same policy_load() and probe() paths are leak-free under
	# memcheck in test-policy and test-probe). ASan skips its sweeps for the same reason.
	mapfile -t tests < <(meson test -C "$BUILD" --list --suite unit 2>/dev/null | sed -n 's|^[^:]*:unit / ||p' |
		grep -vx status-report)
fi
if [ "${1:-}" = --integration ] || [ "${1:-}" = --integration-only ]; then
	shift
	[ "$(id -u)" = 0 ] || { echo "SKIP: --integration needs root"; exit 77; }
	# the output taken whole first: under pipefail, grep -q leaving at the first match could
	# SIGPIPE valgrind and fail the pipeline, and then every integration test ran under a
	# valgrind without swapon(2) (stop 41's .ci/run: 8 of them failed with ENOSYS)
	probe=$(valgrind -q --tool=none perl -e 'my $p = "/nonexistent/nodeswap"; syscall(167, $p, 0)' 2>&1)
	if grep -q 'unhandled amd64-linux syscall: 167' <<<"$probe"; then
		echo "valgrind $(valgrind --version) cannot run swapon(2): of the integration tests only check-live runs under it"
		tests+=(check-live)
	else
		mapfile -t -O "${#tests[@]}" tests < <(meson test -C "$BUILD" --list --suite integration 2>/dev/null |
			sed -n 's|^[^:]*:integration / ||p')
	fi
fi
[ "${#tests[@]}" -gt 0 ] || { echo "no tests found in $BUILD"; exit 1; }

wrapper=$(readlink -f "$(dirname "$0")/valgrind-wrap.sh")
logs=$BUILD/meson-logs/valgrind
rm -rf "$logs"
mkdir -p "$logs"
NODESWAP_TEST_WRAPPER=$wrapper NODESWAP_VALGRIND_LOGDIR=$logs \
	meson test -C "$BUILD" --wrapper "$wrapper" --print-errorlogs --timeout-multiplier 10 "$@" "${tests[@]}"
rc=$?

# A log holds valgrind's own warnings (an ioctl it does not model: libblkid's CD-ROM check) or a
# report of an error in the program; only the latter counts.
warning='Warning: noted but unhandled ioctl|This could cause spurious value errors|README_MISSING_SYSCALL_OR_IOCTL'
runs=0 reports=0
for f in "$logs"/*.log; do
	[ -e "$f" ] || continue
	runs=$((runs + 1))
	if grep -Evq "$warning" "$f"; then
		reports=$((reports + 1))
		echo "== valgrind report $f:"
		cat "$f"
	fi
done
echo "valgrind: $runs programs ran under memcheck over ${#tests[@]} tests, $reports with an error or leak report; meson test exit $rc"
[ "$reports" = 0 ] || rc=1
exit $rc
