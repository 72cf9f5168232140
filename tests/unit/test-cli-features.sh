#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeswap's node labels for node-feature-discovery through the built binary on fixture trees:
# plan, apply (and a second apply), a backend switch, NodeFeatures=no, revert, a symlink and a
# file in the way. Every file nodeswap writes is held to NFD's rules by tests/lib/nfd-local-check.py,
# written from NFD's documentation; the checker is first shown to refuse what NFD refuses.
# Usage: test-cli-features.sh NODESWAP FIXTURES
set -uo pipefail
fx=$(readlink -f "${2:?usage: $0 NODESWAP FIXTURES}")
tmp=$(mktemp -d /tmp/nodeswap-cli-features.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$1" "$tmp") || exit 1
nfd=$(dirname "$(readlink -f "$0")")/../lib/nfd-local-check.py
out=$tmp/out
F=etc/kubernetes/node-feature-discovery/features.d/nodeswap
P=feature.node.kubernetes.io/nodeswap

# labels FILE: NFD's labels of the file (the checker's output), or the checker's complaint
labels() { /usr/bin/python3 "$nfd" "$1" 2>&1; }
root() {
	local r=$tmp/root-$1
	rm -rf "$r"
	cp -a --sparse=never "$fx/$2" "$r" && echo "$r"
}

# --- the checker refuses what NFD refuses ---------------------------------------------------------
bad() {
	printf '%s\n' "$2" >"$tmp/bad"
	check "checker refuses $1" not /usr/bin/python3 "$nfd" "$tmp/bad" 2>/dev/null
}
bad "a + in a value" "$P-backend=zram+file"
bad "a space in a value" "$P-backend=zram file"
bad "a value of 64 characters" "$P-x=$(printf 'a%.0s' {1..64})"
bad "a value ending in -" "$P-x=lz4-"
bad "the kubernetes.io namespace" "kubernetes.io/nodeswap=true"
bad "node.kubernetes.io" "node.kubernetes.io/nodeswap=true"
bad "an unknown directive" $'# +no-labels\nfoo=bar'
bad "a name given twice" $'a=1\na=2'
bad "a file without labels" "# only a comment"
printf 'a=%s\n' "$(head -c 70000 /dev/zero | tr '\0' b)" >"$tmp/big"
check "checker refuses a file over 64 KiB" not /usr/bin/python3 "$nfd" "$tmp/big" 2>/dev/null
printf '%s\n' '# +no-label' 'vendor.example.com/x=y' 'profile.node.kubernetes.io/p' 'plain' >"$tmp/good"
check "checker takes another namespace, a profile, a bare name, a directive" \
	[ "$(labels "$tmp/good")" = $'feature.node.kubernetes.io/plain=true\nprofile.node.kubernetes.io/p=true\nvendor.example.com/x=y' ]

zramfile=$(install -m 0644 "$fx/status/zram-file-limitedswap.conf" "$tmp/zramfile.conf" && echo "$tmp/zramfile.conf")
zram=$(policy zram $'[Swap]\nBackend=zram\n[Zram]\nSize=8G\nAlgorithm=zstd lz4\n[Kubelet]\nSwapBehavior=LimitedSwap')
file=$(policy file $'[Swap]\nBackend=file\n[File]\nSize=36K\nEncrypt=no\n[Kubelet]\nSwapBehavior=NoSwap')
off=$(sed 's/^\[Kubelet\]$/[Kubelet]\nNodeFeatures=no/' "$zramfile" >"$tmp/off.conf" && chmod 0644 "$tmp/off.conf" && echo "$tmp/off.conf")
kubelet=$(policy kubelet $'[Kubelet]\nSwapBehavior=LimitedSwap')
sysctl=$(policy sysctl $'[Sysctl]\nSwappiness=100')

# --- the matching node without its feature file: plan, apply, a second apply ---------------------
r=$(root nofile matching)
rm "$r/$F"
run 0 plan --root "$r" --config "$zramfile"
has "^ 1\. writing /$F: labels none -> swap-behavior=LimitedSwap backend=zram-file swap-gib=8 zram-algorithm=lz4 policy-match=true kubelet-no-swap=true disk-swap-encrypted=false\$"
run 0 plan --json --root "$r" --config "$zramfile"
check "plan --json: one features-write with the labels" \
	[ "$(json "$out" '[(a["kind"], a["prefix"], a["labels"]) for a in d["actions"]]')" = \
	  "[('features-write', 'feature.node.kubernetes.io/nodeswap-', {'swap-behavior': 'LimitedSwap', 'backend': 'zram-file', 'swap-gib': '8', 'zram-algorithm': 'lz4', 'policy-match': 'true', 'kubelet-no-swap': 'true', 'disk-swap-encrypted': 'false'})]" ]
run 0 apply --root "$r" --config "$zramfile"
has "^writing /$F: .* \.\.\. done\$"
check "apply: NFD's rules hold and the labels are the node's ($(labels "$r/$F" | tr '\n' ' '))" \
	[ "$(labels "$r/$F")" = "$P-backend=zram-file
$P-disk-swap-encrypted=false
$P-kubelet-no-swap=true
$P-policy-match=true
$P-swap-behavior=LimitedSwap
$P-swap-gib=8
$P-zram-algorithm=lz4" ]
check "apply: the file is 0644, regular, and no hidden temporary is left" \
	[ "$(stat -c '%a %F' "$r/$F")" = "644 regular file" -a "$(ls -A "$r/${F%/*}")" = nodeswap ]
run 0 apply --root "$r" --config "$zramfile"
lacks 'writing|removing'
run 0 status --root "$r" --config "$zramfile"
has '^Verdict:  the node matches the policy$'

# --- a backend switch changes the labels --------------------------------------------------------
run 0 plan --json --root "$r" --config "$zram"
check "zram alone: backend zram, the kept device's algorithm (lz4: no zstd offered)" \
	[ "$(json "$out" '[a["labels"] for a in d["actions"] if a["kind"] == "features-write"]')" = \
	  "[{'swap-behavior': 'LimitedSwap', 'backend': 'zram', 'swap-gib': '8', 'zram-algorithm': 'lz4', 'policy-match': 'true', 'kubelet-no-swap': 'true'}]" ]
run 0 plan --json --root "$r" --config "$file"
check "file alone under NoSwap: backend file, no zram algorithm, its 36 KiB count as 1 GiB (0 is none)" \
	[ "$(json "$out" '[a["labels"] for a in d["actions"] if a["kind"] == "features-write"]')" = \
	  "[{'swap-behavior': 'NoSwap', 'backend': 'file', 'swap-gib': '1', 'policy-match': 'true', 'kubelet-no-swap': 'false', 'disk-swap-encrypted': 'false'}]" ]
# the file encrypted (the default): disk-swap-encrypted=true; zram writing back to a file: true
# (WritebackEncrypt=yes, the default), false with WritebackEncrypt=no
encfile=$(policy encfile $'[Swap]\nBackend=file\n[File]\nSize=64K\n[Kubelet]\nSwapBehavior=NoSwap')
run 0 plan --json --root "$r" --config "$encfile"
check "an encrypted swap file: disk-swap-encrypted=true" \
	[ "$(json "$out" '[a["labels"].get("disk-swap-encrypted") for a in d["actions"] if a["kind"] == "features-write"]')" = "['true']" ]
wbzram=$(policy wbzram $'[Swap]\nBackend=zram\n[Zram]\nSize=8G\nAlgorithm=lz4\nPriority=100\nWriteback=/var/lib/nodeswap/wb\n[Kubelet]\nSwapBehavior=LimitedSwap')
run 1 plan --json --root "$r" --config "$wbzram"     # the fixture's zram has no backing_dev: an error, labels planned all the same
check "zram writing back to a file, encrypted: disk-swap-encrypted=true" \
	[ "$(json "$out" '[a["labels"].get("disk-swap-encrypted") for a in d["actions"] if a["kind"] == "features-write"]')" = "['true']" ]
wbplain=$(policy wbplain $'[Swap]\nBackend=zram\n[Zram]\nSize=8G\nAlgorithm=lz4\nPriority=100\nWriteback=/var/lib/nodeswap/wb\nWritebackEncrypt=no\n[Kubelet]\nSwapBehavior=LimitedSwap')
run 1 plan --json --root "$r" --config "$wbplain"
check "zram writing back to a file in clear: disk-swap-encrypted=false" \
	[ "$(json "$out" '[a["labels"].get("disk-swap-encrypted") for a in d["actions"] if a["kind"] == "features-write"]')" = "['false']" ]
# a policy of no swap: 0 GiB
r0=$(root none rpi-untouched)
none=$(policy none $'[Swap]\nBackend=none\n[Kubelet]\nSwapBehavior=NoSwap')
run 0 plan --json --root "$r0" --config "$none"
check "Backend=none: backend none, 0 GiB" \
	[ "$(json "$out" '[(a["labels"]["backend"], a["labels"]["swap-gib"]) for a in d["actions"] if a["kind"] == "features-write"]')" = "[('none', '0')]" ]

# --- NodeFeatures=no removes the file; a policy of sysctls alone writes none ---------------------
run 0 plan --root "$r" --config "$off"
has "removing /$F \(policy \[Kubelet\] NodeFeatures=no\)"
run 0 apply --root "$r" --config "$off"
check "NodeFeatures=no: the file is gone" [ ! -e "$r/$F" ]
run 0 apply --root "$r" --config "$off"
lacks 'features.d/nodeswap'
r=$(root sysctl rpi-untouched)
run 0 plan --root "$r" --config "$sysctl"
lacks 'node-feature-discovery'

# --- revert removes it (a node whose kubelet alone nodeswap manages: revert runs to its end) ----
r=$(root revert rpi-untouched)
run 0 apply --root "$r" --config "$kubelet"
check "kubelet alone: the labels ($(labels "$r/$F" | tr '\n' ' '))" \
	[ "$(labels "$r/$F")" = "$P-kubelet-no-swap=true
$P-policy-match=true
$P-swap-behavior=LimitedSwap
$P-swap-gib=2" ]
run 0 revert --root "$r"
has "^removing /$F \(nodeswap revert\) \.\.\. done\$"
check "revert: the file is gone, the directory stays (NFD's)" [ ! -e "$r/$F" -a -d "$r/${F%/*}" ]
run 0 revert --root "$r"
lacks 'features.d/nodeswap'

# --- a symlink at the path is replaced, never written through ------------------------------------
r=$(root symlink rpi-untouched)
mkdir -p "$r/${F%/*}"
echo precious >"$r/target"
ln -s ../../../../target "$r/$F"
run 0 apply --root "$r" --config "$kubelet"
check "symlink: replaced by a regular file, its target untouched" \
	[ "$(stat -c %F "$r/$F")" = "regular file" -a "$(cat "$r/target")" = precious ]

# --- a file where the directory would be: apply fails and says so; nothing else of it is lost ---
r=$(root blocked rpi-untouched)
mkdir -p "$r/etc/kubernetes"
echo x >"$r/etc/kubernetes/node-feature-discovery"
run 1 apply --root "$r" --config "$kubelet"
has "^writing /$F: .* \.\.\. failed: Failed to write '/$F': Not a directory\$"
check "blocked: the file in the way is untouched" [ "$(cat "$r/etc/kubernetes/node-feature-discovery")" = x ]

[ "$fails" = 0 ]
