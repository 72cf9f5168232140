#!/usr/bin/env bash
# Build the libFuzzer harnesses with clang (address and undefined-behaviour sanitizers) against
# the library sources they need, run each for SECONDS from the seed corpus, and fail on any crash.
# A crashing input is copied to tests/fuzz/found/ (next to this script's SRC_DIR) to be turned into
# a regression test in tests/fuzz/regressions/. Exit 77 (skip) when clang or its libFuzzer runtime
# is missing (Debian: clang libclang-rt-14-dev).
#   run-fuzz.sh SRC_DIR SECONDS [fuzz-policy|fuzz-size|fuzz-kubelet ...]
set -uo pipefail

SRC=${1:?usage: $0 SRC_DIR SECONDS [TARGET...]}
SECONDS_EACH=${2:?usage: $0 SRC_DIR SECONDS [TARGET...]}
shift 2
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz-policy fuzz-size fuzz-kubelet)
SRC=$(readlink -f "$SRC")
CC=${CLANG:-clang}

command -v "$CC" >/dev/null || { echo "SKIP: $CC not installed"; exit 77; }
command -v pkg-config >/dev/null || { echo "SKIP: pkg-config missing"; exit 77; }
INIH_CFLAGS=$(pkg-config --cflags inih) && INIH_LIBS=$(pkg-config --libs inih) ||
	{ echo "SKIP: inih development files missing"; exit 77; }
YAML_CFLAGS=$(pkg-config --cflags yaml-0.1) && YAML_LIBS=$(pkg-config --libs yaml-0.1) ||
	{ echo "SKIP: libyaml development files missing"; exit 77; }

work=$(mktemp -d /tmp/nodeswap-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT

# libFuzzer's runtime ships separately from clang on Debian (libclang-rt-NN-dev).
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$work/probe.c"
if ! "$CC" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>"$work/probe.err"; then
	echo "SKIP: $CC cannot link -fsanitize=fuzzer (install libclang-rt-dev): $(head -1 "$work/probe.err")"
	exit 77
fi

# The library sources the two harnesses reach: the whole policy layer (schema, loading, the line
# reader, size expressions ...: every src/policy/*.c, so a new file there is picked up) and the
# shared modules the policy uses (strings, the page-size test, unit names).
LIBSRC=("$SRC"/src/policy/*.c "$SRC/src/shared/util.c" "$SRC/src/shared/page-size.c" "$SRC/src/shared/unit-name.c")
# ... and the kubelet configuration reader with its flags (plan/kubelet.c renders nodeswap's
# drop-in and names where a value comes from; the policy names the behaviours), and the
# libsystemd loader the version probe's journal reading goes through (resolved at run time,
# never reached from the harness: it gives the version directly).
KUBELET_SRC=("$SRC/src/probe/kubelet-config.c" "$SRC/src/probe/kubelet-flags.c" "$SRC/src/probe/kubelet-version.c"
	"$SRC/src/plan/kubelet.c"
	"$SRC/src/shared/sd-dl.c" "$SRC/src/shared/dl-util.c"
	"$SRC/src/shared/path-util.c" "$SRC/src/shared/reason.c" "${LIBSRC[@]}")
CFLAGS=(-g -O1 -std=gnu11 -D_GNU_SOURCE -DNODESWAP_VERSION='"fuzz"' -I"$SRC/src" -I"$SRC/tests/fuzz"
	$INIH_CFLAGS $YAML_CFLAGS -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
	-fno-omit-frame-pointer)

export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fails=0
for t in "${TARGETS[@]}"; do
	case "$t" in
	fuzz-policy) corpus=policy libsrc=("${LIBSRC[@]}") libs=$INIH_LIBS ;;
	fuzz-size) corpus=size libsrc=("${LIBSRC[@]}") libs=$INIH_LIBS ;;
	fuzz-kubelet) corpus=kubelet libsrc=("${KUBELET_SRC[@]}") libs="$YAML_LIBS $INIH_LIBS" ;;
	*) echo "unknown target $t"; exit 2 ;;
	esac
	if ! "$CC" "${CFLAGS[@]}" "$SRC/tests/fuzz/$t.c" "${libsrc[@]}" $libs -o "$work/$t" 2>"$work/$t.build"; then
		cat "$work/$t.build"
		echo "FAIL: $t does not build"
		fails=$((fails + 1))
		continue
	fi
	# Work on a copy of the seed corpus so the checkout is left as it was; new inputs are kept
	# only when FUZZ_KEEP_CORPUS names a directory to merge them into.
	mkdir -p "$work/corpus-$t" "$work/artifacts-$t"
	cp "$SRC/tests/fuzz/corpus/$corpus"/* "$work/corpus-$t"/ 2>/dev/null
	dict=()
	[ -f "$SRC/tests/fuzz/$t.dict" ] && dict=(-dict="$SRC/tests/fuzz/$t.dict")
	echo "== $t: $SECONDS_EACH s from $(ls "$work/corpus-$t" | wc -l) seeds"
	"$work/$t" "${dict[@]}" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts-$t/" "$work/corpus-$t" \
		>"$work/$t.log" 2>&1
	rc=$?
	grep -E '^(stat::|#[0-9]+ +DONE)' "$work/$t.log"
	echo "corpus: $(ls "$work/corpus-$t" | wc -l) inputs"
	if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then
		mkdir -p "$FUZZ_KEEP_CORPUS/$corpus"
		cp -n "$work/corpus-$t"/* "$FUZZ_KEEP_CORPUS/$corpus"/ 2>/dev/null
	fi
	if [ $rc != 0 ] || [ -n "$(ls "$work/artifacts-$t")" ]; then
		tail -n 60 "$work/$t.log"
		found=${FUZZ_FOUND_DIR:-/tmp/nodeswap-fuzz-found}
		mkdir -p "$found"
		cp "$work/artifacts-$t"/* "$found"/ 2>/dev/null
		echo "FAIL: $t crashed (exit $rc); inputs in $found"
		fails=$((fails + 1))
	else
		echo "PASS: $t, no crash"
	fi
done
[ $fails = 0 ]
