#!/usr/bin/env bash
# Faults on this machine's real kernel, and what nodeswap does about them:
#  - apply killed by SIGKILL right after each of its steps (the test build's fault injection,
#    NODESWAP_FAULT_KILL_AFTER=N, src/execute/fault.h) of a zram + file apply, of switches
#    between backends and of the bridge steps resizing an active swap file: the node keeps
#    working swap, a rerun converges, a third apply changes nothing; N runs on until apply is no longer killed, so every step is reached;
#  - system calls failing, injected from outside with strace --inject: swapoff(2) EBUSY while
#    switching file -> zram (apply exits 1 naming it, both areas stay on, a rerun converges),
#    swapon(2) ENOMEM while creating the zram device (apply exits 1, no nodeswap zram device is
#    left behind, a rerun converges);
#  - ENOSPC creating the swap file (a tiny ext4 with no free inode): a clear error, no file left,
#    the old swap still on;
#  - EBUSY from zram reset (the device held open) during revert: a clear error naming the device,
#    and a rerun after the release converges;
#  - systemd/D-Bus unreachable (in a private mount namespace where /run/systemd/system exists but
#    neither systemd's socket nor the bus does): swap is applied, the masks are reported not-done;
#  - two applies at once, and an apply during a revert: they serialise on /run/nodeswap.lock;
#  - apply runs no child process (strace: one execve, no fork/clone).
# Everything is saved first and restored by the trap, pass or fail; it never touches a zram
# device, swap area, loop device or mount it did not create. Exit 77 (skip) when it cannot run.
set -uo pipefail

HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/../lib/common.sh"
kernel_test_begin mkfs.ext4 losetup mount blkid python3 unshare

tmp=$(mktemp -d /tmp/nodeswap-faults-test.XXXXXX)
mnt=$(mktemp -d /mnt/nodeswap-faults-test.XXXXXX)
tiny=$(mktemp -d /mnt/nodeswap-faults-tiny.XXXXXX)
loopdev= tinydev= holder=
kernel_save
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
	kernel_restore "$mnt" "$tiny"
	[ -n "$loopdev" ] && losetup -d "$loopdev"
	[ -n "$tinydev" ] && losetup -d "$tinydev"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# the binary as given, for strace; the one to run (under tests/valgrind.sh: under memcheck)
NODESWAP_BINARY=$(readlink -f "${1:?usage: $0 path/to/nodeswap}")
NODESWAP=$(under_test "$NODESWAP_BINARY" "$tmp") || exit 1

truncate -s 300M "$tmp/ext4.img"
mkfs.ext4 -q -F "$tmp/ext4.img"
loopdev=$(losetup --find --show "$tmp/ext4.img")
mount "$loopdev" "$mnt"

swaps() { tail -n +2 /proc/swaps | awk '{print $1}' | sort | tr '\n' ' '; }
clean() {       # back to nothing of ours, through nodeswap itself (with the policy naming the file)
	"$NODESWAP" revert --purge -q --config "$zf" >/dev/null 2>&1
	[ -z "$(our_zram)" ] && [ -z "$(swaps)" ] && [ ! -e "$mnt/swap/swapfile" ]
}

zf=$(policy zramfile "[Swap]
Backend=zram file
[Zram]
Size=64M
Algorithm=zstd lz4
Priority=100
[File]
Encrypt=no
Path=$mnt/swap/swapfile
Size=64M
Priority=10
[Sysctl]
Swappiness=100
PageCluster=0")
# Backend=zram, but naming the same swap file: nodeswap counts a file as its own by the policy's path
z=$(policy zram "[Swap]
Backend=zram
[Zram]
Size=64M
Algorithm=zstd lz4
Priority=100
[File]
Encrypt=no
Path=$mnt/swap/swapfile")
f=$(policy file "[Swap]
Backend=file
[File]
Encrypt=no
Path=$mnt/swap/swapfile
Size=64M
Priority=10
[Sysctl]
Swappiness=100")

# --- killed after every step ---------------------------------------------------------------
# kill_sweep NAME SETUP_POLICY POLICY: for N = 1..len(plan), from the state SETUP_POLICY leaves
# (or nothing), apply POLICY and die after action N; then the node must have swap if it had some,
# a rerun must converge and a third apply must change nothing.
injected=0
kill_sweep() {
	local name=$1 setup=$2 pol=$3 n len before rc
	clean "$pol" || fail "$name: could not start from a clean node"
	[ -n "$setup" ] && "$NODESWAP" apply -q --config "$setup" >/dev/null
	"$NODESWAP" plan --json --config "$pol" >"$tmp/plan.json"
	len=$(json "$tmp/plan.json" 'len(d["actions"])')
	[ "${len:-0}" -gt 0 ] || { fail "$name: empty plan"; return; }
	echo "-- $name: $len actions: $(json "$tmp/plan.json" '" ".join(a["kind"] for a in d["actions"])')"
	n=0
	while :; do
		n=$((n + 1))
		clean "$pol" || fail "$name N=$n: could not start from a clean node"
		[ -n "$setup" ] && "$NODESWAP" apply -q --config "$setup" >/dev/null
		before=$(swaps)
		NODESWAP_FAULT_KILL_AFTER=$n "$NODESWAP" apply -q --config "$pol" >/dev/null 2>"$tmp/err"
		rc=$?
		if [ $rc != 137 ]; then
			# past the last step: the apply ran to its end
			[ $rc = 0 ] || fail "$name N=$n: the apply that was not killed exits $rc: $(cat "$tmp/err")"
			[ $((n - 1)) -ge "$len" ] || fail "$name: only $((n - 1)) of the $len actions were steps"
			break
		fi
		injected=$((injected + 1))
		if [ -n "$before" ]; then
			[ -n "$(swaps)" ] || fail "$name N=$n: no swap left after the kill (had: $before)"
		fi
		"$NODESWAP" apply --json --config "$pol" >"$tmp/rerun.json" 2>"$tmp/err"
		rc=$?
		[ $rc = 0 ] || fail "$name N=$n: the rerun exits $rc: $(cat "$tmp/err") $(json "$tmp/rerun.json" '[(a["kind"], a["result"], a["message"]) for a in d["actions"]]')"
		"$NODESWAP" apply --json --config "$pol" >"$tmp/third.json" 2>"$tmp/err"
		[ "$(json "$tmp/third.json" 'd["changed"]')" = False ] ||
			fail "$name N=$n: a third apply still changes: $(json "$tmp/third.json" '[(a["kind"], a["target"]) for a in d["actions"]]')"
		[ "$(our_zram | wc -l)" -le 1 ] || fail "$name N=$n: more than one nodeswap zram device: $(our_zram | tr '\n' ' ')"
		[ $n -le $((len * 4)) ] || { fail "$name: still killed after $n steps"; break; }
	done
	pass "$name: killed after each of its $((n - 1)) steps; the node kept its swap and converged each time"
}
if fault_injection_built "$NODESWAP"; then
	kill_sweep "zram+file from nothing" "" "$zf"
	kill_sweep "switch zram -> file" "$z" "$f"
	kill_sweep "switch file -> zram" "$f" "$z"
	kill_sweep "zram+file -> zram" "$zf" "$z"
	# a resize of the active file: every step of the bridge is an action, so the kill reaches
	# between any two of them
	f96=$(policy file96 < <(sed 's/^Size=64M/Size=96M/' "$f"))
	kill_sweep "resize the active file 64M -> 96M" "$f" "$f96"
	f20=$(policy file20 < <(sed 's/^Priority=10/Priority=20/' "$f"))
	kill_sweep "new priority of the active file" "$f" "$f20"
	clean "$zf" || fail "clean after the kill sweeps"
elif [ "${CI:-}" = true ]; then
	fail "kill sweeps: $NODESWAP_BINARY is not a test build (meson configure build -Dfault-injection=true)"
else
	echo "SKIP: kill sweeps: $NODESWAP_BINARY is not a test build (meson configure build -Dfault-injection=true)"
fi

# --- system calls failing (strace --inject) ---------------------------------------------------
# strace runs the binary itself (not a memcheck wrapper), and without LeakSanitizer's exit check,
# which would run under strace too.
if command -v strace >/dev/null; then
	inject() {      # inject SPEC ARGS...: nodeswap ARGS with the fault SPEC injected
		local spec=$1
		shift
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -qq -o /dev/null -e "inject=$spec" "$NODESWAP_BINARY" "$@"
	}
	# swapoff(2) EBUSY: switching from the file to zram, the file's swapoff fails after zram is on
	clean "$f" || fail "strace: could not start from a clean node"
	"$NODESWAP" apply -q --config "$f" >/dev/null
	inject swapoff:error=EBUSY apply --json --config "$z" >"$tmp/ebusy.json" 2>"$tmp/err"
	check "swapoff EBUSY: apply exits 1" [ $? = 1 ]
	check "swapoff EBUSY: the swapoff action failed, naming the error ($(json "$tmp/ebusy.json" '[a["message"] for a in d["actions"] if a["result"] == "failed"]'))" \
		[ "$(json "$tmp/ebusy.json" '[(a["kind"], "Device or resource busy" in (a["message"] or "")) for a in d["actions"] if a["result"] == "failed"]')" = "[('swapoff', True)]" ]
	check "swapoff EBUSY: the file is still on ($(swaps))" grep -q "^$mnt/swap/swapfile " /proc/swaps
	check "swapoff EBUSY: and so is the new zram device" [ "$(our_zram | wc -l)" = 1 ]
	"$NODESWAP" apply --json --config "$z" >"$tmp/rerun.json" 2>"$tmp/err"
	check "swapoff EBUSY: the rerun exits 0" [ $? = 0 ]
	"$NODESWAP" apply --json --config "$z" >"$tmp/third.json" 2>"$tmp/err"
	check "swapoff EBUSY: a third apply changes nothing" [ "$(json "$tmp/third.json" 'd["changed"]')" = False ]
	check "swapoff EBUSY: the rerun swapped the file off ($(swaps))" [ -z "$(grep "^$mnt/swap/swapfile " /proc/swaps)" ]
	injected=$((injected + 1))
	# swapon(2) ENOMEM: the zram device is set up, its swapon fails: everything done is undone
	clean "$zf" || fail "strace: could not start from a clean node"
	inject swapon:error=ENOMEM apply --json --config "$z" >"$tmp/enomem.json" 2>"$tmp/err"
	check "swapon ENOMEM: apply exits 1" [ $? = 1 ]
	check "swapon ENOMEM: zram-create failed, naming the error ($(json "$tmp/enomem.json" '[a["message"] for a in d["actions"] if a["result"] == "failed"]'))" \
		[ "$(json "$tmp/enomem.json" '[(a["kind"], "Cannot allocate memory" in (a["message"] or "")) for a in d["actions"] if a["result"] == "failed"]')" = "[('zram-create', True)]" ]
	check "swapon ENOMEM: no nodeswap zram device is left ($(our_zram))" [ -z "$(our_zram)" ]
	check "swapon ENOMEM: no swap is on ($(swaps))" [ -z "$(swaps)" ]
	"$NODESWAP" apply --json --config "$z" >"$tmp/rerun.json" 2>"$tmp/err"
	check "swapon ENOMEM: the rerun exits 0" [ $? = 0 ]
	check "swapon ENOMEM: and makes one zram device" [ "$(our_zram | wc -l)" = 1 ]
	"$NODESWAP" apply --json --config "$z" >"$tmp/third.json" 2>"$tmp/err"
	check "swapon ENOMEM: a third apply changes nothing" [ "$(json "$tmp/third.json" 'd["changed"]')" = False ]
	clean "$zf" || fail "clean after strace --inject"
	injected=$((injected + 1))
else
	echo "SKIP: strace --inject: strace not installed (apt-get install strace)"
fi

# --- ENOSPC creating the swap file -------------------------------------------------------------
truncate -s 64M "$tmp/tiny.img"   # room for 1M + the 16M margin nodeswap wants
mkfs.ext4 -q -F -N 16 "$tmp/tiny.img"
tinydev=$(losetup --find --show "$tmp/tiny.img")
mount "$tinydev" "$tiny"
mkdir -m 0755 "$tiny/swap"
for i in $(seq 1 64); do : >"$tiny/fill.$i" 2>/dev/null || break; done
tz=$(policy tinyzf "[Swap]
Backend=zram file
[Zram]
Size=64M
Algorithm=zstd lz4
Priority=100
[File]
Encrypt=no
Path=$tiny/swap/swapfile
Size=1M
Priority=10")
"$NODESWAP" apply -q --config "$z" >/dev/null
old=$(swaps)
"$NODESWAP" apply --config "$tz" >"$tmp/out" 2>"$tmp/err"
check "ENOSPC: apply exits 1" [ $? = 1 ]
cat "$tmp/out" "$tmp/err"
check "ENOSPC: the error says so ($(grep -h -o 'Failed to create swap file.*' "$tmp/out" "$tmp/err" | head -1))" \
	grep -q "Failed to create swap file '$tiny/swap/swapfile': .*No space left on device" "$tmp/out" "$tmp/err"
check "ENOSPC: nothing left behind in $tiny/swap" [ -z "$(ls -A "$tiny/swap")" ]
check "ENOSPC: the old swap is still on" [ "$(swaps)" = "$old" ]
clean "$z" || fail "clean after ENOSPC"
injected=$((injected + 1))

# --- EBUSY from zram reset ------------------------------------------------------------------------
"$NODESWAP" apply -q --config "$z" >/dev/null
dev=$(our_zram)
sleep 600 <"$dev" &
holder=$!
sleep 0.2
"$NODESWAP" revert --config "$z" >"$tmp/out" 2>"$tmp/err"
check "EBUSY: revert exits 1" [ $? = 1 ]
check "EBUSY: the error names $dev" grep -q "Failed to remove $dev: Device or resource busy" "$tmp/out"
kill "$holder"; wait "$holder" 2>/dev/null; holder=
"$NODESWAP" revert --json --config "$z" >"$tmp/r.json" 2>"$tmp/err"
check "EBUSY: revert after the release exits 0" [ $? = 0 ]
check "EBUSY: and leaves no nodeswap zram device ($(our_zram))" [ -z "$(our_zram)" ]
"$NODESWAP" revert --json --config "$z" >"$tmp/r.json" 2>"$tmp/err"
check "EBUSY: a third revert changes nothing" [ "$(json "$tmp/r.json" 'd["changed"]')" = False ]
injected=$((injected + 1))

# --- systemd and D-Bus unreachable ----------------------------------------------------------------
# A private mount namespace: /run/systemd/system exists (so nodeswap believes systemd booted and
# plans the masks), but neither /run/systemd/private nor the system bus socket does. The revert
# runs in the same namespace: a swap area swapped on there must be swapped off while its /dev
# path still means something (once the namespace is gone, /proc/swaps shows it as /zramN).
unshare -m --propagation private sh -c '
	mount -t tmpfs -o mode=0755 tmpfs /run/systemd && mkdir /run/systemd/system &&
	{ [ ! -d /run/dbus ] || mount -t tmpfs -o mode=0755 tmpfs /run/dbus; } || exit 99
	"$0" apply --json --config "$1" >"$2/nobus.json" 2>"$2/nobus.err"
	echo $? >"$2/nobus.rc"
	tail -n +2 /proc/swaps >"$2/nobus.swaps"
	"$0" revert -q --config "$1" >/dev/null 2>&1' "$NODESWAP" "$z" "$tmp"
check "no D-Bus: apply exits 0" [ "$(cat "$tmp/nobus.rc")" = 0 ]
check "no D-Bus: the zram swap was on" grep -q '^/dev/zram' "$tmp/nobus.swaps"
check "no D-Bus: mask actions were planned" [ "$(json "$tmp/nobus.json" 'sum(a["kind"] == "mask-unit" for a in d["actions"])')" -gt 0 ]
check "no D-Bus: every mask is reported not-done" \
	[ "$(json "$tmp/nobus.json" 'all(a["result"] == "not-done" for a in d["actions"] if a["kind"] == "mask-unit")')" = True ]
check "no D-Bus: with the reason ($(json "$tmp/nobus.json" '[a["message"] for a in d["actions"] if a["kind"] == "mask-unit"][0]'))" \
	[ "$(json "$tmp/nobus.json" 'all("systemd unreachable" in a["message"] for a in d["actions"] if a["kind"] == "mask-unit")')" = True ]
check "no D-Bus: the zram action is done" \
	[ "$(json "$tmp/nobus.json" '[a["result"] for a in d["actions"] if a["kind"] == "zram-create"]')" = "['done']" ]
check "no D-Bus: the JSON says changed and ok" [ "$(json "$tmp/nobus.json" '(d["changed"], d["ok"])')" = "(True, True)" ]
check "no D-Bus: the revert in the namespace left nothing" [ -z "$(our_zram)$(swaps)" ]
clean "$z" || fail "clean after no D-Bus"
injected=$((injected + 1))

# --- concurrency -----------------------------------------------------------------------------------
"$NODESWAP" apply --json --config "$zf" >"$tmp/c1.json" 2>"$tmp/c1.err" &
p1=$!
"$NODESWAP" apply --json --config "$zf" >"$tmp/c2.json" 2>"$tmp/c2.err" &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
check "two applies at once both exit 0 ($r1, $r2)" [ "$r1 $r2" = "0 0" ]
check "exactly one nodeswap zram device ($(our_zram | tr '\n' ' '))" [ "$(our_zram | wc -l)" = 1 ]
changed="$(json "$tmp/c1.json" 'd["changed"]') $(json "$tmp/c2.json" 'd["changed"]')"
check "exactly one of the two changed something ($changed)" [ "$changed" = "True False" -o "$changed" = "False True" ]
"$NODESWAP" apply --json --config "$zf" >"$tmp/c3.json"
check "a third apply changes nothing" [ "$(json "$tmp/c3.json" 'd["changed"]')" = False ]

"$NODESWAP" revert --json --config "$zf" >"$tmp/c4.json" 2>"$tmp/c4.err" &
p1=$!
"$NODESWAP" apply --json --config "$zf" >"$tmp/c5.json" 2>"$tmp/c5.err" &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
check "apply during a revert: both exit 0 ($r1, $r2)" [ "$r1 $r2" = "0 0" ]
check "at most one nodeswap zram device ($(our_zram | tr '\n' ' '))" [ "$(our_zram | wc -l)" -le 1 ]
"$NODESWAP" apply --json --config "$zf" >"$tmp/c6.json"
check "a rerun converges" [ "$? $(our_zram | wc -l)" = "0 1" ]
"$NODESWAP" apply --json --config "$zf" >"$tmp/c7.json"
check "and the next apply changes nothing" [ "$(json "$tmp/c7.json" 'd["changed"]')" = False ]
clean "$zf" || fail "clean after concurrency"

# --- no child process ----------------------------------------------------------------------------------
if command -v strace >/dev/null; then
	# the binary itself, not a memcheck wrapper; without LeakSanitizer, whose exit check clones
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=execve,fork,vfork,clone,clone3 -o "$tmp/strace" \
		"$NODESWAP_BINARY" apply -q --config "$zf" >/dev/null
	check "strace: apply exits 0" [ $? = 0 ]
	check "strace: apply made swap" [ "$(our_zram | wc -l)" = 1 ]
	check "strace: exactly one execve ($(grep -c 'execve(' "$tmp/strace"))" [ "$(grep -c 'execve(' "$tmp/strace")" = 1 ]
	check "strace: no fork, vfork or clone ($(grep -E -c '(fork|clone3?)\(' "$tmp/strace"))" \
		[ "$(grep -E -c '(fork|clone3?)\(' "$tmp/strace")" = 0 ]
	clean "$zf" || fail "clean after strace"
else
	echo "SKIP: strace not installed (apt-get install strace)"
fi

echo "$injected faults injected"
echo "$fails check(s) failed"
[ "$fails" = 0 ]
