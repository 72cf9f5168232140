#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# One verdict everywhere (issue 14): the built binary on the fixture trees.
# Usage: test-cli-verdict.sh NODESWAP FIXTURES POLICIES EXAMPLES
set -uo pipefail
export LC_ALL=C
fx=$2 policies=$3 examples=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "${u:-}"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
bin=$(readlink -f "$1")
ns=$(under_test "$1" "$tmp") || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }
pol() { printf '%b' "$2" >"$tmp/$1"; chmod 0644 "$tmp/$1"; }
rpi=$fx/rpi-untouched

# 7: options a command does not take are refused, naming the command
for a in "status --purge" "plan --force" "check --pods" "allowance --boot"; do
	set -- $a
	"$ns" "$@" --root "$rpi" >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc = 2 ] || fail "$a exited $rc, not 2"
	grep -q "nodeswap $1 does not take $2" "$tmp/err" || fail "$a: $(cat "$tmp/err")"
done
# 7: --config - reads standard input
pol zram.conf '[Swap]\nBackend=zram\n[Zram]\nAlgorithm=lz4\n'
"$ns" plan --json --root "$rpi" --config - <"$tmp/zram.conf" >"$tmp/out" 2>"$tmp/err" || fail "plan --config -: $(cat "$tmp/err")"
grep -q '"kind":"zram-create"' "$tmp/out" || grep -q '"kind": *"zram-create"' "$tmp/out" || fail "plan --config - planned no zram"
printf '[Zram]\nSize=8GB\n' | "$ns" check --root "$rpi" --config - >"$tmp/out" 2>&1
grep -q '<stdin>:2: \[Zram\] Size=8GB' "$tmp/out" || fail "check --config -: no <stdin>:2: $(cat "$tmp/out")"
# 7: -v names FILE:LINE for every value it prints, (default) otherwise
"$ns" status -v --root "$rpi" --config "$tmp/zram.conf" >"$tmp/out" 2>&1
grep -E '^  \[(Swap|Zram|File|Sysctl|Kubelet|Conflicts)\] ' "$tmp/out" | grep -vE '\((default)\)$|\(.*:[0-9]+\)$' && fail "-v: a value without its origin"
grep -q "\[Zram\] Algorithm= .*lz4  ($tmp/zram.conf:4)" "$tmp/out" || fail "-v: no origin for Algorithm="
# 7: -q on status: the verdict line only
"$ns" status -q --root "$rpi" --config "$tmp/zram.conf" >"$tmp/out" 2>&1
[ "$(wc -l <"$tmp/out")" = 1 ] && grep -q '^Verdict: ' "$tmp/out" || fail "status -q: $(cat "$tmp/out")"
# 7: NO_COLOR and a terminal (script(1) gives one)
if command -v script >/dev/null; then
	script -qec "$ns check --root $rpi --config $tmp/zram.conf" /dev/null >"$tmp/tty" 2>&1
	grep -q $'\033\\[' "$tmp/tty" || fail "no colour on a terminal"
	NO_COLOR=1 script -qec "$ns check --root $rpi --config $tmp/zram.conf" /dev/null >"$tmp/tty" 2>&1
	grep -q $'\033\\[' "$tmp/tty" && fail "colour despite NO_COLOR"
fi

# 2: a broken drop-in: status shows the node and the error, --json one document, check exits 1
pol broken.conf '[Swap]\nBackend=file\n[File]\nSize=8GB\n'
"$ns" status --root "$rpi" --config "$tmp/broken.conf" >"$tmp/out" 2>"$tmp/err" || fail "status on a broken policy exited $?"
grep -q '^Swap:' "$tmp/out" && grep -q 'policy-invalid' "$tmp/out" || fail "status on a broken policy: $(cat "$tmp/out")"
for v in status check allowance plan apply; do
	"$ns" $v --json --root "$rpi" --config "$tmp/broken.conf" >"$tmp/out" 2>/dev/null
	python3 - "$tmp/out" "$v" <<'PY' || fail "$v --json on a broken policy"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["version"] == 1, j
f = [x for x in j["findings"] if x["id"] == "policy-invalid"]
assert f and f[0]["line"] == 4 and f[0]["key"] == "Size" and f[0]["value"] == "8GB", j["findings"]
PY
done
"$ns" check --root "$rpi" --config "$tmp/broken.conf" >/dev/null 2>&1; [ $? = 1 ] || fail "check on a broken policy: not exit 1"

# 4: a swap file on tmpfs: no "Nothing to do", the error on stderr with FILE:LINE and a hint
cp -a "$rpi" "$tmp/ram"
echo '40 28 0:40 / /srv/ram rw,relatime shared:20 - tmpfs tmpfs rw,size=1048576k' >>"$tmp/ram/proc/self/mountinfo"
mkdir -p "$tmp/ram/srv/ram"
pol tmpfs.conf '[Swap]\nBackend=file\n[File]\nPath=/srv/ram/swapfile\nSize=64M\n'
"$ns" plan --root "$tmp/ram" --config "$tmp/tmpfs.conf" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 1 ] || fail "plan of a swap file on tmpfs exited $rc"
grep -q "Nothing to do" "$tmp/out" && fail "plan with errors says Nothing to do"
grep -qi "error" "$tmp/out" && fail "plan's errors on stdout: $(cat "$tmp/out")"
grep -q "^error   swapfile-filesystem: /srv/ram/swapfile: /srv/ram is on tmpfs" "$tmp/err" || fail "no tmpfs error: $(cat "$tmp/err")"
grep -q "at: $tmp/tmpfs.conf:4: \[File\] Path=/srv/ram/swapfile" "$tmp/err" || fail "tmpfs error without FILE:LINE"
grep -q "hint: .*ext4, xfs" "$tmp/err" || fail "tmpfs error without the file systems that can hold one"
# 4: too little space: the free space and the largest size that fits
pol big.conf '[Swap]\nBackend=file\n[File]\nSize=2T\n'
"$ns" plan --root "$rpi" --config "$tmp/big.conf" >/dev/null 2>"$tmp/err"
grep -q "swapfile-no-space" "$tmp/err" && grep -q "at: $tmp/big.conf:4: \[File\] Size=2T" "$tmp/err" &&
	grep -Eq "hint: / has .* free; the largest swap file that fits there is [0-9]+M" "$tmp/err" || fail "no-space: $(cat "$tmp/err")"
# 4: the algorithm not offered: FILE:LINE and the nearest offered one
pol alg.conf '[Swap]\nBackend=zram\n[Zram]\nAlgorithm=lz5\n'
"$ns" plan --root "$fx/vps-cgroupv1" --config "$tmp/alg.conf" >"$tmp/out" 2>"$tmp/err"; rc=$?
if grep -q zram-algorithm-unavailable "$tmp/err"; then
	grep -q "at: $tmp/alg.conf:4: \[Zram\] Algorithm=lz5" "$tmp/err" || fail "algorithm error without FILE:LINE: $(cat "$tmp/err")"
	grep -q "did you mean lz4" "$tmp/err" || fail "no suggestion: $(cat "$tmp/err")"
	[ $rc = 1 ] || fail "plan with an error exited $rc"
fi
# 1: plan and check agree: 2T on a disk that cannot hold it, cgroup v1 + LimitedSwap
pol v1.conf '[Swap]\nBackend=zram\n[Kubelet]\nSwapBehavior=LimitedSwap\n'
for c in big:$rpi v1:$fx/vps-cgroupv1; do
	"$ns" check --root "${c#*:}" --config "$tmp/${c%%:*}.conf" >/dev/null 2>&1; a=$?
	"$ns" plan --root "${c#*:}" --config "$tmp/${c%%:*}.conf" >/dev/null 2>&1; b=$?
	[ $a = 1 ] && [ $b = 1 ] || fail "${c%%:*}: check exited $a, plan $b (both should be 1)"
done

# 6: the JSON contract: ids on every action, numbers beside the text
"$ns" plan --json --root "$rpi" --config "$tmp/zram.conf" >"$tmp/out" 2>/dev/null
python3 - "$tmp/out" <<'PY' || fail "plan --json contract"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["version"] == 1 and isinstance(j["errors"], int) and isinstance(j["warnings"], int)
assert all(a["id"] == a["kind"] + ":" + str(a["target"]) for a in j["actions"])
z = [a for a in j["actions"] if a["kind"] == "zram-create"][0]
assert isinstance(z["size"], int) and z["size"] > 0 and isinstance(z["priority"], int) and z["algorithm"] == "lz4", z
assert all(f["id"] and f["severity"] in ("info", "warning", "error") for f in j["findings"])
assert isinstance(j["swap_total"]["now"], int)
PY
pol sysctl.conf '[Sysctl]\nSwappiness=10\n'
"$ns" plan --json --root "$rpi" --config "$tmp/sysctl.conf" >"$tmp/out" 2>/dev/null
python3 - "$tmp/out" <<'PY' || fail "plan --json sysctl numbers"
import json, sys
j = json.load(open(sys.argv[1]))
s = [a for a in j["actions"] if a["kind"] == "sysctl"][0]
assert s["value"] == 10 and isinstance(s["value_now"], int), s
PY
# 6: status says whether the node matches and how the last run ended
cp -a "$fx/matching" "$tmp/m"
cp "$fx/status/zram-file-limitedswap.conf" "$tmp/zf.conf"; chmod 0644 "$tmp/zf.conf"
printf 'last_run=apply\nlast_run_usec=1764547200000000\nlast_run_result=failed\n' >>"$tmp/m/var/lib/nodeswap/state"
"$ns" status --json --root "$tmp/m" --config "$tmp/zf.conf" >"$tmp/out" 2>/dev/null
python3 - "$tmp/out" <<'PY' || fail "status --json contract: $(head -c 300 "$tmp/out")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["version"] == 1
assert j["matches_policy"] in (True, False) and isinstance(j["pending_actions"], int)
assert j["last_run"] == {"verb": "apply", "time_usec": 1764547200000000, "time": "2025-12-01T00:00:00Z", "result": "failed"}, j["last_run"]
PY
"$ns" status --root "$tmp/m" --config "$tmp/zf.conf" >"$tmp/out" 2>&1
grep -q '^Last run: apply at 2025-12-01T00:00:00Z, failed' "$tmp/out" || fail "status: no last run line"
grep -q '^Verdict:  ' "$tmp/out" || fail "status: no verdict line"

# 3: unprivileged status, check and allowance: what they may not read is reported, never fatal
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	u=$(mktemp -d /tmp/nodeswap-verdict-u.XXXXXX)
	chmod 0755 "$u"
	cp -a "$fx/matching" "$u/root"
	# nobody runs a copy of the binary itself: the build tree (and the wrapper's script in $tmp)
	# may sit in a directory nobody can enter
	install -m 0755 "$bin" "$u/nodeswap"
	chmod 0700 "$u/root/var/lib/nodeswap" "$u/root/run/nodeswap-state"
	mkdir -m 0700 "$u/root/run/nodeswap"
	for v in status check allowance; do
		setpriv --reuid=65534 --regid=65534 --clear-groups "$u/nodeswap" $v --root "$u/root" >"$tmp/out" 2>&1; rc=$?
		[ $rc = 0 ] || fail "$v as nobody exited $rc: $(cat "$tmp/out")"
		grep -q "Permission denied\|may not read" "$tmp/out" || fail "$v as nobody does not say what it could not read"
	done
	setpriv --reuid=65534 --regid=65534 --clear-groups "$u/nodeswap" check -v --root "$u/root" >"$tmp/out" 2>&1
	grep -q "host-unreadable: $u/root/var/lib/nodeswap/state" "$tmp/out" || fail "check as nobody: no host-unreadable"
	# a swap file nobody may open in a directory nobody may enter: its header is unknown, not absent
	chmod 0755 "$u/root/var/lib/nodeswap"
	chmod 0600 "$u/root/var/lib/nodeswap/swapfile"
	install -m 0644 "$tmp/zf.conf" "$u/zf.conf"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$u/nodeswap" status --root "$u/root" \
		--config "$u/zf.conf" >"$tmp/out" 2>&1
	grep -q "host-unreadable: /var/lib/nodeswap/swapfile: this user may not look at it" "$tmp/out" ||
		fail "status as nobody: the unreadable swap file is not reported: $(cat "$tmp/out")"
	grep -q "file-mkswap\|rewriting the swap header" "$tmp/out" && fail "status as nobody plans a new header"
	rm -rf "$u"
else
	echo "SKIP: unprivileged runs need root and setpriv"
fi

# 1 (done when): check and plan give the same error ids for every policy we ship or test
# Under valgrind, ASan+UBSan or qemu-user (sample_step) each run takes 0.3-5 s: there the examples
# and every fifth hostile policy (every twentieth under valgrind) are compared, enough to see both
# paths; otherwise every policy.
# The JSON documents are kept and compared by one python3 at the end (one interpreter per policy
# made this test's time a matter of the machine's process start-up).
n=0 k=0
step=$(sample_step 5)
mkdir "$tmp/agree"
for f in "$policies"/hostile/*.conf "$examples"/*.conf; do
	[ -f "$f" ] || continue
	k=$((k + 1))
	case $f in "$policies"/hostile/*) [ $(((k - 1) % step)) = 0 ] || continue ;; esac
	cp "$f" "$tmp/p.conf" 2>/dev/null && chmod 0644 "$tmp/p.conf" || continue
	b=$(basename "$f")
	timeout 20 "$ns" check --json --root "$rpi" --config "$tmp/p.conf" >"$tmp/agree/$b.check" 2>/dev/null
	timeout 20 "$ns" plan --json --root "$rpi" --config "$tmp/p.conf" >"$tmp/agree/$b.plan" 2>/dev/null
	n=$((n + 1))
done
python3 - "$tmp/agree" <<'PY' || failed=1
import json, os, sys
d = sys.argv[1]
def ids(path):
    try:
        j = json.load(open(path))
    except (OSError, ValueError) as e:
        return "unreadable JSON (%s)" % e
    return " ".join(sorted({f["id"] for f in j["findings"] if f["severity"] == "error"}))
bad = 0
for name in sorted(n[:-6] for n in os.listdir(d) if n.endswith(".check")):
    a, b = ids(os.path.join(d, name + ".check")), ids(os.path.join(d, name + ".plan"))
    if a != b:
        print("FAIL: %s: check says '%s', plan says '%s'" % (name, a, b))
        bad = 1
sys.exit(bad)
PY
[ $n -ge $((60 / step)) ] || fail "only $n policies compared"
echo "$n of $k policies: check and plan agree"
exit $failed
