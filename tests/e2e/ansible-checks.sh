#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Ansible role (conf/ansible) run for real with ansible-core against the e2e VM over ssh. The
# VM starts without nodeswap. Check mode there changes nothing. The role installs the amd64
# package (DEB) and applies; a rerun
# reports changed=0; check mode with a changed policy reports the change from the node's whole
# policy and touches nothing; a broken policy is refused with nodeswap's FILE:LINE message and
# the node is unchanged; revert reverts, and a second revert reports changed=0. Then the package
# is purged: nodeswap's state goes, a swap file in use stays.
# Called by run-e2e.sh while the VM waits; prints PASS/FAIL/INFO lines like the guest runner.
#
# usage: ansible-checks.sh SRC_DIR PORT KEY DEB WORKDIR
set -uo pipefail
SRC=$1 PORT=$2 KEY=$3 DEB=$4 WORK=$5

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
# vars NAME SIZE SWAPPINESS [SWAP_BEHAVIOR]: a variables file for one run (a plain swap file, as
# the checks below swap it on by hand and look for it by its path in /proc/swaps; scenario x tests
# the encrypted one)
vars() {
	cat >"$WORK/$1.json" <<JSON
{
  "nodeswap_deb": "$DEB",
  "nodeswap_policy": {
    "Swap": {"Backend": "file"},
    "File": {"Path": "/var/lib/nodeswap/swapfile", "Size": "$2", "Priority": 10, "Encrypt": "no"},
    "Sysctl": {"Swappiness": $3, "PageCluster": 0},
    "Kubelet": {"SwapBehavior": "${4:-LimitedSwap}"}
  }
}
JSON
}
vars policy 256M 100
vars changed 384M 80
vars broken 256M 100 Limited
# One ssh connection for every task of every run (ControlMaster, as Ansible's own default
# ANSIBLE_SSH_ARGS does): a new connection is a key exchange and an authentication by the guest's
# emulated sshd, seconds each, and each task opened one. The socket lives in $WORK (one host);
# the master is told to exit when this script does.
export ANSIBLE_HOST_KEY_CHECKING=False
export ANSIBLE_SSH_ARGS="-o UserKnownHostsFile=/dev/null -o ControlMaster=auto -o ControlPersist=900 -o ControlPath=$WORK/cm"
trap 'ssh -o ControlPath="$WORK/cm" -O exit e2e >/dev/null 2>&1 || true' EXIT
export ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=False ANSIBLE_LOCAL_TEMP=$WORK/ansible-tmp
# fewer ssh round trips per task: the VM is emulated (TCG) and every one costs seconds
export ANSIBLE_PIPELINING=True
# one JSON document per run: the recap and every task's result (stdout, msg, diff)
export ANSIBLE_CALLBACK_PLUGINS=$(cd "$(dirname "$0")" && pwd)/callback_plugins ANSIBLE_STDOUT_CALLBACK=e2e_json

run=0
# play VARS ARGS...: one ansible-playbook run with $WORK/VARS.json; sets RC, CHANGED, FAILED and
# OUT (the JSON document)
play() {
	local v=$1; shift
	run=$((run + 1))
	OUT=$WORK/play-$run.json
	local t0=$SECONDS
	ansible-playbook -i "$WORK/inventory" "$SRC/conf/ansible/site.yml" -e @"$WORK/$v.json" "$@" >"$OUT" 2>"$WORK/play-$run.err"
	RC=$?
	CHANGED=$(stat_of changed) FAILED=$(stat_of failures)
	info "ansible-playbook -e @$v.json $* -> rc=$RC changed=${CHANGED:-?} failed=${FAILED:-?} in $((SECONDS - t0)) s"
	if [[ -z $CHANGED ]]; then
		tail -n 20 "$OUT" "$WORK/play-$run.err" | sed 's/^/LOG /'
	elif [[ ${FAILED:-0} != 0 ]]; then
		# what failed, in the task's own words (a failure may be what the run is about)
		python3 - "$OUT" <<'PY' 2>/dev/null | sed 's/^/LOG /'
import json, sys
doc = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"tasks"')][-1]
for t in doc["tasks"]:
    if t["host"] == "e2e" and t["status"] in ("failed", "unreachable"):
        r = t["result"]
        print("%s: %s: %s %s" % (t["name"], t["status"], (r.get("msg") or "")[:300],
                                  (r.get("stderr") or r.get("stdout") or "")[-600:]))
PY
	fi
}
stat_of() {     # stat_of KEY: the recap's KEY for the node
	python3 -c 'import json,sys; d=[json.loads(l) for l in open(sys.argv[1]) if l.startswith("{\"tasks\"")][-1]; print(d["stats"]["e2e"][sys.argv[2]])' "$OUT" "$1" 2>/dev/null
}
# task NAME EXPR: a python expression over the result r of the task NAME in the last run
task() {
	python3 - "$OUT" "$1" "$2" <<'PY' 2>/dev/null
import json, sys
doc = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"tasks"')][-1]
for t in doc["tasks"]:
    if t["name"] == sys.argv[2] and t["host"] == "e2e" and t["status"] != "skipped":
        r = t["result"]
        print(eval(sys.argv[3]))
        sys.exit(0)
print("(no task %r)" % sys.argv[2])
PY
}
changed_tasks() {
	python3 - "$OUT" <<'PY' 2>/dev/null
import json, sys
doc = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"tasks"')][-1]
print(", ".join(t["name"] for t in doc["tasks"] if t["host"] == "e2e" and t["status"] == "changed"))
PY
}
swaps() { on_node "tail -n +2 /proc/swaps | awk '{print \$1\"(\"\$5\")\"}' | tr '\n' ' '"; }
# the node's state that a run which must change nothing must leave as it is
node_state() {
	on_node 'cat /proc/swaps /proc/sys/vm/swappiness /proc/sys/vm/page-cluster
		sha256sum /etc/nodeswap/nodeswap.conf.d/* /var/lib/rancher/k3s/agent/etc/kubelet.conf.d/* /var/lib/nodeswap/state 2>&1
		stat -c "%n %s %Y" /var/lib/nodeswap/swapfile 2>&1; ls /etc/nodeswap/nodeswap.conf.d
		wc -l </var/lib/fake-k3s/starts'
}
check() { local what=$1 got=$2 want=$3; if [[ $got == "$want" ]]; then pass "$what: $got"; else fail "$what: got '$got', want '$want'"; fi; }
unchanged() {   # unchanged BEFORE WHAT: node_state is still BEFORE
	local now; now=$(node_state)
	if [[ $now == "$1" ]]; then pass "$2"; else fail "$2: $(diff <(echo "$1") <(echo "$now") | head -c 600)"; fi
}
dropin=/etc/nodeswap/nodeswap.conf.d/50-ansible.conf
kubelet_dropin=/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/90-nodeswap.conf

info "package under test: $(basename "$DEB")"
check "the node starts without nodeswap" "$(on_node 'dpkg-query -W -f="\${Status}" nodeswap 2>/dev/null; test -e /usr/sbin/nodeswap && echo " binary"')" ""

# --- check mode on a node without nodeswap: the package is the change, nothing is installed ----
play policy --check
check "check mode without nodeswap exits 0" "$RC" 0
[[ ${CHANGED:-0} -ge 1 ]] && pass "check mode reports what would change: changed=$CHANGED ($(changed_tasks))" ||
	fail "check mode without nodeswap reports no change: changed=${CHANGED:-?}"
check "check mode installed nothing and wrote no policy" \
	"$(on_node 'dpkg-query -W -f="\${Status}" nodeswap 2>/dev/null; ls /etc/nodeswap /var/cache/nodeswap-ansible 2>/dev/null')" ""

# --- install and apply -------------------------------------------------------------------------
play policy
check "first run exits 0" "$RC" 0
[[ ${CHANGED:-0} -ge 1 ]] && pass "first run changed the node: changed=$CHANGED ($(changed_tasks))" ||
	fail "first run: changed=${CHANGED:-?}"
check "the package is installed" "$(on_node "dpkg-query -W -f='\${Status} \${Version}' nodeswap")" \
	"install ok installed $(dpkg-deb -f "$DEB" Version)"
check "the install task reported the change" "$(task 'Install the nodeswap package' 'r.get("changed")')" True
check "swap file on at priority 10" "$(swaps)" "/var/lib/nodeswap/swapfile(10) "
check "drop-in says LimitedSwap" "$(on_node "sed -n 's/^ *swapBehavior: *//p' $kubelet_dropin")" LimitedSwap
check "swappiness" "$(on_node 'cat /proc/sys/vm/swappiness')" 100
check "the policy file is the rendered one" "$(on_node "grep -c -e '^Size=256M$' -e '^Swappiness=100$' $dropin")" 2

play policy
check "second run exits 0" "$RC" 0
check "second run: changed=0" "${CHANGED:-?}" 0

# --- check mode with a changed policy: the node's whole policy, nothing touched ----------------
# A policy file the operator wrote, read after the role's: it keeps Swappiness=100, so the plan
# of the whole policy changes the swap file's size but not the swappiness the role's file asks
# for. (It asks for what the node has, so it changes nothing by itself.)
on_node "printf '[Sysctl]\nSwappiness=100\n' >/etc/nodeswap/nodeswap.conf.d/90-operator.conf && chmod 0644 /etc/nodeswap/nodeswap.conf.d/90-operator.conf"
before=$(node_state)
play changed --check --diff
check "check mode exits 0" "$RC" 0
[[ ${CHANGED:-0} -ge 1 ]] && pass "check mode reports the change: changed=$CHANGED ($(changed_tasks))" ||
	fail "check mode reports no change: changed=${CHANGED:-?}"
check "--diff shows the policy change (Size=256M before, Size=384M after)" \
	"$(task Policy '"Size=256M" in str([d.get("before") for d in r["diff"]]) and "Size=384M" in str([d.get("after") for d in r["diff"]])')" True
plan='json.loads(r["stdout"])'
info "the plan's errors: $(task 'Plan with the new policy in place' "[(f['id'], f['message']) for f in $plan['findings'] if f['severity'] == 'error']")"
check "the plan reports changed" "$(task 'Plan with the new policy in place' "$plan[\"changed\"]")" True
check "the plan resizes the swap file (the role's new Size=)" \
	"$(task 'Plan with the new policy in place' "any(a['target'] == '/var/lib/nodeswap/swapfile' for a in $plan['actions'])")" True
check "the plan keeps Swappiness=100 (90-operator.conf, read after the role's file)" \
	"$(task 'Plan with the new policy in place' "[a['target'] for a in $plan['actions'] if a['kind'] == 'sysctl']")" "[]"
unchanged "$before" "check mode touched nothing (swaps, sysctls, policy files, drop-in, state, kubelet starts)"

# --- a broken policy never lands ---------------------------------------------------------------
play broken
[[ $RC != 0 ]] && pass "a broken policy: the run fails (rc=$RC)" || fail "a broken policy: rc=$RC"
msg=$(task Policy '(r.get("stderr") or r.get("msg") or "").strip()')
info "the task's message: $msg"
[[ $msg =~ :[0-9]+:\ \[Kubelet\]\ SwapBehavior=Limited: ]] && pass "the task fails with nodeswap's FILE:LINE message" ||
	fail "no FILE:LINE message from nodeswap: $msg"
unchanged "$before" "the node is unchanged (swaps, sysctls, policy files, drop-in, state, kubelet starts)"

# --- revert ------------------------------------------------------------------------------------
play policy -e nodeswap_state=reverted
check "revert run exits 0" "$RC" 0
[[ ${CHANGED:-0} -ge 1 ]] && pass "revert run changed the node: changed=$CHANGED" || fail "revert run: changed=${CHANGED:-?}"
sleep 3
check "distro zram0 back, no nodeswap swap" "$(swaps)" "/dev/zram0(100) "
check "drop-in gone (NoSwap)" "$(on_node "test -e $kubelet_dropin && echo present || echo absent")" absent

play policy -e nodeswap_state=reverted
check "second revert run: changed=0" "${CHANGED:-?}" 0

# --- purging the package: the state goes, a swap file in use stays ------------------------------
# The swap file is on again by hand, and two more files stand for ones a moved [File] Path= left
# recorded (swap_file= in the state): one with nodeswap's label, which purge deletes as it is not
# in use, and one whose label is not nodeswap's, which purge leaves alone.
on_node 'swapon /var/lib/nodeswap/swapfile &&
	for f in old:nodeswap other:other; do
		fallocate -l 16M /srv/${f%:*}-swapfile && chmod 0600 /srv/${f%:*}-swapfile &&
		mkswap -L ${f#*:} /srv/${f%:*}-swapfile >/dev/null && echo swap_file=/srv/${f%:*}-swapfile >>/var/lib/nodeswap/state
	done'
out=$(on_node 'apt-get purge -y nodeswap 2>&1; echo "rc=$?"')
[[ $out == *rc=0 ]] && pass "apt-get purge nodeswap exits 0" || fail "apt-get purge: $(tail -c 300 <<<"$out")"
[[ $out == *"keeping /var/lib/nodeswap/swapfile: it is in use as swap"* ]] &&
	pass "purge says it keeps the swap file in use" || fail "no word about the swap file in use: $(tail -c 300 <<<"$out")"
check "the swap file in use is still there and on" "$(on_node "grep -c '^/var/lib/nodeswap/swapfile ' /proc/swaps")" 1
check "nodeswap's state is gone" "$(on_node 'ls -A /var/lib/nodeswap; test -e /run/nodeswap-state && echo run-left')" swapfile
check "a recorded, labelled, unused swap file is deleted" "$(on_node 'test -e /srv/old-swapfile && echo kept || echo deleted')" deleted
check "a recorded file without nodeswap's label is kept" "$(on_node 'test -e /srv/other-swapfile && echo kept || echo deleted')" kept
check "the package is gone" "$(on_node "dpkg-query -W -f='\${Status}' nodeswap 2>&1 | grep -c 'install ok'")" 0
