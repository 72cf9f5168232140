#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Ansible role (conf/ansible) run for real with ansible-core against the e2e VM over ssh:
# check mode changes nothing, the first run changes the node, the second reports changed=0, the
# revert run takes the node back to NoSwap and the distro's zram, a second revert changes nothing.
# Called by run-e2e.sh while the VM waits; prints PASS/FAIL/INFO lines like the guest runner.
#
# usage: ansible-checks.sh SRC_DIR PORT KEY NODESWAP_PATH WORKDIR
set -uo pipefail
SRC=$1 PORT=$2 KEY=$3 NODESWAP=$4 WORK=$5

pass() { echo "PASS ansible: $*"; }
fail() { echo "FAIL ansible: $*"; }
info() { echo "INFO ansible: $*"; }
SSH=(ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR
     -o ConnectTimeout=10 -i "$KEY" -p "$PORT" root@127.0.0.1)
on_node() { "${SSH[@]}" "$@" </dev/null 2>/dev/null; }

if ! command -v ansible-playbook >/dev/null; then
	echo "SKIP ansible: ansible-playbook not installed (Debian package ansible-core)"
	exit 0
fi

cat >"$WORK/inventory" <<INV
[k3s_nodes]
e2e ansible_host=127.0.0.1 ansible_port=$PORT ansible_user=root ansible_ssh_private_key_file=$KEY ansible_python_interpreter=/usr/bin/python3
INV
cat >"$WORK/vars.json" <<JSON
{
  "nodeswap_binary": "$NODESWAP",
  "nodeswap_policy": {
    "Swap": {"Backend": "file"},
    "File": {"Path": "/var/lib/nodeswap/swapfile", "Size": "256M", "Priority": 10},
    "Sysctl": {"Swappiness": 100, "PageCluster": 0},
    "Kubelet": {"SwapBehavior": "LimitedSwap"}
  }
}
JSON
export ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_SSH_ARGS="-o UserKnownHostsFile=/dev/null -o ControlMaster=no"
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=False ANSIBLE_LOCAL_TEMP=$WORK/ansible-tmp
# fewer ssh round trips per task: the VM is emulated (TCG) and every one costs seconds
export ANSIBLE_PIPELINING=True

run=0
# play ARGS...: one ansible-playbook run; sets RC and CHANGED (from the PLAY RECAP)
play() {
	run=$((run + 1))
	local out=$WORK/play-$run.log t0=$SECONDS
	ansible-playbook -i "$WORK/inventory" "$SRC/conf/ansible/site.yml" -e @"$WORK/vars.json" "$@" >"$out" 2>&1
	RC=$?
	CHANGED=$(sed -n 's/.* changed=\([0-9]*\).*/\1/p' "$out" | tail -n 1)
	FAILED=$(sed -n 's/.* failed=\([0-9]*\).*/\1/p' "$out" | tail -n 1)
	info "ansible-playbook $* -> rc=$RC changed=${CHANGED:-?} failed=${FAILED:-?} in $((SECONDS - t0)) s"
	if [[ $RC != 0 ]]; then
		tail -n 30 "$out" | sed 's/^/LOG /'
	fi
}
swaps() { on_node "tail -n +2 /proc/swaps | awk '{print \$1\"(\"\$5\")\"}' | tr '\n' ' '"; }
check() { local what=$1 got=$2 want=$3; if [[ $got == "$want" ]]; then pass "$what: $got"; else fail "$what: got '$got', want '$want'"; fi; }

before=$(swaps)
play --check
check "check mode exits 0" "$RC" 0
[[ ${CHANGED:-0} -ge 1 ]] && pass "check mode reports what would change: changed=$CHANGED" ||
	fail "check mode reports no change: changed=${CHANGED:-?}"
check "check mode changed no swap" "$(swaps)" "$before"
check "check mode wrote no policy" "$(on_node 'test -e /etc/nodeswap/nodeswap.conf.d/50-ansible.conf && echo yes || echo no')" no

play
check "first run exits 0" "$RC" 0
[[ ${CHANGED:-0} -ge 1 ]] && pass "first run changed the node: changed=$CHANGED" || fail "first run: changed=${CHANGED:-?}"
check "swap file on at priority 10" "$(swaps)" "/var/lib/nodeswap/swapfile(10) "
check "drop-in says LimitedSwap" "$(on_node "sed -n 's/^ *swapBehavior: *//p' /var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf")" LimitedSwap
check "swappiness" "$(on_node 'cat /proc/sys/vm/swappiness')" 100

play
check "second run exits 0" "$RC" 0
check "second run: changed=0" "${CHANGED:-?}" 0

play -e nodeswap_state=reverted
check "revert run exits 0" "$RC" 0
[[ ${CHANGED:-0} -ge 1 ]] && pass "revert run changed the node: changed=$CHANGED" || fail "revert run: changed=${CHANGED:-?}"
sleep 3
check "distro zram0 back, no nodeswap swap" "$(swaps)" "/dev/zram0(100) "
check "drop-in gone (NoSwap)" "$(on_node 'test -e /var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf && echo present || echo absent')" absent

play -e nodeswap_state=reverted
check "second revert run: changed=0" "${CHANGED:-?}" 0
