#!/usr/bin/env bash
# nodeswap --policy-file-as PATH=FILE on a copy of a fixture tree (no kernel touched): plan sees
# the node's whole policy with FILE in place of PATH and every other file as it is; an invalid
# FILE is refused with its FILE:LINE message (exit 2), as Ansible's validate: relies on; apply and
# revert refuse the option unless they only plan (--dry-run); nothing in the tree changes.
#   test-cli-file-as.sh path/to/nodeswap FIXTURE_DIR
set -uo pipefail
FIXTURE=$(readlink -f "${2:?usage: $0 NODESWAP FIXTURE_DIR}")

tmp=$(mktemp -d /tmp/nodeswap-cli-file-as.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
NODESWAP=$(under_test "$1" "$tmp") || exit 1
snapshot() {
	(cd "$1" && find . -printf '%p %y %m %u:%g %l\n' | sort &&
		find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
# kinds FILE: the plan's action kinds and targets, one line
kinds() { json "$1" '" ".join(a["kind"] + ":" + a["target"] for a in d["actions"])'; }

root=$tmp/root
cp -a "$FIXTURE/rpi-untouched" "$root"
install -d -m 0755 "$root/etc/nodeswap/nodeswap.conf.d"
# the node's policy: zram from the main file, the swappiness from another drop-in
printf '[Swap]\nBackend=zram\n[Zram]\nSize=1G\nAlgorithm=lz4\nPriority=100\n' >"$root/etc/nodeswap/nodeswap.conf"
printf '[Sysctl]\nSwappiness=100\n' >"$root/etc/nodeswap/nodeswap.conf.d/40-sysctl.conf"
printf '[Kubelet]\nSwapBehavior=NoSwap\n' >"$root/etc/nodeswap/nodeswap.conf.d/50-ansible.conf"
chmod 0644 "$root"/etc/nodeswap/nodeswap.conf "$root"/etc/nodeswap/nodeswap.conf.d/*.conf
before=$(snapshot "$root")
dropin=/etc/nodeswap/nodeswap.conf.d/50-ansible.conf

new=$(policy new $'[Kubelet]\nSwapBehavior=LimitedSwap')
"$NODESWAP" plan --json --root "$root" >"$tmp/as-is.json" 2>"$tmp/err"; rc=$?
check "plan as the node is: exits 0" [ $rc = 0 ]
"$NODESWAP" plan --json --root "$root" --policy-file-as "$dropin=$new" >"$tmp/as.json" 2>"$tmp/err"; rc=$?
check "plan --policy-file-as: exits 0 ($(head -c 200 "$tmp/err"))" [ $rc = 0 ]
check "the new drop-in is planned: the kubelet drop-in is written for LimitedSwap" \
	grep -q '"want":"LimitedSwap' "$tmp/as.json"
check "as the node is, it is not" bash -c "! grep -q '\"want\":\"LimitedSwap' '$tmp/as-is.json'"
check "the other files still count: the zram device from nodeswap.conf ($(kinds "$tmp/as.json"))" \
	grep -q '"kind":"zram-create"' "$tmp/as.json"
check "and the swappiness from 40-sysctl.conf" grep -q '"target":"vm.swappiness"' "$tmp/as.json"
check "plan with --config of the file alone plans no zram (the difference the option makes)" \
	bash -c "'$NODESWAP' plan --json --root '$root' --config '$new' | grep -vq '\"kind\":\"create-zram\"'"
"$NODESWAP" plan -v --root "$root" --policy-file-as "$dropin=$new" >"$tmp/v.out" 2>&1
check "plan -v names FILE among the policy files, not the one it replaces" \
	bash -c "grep -qF '$new' '$tmp/v.out' && ! grep -qF '$root$dropin' '$tmp/v.out'"

# a drop-in that does not exist yet
"$NODESWAP" plan --json --root "$root" --policy-file-as "/etc/nodeswap/nodeswap.conf.d/60-new.conf=$new" \
	>"$tmp/new.json" 2>"$tmp/err"; rc=$?
check "a new drop-in name: exits 0" [ $rc = 0 ]
check "a new drop-in name: read after 50-ansible.conf, so LimitedSwap" grep -q '"want":"LimitedSwap' "$tmp/new.json"

# an invalid FILE: exit 2, FILE:LINE, nothing on stdout but the error
bad=$(policy bad $'# new\n[Kubelet]\nSwapBehavior=Limited')
"$NODESWAP" plan -q --root "$root" --policy-file-as "$dropin=$bad" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "an invalid FILE: exit 2" [ $rc = 2 ]
check "an invalid FILE: its FILE:LINE message ($(head -n 1 "$tmp/err"))" \
	grep -q "^$bad:3: \[Kubelet\] SwapBehavior=Limited: " "$tmp/err"

# a valid FILE that makes an invalid whole: the error names the other file
eq=$(policy eq $'[Swap]\nBackend=zram file\n[File]\nPriority=100')
"$NODESWAP" plan -q --root "$root" --policy-file-as "$dropin=$eq" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a FILE the rest of the policy conflicts with: exit 2 ($(head -n 1 "$tmp/err"))" [ $rc = 2 ]
check "the conflict is reported" grep -q "Priority=100: equal to" "$tmp/err"

# usage
"$NODESWAP" plan --root "$root" --policy-file-as "/etc/nodeswap/other.conf=$new" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a PATH nodeswap does not read: exit 2 ($(cat "$tmp/err"))" [ $rc = 2 ]
for arg in "$new" "=$new" "$dropin=" "relative/50.conf=$new"; do
	"$NODESWAP" plan --root "$root" --policy-file-as "$arg" >"$tmp/out" 2>"$tmp/err"; rc=$?
	check "--policy-file-as '$arg': exit 2 ($(cat "$tmp/err"))" [ $rc = 2 ]
done
"$NODESWAP" plan --root "$root" --config "$new" --policy-file-as "$dropin=$new" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "with --config: exit 2 ($(cat "$tmp/err"))" [ $rc = 2 ]
for verb in apply revert; do
	"$NODESWAP" "$verb" --root "$root" --policy-file-as "$dropin=$new" >"$tmp/out" 2>"$tmp/err"; rc=$?
	check "$verb --policy-file-as: exit 2 ($(cat "$tmp/err"))" [ $rc = 2 ]
done
"$NODESWAP" apply --dry-run --json --root "$root" --policy-file-as "$dropin=$new" >"$tmp/dry.json" 2>"$tmp/err"; rc=$?
check "apply --dry-run --policy-file-as: exits 0 and plans the same as plan" \
	[ $rc = 0 -a "$(kinds "$tmp/dry.json")" = "$(kinds "$tmp/as.json")" ]
"$NODESWAP" check --root "$root" --policy-file-as "$dropin=$new" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "check --policy-file-as runs ($rc)" [ $rc -le 1 ]

check "the tree is unchanged" [ "$(snapshot "$root")" = "$before" ]

echo "$fails check(s) failed"
[ "$fails" = 0 ]
