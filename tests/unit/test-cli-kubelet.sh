#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kubelet's effective configuration through the built binary: status, allowance, check, plan,
# apply and revert on fixture trees with hand-written drop-ins (tests/fixtures/kubelet/, each an
# overlay on the base tree its "base" file names; tests/fixtures/README.md).
# Usage: test-cli-kubelet.sh NODESWAP FIXTURES
set -uo pipefail
fx=$(readlink -f "${2:?usage: $0 NODESWAP FIXTURES}")
tmp=$(mktemp -d /tmp/nodeswap-cli-kubelet.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
ns=$(under_test "$1" "$tmp") || exit 1
out=$tmp/out
D=/var/lib/rancher/k3s/agent/etc/kubelet.conf.d

# root CASE: a fresh copy of the case's base tree with its overlay on top; prints its path
root() {
	local r=$tmp/root-$1
	rm -rf "$r"
	cp -a "$fx/$(cat "$fx/kubelet/$1/base")" "$r" && cp -a "$fx/kubelet/$1/." "$r/" && rm "$r/base" && echo "$r"
}
snapshot() {
	(cd "$1" && find . ! -path ./run/nodeswap.lock -printf '%p %y %m %l\n' | sort &&
		find . -type f ! -path ./run/nodeswap.lock -print0 | sort -z | xargs -0 sha256sum)
}

limited=$(policy limited $'[Kubelet]\nSwapBehavior=LimitedSwap')
noswap=$(policy noswap $'[Kubelet]\nSwapBehavior=NoSwap')
zramfile=$(install -m 0644 "$fx/status/zram-file-limitedswap.conf" "$tmp/zramfile.conf" && echo "$tmp/zramfile.conf")
kubeadm=$(policy kubeadm $'[Kubelet]\nSwapBehavior=LimitedSwap\nUnit=kubelet.service\nDropIn=/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf')

# --- a hand-written 90-swap.conf (flow style, quoted keys, comments), a .conf.bak, k3s's defaults
r=$(root hand-swap)
run 0 status --root "$r" --config "$limited"
has "^  swapBehavior +LimitedSwap from $D/90-swap.conf:4\$"
lacks 'not set by nodeswap'
run 0 status --json --root "$r" --config "$limited"
check "status --json: the effective LimitedSwap and its source" \
	[ "$(json "$out" 'd["kubelet"]["swap_behavior"], d["kubelet"]["swap_behavior_source"], d["kubelet"]["fail_swap_on"], d["kubelet"]["fail_swap_on_source"]')" = \
	  "('LimitedSwap', '$D/90-swap.conf:4', False, '$D/00-k3s-defaults.conf:3')" ]
check "status --json: the files the kubelet reads, in order, without the .conf.bak" \
	[ "$(json "$out" '[f["path"].split("/")[-1] for f in d["kubelet"]["config_files"]]')" = "['00-k3s-defaults.conf', '90-swap.conf']" ]
# 256Mi / 16608080 kB × 16777212 kB = 258.6 MiB: the kubelet's figure, not 0
run 0 allowance --root "$r" --config "$limited" --request 256Mi --limit 512Mi
has '^Swap: 258.6 MiB'
run 0 allowance --json --root "$r" --config "$limited" --request 256Mi --limit 512Mi
has '"swap_behavior": *"LimitedSwap"'
has '"swap": *271169126'
# a NoSwap policy would write 90-nodeswap.conf, which 90-swap.conf overrides ("90-n" < "90-s")
run 1 plan --root "$r" --config "$noswap"
has "^error +dropin-overridden: $D/90-swap.conf:4 sets swapBehavior LimitedSwap and is merged after $D/90-nodeswap.conf"
before=$(snapshot "$r")
run 1 apply --root "$r" --config "$noswap"
has "$D/90-swap.conf:4"
check "apply refused: the tree is unchanged" [ "$(snapshot "$r")" = "$before" ]
run 0 plan --root "$r" --config "$limited"
lacks '^error'
run 0 check --root "$r" --config "$limited"
has "kubelet-swap-behavior: swapBehavior is set by $D/90-swap.conf:4 \\(LimitedSwap\\); $D/90-swap.conf:4 wins: LimitedSwap"
run 1 check --json --root "$r" --config "$noswap"
has '"id": *"dropin-overridden"'
# revert: no drop-in of nodeswap's, but 90-swap.conf still enables swap
run 0 revert --dry-run --root "$r" --config "$limited"
has "^warning +revert-limitedswap-kept: $D/90-swap.conf:4 still sets swapBehavior LimitedSwap"

# --- nodeswap's drop-in in place, a later 95-site.conf (quoted NoSwap, two documents) wins ------
r=$(root site-override)
run 0 status --root "$r" --config "$zramfile"
has "^  swapBehavior +NoSwap from $D/95-site.conf:6\$"
run 1 plan --root "$r" --config "$zramfile"
has "^error +dropin-overridden: $D/95-site.conf:6 sets swapBehavior NoSwap and is merged after $D/90-nodeswap.conf"
run 1 check --root "$r" --config "$zramfile"
has "^info +kubelet-swap-behavior: swapBehavior is set by $D/50-early.conf:4 \\(LimitedSwap\\), $D/90-nodeswap.conf:6 \\(LimitedSwap\\), $D/95-site.conf:6 \\(NoSwap\\); $D/95-site.conf:6 wins: NoSwap"
has "^error +dropin-overridden: $D/95-site.conf:6"
lacks '99-site.conf.bak'
run 0 allowance --json --root "$r" --config "$zramfile" --request 256Mi --limit 1Gi
has '"swap_behavior": *"NoSwap"'
has '"swap": *0,'
# revert: removing 90-nodeswap.conf leaves 95-site.conf's NoSwap: said as such
run 0 revert --dry-run --root "$r" --config "$zramfile"
has "removing $D/90-nodeswap.conf: swapBehavior LimitedSwap -> absent \\(NoSwap from $D/95-site.conf:6\\)"
lacks 'still sets swapBehavior'

# --- an invalid drop-in stops the kubelet: check and plan warn alike (one verdict: apply still sets
# up swap, the kubelet is broken whatever nodeswap does) -----------------------------------------
r=$(root invalid)
run 0 check --root "$r" --config "$zramfile"
has "^warning +kubelet-config-invalid: $D/95-broken.conf:4: not valid YAML"
run 0 status --root "$r" --config "$zramfile"
has "invalid file +$D/95-broken.conf:4"
run 0 plan --root "$r" --config "$zramfile"
has "^warning +kubelet-config-invalid: $D/95-broken.conf:4: not valid YAML"

# --- kubeadm: /var/lib/kubelet/config.yaml, --config-dir from kubeadm-flags.env, a subdirectory
r=$(root kubeadm)
run 0 status --root "$r" --config "$kubeadm"
has '^  swapBehavior +LimitedSwap from /etc/kubernetes/kubelet.conf.d/10-swap.conf:2$'
has '^  drop-in dir +/etc/kubernetes/kubelet.conf.d$'
has '^  failSwapOn +true from /etc/kubernetes/kubelet.conf.d/sub/20-fail.conf:3: '
run 1 plan --root "$r" --config "$kubeadm"
has '^error +kubelet-fail-swap-on: /etc/kubernetes/kubelet.conf.d/sub/20-fail.conf:3 sets failSwapOn: true'
# the policy's drop-in outside the kubelet's --config-dir: refused
other=$(policy other $'[Kubelet]\nSwapBehavior=LimitedSwap\nUnit=kubelet.service\nDropIn=/etc/kubelet.d/90-nodeswap.conf')
run 1 plan --root "$r" --config "$other"
has '^error +dropin-overridden: the kubelet does not read /etc/kubelet.d/90-nodeswap.conf: its drop-in directory is /etc/kubernetes/kubelet.conf.d \(--config-dir=/etc/kubernetes/kubelet.conf.d \(KUBELET_KUBEADM_ARGS in /var/lib/kubelet/kubeadm-flags.env:1\)\)'

# --- kubeadm without its --config file /var/lib/kubelet/config.yaml (10-kubeadm.conf passes it;
# kubeadm init or join writes it): the real kubelets v1.31.0 and v1.36.3 do not start
r=$(root kubeadm-no-config) && rm "$r/var/lib/kubelet/config.yaml"
run 1 check --root "$r" --config "$kubeadm"
has '^error +kubelet-config-file-missing: the kubelet'"'"'s --config file /var/lib/kubelet/config.yaml \(kubeadm'"'"'s 10-kubeadm.conf passes it\) does not exist: the kubelet does not start$'
run 0 status --root "$r" --config "$kubeadm"
has '^  config file +/var/lib/kubelet/config.yaml \(missing: the kubelet does not start\)$'
run 0 status --json --root "$r" --config "$kubeadm"
check "status --json: the kubelet does not start without its --config file" [ "$(json "$out" 'd["kubelet"]["starts"]')" = False ]
# with the base's config.yaml back it starts
r=$(root kubeadm-no-config)
run 0 status --json --root "$r" --config "$kubeadm"
check "status --json: with config.yaml the kubelet starts" [ "$(json "$out" 'd["kubelet"]["starts"]')" = True ]
run 1 check --root "$r" --config "$kubeadm"
lacks 'kubelet-config-file-missing'

# --- memory.available as a percentage: of MemTotal (4015024 kB here), float32 as the eviction
# manager takes it: 5% is 205569231 bytes; 101% in a drop-in is loaded by the real kubelets and
# then refused by ParseThresholdConfig: the kubelet does not start
r=$(root kubeadm-threshold)
run 0 status --root "$r" --config "$kubeadm"
has '^  memory eviction memory.available<5% \(196.0 MiB of MemTotal 3.8 GiB\) from /var/lib/kubelet/config.yaml:5$'
run 0 status --json --root "$r" --config "$kubeadm"
check "status --json: 5% of MemTotal in bytes, the kubelet starts" \
	[ "$(json "$out" 'd["kubelet"]["memory_eviction"]["threshold_bytes"], d["kubelet"]["memory_eviction"]["invalid"], d["kubelet"]["starts"]')" = "(205569231, None, True)" ]
printf 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nevictionHard:\n  memory.available: "101%%"\n' \
	>"$r/etc/kubernetes/kubelet.conf.d/50-bad.conf"
run 0 status --root "$r" --config "$kubeadm"
has '^  memory eviction memory.available<101% from /etc/kubernetes/kubelet.conf.d/50-bad.conf:4: a percentage above 100%, the kubelet does not start$'
run 1 check --root "$r" --config "$kubeadm"
has '^warning +kubelet-config-invalid: /etc/kubernetes/kubelet.conf.d/50-bad.conf:4: evictionHard memory.available "101%" is a percentage above 100%: the kubelet refuses it and does not start$'
run 0 status --json --root "$r" --config "$kubeadm"
check "status --json: 101% is refused, the kubelet does not start" \
	[ "$(json "$out" 'd["kubelet"]["memory_eviction"]["threshold_bytes"], d["kubelet"]["memory_eviction"]["invalid"], d["kubelet"]["starts"]')" = "(None, 'a percentage above 100%', False)" ]
# 100% and 0% are no threshold at all (parseThresholdStatement ignores them)
sed -i 's/101%/100%/' "$r/etc/kubernetes/kubelet.conf.d/50-bad.conf"
run 0 status --json --root "$r" --config "$kubeadm"
check "status --json: 100% is no threshold, the kubelet starts" \
	[ "$(json "$out" 'd["kubelet"]["memory_eviction"]["threshold"], d["kubelet"]["starts"]')" = "(None, True)" ]

# --- kubeadm: a drop-in's null over the --config file brings config.yaml's values back (the
# kubelet's merge base carries Go field names, so the null removes only 10-site.conf's keys)
# On a kubelet of unknown version the 1.32+ rule: the nulls bring back the v1beta1 defaults
# (failSwapOn true, NoSwap), which would stop the kubelet on this node with swap
r=$(root kubeadm-null)
run 0 status --root "$r" --config "$kubeadm"
has '^  swapBehavior +NoSwap from /etc/kubernetes/kubelet.conf.d/20-reset.conf:4 \(empty: the default\)$'
has '^  failSwapOn +true from /etc/kubernetes/kubelet.conf.d/20-reset.conf:3 \(null: the kubelet'"'"'s default\): '
has '^  version +unknown: drop-ins read the 1.32\+ way$'
# (a policy that leaves the kubelet alone: nodeswap's own drop-in would set failSwapOn: false last)
alone=$(policy alone $'[Kubelet]\nUnit=kubelet.service\nDropIn=/etc/kubernetes/kubelet.conf.d/90-nodeswap.conf')
run 1 check --root "$r" --config "$alone"
has "^error +kubelet-fail-swap-on: /etc/kubernetes/kubelet.conf.d/20-reset.conf:3 sets failSwapOn: null, which brings back the kubelet's default, true, and this node"
lacks 'sets failSwapOn: true'
run 0 status --json --root "$r" --config "$kubeadm"
check "status --json: no version, the 1.32+ rule" \
	[ "$(json "$out" 'd["kubelet"]["version"], d["kubelet"]["merge_rule"], d["kubelet"]["starts"]')" = "(None, '1.32', True)" ]
# The same files on a kubelet v1.31.0 (its Go build information in /usr/bin/kubelet): the old
# rule, config.yaml's values come back
r=$(root kubeadm-null-1.31)
run 0 status --root "$r" --config "$kubeadm"
has '^  swapBehavior +LimitedSwap from /var/lib/kubelet/config.yaml:6$'
lacks '^  failSwapOn +true'
has '^  version +v1.31.0 \(from /usr/bin/kubelet\): drop-ins merged the 1.30-1.31 way$'
run 0 check --root "$r" --config "$alone"
lacks 'kubelet-fail-swap-on'
lacks 'kubelet-config-invalid'
run 0 allowance --root "$r" --config "$kubeadm" --request 256Mi --limit 512Mi
lacks '^Swap: 0'

# A release kubelet names no version in its executable (built -trimpath from inside
# k8s.io/kubernetes): the version is the one its running process logged at start ("Kubelet
# version", in the journal: tests/fixtures/kubelet/journal/kubelet.export, made into a journal file
# by systemd-journal-remote), this boot's PID 4242, not the same PID of an earlier boot
jr=/usr/lib/systemd/systemd-journal-remote
check "systemd-journal-remote is installed (the README's setup installs it)" [ -x "$jr" ]
r=$(root kubeadm-null-1.31)
rm "$r/usr/bin/kubelet"
mkdir -p "$r/proc/sys/kernel/random" "$r/sys/fs/cgroup/system.slice/kubelet.service" \
	"$r/var/log/journal/c0ffee00c0ffee00c0ffee00c0ffee00"
echo 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0 >"$r/proc/sys/kernel/random/boot_id"
echo 4242 >"$r/sys/fs/cgroup/system.slice/kubelet.service/cgroup.procs"
sed '1,/^$/d' "$fx/kubelet/journal/kubelet.export" >"$tmp/kubelet.export"
"$jr" --output="$r/var/log/journal/c0ffee00c0ffee00c0ffee00c0ffee00/system.journal" "$tmp/kubelet.export" \
	>"$tmp/jr.log" 2>&1
check "systemd-journal-remote wrote the journal" [ -s "$r/var/log/journal/c0ffee00c0ffee00c0ffee00c0ffee00/system.journal" ]
run 0 status --root "$r" --config "$kubeadm"
has "^  version +v1.31.0 \(from the journal of kubelet.service, its running kubelet's start\): drop-ins merged the 1.30-1.31 way$"
has '^  swapBehavior +LimitedSwap from /var/lib/kubelet/config.yaml:6$'
# the kubelet not running: the newest start the unit logged
rm "$r/sys/fs/cgroup/system.slice/kubelet.service/cgroup.procs"
run 0 status --root "$r" --config "$kubeadm"
has "^  version +v1.31.0 \(from the journal of kubelet.service, its last logged start\): "
# no such line at all: unknown, the 1.32+ rule
rm -r "$r/var/log/journal"
run 0 status --root "$r" --config "$kubeadm"
has '^  version +unknown: drop-ins read the 1.32\+ way$'

# --- the memory eviction threshold, as the kubelet has it: kubeadm's config.yaml sets no
# evictionHard, so DefaultEvictionHard holds and a drop-in's disk thresholds merge into it:
# nodeswap's drop-in adds no memory.available
r=$(root kubeadm-eviction)
run 0 status --root "$r" --config "$kubeadm"
has "^  memory eviction memory.available<100Mi from the kubelet's default \\(its --config file sets no evictionHard\\)$"
# (plan exits 1: the base tree runs cgroup v1, cgroup-v1-limitedswap)
run 1 plan --root "$r" --config "$kubeadm"
has '90-nodeswap.conf: swapBehavior none -> LimitedSwap$'
# k3s without a --config file: no default; a drop-in's mergeDefaultEvictionSettings does nothing,
# so nodeswap's LimitedSwap drop-in adds memory.available; the kubelet-arg
# merge-default-eviction-settings names no kubelet flag: the kubelet does not start
r=$(root k3s-merge-default)
run 0 status --root "$r" --config "$limited"
has '^  memory eviction none: '
run 1 plan --root "$r" --config "$limited"
has '90-nodeswap.conf: swapBehavior none -> LimitedSwap, evictionHard memory.available 100Mi$'
run 1 check --root "$r" --config "$limited"
has '^error +kubelet-flag-invalid: --merge-default-eviction-settings=true \(kubelet-arg in /etc/rancher/k3s/config.yaml:3\): the kubelet has no such flag and does not start'
run 0 status --json --root "$r" --config "$limited"
check "status --json: the kubelet does not start" [ "$(json "$out" 'd["kubelet"]["starts"]')" = False ]

# --- k3s: kubelet-arg in config.yaml, replaced by config.yaml.d/50-site.yaml, appended to by
# 60-grace.yml; --kubelet-arg=fail-swap-on=true on ExecStart= wins over every file, nodeswap's
# drop-in too: the kubelet would not start on this node with swap
r=$(root k3s-flags)
U=/etc/systemd/system/k3s-agent.service
run 1 plan --root "$r" --config "$limited"
has '^error +kubelet-fail-swap-on: '
run 1 check --root "$r" --config "$limited"
has '^error +kubelet-fail-swap-on: '
run 0 status --root "$r" --config "$limited"
has "^  failSwapOn +true from --fail-swap-on=true \\(--kubelet-arg on ExecStart= in $U:27\\)"
has '^  flag +--eviction-soft=memory.available<500Mi \(kubelet-arg in /etc/rancher/k3s/config.yaml.d/50-site.yaml:3\)$'
has '^  flag +--eviction-soft-grace-period=memory.available=1m30s \(kubelet-arg in /etc/rancher/k3s/config.yaml.d/60-grace.yml:1\)$'
lacks 'eviction-hard'
run 0 status --json --root "$r" --config "$limited"
check "status --json: failSwapOn true from the flag, the flags nodeswap reads" \
	[ "$(json "$out" 'd["kubelet"]["fail_swap_on"], d["kubelet"]["fail_swap_on_source"], len(d["kubelet"]["flags"])')" = \
	  "(True, '--fail-swap-on=true (--kubelet-arg on ExecStart= in $U:27)', 3)" ]

# --- k3s: a unit drop-in's ExecStart= passes --kubelet-arg "config-dir=..." for a directory that
# does not exist and fail_swap_on=false. k3s takes config-dir out of the kubelet's flags and copies
# the directory into 20-cli-config-dir/ of its own --config-dir (k3s-io/k3s pkg/agent
# extractConfigArgs()): the copy fails and k3s does not start the kubelet
r=$(root k3s-dropin-dir)
k3salone=$(policy k3salone $'[Kubelet]\nUnit=k3s-agent.service')
run 0 check --root "$r" --config "$k3salone"
has '^warning +kubelet-config-invalid: /etc/rancher/k3s/kubelet.conf.d: k3s cannot copy it \(kubelet-arg config-dir=/etc/rancher/k3s/kubelet.conf.d in /etc/systemd/system/k3s-agent.service.d/10-kubelet.conf:4\) to /var/lib/rancher/k3s/agent/etc/kubelet.conf.d/20-cli-config-dir: No such file or directory: k3s does not start the kubelet$'
has '^ +hint: create /etc/rancher/k3s/kubelet.conf.d or remove the kubelet-arg entry from /etc/systemd/system/k3s-agent.service.d/10-kubelet.conf$'
lacks 'kubelet-config-dir-missing'
lacks 'kubelet-fail-swap-on'
run 0 status --root "$r" --config "$k3salone"
has '^  drop-in dir +/var/lib/rancher/k3s/agent/etc/kubelet.conf.d$'
has '^  failSwapOn +false from --fail-swap-on=false '
lacks '^  flag +--config-dir'
# the policy's drop-in in k3s's own directory is what this kubelet reads
run 0 plan --root "$r" --config "$limited"
lacks 'dropin-overridden'

# --- k3s: kubelet-arg config=FILE and config-dir=DIR are copied to 10-cli-config.conf and into
# 20-cli-config-dir/ and read as drop-ins, never as --config: FILE brings no default evictionHard
# (only a --config file does), and nodeswap's 90-nodeswap.conf is merged after both
r=$(root k3s-cli-config)
run 0 status --root "$r" --config "$k3salone"
has '^  swapBehavior +NoSwap from /etc/rancher/k3s/kubelet.yaml:5$'
has '^  memory eviction memory.available<300Mi from /etc/rancher/k3s/kubelet.d/95-site.conf:4$'
has '^  k3s copies +/etc/rancher/k3s/kubelet.yaml to /var/lib/rancher/k3s/agent/etc/kubelet.conf.d/10-cli-config.conf before every start \(kubelet-arg config= in /etc/rancher/k3s/config.yaml:5\)$'
lacks '^  config file'
run 0 plan --root "$r" --config "$limited"
has 'kubelet.conf.d/90-nodeswap.conf: swapBehavior none -> LimitedSwap'
lacks 'dropin-overridden'
rm "$r/etc/rancher/k3s/kubelet.d/95-site.conf"
run 0 status --root "$r" --config "$k3salone"
has '^  memory eviction none: no --config file '

# --- rke2 (its unit file as rke2's installer writes it; 00-rke2-defaults.conf as its agent, k3s's
# code, writes it): DropIn= unset means rke2's own drop-in directory, which its kubelet reads, not
# k3s's, which it never does
r=$(root rke2)
rm "$r/etc/systemd/system/k3s-agent.service"
run 0 status --root "$r" --config "$limited"
has '^  unit +rke2-agent.service$'
has '^  drop-in +/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/90-nodeswap.conf \(absent\)$'
has '^  drop-in dir +/var/lib/rancher/rke2/agent/etc/kubelet.conf.d$'
has '^  memory eviction none: /var/lib/rancher/rke2/agent/etc/kubelet.conf.d/00-rke2-defaults.conf:3 sets evictionHard without memory.available'
run 0 plan --root "$r" --config "$limited"
has 'writing /var/lib/rancher/rke2/agent/etc/kubelet.conf.d/90-nodeswap.conf: swapBehavior none -> LimitedSwap'
lacks 'k3s/agent'
# an operator's DropIn= stays as written
rke2own=$(policy rke2own $'[Kubelet]\nSwapBehavior=LimitedSwap\nDropIn=/var/lib/rancher/rke2/agent/etc/kubelet.conf.d/95-mine.conf')
run 0 plan --root "$r" --config "$rke2own"
has 'writing /var/lib/rancher/rke2/agent/etc/kubelet.conf.d/95-mine.conf: '

# --- kubeadm: --config-dir DIR in KUBELET_KUBEADM_ARGS, --fail-swap-on=false in /etc/default/kubelet's
# KUBELET_EXTRA_ARGS (quoted, continued) over 10-site.conf's failSwapOn: true: the kubelet starts
r=$(root kubeadm-flags)
run 0 check --root "$r" --config "$alone"
lacks 'kubelet-fail-swap-on'
run 0 status --root "$r" --config "$alone"
has '^  failSwapOn +false from --fail-swap-on=false \(KUBELET_EXTRA_ARGS in /etc/default/kubelet:4\)$'
has '^  flag +--eviction-hard=memory.available<300Mi \(KUBELET_EXTRA_ARGS in /etc/default/kubelet:4\)$'
run 0 status --json --root "$r" --config "$alone"
check "status --json: failSwapOn false, from the flag" \
	[ "$(json "$out" 'd["kubelet"]["fail_swap_on"], d["kubelet"]["config_dir"]')" = "(False, '/etc/kubernetes/kubelet.conf.d')" ]

# --- the kubelet's cgroup without memory.swap.max (swap accounting off): the kubelet's
# swapControllerAvailable() is false and it sets no swap limit on any container
r=$(root no-swap-controller)
run 1 check --root "$r" --config "$limited"
has '^error +swap-controller-off-limitedswap: '
run 0 check --root "$r" --config "$noswap"
has '^warning +swap-controller-off: '
# with memory.swap.max in place: neither
r=$(root no-swap-controller)
echo max >"$r/sys/fs/cgroup/system.slice/k3s-agent.service/memory.swap.max"
run 0 check --root "$r" --config "$limited"
lacks 'swap-controller-off'

# --- memory eviction (issue 25): k3s's 00-k3s-defaults.conf as k3s writes it sets evictionHard for
# disk only, so the kubelet's default memory.available<100Mi is gone; LimitedSwap puts it back
r=$(root k3s-eviction)
run 0 status --root "$r" --config "$noswap"
has "^  memory eviction none: $D/00-k3s-defaults.conf:22 sets evictionHard without memory.available"
run 0 status --json --root "$r" --config "$noswap"
check "status --json: no memory threshold, and the file that dropped it" \
	[ "$(json "$out" 'd["kubelet"]["memory_eviction"]["threshold"], d["kubelet"]["memory_eviction"]["source"]')" = \
	  "(None, '$D/00-k3s-defaults.conf:22')" ]
run 0 check --root "$r" --config "$noswap"
has "^warning +memory-eviction-missing: $D/00-k3s-defaults.conf:22 sets evictionHard without memory.available, and this node has swap"
run 0 check --root "$r" --config "$limited"
lacks 'memory-eviction-missing'
run 0 plan --root "$r" --config "$limited"
has "writing $D/90-nodeswap.conf: swapBehavior none -> LimitedSwap, evictionHard memory.available 100Mi"
run 0 plan --json --root "$r" --config "$limited"
has 'the kubelet has no hard memory.available threshold now \('"$D"'/00-k3s-defaults.conf:22 sets evictionHard without it\)'
off=$(policy off $'[Kubelet]\nSwapBehavior=LimitedSwap\nMemoryEviction=off')
run 0 plan --root "$r" --config "$off"
has "writing $D/90-nodeswap.conf: swapBehavior none -> LimitedSwap\$"
run 0 check --root "$r" --config "$off"
lacks 'memory-eviction'
gig=$(policy gig $'[Kubelet]\nSwapBehavior=LimitedSwap\nMemoryEviction=1Gi')
run 0 apply --root "$r" --config "$gig"
check "the drop-in sets memory.available 1Gi" grep -qx '  memory.available: "1Gi"' "$r$D/90-nodeswap.conf"
check "k3s's defaults file is left alone" cmp -s "$r$D/00-k3s-defaults.conf" "$fx/kubelet/k3s-eviction$D/00-k3s-defaults.conf"
run 0 status --root "$r" --config "$gig"
has "^  memory eviction memory.available<1Gi from $D/90-nodeswap.conf:8\$"
# the drop-in is not planned again (MemorySwapMax=0 on the kubelet's unit is: under --root
# apply skips the D-Bus call, so that step stays to do)
run 0 plan --root "$r" --config "$gig"
lacks "90-nodeswap.conf"
has 'keeping k3s-agent.service out of swap'
# the default 100Mi rewrites it; revert takes it out with the drop-in
run 0 plan --root "$r" --config "$limited"
has "swapBehavior LimitedSwap, evictionHard memory.available 1Gi -> LimitedSwap, evictionHard memory.available 100Mi"
run 0 revert --root "$r" --config "$gig"
check "revert removed the drop-in" [ ! -e "$r$D/90-nodeswap.conf" ]
run 0 status --root "$r" --config "$gig"
has "^  memory eviction none: $D/00-k3s-defaults.conf:22"

# an operator's 50-site.conf sets memory.available: nodeswap leaves it and says where it is from
r=$(root k3s-eviction-site)
run 0 plan --root "$r" --config "$limited"
has "writing $D/90-nodeswap.conf: swapBehavior none -> LimitedSwap\$"
run 0 status --root "$r" --config "$limited"
has "^  memory eviction memory.available<500Mi from $D/50-site.conf:5\$"
run 0 plan --json --root "$r" --config "$limited"
has 'evictionHard memory.available 500Mi from '"$D"'/50-site.conf:5: nodeswap.s drop-in sets none'

# kubelet-arg eviction-hard without memory.available: the flag wins over every file, so the
# drop-in cannot help: an error in plan and check, apply refuses
r=$(root k3s-eviction-flag)
run 1 plan --root "$r" --config "$limited"
has '^error +memory-eviction-flag: --eviction-hard=nodefs.available<10%,imagefs.available<15% \(kubelet-arg in /etc/rancher/k3s/config.yaml:5\) sets evictionHard without memory.available'
run 1 check --root "$r" --config "$limited"
has '^error +memory-eviction-flag: '
before=$(snapshot "$r")
run 1 apply --root "$r" --config "$limited"
check "apply refused: the tree is unchanged" [ "$(snapshot "$r")" = "$before" ]
run 0 plan --root "$r" --config "$off"
lacks 'memory-eviction'
run 0 status --root "$r" --config "$noswap"
has '^  memory eviction none: --eviction-hard=nodefs.available<10%,imagefs.available<15% \(kubelet-arg in /etc/rancher/k3s/config.yaml:5\)'
# a pair without '<': the kubelet's LangleSeparatedMapStringString refuses it and does not start
printf 'kubelet-arg:\n  - "eviction-hard=memory.available=100Mi"\n' >"$r/etc/rancher/k3s/config.yaml"
run 1 check --root "$r" --config "$noswap"
has "^error +kubelet-flag-invalid: --eviction-hard=memory.available=100Mi \\(kubelet-arg in /etc/rancher/k3s/config.yaml:2\\): a pair without '<'"

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
