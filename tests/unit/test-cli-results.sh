#!/usr/bin/env bash
# What apply says about its results, on copies of a fixture tree (no kernel touched), through the
# one result structure execute_plan() returns (src/plan/result.h) and report/ renders:
#  - the per-action lines, the JSON (each action's "result" and "message", "changed", "ok") and the
#    sd_notify STATUS line (NOTIFY_SOCKET: a datagram socket this test listens on) agree, for a run
#    that succeeds and for one that fails;
#  - the exit code follows the results: 0 when no action failed, 1 when one did.
#   test-cli-results.sh path/to/nodeswap FIXTURE_DIR
set -uo pipefail
FIXTURE=$(readlink -f "${2:?usage: $0 NODESWAP FIXTURE_DIR}")

tmp=$(mktemp -d /tmp/nodeswap-cli-results.XXXXXX)
listener=
cleanup() { [ -n "$listener" ] && kill "$listener" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
chmod 0755 "$tmp"
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
NODESWAP=$(under_test "$1" "$tmp") || exit 1

# notified NAME ARGS...: run nodeswap ARGS with NOTIFY_SOCKET set; what it sent goes to $tmp/NAME.notify,
# its stdout to $tmp/NAME.out, stderr to $tmp/NAME.err, the exit code to $tmp/NAME.rc
notified() {
	local name=$1 sock=$tmp/notify.sock
	shift
	rm -f "$sock"
	# one datagram: apply sends its STATUS once, at the end
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
open(sys.argv[1] + ".ready", "w").close()
s.settimeout(60)
with open(sys.argv[2], "w") as f:
    try:
        f.write(s.recv(4096).decode() + "\n")
    except socket.timeout:
        pass' "$sock" "$tmp/$name.notify" &
	listener=$!
	while [ ! -e "$sock.ready" ]; do sleep 0.05; done
	NOTIFY_SOCKET=$sock "$NODESWAP" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	wait "$listener"
	listener=
	rm -f "$sock" "$sock.ready"
}

# --- a run that succeeds: a swap file, the sysctls and the drop-in ----------------------------------
f=$(policy file '[Swap]
Backend=file
[File]
Path=/var/lib/nodeswap/swapfile
Size=1M
Priority=10
[Sysctl]
Swappiness=100
[Kubelet]
SwapBehavior=LimitedSwap')
cp -a "$FIXTURE/rpi-untouched" "$tmp/ok"
cp -a "$FIXTURE/rpi-untouched" "$tmp/ok-json"
notified ok apply --root "$tmp/ok" --config "$f"
check "success: apply exits 0" [ "$(cat "$tmp/ok.rc")" = 0 ]
check "success: a line per action, the file's done ($(grep 'swap file' "$tmp/ok.out"))" \
	grep -q '^creating swap file /var/lib/nodeswap/swapfile: 1.0 MiB, priority 10, encrypted \.\.\. done: swapon skipped under --root$' "$tmp/ok.out"
check "success: the masks are not done, and say why" \
	[ "$(grep -c '^masking .* \.\.\. not-done: skipped under --root$' "$tmp/ok.out")" -gt 0 ]
check "success: STATUS counts what was done ($(cat "$tmp/ok.notify"))" \
	grep -qx 'STATUS=Applied: [1-9][0-9]* change(s) done; swap 2\.0 GiB -> .*' "$tmp/ok.notify"
done_lines=$(grep -c ' \.\.\. done' "$tmp/ok.out")
check "success: STATUS and the lines count the same ($done_lines done)" grep -q "Applied: $done_lines change(s)" "$tmp/ok.notify"

"$NODESWAP" apply --json --root "$tmp/ok-json" --config "$f" >"$tmp/ok.json" 2>"$tmp/ok-json.err"
check "success --json: exits 0" [ $? = 0 ]
check "success --json: ok and changed" [ "$(json "$tmp/ok.json" '(d["ok"], d["changed"])')" = "(True, True)" ]
check "success --json: as many done as the lines ($done_lines)" \
	[ "$(json "$tmp/ok.json" 'sum(a["result"] == "done" for a in d["actions"])')" = "$done_lines" ]
check "success --json: each action has a result" \
	[ "$(json "$tmp/ok.json" 'all(a["result"] in ("done", "not-done", "skipped") for a in d["actions"])')" = True ]
check "success --json: a not-done mask says why" \
	[ "$(json "$tmp/ok.json" '[a["message"] for a in d["actions"] if a["kind"] == "mask-unit"][0]')" = "skipped under --root" ]

# --- a run that fails: hot_add cannot be read --------------------------------------------------------
z=$(policy zram '[Swap]
Backend=zram
[Zram]
Size=1G
Algorithm=lz4
Priority=100')
cp -a "$FIXTURE/rpi-untouched" "$tmp/bad"
rm "$tmp/bad/sys/class/zram-control/hot_add"
mkdir -m 0755 "$tmp/bad/sys/class/zram-control/hot_add"
cp -a "$tmp/bad" "$tmp/bad-json"
notified bad apply --root "$tmp/bad" --config "$z"
check "failure: apply exits 1" [ "$(cat "$tmp/bad.rc")" = 1 ]
check "failure: the line says failed, and why" \
	grep -q '^creating zram swap: .* \.\.\. failed: Failed to set up a zram device (1.0 GiB, lz4, priority 100): Is a directory$' "$tmp/bad.out"
check "failure: STATUS names the failed action and the message ($(cat "$tmp/bad.notify"))" \
	grep -qx 'STATUS=Failed: zram-create zram: Failed to set up a zram device (1.0 GiB, lz4, priority 100): Is a directory' "$tmp/bad.notify"
"$NODESWAP" apply --json --root "$tmp/bad-json" --config "$z" >"$tmp/bad.json" 2>/dev/null
check "failure --json: exits 1" [ $? = 1 ]
check "failure --json: ok false, changed false" [ "$(json "$tmp/bad.json" '(d["ok"], d["changed"])')" = "(False, False)" ]
check "failure --json: the actions after the failed one are pending" \
	[ "$(json "$tmp/bad.json" '[a["result"] for a in d["actions"]][[a["result"] for a in d["actions"]].index("failed") + 1:] == ["pending"] * (len(d["actions"]) - 1 - [a["result"] for a in d["actions"]].index("failed"))')" = True ]

# --- a revert with neither a mark-reverted nor a dropin-remove action is still a revert -----------
# The node is marked reverted already and the drop-in is gone: the plan says it is a revert
# (Plan.revert), which its actions' kinds alone do not tell.
cp -a "$FIXTURE/matching" "$tmp/rev"
sed -i 's/^reverted=no$/reverted=yes/' "$tmp/rev/var/lib/nodeswap/state"
rm "$tmp/rev/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf"
"$NODESWAP" revert --root "$tmp/rev" >"$tmp/rev.out" 2>&1
check "revert without mark-reverted: no such action planned" [ "$(grep -c 'marking the node reverted' "$tmp/rev.out")" = 0 ]
check "revert without mark-reverted: the state records last_run=revert" \
	grep -qx 'last_run=revert' "$tmp/rev/var/lib/nodeswap/state"
"$NODESWAP" status --root "$tmp/rev" >"$tmp/rev.status" 2>&1
check "revert without mark-reverted: status says the last run was a revert ($(grep '^Last run' "$tmp/rev.status"))" \
	grep -q '^Last run: revert at ' "$tmp/rev.status"

echo "$fails check(s) failed"
[ "$fails" = 0 ]
