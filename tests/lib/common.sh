# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the shell tests (bash). What several of them need, in one place:
#   pass/fail/check   a check per line, counted in $fails
#   json              a python expression over a JSON document
#   policy            a policy file nodeswap accepts
#   under_test        the path a test starts one of nodeswap's binaries by (see below)
#   kernel_test_begin the preamble of the tests that use this machine's kernel
#   kernel_save / kernel_restore
#                     what those tests save first and put back in their trap, pass or fail

# The tests' Python is Debian's /usr/bin/python3 (a dependency the README's setup installs), not
# the first python3 on PATH: a version manager's shim there (pyenv's costs about 0.3 s a start,
# against 0.04 s) made a test that checks JSON a few hundred times take minutes on one machine
# and seconds on another. Every script that sources this file gets the function.
if [ -x /usr/bin/python3 ]; then
	python3() { /usr/bin/python3 "$@"; }
fi

# sample_step N: how many policies of a corpus a loop steps over per run of the binary: 1 on a
# plain run; N when every start of the binary is slow because it was built with ASan+UBSan or for
# arm64 and runs under qemu-user (.ci/run sets NODESWAP_TEST_SLOW=1 there: 0.3 s a start); 4 N
# under valgrind (NODESWAP_TEST_WRAPPER: 1-5 s a start, and cli-verdict took 600 s of its 1200 at
# load 13 with N alone). The in-process fuzz-replay test still parses every policy of the corpus
# (tests/fuzz/corpus holds the hostile ones) in each of those builds, under memcheck too.
sample_step() {
	if [ -n "${NODESWAP_TEST_WRAPPER:-}" ]; then
		echo $((4 * $1))
	elif [ -n "${NODESWAP_TEST_SLOW:-}" ]; then
		echo "$1"
	else
		echo 1
	fi
}

fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }

# The CLI tests' checks of one nodeswap run. They use the caller's $ns (the binary, from
# under_test) and $out (where the run's output goes).
# run WANT_EXIT ARGS...: nodeswap's output (stdout and stderr) into $out, and its exit code checked
run() {
	local want=$1 rc
	shift
	"$ns" "$@" >"$out" 2>&1
	rc=$?
	check "nodeswap $* exits $want (got $rc)" [ "$rc" = "$want" ] || sed 's/^/    /' "$out"
}
not() { ! "$@"; }
has() { check "output has /$1/" grep -Eq -- "$1" "$out" || sed 's/^/    /' "$out"; }
lacks() { check "output lacks /$1/" not grep -Eq -- "$1" "$out" || sed 's/^/    /' "$out"; }

json() {        # json FILE EXPR: evaluate a python expression over the JSON document d
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null
}

# policy NAME [CONTENT]: write CONTENT (or, without it, standard input) to $tmp/NAME.conf as a
# root-owned 0644 policy file, which nodeswap accepts, and print its path. $tmp is the test's own.
policy() {
	if [ $# -ge 2 ]; then printf '%s\n' "$2"; else cat; fi >"$tmp/$1.conf" || return 1
	chmod 0644 "$tmp/$1.conf"
	echo "$tmp/$1.conf"
}

# under_test BINARY DIR: print the path the test runs BINARY by. That is BINARY itself (made
# absolute), unless NODESWAP_TEST_WRAPPER names a program: then it is a script DIR/under-test/NAME
# that runs BINARY under that program with the test's own arguments, so that tests/valgrind.sh
# (which sets tests/valgrind-wrap.sh there) checks the binary a shell test starts, not bash.
# Everything else (exit status, environment, file descriptors) passes through unchanged.
under_test() {
	local bin dir=$2/under-test w=${NODESWAP_TEST_WRAPPER:-}
	bin=$(readlink -f "$1") || return 1
	if [ -z "$w" ]; then
		printf '%s\n' "$bin"
		return 0
	fi
	w=$(readlink -f "$w") || return 1
	mkdir -p "$dir" || return 1
	printf '#!/bin/bash\nexec %q %q "$@"\n' "$w" "$bin" >"$dir/${bin##*/}" || return 1
	chmod 0755 "$dir" "$dir/${bin##*/}"
	printf '%s\n' "$dir/${bin##*/}"
}

# fault_injection_built BINARY: whether BINARY is a test build with fault injection
# (meson -Dfault-injection=true, src/execute/fault.h): "--version" then says "+fault-injection",
# and NODESWAP_FAULT_KILL_AFTER=N kills it after its Nth step. A release build has neither.
fault_injection_built() {
	"$1" --version 2>/dev/null | grep -qx '+fault-injection'
}

# kernel_lock: the machine-wide lock every test using this machine's kernel takes (fd 9, held until
# the test exits; tests/integration/kernel-lock.h is the C tests' side).
kernel_lock() {
	mkdir -p /run/lock
	exec 9>/run/lock/nodeswap-kernel.lock
	flock 9
}

# kernel_test_begin TOOL...: exit 77 (skip) with the reason unless this is root on a kernel with
# zram and every TOOL exists; then take the machine-wide lock that serialises every test and
# benchmark using the real kernel (held on fd 9 until the script exits), and skip on a host that
# already has nodeswap state, which a test must not touch.
kernel_test_begin() {
	local t
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (real zram, swapon, sysctls)"; exit 77; }
	[ -e /sys/class/zram-control/hot_add ] || { echo "SKIP: no zram in this kernel (/sys/class/zram-control)"; exit 77; }
	for t in "$@"; do
		command -v "$t" >/dev/null || { echo "SKIP: $t missing"; exit 77; }
	done
	kernel_lock
	if [ -e /var/lib/nodeswap ] || [ -e /run/nodeswap ] || [ -e /run/nodeswap-state ]; then
		echo "SKIP: this host already has nodeswap state or policy (/var/lib/nodeswap, /run/nodeswap or /run/nodeswap-state); not touching it"
		exit 77
	fi
}

# kernel_save: remember the sysctls nodeswap sets and the zram devices that exist now.
kernel_save() {
	saved_swappiness=$(cat /proc/sys/vm/swappiness)
	saved_page_cluster=$(cat /proc/sys/vm/page-cluster)
	saved_min_free_kbytes=$(cat /proc/sys/vm/min_free_kbytes)
	saved_watermark_scale_factor=$(cat /proc/sys/vm/watermark_scale_factor)
	zram_before=$(ls /sys/block | grep '^zram' | sort)
	# apply keeps node-feature-discovery's feature file (issue 26): what of its path was there
	local d
	nfd_before=
	for d in /etc/kubernetes /etc/kubernetes/node-feature-discovery /etc/kubernetes/node-feature-discovery/features.d \
		/etc/kubernetes/node-feature-discovery/features.d/nodeswap; do
		[ -e "$d" ] && nfd_before+="$d "
	done
}

# kernel_restore MOUNTPOINT...: swap off what is below the mount points and every zram device that
# was not there at kernel_save (also one listed as /zramN: swapped on in a mount namespace that is
# gone), reset and remove those devices, unmount the mount points (and remove them when empty),
# remove nodeswap's state and the node-feature-discovery file apply wrote (and the directories
# made for it), put the sysctls back. Loop devices are the caller's.
kernel_restore() {
	local dev id m d
	while read -r dev _; do
		for m in "$@"; do
			case "$dev" in "$m"/*) swapoff "$dev" 2>/dev/null ;; esac
		done
		case "$dev" in
		/dev/zram*) id=${dev#/dev/}; grep -qx "$id" <<<"$zram_before" || swapoff "$dev" 2>/dev/null ;;
		/zram*) id=${dev#/}; grep -qx "$id" <<<"$zram_before" || swapoff "/dev/$id" 2>/dev/null ;;
		esac
	done < <(tail -n +2 /proc/swaps)
	for d in /sys/block/zram*; do
		[ -e "$d" ] || continue
		id=${d##*/}
		grep -qx "$id" <<<"$zram_before" && continue
		echo 1 >"$d/reset" 2>/dev/null
		echo "${id#zram}" >/sys/class/zram-control/hot_remove 2>/dev/null
	done
	for m in "$@"; do
		mountpoint -q "$m" && umount "$m"
		rmdir "$m" 2>/dev/null
	done
	rm -rf /var/lib/nodeswap /run/nodeswap /run/nodeswap-state /run/nodeswap.lock
	# the feature file apply wrote and the directories it made for it, deepest first
	for d in /etc/kubernetes/node-feature-discovery/features.d/nodeswap; do
		[[ " ${nfd_before:-} " == *" $d "* ]] || rm -f "$d"
	done
	for d in /etc/kubernetes/node-feature-discovery/features.d /etc/kubernetes/node-feature-discovery /etc/kubernetes; do
		[[ " ${nfd_before:-} " == *" $d "* ]] || rmdir "$d" 2>/dev/null
	done
	[ -n "${saved_swappiness:-}" ] && echo "$saved_swappiness" >/proc/sys/vm/swappiness
	[ -n "${saved_page_cluster:-}" ] && echo "$saved_page_cluster" >/proc/sys/vm/page-cluster
	# written only when changed: a write makes the value the kernel's "user" one
	# (user_min_free_kbytes in mm/page_alloc.c), which the kernel's own recomputation then keeps
	[ -n "${saved_min_free_kbytes:-}" ] && [ "$(cat /proc/sys/vm/min_free_kbytes)" != "$saved_min_free_kbytes" ] &&
		echo "$saved_min_free_kbytes" >/proc/sys/vm/min_free_kbytes
	[ -n "${saved_watermark_scale_factor:-}" ] &&
		[ "$(cat /proc/sys/vm/watermark_scale_factor)" != "$saved_watermark_scale_factor" ] &&
		echo "$saved_watermark_scale_factor" >/proc/sys/vm/watermark_scale_factor
	return 0
}

# our_zram: the zram devices that were not there at kernel_save, swapped on or not
our_zram() {
	local d id
	for d in /sys/block/zram*; do
		[ -e "$d" ] || continue
		id=${d##*/}
		grep -qx "$id" <<<"$zram_before" || echo "/dev/$id"
	done
}
