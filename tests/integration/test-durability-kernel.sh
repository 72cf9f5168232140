#!/usr/bin/env bash
# What nodeswap flushes to disk, on this machine's real kernel, seen with strace:
#  - /var/lib/nodeswap/state is fsync'ed (the file before its rename, the directory after) whenever
#    it holds, or replaces a file that held, a record a later run needs (saved sysctl values,
#    reverted=yes, stopped units, swap files), and the saved sysctl values are on disk before the
#    first sysctl write;
#  - a zram apply on a node whose state is bookkeeping alone (no [Sysctl], nothing stopped, no
#    file) flushes only the zram device's header, not the state file (see README, Decisions).
# Everything is saved first and restored by the trap, pass or fail; it never touches a zram device
# or swap area it did not create. Exit 77 (skip) when it cannot run here.
set -uo pipefail

HERE=$(dirname "$(readlink -f "$0")")
. "$HERE/../lib/common.sh"
kernel_test_begin strace python3

tmp=$(mktemp -d /tmp/nodeswap-durability-test.XXXXXX)
kernel_save
cleanup() {
	kernel_restore
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# strace needs the binary itself, not a memcheck wrapper
NODESWAP=$(readlink -f "${1:?usage: $0 path/to/nodeswap}")
STATE=/var/lib/nodeswap/state

zram=$(policy zram <<EOF
[Swap]
Backend=zram
[Zram]
Size=64M
Algorithm=lz4
Priority=100
[Conflicts]
Units=
EOF
)
# the same, and one sysctl: a record (its old value) a later run needs
sysctl=$(policy sysctl < <(cat "$zram"; printf '[Sysctl]\nSwappiness=100\n'))

# traced NAME ARGS...: run nodeswap under strace (fsync, rename, writes to /proc/sys), log in $tmp/NAME
traced() {
	local name=$1
	shift
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -y -o "$tmp/$name" \
		-e trace=fsync,fdatasync,rename,renameat,renameat2,openat,write "$NODESWAP" "$@" >"$tmp/$name.out" 2>&1
}
# state_fsyncs NAME: fsyncs of files and directories below /var/lib/nodeswap
state_fsyncs() { grep -E 'f(data)?sync\([0-9]+</var/lib/nodeswap' "$tmp/$1" | wc -l; }
zram_fsyncs() { grep -E 'fsync\([0-9]+</dev/zram' "$tmp/$1" | wc -l; }

# --- bookkeeping only: not flushed ---------------------------------------------------------------
traced a1 apply -q --config "$zram"
check "zram apply exits 0" [ $? = 0 ]
check "the zram header is flushed ($(zram_fsyncs a1))" [ "$(zram_fsyncs a1)" = 1 ]
check "the state file, bookkeeping alone, is not ($(state_fsyncs a1))" [ "$(state_fsyncs a1)" = 0 ]
check "but written (last_run=apply)" grep -qx 'last_run=apply' "$STATE"
check "atomically (renamed into place)" grep -q 'rename(".*/var/lib/nodeswap/\.#state\.' "$tmp/a1"
check "it holds no record a later run needs" \
	[ -z "$(grep -E '^(saved_|stopped_unit=|swap_file=|reverted=yes)' "$STATE")" ]

# --- a saved sysctl value: flushed, before the sysctl is written -----------------------------------
traced a2 apply -q --config "$sysctl"
check "apply with Swappiness= exits 0" [ $? = 0 ]
check "swappiness 100" [ "$(cat /proc/sys/vm/swappiness)" = 100 ]
check "the saved value is recorded" grep -qx "saved_swappiness=$saved_swappiness" "$STATE"
check "the state file and its directory are flushed ($(state_fsyncs a2))" [ "$(state_fsyncs a2)" -ge 2 ]
first_fsync=$(grep -n -E 'fsync\([0-9]+</var/lib/nodeswap' "$tmp/a2" | head -1 | cut -d: -f1)
sysctl_write=$(grep -n -E 'write\([0-9]+</proc/sys/vm/swappiness' "$tmp/a2" | head -1 | cut -d: -f1)
check "before the sysctl is written (fsync at line ${first_fsync:-none}, write at ${sysctl_write:-none})" \
	[ -n "$first_fsync" ] && [ -n "$sysctl_write" ] && [ "$first_fsync" -lt "$sysctl_write" ]

# --- revert: reverted=yes is flushed; so is the apply that replaces it ------------------------------
traced r1 revert -q --config "$zram"
check "revert exits 0" [ $? = 0 ]
check "reverted=yes recorded" grep -qx 'reverted=yes' "$STATE"
check "and flushed ($(state_fsyncs r1))" [ "$(state_fsyncs r1)" -ge 2 ]
check "swappiness back to $saved_swappiness" [ "$(cat /proc/sys/vm/swappiness)" = "$saved_swappiness" ]
traced a3 apply -q --config "$zram"
check "apply after revert exits 0" [ $? = 0 ]
check "reverted=no recorded" grep -qx 'reverted=no' "$STATE"
check "and flushed, as it replaces reverted=yes ($(state_fsyncs a3))" [ "$(state_fsyncs a3)" -ge 2 ]

# --- a no-op apply writes nothing -------------------------------------------------------------------
traced a4 apply -q --config "$zram"
check "no-op apply exits 0" [ $? = 0 ]
check "no-op apply renames nothing ($(grep -c 'rename' "$tmp/a4"))" [ "$(grep -c 'rename' "$tmp/a4")" = 0 ]
check "no-op apply flushes nothing ($(grep -c 'fsync' "$tmp/a4"))" [ "$(grep -c 'fsync' "$tmp/a4")" = 0 ]

"$NODESWAP" revert -q --config "$zram" >/dev/null 2>&1
check "revert at the end leaves no zram device of the test" [ -z "$(our_zram)" ]

echo "$fails check(s) failed"
[ "$fails" = 0 ]
