#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The e2e scenarios, run inside the VM by nodeswap-e2e.service once the node is up.
#
# The kernel command line says what to run:
#   e2e.phase=1|2|3|g2|g3|n2|x2|kube|ansible  which boot of the image this is (2 and 3 for
#                          scenario e, g2 and g3 for scenario g, x2 for scenario x, n2 for scenario n
#                          without e (with e, n is checked in boot 2); kube: scenario kube's own
#                          boot, the real node; ansible: the image without nodeswap that the
#                          Ansible role installs on)
#   e2e.scenarios=LIST     comma-separated: smoke,h,a,b,c,d,f,k,v,m,w,p,thrash,trial,density,x,e,ansible,g,n,kube,
#                          and g-prepare, x-prepare and n-prepare (the boot before g2, x2, or before 2
#                          or n2, prepares it at its end)
#   e2e.keep=1             do not power off at the end (debugging)
#   e2e.kernel=RELEASE     the kernel the host booted (uname -r); checked first, as "kernel"
#   e2e.charge_rounds=N    scenario charge measures every backend N times (default 1)
#   e2e.density_full=1     scenario density searches the whole range, three runs a point
#   e2e.storm_full=1       scenario kube's storm runs three times per backend with the kernel's
#                          reclaim settings and with nodeswap's, and prints the comparison
# Results: one line per check, "PASS|FAIL|SKIP|INFO <scenario>: <check>: <details>", copied after
# every line to the raw results disk (virtio serial "e2e-results"), framed by a BEGIN line and an
# END line, so the host can tell a finished run from a crashed or hung one. LOG lines carry
# journal excerpts for failed scenarios.
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LC_ALL=C

RUN=/run/nodeswap-e2e
STATE=/var/lib/nodeswap-e2e             # survives reboots (scenario e)
RESULTS=$RUN/results
OUTDEV=/dev/disk/by-id/virtio-e2e-results
DROPIN_DIR=/var/lib/rancher/k3s/agent/etc/kubelet.conf.d
DROPIN=$DROPIN_DIR/90-nodeswap.conf
POLICY=/etc/nodeswap/nodeswap.conf
SWAPFILE=/var/lib/nodeswap/swapfile
K3S_STATE=/var/lib/fake-k3s
# The distribution's swap: "rpi-swap" (Raspberry Pi OS's generator: zram0 with the kernel's default
# compressor, written back to a loop device on /var/swap) or "zram-generator" (lz4, no writeback).
# The kernel's default differs between the kernels the VM boots: lzo-rle on Debian's 6.1, lz4 on
# its 6.12 (6.12's zram has its own backends, and Debian builds no lzo one: CONFIG_ZRAM_DEF_COMP
# in /boot/config-*), so it is read from the running kernel's configuration.
STANDIN=$(cat /etc/nodeswap-e2e/standin 2>/dev/null || echo zram-generator)
KERNEL_ZRAM_ALG=$(sed -n 's/^CONFIG_ZRAM_DEF_COMP="\(.*\)"$/\1/p' "/boot/config-$(uname -r)" 2>/dev/null)
if [[ $STANDIN == rpi-swap ]]; then DISTRO_ALG=${KERNEL_ZRAM_ALG:-lzo-rle}; else DISTRO_ALG=lz4; fi
RPI_FILE=/var/swap
RPI_LOOP_UNIT=rpi-setup-loop@var-swap.service
rpi() { [[ $STANDIN == rpi-swap ]]; }
mkdir -p "$RUN" "$STATE"

phase=1 scenarios=smoke keep=0 charge_rounds=1 want_kernel= density_full=0 storm_full=0
for w in $(cat /proc/cmdline); do
        case $w in
        e2e.kernel=*) want_kernel=${w#*=} ;;
        e2e.phase=*) phase=${w#*=} ;;
        e2e.scenarios=*) scenarios=${w#*=} ;;
        e2e.keep=*) keep=${w#*=} ;;
        e2e.charge_rounds=*) charge_rounds=${w#*=} ;;
        e2e.density_full=*) density_full=${w#*=} ;;
        e2e.storm_full=*) storm_full=${w#*=} ;;
        esac
done
BOOT_ID=$(cat /proc/sys/kernel/random/boot_id)

# ---------------------------------------------------------------------------------------------
# results

flush() {
        [[ -b $OUTDEV ]] || OUTDEV=/dev/vdb
        [[ -b $OUTDEV ]] || return 0
        dd if="$RESULTS" of="$OUTDEV" bs=64k conv=notrunc,fsync status=none 2>/dev/null || true
}

declare -A SCENARIO_FAILED=()
CUR=setup

line() {        # line STATUS NAME DETAILS...
        local status=$1 name=$2 details=${3:-}
        details=${details//$'\n'/ | }
        printf '%s %s: %s%s\n' "$status" "$CUR" "$name" "${details:+: $details}" >>"$RESULTS"
        printf '%s %s: %s%s\n' "$status" "$CUR" "$name" "${details:+: $details}"
        [[ $status == FAIL ]] && SCENARIO_FAILED[$CUR]=1
        flush
}
pass() { line PASS "$@"; }
fail() { line FAIL "$@"; }
info() { line INFO "$@"; }

# expect NAME GOT WANT [DETAILS]
expect() {
        if [[ $2 == "$3" ]]; then pass "$1" "$2${4:+; $4}"; else fail "$1" "got '$2', want '$3'${4:+; $4}"; fi
}
# check NAME DETAILS CMD...: PASS when CMD succeeds
check() {
        local name=$1 details=$2
        shift 2
        if "$@"; then pass "$name" "$details"; else fail "$name" "$details"; fi
}

# ---------------------------------------------------------------------------------------------
# facts about the node

prop() { systemctl show -P "$2" "$1" 2>/dev/null; }
swaps() { awk 'NR > 1 { print $1, $5 }' /proc/swaps; }           # "DEV PRIO" lines
swap_count() { awk 'NR > 1' /proc/swaps | wc -l; }
swap_total_kb() { awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo; }
swap_prio() { awk -v d="$1" 'NR > 1 && $1 == d { print $5 }' /proc/swaps; }
swap_on() { [[ -n $(swap_prio "$1") ]]; }
zram_alg() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' "/sys/block/${1#/dev/}/comp_algorithm" 2>/dev/null; }
zram_swaps() { awk 'NR > 1 && $1 ~ /^\/dev\/zram/ { print $1 }' /proc/swaps; }
zram_swaps_with_alg() { local d; for d in $(zram_swaps); do [[ $(zram_alg "$d") == "$1" ]] && echo "$d"; done; }
# the distro's zram: /dev/zram0, $DISTRO_ALG, priority 100
distro_zram_on() { swap_on /dev/zram0 && [[ $(zram_alg /dev/zram0) == "$DISTRO_ALG" && $(swap_prio /dev/zram0) == 100 ]]; }
distro_zram_swaps() { zram_swaps_with_alg "$DISTRO_ALG"; }
loops_on() { losetup -n -O NAME -j "$1" 2>/dev/null | tr '\n' ' '; }       # loop devices backed by FILE
failed_units() { systemctl list-units --failed --plain --no-legend 2>&1 | awk '{ print $1 }' | tr '\n' ' '; }
no_failed_units() {  # no_failed_units WHEN
        local f
        f=$(failed_units)
        check "no failed units $1 (systemctl --failed)" "${f:-none}" test -z "$f"
}
# rpi-swap's writeback device: zram0 writes back to a loop device on /var/swap
rpi_writeback_on_loop() {
        local bd loops
        bd=$(cat /sys/block/zram0/backing_dev 2>/dev/null)
        loops=$(loops_on "$RPI_FILE")
        [[ -n $bd && $bd != none && " $loops" == *" $bd "* ]]
}
check_rpi_swap_back() {  # check_rpi_swap_back WHEN: rpi-swap's whole zram+file setup runs
        rpi || return 0
        wait_for 20 rpi_writeback_on_loop
        check "$1: zram0 writes back to a loop device on $RPI_FILE" \
                "backing_dev $(cat /sys/block/zram0/backing_dev 2>/dev/null); loops on $RPI_FILE: $(loops_on "$RPI_FILE")" \
                rpi_writeback_on_loop
        expect "$1: $RPI_LOOP_UNIT active" "$(prop "$RPI_LOOP_UNIT" ActiveState)" active
        expect "$1: rpi-zram-writeback.timer active" "$(prop rpi-zram-writeback.timer ActiveState)" active
        expect "$1: rpi-swap's sysctl vm.page-cluster=0" "$(sysctl_get page-cluster)" 0
}
check_rpi_swap_off() {  # check_rpi_swap_off WHEN: nothing of rpi-swap's holds /var/swap
        rpi || return 0
        expect "$1: $RPI_LOOP_UNIT masked" "$(prop "$RPI_LOOP_UNIT" LoadState)" masked
        check "$1: $RPI_LOOP_UNIT not active" "$(prop "$RPI_LOOP_UNIT" ActiveState)" \
                test "$(prop "$RPI_LOOP_UNIT" ActiveState)" != active
        check "$1: no loop device on $RPI_FILE" "loops: $(loops_on "$RPI_FILE")" test -z "$(loops_on "$RPI_FILE")"
        expect "$1: rpi-zram-writeback.timer masked" "$(prop rpi-zram-writeback.timer LoadState)" masked
        expect "$1: rpi-resize-swap-file.service masked" "$(prop rpi-resize-swap-file.service LoadState)" masked
}
sysctl_get() { cat "/proc/sys/vm/$1"; }
count_boot_lines() { local n; n=$(grep -c " $BOOT_ID" "$1" 2>/dev/null); echo "${n:-0}"; }
k3s_starts() { count_boot_lines "$K3S_STATE/starts"; }
k3s_failures() { count_boot_lines "$K3S_STATE/failures"; }
k3s_seen() { sed -n "s/^$1=//p" "$K3S_STATE/last-start" 2>/dev/null; }
dropin_behavior() { sed -n 's/^[[:space:]]*swapBehavior:[[:space:]]*\([A-Za-z]*\).*/\1/p' "$DROPIN" 2>/dev/null | tail -n 1; }
swaps_summary() { swaps | while read -r d p; do
        if [[ $d == /dev/zram* ]]; then echo -n "$d($p,$(zram_alg "$d")) "; else echo -n "$d($p) "; fi
done; }

# wait_for SECONDS CMD...: poll every 0.5 s. CMD runs anew at every poll: a condition on what a
# command prints goes through out_is/out_not/out_ge below (or a function), never as
# `test "$(...)"`, whose substitution bash expands once, before wait_for starts, so that it never
# re-polls (the wait then either passes at once or takes its whole time and fails).
wait_for() {
        local deadline=$(( $(date +%s) + $1 ))
        shift
        while ! "$@"; do
                (( $(date +%s) >= deadline )) && return 1
                sleep 0.5
        done
}
# out_is WANT CMD...: CMD prints WANT (the last newline aside); out_not NOT CMD...: it prints
# something else; out_ge MIN CMD...: it prints an integer >= MIN. For wait_for: CMD runs at
# every call, with its arguments as they are (nothing is built into a shell command).
out_is() { local want=$1; shift; [[ $("$@") == "$want" ]]; }
out_not() { local not=$1; shift; [[ $("$@") != "$not" ]]; }
out_ge() { local min=$1 v; shift; v=$("$@"); [[ $v =~ ^[0-9]+$ ]] && (( v >= min )); }

# ---------------------------------------------------------------------------------------------
# running nodeswap: output kept under $STATE/log for debugging, rc in $NS_RC, JSON in $NS_OUT

NS_N=0 NS_RC=0 NS_OUT= NS_ERR=
ns() {
        NS_N=$((NS_N + 1))
        NS_OUT=$STATE/log/$phase-$NS_N.out NS_ERR=$STATE/log/$phase-$NS_N.err
        mkdir -p "$STATE/log"
        local t0=$(date +%s.%N)
        # 300 s: an apply or revert may wait for k3s-agent's restart, and the fake k3s may take its
        # whole TimeoutStartSec (180 s) on a loaded machine (a revert took more than 180 s at load 10)
        timeout 300 nodeswap "$@" >"$NS_OUT" 2>"$NS_ERR"
        NS_RC=$?
        info "ran nodeswap $*" "rc=$NS_RC in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f s", b - a }'); stderr: $(tail -c 600 "$NS_ERR")"
}
ns_expect_rc() {  # ns_expect_rc NAME WANT
        if [[ $NS_RC == "$2" ]]; then
                pass "$1" "rc=$NS_RC"
        else
                local why
                why=$(json '"; ".join(a["kind"] + " " + str(a["target"]) + ": " + str(a.get("result")) + ": " + str(a.get("message")) for a in j.get("actions", []) if a.get("result") in ("failed", "not-done")) + " | errors: " + "; ".join(f["id"] + ": " + f["message"] for f in j.get("findings", []) if f.get("severity") == "error")')
                fail "$1" "rc=$NS_RC, want $2; not done: $why; stderr: $(tail -c 800 "$NS_ERR")"
        fi
}
# json FIELD-EXPR: evaluates a Python expression over the JSON document `j` in $NS_OUT
json() {
        python3 - "$NS_OUT" "$1" <<'PY' 2>/dev/null
import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print("invalid-json:", str(e)[:80]); sys.exit(0)
v = eval(sys.argv[2], {"j": j, "json": json})
print(json.dumps(v) if not isinstance(v, str) else v)
PY
}
# The index of the first action whose JSON text matches all the given words (case-insensitive),
# -1 when none. Actions may be objects or strings; this does not depend on their exact shape.
action_index() {
        python3 - "$NS_OUT" "$@" <<'PY' 2>/dev/null
import json, sys
try:
    acts = json.load(open(sys.argv[1])).get("actions", [])
except Exception:
    print(-2); sys.exit(0)
words = [w.lower() for w in sys.argv[2:]]
for i, a in enumerate(acts):
    t = json.dumps(a).lower()
    if all(w in t for w in words):
        print(i); sys.exit(0)
print(-1)
PY
}

write_policy() {  # write_policy NAME: one of the policies below
        mkdir -p /etc/nodeswap
        case $1 in
        file) cat >"$POLICY" <<EOF
[Swap]
Backend=file

[File]
Path=$SWAPFILE
Size=256M
Priority=10
# a plain file: these scenarios find it by its path in /proc/swaps; scenario x tests encryption
Encrypt=no

[Sysctl]
Swappiness=100
PageCluster=0

[Kubelet]
SwapBehavior=LimitedSwap
EOF
        ;;
        # 512M, not the file's 256M: the kubelet is restarted when the node's SwapTotal changes
        # (nodeswap(8), apply), and an equal size would leave nothing for the restart check to see.
        zram) cat >"$POLICY" <<EOF
[Swap]
Backend=zram

[Zram]
Algorithm=zstd
Size=512M
Priority=100

[Sysctl]
Swappiness=100
PageCluster=0

[Kubelet]
SwapBehavior=LimitedSwap
EOF
        ;;
        # Scenario g: nodeswap's file at rpi-swap's own default path.
        varswap) cat >"$POLICY" <<EOF
[Swap]
Backend=file

[File]
Path=$RPI_FILE
Size=256M
Priority=10
Encrypt=no

[Kubelet]
SwapBehavior=LimitedSwap
EOF
        ;;
        kubelet-noswap|kubelet-limited) cat >"$POLICY" <<EOF
# Scenario f: the kubelet only, no swap managed.
[Kubelet]
SwapBehavior=$([[ $1 == kubelet-noswap ]] && echo NoSwap || echo LimitedSwap)
EOF
        ;;
        esac
        chmod 0644 "$POLICY"
}

# The node is in the state policy "file" leaves / "zram" leaves.
in_file_state() { swap_on "$SWAPFILE" && [[ -z $(zram_swaps) && $(dropin_behavior) == LimitedSwap ]]; }
in_zram_state() { [[ -n $(zram_swaps_with_alg zstd) ]] && ! swap_on "$SWAPFILE" && ! distro_zram_on; }

setup_policy() {  # setup_policy NAME: apply a policy as a precondition (not a check)
        write_policy "$1"
        ns apply --json
        [[ $NS_RC == 0 ]] || fail "setup: apply policy '$1'" "rc=$NS_RC; $(tail -c 600 "$NS_ERR")"
}

# k3s is back and saw the node's swap as it is now
k3s_saw_current() {  # k3s_saw_current NAME WANT_BEHAVIOR
        wait_for 30 out_is active prop k3s-agent.service ActiveState
        expect "$1: k3s-agent active" "$(prop k3s-agent.service ActiveState)" active
        expect "$1: kubelet saw swapBehavior" "$(k3s_seen swap_behavior)" "$2"
        expect "$1: kubelet saw the node's SwapTotal (kB)" "$(k3s_seen swap_total_kb)" "$(swap_total_kb)"
}

baseline() {
        if [[ ! -e $STATE/baseline ]]; then
                printf 'swappiness=%s\npage_cluster=%s\nmin_free_kbytes=%s\nwatermark_scale_factor=%s\n' \
                        "$(sysctl_get swappiness)" "$(sysctl_get page-cluster)" "$(sysctl_get min_free_kbytes)" \
                        "$(sysctl_get watermark_scale_factor)" >"$STATE/baseline"
        fi
        BASE_SWAPPINESS=$(sed -n 's/^swappiness=//p' "$STATE/baseline")
        BASE_PAGE_CLUSTER=$(sed -n 's/^page_cluster=//p' "$STATE/baseline")
        BASE_MIN_FREE=$(sed -n 's/^min_free_kbytes=//p' "$STATE/baseline")
        BASE_WSF=$(sed -n 's/^watermark_scale_factor=//p' "$STATE/baseline")
}

writeback_runs() { count_boot_lines /var/lib/fake-rpi-swap/writeback-runs; }

# The distro's zram stays off: wait until the writeback timer (period 10 s) has fired (or one
# period when it is not running), and try the writeback service by hand as the timer would.
zram_stays_off_through_writeback() {
        local name=$1 before
        before=$(prop rpi-zram-writeback.timer LastTriggerUSecMonotonic)
        if [[ $(prop rpi-zram-writeback.timer ActiveState) == active ]]; then
                if wait_for 15 out_not "$before" prop rpi-zram-writeback.timer LastTriggerUSecMonotonic; then
                        sleep 2
                        info "$name: writeback timer fired" "LastTrigger $before -> $(prop rpi-zram-writeback.timer LastTriggerUSecMonotonic)"
                else
                        info "$name: writeback timer is active but did not fire in 15 s"
                fi
        else
                info "$name: writeback timer is not active ($(prop rpi-zram-writeback.timer ActiveState), $(prop rpi-zram-writeback.timer LoadState)); waited one period (11 s) instead"
                sleep 11
        fi
        check "$name: distro zram0 still off after the writeback timer" "$(swaps_summary)" \
                test -z "$(distro_zram_swaps)"
        systemctl start rpi-zram-writeback.service >/dev/null 2>&1
        local rc=$?
        sleep 1
        check "$name: starting rpi-zram-writeback.service by hand does not bring zram0 back" \
                "systemctl start rc=$rc; $(swaps_summary)" test -z "$(distro_zram_swaps)"
}

# ---------------------------------------------------------------------------------------------
# scenarios

scenario_smoke() {
        wait_for 60 out_is active prop dev-zram0.swap ActiveState
        expect "dev-zram0.swap active" "$(prop dev-zram0.swap ActiveState)" active
        expect "systemd-zram-setup@zram0.service active" "$(prop systemd-zram-setup@zram0.service ActiveState)" active
        expect "/dev/zram0 in /proc/swaps at priority 100" "$(swap_prio /dev/zram0)" 100 "$(swaps_summary)"
        expect "zram0 compresses with $DISTRO_ALG ($STANDIN)" "$(zram_alg /dev/zram0)" "$DISTRO_ALG"
        check "zram is a loaded module" "$(grep '^zram ' /proc/modules | cut -d' ' -f1-3)" grep -q '^zram ' /proc/modules
        check "the guest kernel offers zstd for zram" "$(cat /sys/block/zram0/comp_algorithm)" \
                grep -qw zstd /sys/block/zram0/comp_algorithm
        expect "cgroup v2" "$(stat -fc %T /sys/fs/cgroup)" cgroup2fs

        wait_for 30 out_is active prop k3s-agent.service ActiveState
        expect "k3s-agent active" "$(prop k3s-agent.service ActiveState)" active
        expect "k3s-agent started once this boot" "$(k3s_starts)" 1
        expect "kubelet saw swapBehavior NoSwap" "$(k3s_seen swap_behavior)" NoSwap
        expect "kubelet saw the node's SwapTotal (kB)" "$(k3s_seen swap_total_kb)" "$(swap_total_kb)"
        check "k3s wrote 00-k3s-defaults.conf" "" test -s "$DROPIN_DIR/00-k3s-defaults.conf"
        # k3s's agent asked the real kubelet (guest/k3s): its own flags log and configuration line
        check "the real kubelet loaded k3s-agent's configuration" "$(tail -n 3 "$K3S_STATE/kubelet.log" 2>&1 | cut -c1-200)" \
                grep -q '"KubeletConfiguration" configuration=<' "$K3S_STATE/kubelet.log"
        expect "the kubelet's evictionHard is k3s's disk thresholds" "$(k3s_seen eviction_hard)" \
                'imagefs.available<5%,nodefs.available<5%'

        expect "rpi-zram-writeback.timer active" "$(prop rpi-zram-writeback.timer ActiveState)" active
        wait_for 25 out_ge 1 writeback_runs
        check "the writeback timer ran its service" "runs this boot: $(writeback_runs)" test "$(writeback_runs)" -ge 1

        if wait_for 120 test -e "$RUN/host-ssh-ok"; then
                pass "sshd reachable from the host through the port forward"
        else
                fail "sshd reachable from the host through the port forward" "no login from the host in 120 s; ssh: $(prop ssh.service ActiveState); $(ip -br addr 2>&1)"
        fi

        if rpi; then
                expect "rpi-swap-generator wrote dev-zram0.swap" "$(prop dev-zram0.swap FragmentPath)" \
                        /run/systemd/generator/dev-zram0.swap
                check "the writeback timer is rpi-swap-generator's" "$(prop rpi-zram-writeback.timer FragmentPath)" \
                        test "$(prop rpi-zram-writeback.timer FragmentPath)" = /run/systemd/generator/rpi-zram-writeback.timer
                check "rpi-swap made its swap file $RPI_FILE" "$(ls -l "$RPI_FILE" 2>&1)" test -f "$RPI_FILE"
                check_rpi_swap_back "at boot"
        fi
        no_failed_units "at boot"
        local u t timing=""
        for u in systemd-udev-settle.service systemd-networkd-wait-online.service network-online.target \
                 dev-zram0.swap ssh.service k3s-agent.service multi-user.target; do
                t=$(prop "$u" ActiveEnterTimestampMonotonic)
                [[ -n $t && $t != 0 ]] && timing+="$u $((t / 1000000)).$(( (t / 100000) % 10 ))s, "
        done
        info "boot timing (since kernel start)" "${timing}runner at $(cut -d' ' -f1 /proc/uptime)s"
}

# The daemons' I/O (issue 38, [Kubelet] IOLatencyTargetSec=auto): the swap file is on vda (through
# its dm-crypt mapping and loop device), which holds / too. On a kernel with io.latency
# system.slice gets a target on vda's MAJ:MIN, the one nodeswap records (io_latency=), kept by the
# generator's drop-in across a daemon-reload; on Debian's own kernels, built without
# CONFIG_BLK_CGROUP_IOLATENCY, nodeswap records nothing and says so (io-latency-unsupported naming
# the kernel). Either way a cgroup beside system.slice that swaps has its swap-outs charged to vda
# in its io.stat, the fact the target relies on.
IO_CG=/sys/fs/cgroup/nodeswap-e2e-io
io_target() {  # system.slice's io.latency target (µs) on MAJ:MIN, empty: none
        awk -v d="$1" '$1 == d { sub("target=", "", $2); print $2 }' /sys/fs/cgroup/system.slice/io.latency 2>/dev/null
}
io_latency_checks() {
        local dev rec cfg
        dev=$(cat /sys/block/vda/dev)
        rec=$(sed -n 's/^io_latency=//p' /var/lib/nodeswap/state)
        cfg=$(grep -h 'CONFIG_BLK_CGROUP_IOLATENCY' "/boot/config-$(uname -r)" 2>&1)
        if [[ $cfg == CONFIG_BLK_CGROUP_IOLATENCY=y ]]; then
                expect "the state records system.slice's io.latency target on vda" "${rec%% *}" "$dev" "$rec"
                expect "system.slice's io.latency has that target on vda ($dev)" \
                        "$(io_target "$dev")" "${rec#* }" "$(cat /sys/fs/cgroup/system.slice/io.latency 2>&1)"
                check "the generator's drop-in for the boot" "$(cat /run/systemd/generator/system.slice.d/50-nodeswap-io-latency.conf 2>&1)" \
                        grep -qx "IODeviceLatencyTargetSec=/dev/block/$dev ${rec#* }us" /run/systemd/generator/system.slice.d/50-nodeswap-io-latency.conf
                systemctl daemon-reload
                expect "io.latency target still on vda after a daemon-reload" "$(io_target "$dev")" "${rec#* }"
                ns status --json
                expect "status: the target is nodeswap's" "$(json 'j["io_latency"]["set_by"]')" nodeswap
        else
                expect "this kernel has no io.latency ($(uname -r): $cfg), so nodeswap records no target" "$rec" ""
                check "no generator drop-in for system.slice" "$(ls /run/systemd/generator/system.slice.d 2>&1)" \
                        test ! -e /run/systemd/generator/system.slice.d/50-nodeswap-io-latency.conf
                ns check --json
                check "check: io-latency-unsupported names the kernel" \
                        "$(json '[f["message"] for f in j["findings"] if f["id"] == "io-latency-unsupported"]')" \
                        grep -q CONFIG_BLK_CGROUP_IOLATENCY "$NS_OUT"
                ns status --json
                expect "status: the kernel has no io.latency" "$(json 'j["io_latency"]["kernel_io_latency"]')" false
        fi
        expect "status: the disk swap shares with the daemons" "$(json 'j["io_latency"]["device"]')" "$dev"
        # a cgroup beside system.slice held at 16 MiB writes 48 MiB of distinct pages: its swap-outs
        mkdir -p "$IO_CG"
        echo 16M >"$IO_CG/memory.high"
        local out0 line
        out0=$(awk '$1 == "pswpout" { print $2 }' /proc/vmstat)
        ( echo "$BASHPID" >"$IO_CG/cgroup.procs" && exec timeout 120 python3 -c '
import os
pages = [os.urandom(4096) for _ in range(48 * 256)]
print(sum(len(p) for p in pages))' ) </dev/null >/dev/null 2>&1
        line=$(awk -v d="$dev" '$1 == d' "$IO_CG/io.stat" 2>/dev/null)
        info "io.stat of a swapping cgroup beside system.slice" \
                "${line:-no line for $dev}; pswpout +$(( $(awk '$1 == "pswpout" { print $2 }' /proc/vmstat) - out0 ))"
        check "its swap-outs are charged to vda ($dev) in its io.stat" "${line:-$(cat "$IO_CG/io.stat" 2>&1)}" \
                test "$(sed -n 's/.*wbytes=\([0-9]*\).*/\1/p' <<<"$line")" -gt $((16 * 1024 * 1024))
        rmdir "$IO_CG" 2>/dev/null
}

scenario_a() {
        if distro_zram_on; then info "start state: distro zram0 on" "$(swaps_summary)"
        else info "start state: distro zram0 is NOT on (not a fresh node)" "$(swaps_summary)"; fi
        local s0
        s0=$(k3s_starts)
        write_policy file
        ns apply --json
        ns_expect_rc "apply exits 0" 0
        expect "JSON changed" "$(json 'j["changed"]')" true

        expect "swap file on at priority 10" "$(swap_prio "$SWAPFILE")" 10 "$(swaps_summary)"
        check "no zram swap on" "$(swaps_summary)" test -z "$(zram_swaps)"
        expect "dev-zram0.swap masked" "$(prop dev-zram0.swap LoadState)" masked
        check "dev-zram0.swap not active" "$(prop dev-zram0.swap ActiveState)" test "$(prop dev-zram0.swap ActiveState)" != active
        sleep 5
        check "zram still off 5 s later" "$(swaps_summary)" test -z "$(zram_swaps)"
        systemctl daemon-reload
        sleep 2
        check "zram still off after daemon-reload" "$(swaps_summary)" test -z "$(zram_swaps)"
        expect "dev-zram0.swap still masked after daemon-reload" "$(prop dev-zram0.swap LoadState)" masked
        zram_stays_off_through_writeback "writeback"
        check "only nodeswap's swap file is on" "$(swaps_summary)" test "$(swaps)" = "$SWAPFILE 10"
        io_latency_checks

        expect "vm.swappiness" "$(sysctl_get swappiness)" 100
        expect "vm.page-cluster" "$(sysctl_get page-cluster)" 0
        # the reclaim headroom (issue 38): MinFreeKbytes=auto, WatermarkScaleFactor=auto with pods
        # swapping to a file: the kubelet's 100Mi (nodeswap's drop-in) between the min and the low
        # watermarks the kernel now shows, and the values from before nodeswap in the state
        local mf lowsum minsum
        mf=$(sysctl_get min_free_kbytes)
        check "vm.min_free_kbytes $mf: not lowered (was $BASE_MIN_FREE), at most half of 100Mi unless it was higher" "$mf" \
                test "$mf" -ge "$BASE_MIN_FREE" -a \( "$mf" -le 51200 -o "$mf" = "$BASE_MIN_FREE" \)
        check "vm.watermark_scale_factor at least the swap file's 2000" "$(sysctl_get watermark_scale_factor)" \
                test "$(sysctl_get watermark_scale_factor)" -ge 2000
        minsum=$(awk '$1 == "min" { s += $2 } END { print s * 4 }' /proc/zoneinfo)
        lowsum=$(awk '$1 == "low" { s += $2 } END { print s * 4 }' /proc/zoneinfo)
        check "the kernel's min watermarks ($minsum KiB) below 100Mi, its low ones ($lowsum KiB) above it" \
                "$minsum $lowsum" test "$minsum" -lt 102400 -a "$lowsum" -gt 102400
        check "the state keeps vm.min_free_kbytes from before" "$(grep '^saved_min' /var/lib/nodeswap/state)" \
                grep -qx "saved_min_free_kbytes=$BASE_MIN_FREE" /var/lib/nodeswap/state
        ns status --json
        expect "status shows vm.min_free_kbytes" "$(json 'j["min_free_kbytes"]')" "$mf"
        check "status shows the zones' watermarks" "$(json 'j["zones"]')" test "$(json 'len(j["zones"])')" -gt 0
        check "drop-in present" "$DROPIN" test -f "$DROPIN"
        check "drop-in is a kubelet config" "$(tr '\n' ' ' <"$DROPIN" 2>/dev/null)" \
                grep -qx 'kind: KubeletConfiguration' "$DROPIN"
        expect "drop-in swapBehavior" "$(dropin_behavior)" LimitedSwap
        expect "k3s-agent restarted exactly once" "$(( $(k3s_starts) - s0 ))" 1
        k3s_saw_current "after apply" LimitedSwap
        check_rpi_swap_off "after apply"
        if rpi; then
                check "rpi-swap's $RPI_FILE is left on disk (revert gives it back)" "$(ls -l "$RPI_FILE" 2>&1)" \
                        test -f "$RPI_FILE"
                ns status --json
                expect "status names rpi-swap's mechanism" "$(json 'j["rpi_swap"]["mechanism"]')" auto
        fi
        ns check --json
        check "check right after the apply: the kubelet's swap capacity is not stale" \
                "$(json '[f["id"] for f in j["findings"]]')" \
                test "$(json '[f["id"] for f in j["findings"] if f["id"] == "kubelet-swap-stale"]')" = "[]"
        check "check: the kubelet's threshold lies between min and low (no eviction-after-oom or -before-swap)" \
                "$(json '[f["id"] for f in j["findings"]]')" \
                test "$(json '[f["id"] for f in j["findings"] if f["id"] in ("eviction-after-oom", "eviction-before-swap")]')" = "[]"
        check "check: eviction-ramp gives the rate" "$(json '[f["message"] for f in j["findings"] if f["id"] == "eviction-ramp"]')" \
                test "$(json 'len([f for f in j["findings"] if f["id"] == "eviction-ramp"])')" = 1
        no_failed_units "after apply"
}

scenario_b() {
        in_file_state || setup_policy file
        write_policy file
        local s0 m0 swaps0
        s0=$(k3s_starts)
        m0=$(stat -c %Y.%i "$DROPIN" 2>/dev/null)
        swaps0=$(swaps)
        ns apply --json
        ns_expect_rc "second apply exits 0" 0
        expect "JSON changed" "$(json 'j["changed"]')" false
        expect "JSON actions" "$(json 'len(j["actions"])')" 0 "$(json 'j["actions"]' | head -c 300)"
        expect "k3s-agent not restarted" "$(( $(k3s_starts) - s0 ))" 0
        expect "drop-in not rewritten (mtime.inode)" "$(stat -c %Y.%i "$DROPIN" 2>/dev/null)" "$m0"
        expect "swaps unchanged" "$(swaps | tr '\n' ' ')" "$(echo "$swaps0" | tr '\n' ' ')"
}

scenario_c() {
        in_file_state || setup_policy file
        local s0
        s0=$(k3s_starts)
        write_policy zram
        # sample the number of active swap areas while apply runs: make before break means
        # it never drops to zero
        rm -f "$RUN/samples"
        ( while :; do swap_count >>"$RUN/samples"; sleep 0.02; done ) &
        local sampler=$!
        ns apply --json
        kill "$sampler" 2>/dev/null
        wait "$sampler" 2>/dev/null
        ns_expect_rc "apply exits 0" 0
        expect "JSON changed" "$(json 'j["changed"]')" true

        local up off
        up=$(action_index zram create)
        [[ $up == -1 ]] && up=$(action_index zram swapon)
        off=$(action_index swapoff "$SWAPFILE")
        [[ $off == -1 ]] && off=$(action_index swapoff swapfile)
        check "make before break: zram up (action $up) before the file goes off (action $off)" \
                "$(json '[a if isinstance(a, str) else (a.get("kind") or a.get("action") or a.get("type")) for a in j["actions"]]' | head -c 400)" \
                test "$up" -ge 0 -a "$off" -ge 0 -a "$up" -lt "$off"
        check "never without swap during apply" \
                "$(wc -l <"$RUN/samples") samples, min $(sort -n "$RUN/samples" | head -n 1), max $(sort -n "$RUN/samples" | tail -n 1)" \
                test "$(sort -n "$RUN/samples" | head -n 1)" -ge 1

        local z
        z=$(zram_swaps_with_alg zstd)
        expect "one zstd zram swap on" "$(echo "$z" | grep -c .)" 1 "$(swaps_summary)"
        [[ -n $z ]] && expect "its priority" "$(swap_prio "$(echo "$z" | head -n 1)")" 100
        [[ -n $z ]] && check "its size is 512M" "$(cat "/sys/block/${z#/dev/}/disksize" 2>/dev/null) bytes" \
                test "$(cat "/sys/block/${z#/dev/}/disksize" 2>/dev/null)" = 536870912
        check "swap file off" "$(swaps_summary)" bash -c "! awk '{print \$1}' /proc/swaps | grep -qx '$SWAPFILE'"
        check "distro zram0 ($DISTRO_ALG) still off" "$(swaps_summary)" test -z "$(distro_zram_swaps)"
        expect "dev-zram0.swap still masked" "$(prop dev-zram0.swap LoadState)" masked
        expect "vm.swappiness" "$(sysctl_get swappiness)" 100
        expect "vm.page-cluster" "$(sysctl_get page-cluster)" 0
        expect "k3s-agent restarted exactly once" "$(( $(k3s_starts) - s0 ))" 1
        k3s_saw_current "after switch" LimitedSwap
}

scenario_d() {
        in_zram_state || setup_policy zram
        local s0
        s0=$(k3s_starts)
        ns revert --json
        ns_expect_rc "revert exits 0" 0
        if [[ -e $DROPIN ]]; then
                expect "drop-in says NoSwap" "$(dropin_behavior)" NoSwap
        else
                pass "drop-in removed"
        fi
        wait_for 15 distro_zram_on
        check "distro zram0 back on at priority 100 with $DISTRO_ALG" "$(swaps_summary)" distro_zram_on
        check "no nodeswap swap left" "$(swaps_summary)" test "$(swaps)" = "/dev/zram0 100"
        expect "dev-zram0.swap no longer masked" "$(prop dev-zram0.swap LoadState)" loaded
        expect "dev-zram0.swap active" "$(prop dev-zram0.swap ActiveState)" active
        expect "rpi-zram-writeback.timer no longer masked" "$(prop rpi-zram-writeback.timer LoadState)" loaded
        expect "rpi-zram-writeback.timer active again" "$(prop rpi-zram-writeback.timer ActiveState)" active
        expect "vm.swappiness restored" "$(sysctl_get swappiness)" "$BASE_SWAPPINESS"
        expect "vm.page-cluster restored" "$(sysctl_get page-cluster)" "$BASE_PAGE_CLUSTER"
        expect "vm.min_free_kbytes restored" "$(sysctl_get min_free_kbytes)" "$BASE_MIN_FREE"
        expect "vm.watermark_scale_factor restored" "$(sysctl_get watermark_scale_factor)" "$BASE_WSF"
        expect "k3s-agent restarted exactly once" "$(( $(k3s_starts) - s0 ))" 1
        k3s_saw_current "after revert" NoSwap
        check_rpi_swap_back "after revert"
        ns check --json
        check "check on the reverted node does not advise apply" "$(json '[f["id"] for f in j["findings"]]')" \
                test "$(json '[f["id"] for f in j["findings"] if f["id"] == "conflict-unit-unmasked"]')" = "[]"
        no_failed_units "after revert"
}

# f: the kubelet refuses nodeswap's new drop-in. The fake k3s stands for a kubelet that refuses
# swapBehavior LimitedSwap (as kubelet >= 1.35 does on cgroup v1) while
# /etc/fake-k3s/reject-limited-swap exists. Only nodeswap's own change (NoSwap -> LimitedSwap)
# makes the start fail, so nodeswap's rollback is what brings the kubelet back.
scenario_f() {
        setup_policy kubelet-noswap
        local s0 f0
        expect "setup: drop-in says NoSwap" "$(dropin_behavior)" NoSwap
        cp -p "$DROPIN" "$RUN/dropin.before" 2>/dev/null
        s0=$(k3s_starts) f0=$(k3s_failures)
        mkdir -p /etc/fake-k3s
        touch /etc/fake-k3s/reject-limited-swap
        write_policy kubelet-limited
        ns apply --json
        rm -f /etc/fake-k3s/reject-limited-swap
        ns_expect_rc "apply exits 1" 1
        check "the error names the kubelet unit" "$(tail -c 400 "$NS_ERR")" \
                grep -q 'k3s-agent' "$NS_ERR" "$NS_OUT"
        check "the previous drop-in is back, byte for byte" "$(dropin_behavior)" cmp -s "$DROPIN" "$RUN/dropin.before"
        expect "the kubelet refused the new drop-in once" "$(( $(k3s_failures) - f0 ))" 1 \
                "$(tail -n 1 "$K3S_STATE/failures" 2>/dev/null | cut -d' ' -f3-)"
        expect "k3s-agent started twice (refused, then with the old drop-in)" "$(( $(k3s_starts) - s0 ))" 2
        k3s_saw_current "after rollback" NoSwap
        check "no temporary files left in the drop-in dir" "$(ls -A "$DROPIN_DIR" | tr '\n' ' ')" \
                test -z "$(ls -A "$DROPIN_DIR" | grep -v -e '^00-k3s-defaults.conf$' -e '^90-nodeswap.conf$')"
}

# k: a site drop-in overrides nodeswap's. The operator's 95-site.conf (flow style) sorts after
# 90-nodeswap.conf, so the kubelet runs with its swapBehavior: plan and apply refuse, naming the
# file and line, and leave the node exactly as it was; status says where NoSwap comes from. Then
# the site file agrees (LimitedSwap): apply goes through, and revert warns that the site file
# still enables swap (the kubelet keeps LimitedSwap) instead of claiming NoSwap.
SITE=$DROPIN_DIR/95-site.conf
not_grep() { ! grep -q "$@"; }
scenario_k() {
        setup_policy kubelet-limited
        cat >"$SITE" <<'CONF'
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
memorySwap: {swapBehavior: NoSwap}   # site policy: no swap for pods
CONF
        systemctl restart k3s-agent.service
        k3s_saw_current "the site drop-in in place" NoSwap
        local before after s0
        before=$(node_snapshot) s0=$(k3s_starts)
        ns plan
        ns_expect_rc "plan exits 1" 1
        check "plan names the site drop-in and its line" "$(tail -c 400 "$NS_ERR" "$NS_OUT")" \
                grep -Eq "^error +dropin-overridden: $SITE:3 sets swapBehavior NoSwap" "$NS_OUT" "$NS_ERR"
        ns apply --json
        ns_expect_rc "apply exits 1" 1
        check "apply's JSON error names the site drop-in" "$(json '[f["message"] for f in j.get("findings", []) if f["severity"] == "error"]')" \
                grep -q "$SITE:3" "$NS_OUT"
        after=$(node_snapshot)
        check "the node is exactly as before" "$(diff <(echo "$before") <(echo "$after") | head -c 400)" \
                test "$before" = "$after"
        expect "k3s-agent not restarted" "$(( $(k3s_starts) - s0 ))" 0
        ns status --json
        expect "status: the effective swapBehavior" "$(json 'j["kubelet"]["swap_behavior"]')" NoSwap
        expect "status: where it comes from" "$(json 'j["kubelet"]["swap_behavior_source"]')" "$SITE:3"
        ns check --json
        check "check: dropin-overridden" "$(json '[f["id"] for f in j["findings"]]')" \
                grep -q '"id": *"dropin-overridden"' "$NS_OUT"

        # the site file now agrees: apply goes through, revert leaves the site's LimitedSwap
        sed -i 's/swapBehavior: NoSwap/swapBehavior: LimitedSwap/' "$SITE"
        systemctl restart k3s-agent.service
        k3s_saw_current "the site drop-in agrees" LimitedSwap
        ns apply --json
        ns_expect_rc "apply with an agreeing site drop-in exits 0" 0
        ns revert --json
        ns_expect_rc "revert exits 0" 0
        check "revert warns that the site drop-in still enables swap" "$(json '[f["message"] for f in j.get("findings", []) if f["severity"] == "warning"]')" \
                grep -q "$SITE:3 still sets swapBehavior LimitedSwap" "$NS_OUT"
        check "revert does not claim NoSwap" "$(json '[a for a in j.get("actions", []) if "90-nodeswap" in json.dumps(a)]')" \
                not_grep 'NoSwap, the default' "$NS_OUT"
        k3s_saw_current "after revert" LimitedSwap
        rm -f "$SITE"
        systemctl restart k3s-agent.service
        k3s_saw_current "the site drop-in removed" NoSwap
}

# v: memory eviction back on k3s (issue 25). The fake k3s writes 00-k3s-defaults.conf as k3s does,
# with evictionHard for disk only (imagefs.available and nodefs.available 5%), which leaves the
# kubelet no memory.available threshold. With LimitedSwap nodeswap's drop-in adds
# memory.available 100Mi; the kubelet merges the map key by key, so its effective evictionHard (as
# the fake records it in last-start) holds k3s's two thresholds and the memory one. revert takes
# it out with the drop-in.
K3S_DISK_EVICTION='imagefs.available<5%,nodefs.available<5%'
scenario_v() {
        if [[ -e $DROPIN ]]; then
                ns revert --json
                [[ $NS_RC == 0 ]] || fail "setup: revert" "rc=$NS_RC; $(tail -c 600 "$NS_ERR")"
        fi
        wait_for 30 out_is active prop k3s-agent.service ActiveState
        local eh_line s0
        eh_line=$(grep -n '^evictionHard:' "$DROPIN_DIR/00-k3s-defaults.conf" 2>/dev/null | cut -d: -f1)
        check "k3s's defaults file sets evictionHard" "$(head -c 300 "$DROPIN_DIR/00-k3s-defaults.conf" 2>&1)" test -n "$eh_line"
        expect "before: the kubelet's evictionHard is k3s's disk thresholds alone" "$(k3s_seen eviction_hard)" \
                "$K3S_DISK_EVICTION"
        write_policy kubelet-noswap
        ns status --json
        expect "status: no memory threshold" "$(json 'j["kubelet"]["memory_eviction"]["threshold"]')" null
        expect "status: k3s's file dropped it" "$(json 'j["kubelet"]["memory_eviction"]["source"]')" \
                "$DROPIN_DIR/00-k3s-defaults.conf:$eh_line"
        ns check --json
        check "check warns memory-eviction-missing (the node has swap)" "$(json '[f["id"] for f in j["findings"]]')" \
                test "$(json '[f["id"] for f in j["findings"] if f["id"] == "memory-eviction-missing"]')" = '["memory-eviction-missing"]'

        write_policy kubelet-limited
        ns plan --json
        ns_expect_rc "plan exits 0" 0
        check "plan: the drop-in's want carries memory.available 100Mi" "$(json 'j["actions"]' | head -c 400)" \
                test "$(action_index dropin-write "memory.available 100Mi")" -ge 0
        s0=$(k3s_starts)
        ns apply --json
        ns_expect_rc "apply exits 0" 0
        check "the drop-in sets memory.available" "$(tr '\n' '|' <"$DROPIN" 2>&1)" \
                grep -qx '  memory.available: "100Mi"' "$DROPIN"
        expect "k3s-agent restarted once" "$(( $(k3s_starts) - s0 ))" 1
        k3s_saw_current "after apply" LimitedSwap
        expect "the kubelet's evictionHard: k3s's two thresholds and memory.available" "$(k3s_seen eviction_hard)" \
                'imagefs.available<5%,memory.available<100Mi,nodefs.available<5%'
        ns status --json
        expect "status: the threshold" "$(json 'j["kubelet"]["memory_eviction"]["threshold"]')" 100Mi
        expect "status: from nodeswap's drop-in" "$(json 'j["kubelet"]["memory_eviction"]["source"]')" "$DROPIN:8"
        ns check --json
        check "check: no memory-eviction-missing now" "$(json '[f["id"] for f in j["findings"]]')" \
                test "$(json '[f["id"] for f in j["findings"] if f["id"].startswith("memory-eviction")]')" = '[]'
        ns apply --json
        ns_expect_rc "second apply exits 0" 0
        expect "second apply changes nothing" "$(json 'j["changed"]')" false

        s0=$(k3s_starts)
        ns revert --json
        ns_expect_rc "revert exits 0" 0
        check "revert removed the drop-in" "$(ls -A "$DROPIN_DIR" | tr '\n' ' ')" test ! -e "$DROPIN"
        expect "k3s-agent restarted once" "$(( $(k3s_starts) - s0 ))" 1
        k3s_saw_current "after revert" NoSwap
        expect "after revert: k3s's disk thresholds alone again" "$(k3s_seen eviction_hard)" "$K3S_DISK_EVICTION"
        no_failed_units "after revert"
}

# kv: the older minor's kubelet on k3s's shape (issue 36 item 1). k3s's unpacked binary
# (/var/lib/rancher/k3s/data/current/bin/k3s, which nodeswap reads the kubelet's version from, its
# Go build information) is the kubelet k3s-agent asks (guest/k3s): v1.36.3, then v1.31.0, which
# merges drop-ins the old way (1.30 and 1.31: nodeswap's merge rule "1.30"), then v1.36.3 again.
# On each, after k3s-agent's restart: status --json names the version and its rule, and says
# what the real kubelet loaded: swapBehavior, failSwapOn and the memory.available threshold;
# first with k3s's defaults alone, then with nodeswap's LimitedSwap drop-in and a site drop-in
# before it that nulls failSwapOn and evictionHard (each kubelet then has failSwapOn from
# nodeswap's drop-in and memory.available alone: k3s's disk thresholds are gone; without
# nodeswap's drop-in both would refuse to start on this node's swap, failSwapOn's default true).
# The two rules part on trees with a --config file (kubeadm's), which the differential test
# (tests/k8s) covers on the host with both kubelets.
KV_BIN=/var/lib/rancher/k3s/data/current/bin/k3s
KV_OLD=/usr/local/lib/nodeswap-e2e/kubelet-v1.31.0
kv_compare() {  # kv_compare NAME VERSION RULE
        local mem
        wait_for 30 out_is active prop k3s-agent.service ActiveState
        expect "$1: k3s-agent active" "$(prop k3s-agent.service ActiveState)" active
        ns status --json
        expect "$1: status names the kubelet's version" "$(json 'j["kubelet"]["version"]')" "$2"
        expect "$1: ... read from k3s's binary" "$(json 'j["kubelet"]["version_source"]')" "$KV_BIN"
        expect "$1: its merge rule" "$(json 'j["kubelet"]["merge_rule"]')" "$3"
        expect "$1: swapBehavior: status says what the kubelet loaded" \
                "$(json 'j["kubelet"]["swap_behavior"] or "NoSwap"')" "$(k3s_seen swap_behavior)"
        expect "$1: failSwapOn: status says what the kubelet loaded" \
                "$(json 'str(j["kubelet"]["fail_swap_on"]).lower()')" "$(k3s_seen fail_swap_on)"
        mem=$(k3s_seen eviction_hard | tr ',' '\n' | sed -n 's/^memory\.available<//p')
        expect "$1: the memory.available threshold: status says what the kubelet loaded ($(k3s_seen eviction_hard))" \
                "$(json 'j["kubelet"]["memory_eviction"]["threshold"] or ""')" "$mem"
}
scenario_kv() {
        local site=$DROPIN_DIR/50-e2e-site.conf s0
        if [[ -e $DROPIN ]]; then
                ns revert --json
                [[ $NS_RC == 0 ]] || fail "setup: revert" "rc=$NS_RC; $(tail -c 600 "$NS_ERR")"
        fi
        kv_compare "v1.36.3, k3s's defaults" v1.36.3 1.32
        expect "v1.36.3, k3s's defaults: NoSwap, failSwapOn false, no memory threshold" \
                "$(k3s_seen swap_behavior) $(k3s_seen fail_swap_on) $(k3s_seen eviction_hard)" "NoSwap false $K3S_DISK_EVICTION"

        # the older kubelet in k3s's binary's place (a new file: the old one is /usr/bin/kubelet's link)
        cp "$KV_OLD" "$KV_BIN.new" && mv -f "$KV_BIN.new" "$KV_BIN"
        s0=$(k3s_starts)
        systemctl restart k3s-agent.service
        expect "v1.31.0: k3s-agent restarted once" "$(( $(k3s_starts) - s0 ))" 1
        expect "v1.31.0: k3s's binary is kubelet v1.31.0" "$("$KV_BIN" --version 2>&1)" "Kubernetes v1.31.0"
        kv_compare "v1.31.0, k3s's defaults" v1.31.0 1.30

        printf 'apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nfailSwapOn: null\nevictionHard: null\n' >"$site"
        write_policy kubelet-limited
        s0=$(k3s_starts)
        ns apply --json
        ns_expect_rc "v1.31.0: apply of LimitedSwap exits 0" 0
        expect "v1.31.0: apply restarted k3s-agent once" "$(( $(k3s_starts) - s0 ))" 1
        kv_compare "v1.31.0, nodeswap's drop-in after a site file of nulls" v1.31.0 1.30
        expect "v1.31.0: the kubelet loaded LimitedSwap, failSwapOn false, memory.available alone" \
                "$(k3s_seen swap_behavior) $(k3s_seen fail_swap_on) $(k3s_seen eviction_hard)" "LimitedSwap false memory.available<100Mi"

        ln -f /usr/bin/kubelet "$KV_BIN"
        s0=$(k3s_starts)
        systemctl restart k3s-agent.service
        expect "v1.36.3 again: k3s-agent restarted once" "$(( $(k3s_starts) - s0 ))" 1
        kv_compare "v1.36.3, nodeswap's drop-in after a site file of nulls" v1.36.3 1.32
        expect "v1.36.3: the kubelet loaded LimitedSwap, failSwapOn false, memory.available alone" \
                "$(k3s_seen swap_behavior) $(k3s_seen fail_swap_on) $(k3s_seen eviction_hard)" "LimitedSwap false memory.available<100Mi"

        # the site file first: without nodeswap's drop-in its nulls leave failSwapOn true
        rm -f "$site"
        ns revert --json
        ns_expect_rc "revert exits 0" 0
        k3s_saw_current "after revert" NoSwap
        expect "after revert: k3s's disk thresholds alone" "$(k3s_seen eviction_hard)" "$K3S_DISK_EVICTION"
        no_failed_units "after revert"
}

# e, first boot: leave the zram policy applied for the reboot
# The textfile collector setup: nodeswap-metrics.service writes node-exporter's file. The .prom
# files are copied out as "PROM <tag> <line>" result lines; the host checks them with promtool
# (tests/e2e/README.md: the VM root carries no Prometheus).
emit_prom() {   # emit_prom TAG FILE
        local l
        while IFS= read -r l; do printf 'PROM %s %s\n' "$1" "$l" >>"$RESULTS"; done <"$2"
        flush
}

scenario_m() {
        in_zram_state || setup_policy zram
        local dir=/var/lib/prometheus/node-exporter prom=/var/lib/prometheus/node-exporter/nodeswap.prom z rc
        expect "nodeswap-metrics.timer shipped, not enabled" "$(systemctl is-enabled nodeswap-metrics.timer 2>&1)" disabled
        # what Debian's prometheus-node-exporter creates; the service's condition needs it
        mkdir -p "$dir"
        rm -f "$prom"
        systemctl start nodeswap-metrics.service
        rc=$?
        expect "nodeswap-metrics.service ran" "$rc $(prop nodeswap-metrics.service Result)" "0 success"
        check "the file is written" "$(ls -l "$dir" 2>&1)" test -f "$prom"
        expect "the file is 0644, readable by node-exporter's user" "$(stat -c %a "$prom" 2>&1)" 644
        expect "no temporary file left" "$(ls -A "$dir")" nodeswap.prom
        check "nodeswap_up 1" "" grep -qx 'nodeswap_up 1' "$prom"
        z=$(zram_swaps_with_alg zstd | head -n 1)
        check "the zstd zram swap is nodeswap's" "$z" grep -qx "nodeswap_swap_owned{path=\"$z\"} 1" "$prom"
        check "its algorithm" "" grep -q "^nodeswap_zram_info{device=\"${z#/dev/}\",algorithm=\"zstd\",swap=\"1\",owned=\"1\"} 1$" "$prom"
        check "the node matches the policy" "" grep -qx 'nodeswap_policy_match 1' "$prom"
        check "the last apply succeeded" "" grep -qx 'nodeswap_last_run_success{command="apply"} 1' "$prom"
        check "the kubelet's swapBehavior" "" grep -q '^nodeswap_kubelet_info{unit="k3s-agent.service",swap_behavior="LimitedSwap",' "$prom"
        check "the kubelet is active (asked systemd from inside the sandbox)" "" grep -qx 'nodeswap_kubelet_active 1' "$prom"
        check "the kubelet started after the last swap change" "" grep -qx 'nodeswap_kubelet_swap_stale 0' "$prom"
        check "vm.swappiness" "" grep -qx "nodeswap_vm_swappiness $(sysctl_get swappiness)" "$prom"
        info "zswap under the unit" "$(grep -E '^nodeswap_zswap_(enabled|debugfs_readable)' "$prom" | paste -sd' ')"
        emit_prom unit "$prom"

        systemctl start nodeswap-metrics.timer
        expect "the timer starts" "$(prop nodeswap-metrics.timer ActiveState)" active
        systemctl stop nodeswap-metrics.timer

        # any user: what it may not read is said, never fatal
        setpriv --reuid=nobody --regid=nogroup --clear-groups nodeswap metrics --pods >"$RUN/nobody.prom" 2>"$RUN/nobody.err"
        rc=$?
        expect "as nobody: exit 0" "$rc" 0 "$(head -c 300 "$RUN/nobody.err")"
        check "as nobody: nodeswap's state is said to be unreadable" "" grep -q '^nodeswap_unreadable_info{path="/var/lib/nodeswap/state"} 1$' "$RUN/nobody.prom"
        emit_prom nobody "$RUN/nobody.prom"
        rm -rf "$dir"
}

# Scenario w: zram writeback to a file nodeswap backs with its own loop device (issue 17). The
# Debian 12 kernel has CONFIG_ZRAM_WRITEBACK, which the build machine's kernel lacks.
WB_FILE=/var/lib/nodeswap/zram-writeback
WB_HOG=e2e-wb-hog
wb_dev() { local d; for d in $(zram_swaps); do [[ $(cat "/sys/block/${d#/dev/}/backing_dev" 2>/dev/null) == /dev/loop* ]] && echo "${d#/dev/}"; done | head -n 1; }
wb_bd() { awk -v f="$2" '{ print $f }' "/sys/block/$1/bd_stat" 2>/dev/null; }    # wb_bd zramN FIELD (1 count, 2 reads, 3 writes; 4 KiB units)
wb_orig() { awk '{ print $1 }' "/sys/block/$1/mm_stat" 2>/dev/null; }
wb_service_idle() { [[ $(prop nodeswap-writeback.service ActiveState) != activating &&
                       -z $(systemctl list-jobs --no-legend nodeswap-writeback.service 2>/dev/null) ]]; }
scenario_w() {
        mkdir -p /etc/nodeswap
        # a kernel without algorithm_params (6.12) or recomp_algorithm (6.2) refuses them by name
        local z0 knob attr
        z0=$(ls -d /sys/block/zram* 2>/dev/null | head -n 1)
        for knob in "Algorithm=zstd(level=3)" "RecompressAlgorithm=zstd"; do
                attr=algorithm_params; [[ $knob == Recompress* ]] && attr=recomp_algorithm
                printf '[Swap]\nBackend=zram\n[Zram]\nSize=256M\n%s\n' "$knob" >"$RUN/knob.conf"
                ns plan --json --config "$RUN/knob.conf"
                if [[ -e $z0/$attr ]]; then
                        info "$knob: this kernel has $attr" "plan rc=$NS_RC"
                else
                        expect "$knob refused: this kernel has no $attr" \
                                "$NS_RC $(json '[f["id"] for f in j["findings"] if f["severity"] == "error"]')" \
                                '1 ["zram-feature-unavailable"]'
                fi
        done

        rm -f "$WB_FILE"
        printf '%s\n' '[Swap]' 'Backend=zram' '' '[Zram]' 'Algorithm=zstd' 'Size=256M' 'Priority=100' \
                "Writeback=$WB_FILE" 'WritebackIdleAfter=1s' 'WritebackInterval=1h' 'WritebackLimit=8M' 'WritebackEncrypt=no' '' \
                '[Sysctl]' 'Swappiness=100' >"$POLICY"
        chmod 0644 "$POLICY"
        systemctl stop nodeswap-writeback.timer >/dev/null 2>&1
        ns apply --json
        ns_expect_rc "apply with Writeback= a file exits 0" 0
        expect "apply plans the timer's start" \
                "$(json '[a["id"] for a in j["actions"] if a["target"] == "nodeswap-writeback.timer"]')" \
                '["start-unit:nodeswap-writeback.timer"]'
        expect "after apply, without a daemon-reload, nodeswap-writeback.timer is active" \
                "$(prop nodeswap-writeback.timer ActiveState)" active
        check "apply recorded $WB_FILE as nodeswap's" "$(grep writeback_file= /var/lib/nodeswap/state 2>&1)" \
                grep -qx "writeback_file=$WB_FILE" /var/lib/nodeswap/state
        local z loop
        z=$(wb_dev)
        check "nodeswap's zram device writes back to a loop device" "$(swaps_summary); $(grep -H . /sys/block/zram*/backing_dev 2>&1 | tr '\n' ' ')" test -n "$z"
        [[ -n $z ]] || return
        loop=$(cat "/sys/block/$z/backing_dev")
        expect "the loop device is backed by $WB_FILE" "$(losetup -n -O BACK-FILE "$loop" 2>&1 | sed 's/ *$//')" "$WB_FILE"
        expect "the loop device clears itself (autoclear)" "$(losetup -n -O AUTOCLEAR "$loop" 2>&1 | tr -d ' ')" 1
        expect "$WB_FILE made 0600, as large as the device" "$(stat -c '%a %s' "$WB_FILE")" "600 $((256 * 1024 * 1024))"
        expect "writeback_limit_enable" "$(cat "/sys/block/$z/writeback_limit_enable")" 1
        check "the loop device is recorded" "$(tr '\n' ' ' </run/nodeswap-state/writeback 2>&1)" \
                grep -qx "loop=$loop" /run/nodeswap-state/writeback
        ns apply --json
        expect "a second apply changes nothing" "$NS_RC $(json 'j["changed"]')" "0 false"

        systemctl daemon-reload
        check "the generator pulls in nodeswap-writeback.timer" "$(ls -l /run/systemd/generator/timers.target.wants 2>&1)" \
                test -L /run/systemd/generator/timers.target.wants/nodeswap-writeback.timer
        expect "nodeswap-writeback.timer still active after the reload" "$(prop nodeswap-writeback.timer ActiveState)" active
        ns apply --json
        expect "after the reload apply still changes nothing (its start and the generator's link agree)" \
                "$NS_RC $(json 'j["changed"]')" "0 false"

        # From here the scenario runs writeback itself, so the timer stops until the policy changes
        # below. It has OnBootSec=15min: started later than that in a boot, it fires at once
        # (systemd.timer(5)), and that first run, due with no run recorded, may already have written
        # back the pages idle for 1 s (the swap header). The kernel takes every page written back
        # off writeback_limit (Documentation/admin-guide/blockdev/zram.rst), so the budget is exact
        # whatever that run did.
        systemctl stop nodeswap-writeback.timer
        wait_for 60 wb_service_idle
        local lim0 w0 w1
        lim0=$(cat "/sys/block/$z/writeback_limit")
        w0=$(wb_bd "$z" 3)
        expect "writeback_limit: 8M in 4 KiB units, less what was written back" "$(( lim0 + w0 ))" 2048 \
                "writeback_limit $lim0, bd_stat writes $w0"
        info "written back since the apply, by the timer's start" \
                "$w0 pages (uptime $(cut -d' ' -f1 /proc/uptime) s; $(prop nodeswap-writeback.service Result))"

        # pages into zram: a process in a cgroup of 48 MiB holding 160 MiB of distinct pages; it
        # checks them again once they have been written back and read back
        rm -f /run/e2e-wb-verify /run/e2e-wb-hog.sum /run/e2e-wb-hog.check
        systemd-run --unit "$WB_HOG" -p MemoryMax=48M -p MemorySwapMax=infinity python3 -c '
import hashlib, os, time
def digest(pages):
    h = hashlib.sha256()
    for p in pages:
        h.update(p)
    return h.hexdigest()
pages = [os.urandom(64) * 64 for _ in range(160 * 256)]
open("/run/e2e-wb-hog.sum", "w").write(digest(pages))
while not os.path.exists("/run/e2e-wb-verify"):
    time.sleep(0.5)
open("/run/e2e-wb-hog.check", "w").write(digest(pages))
time.sleep(600)' >/dev/null 2>&1
        wait_for 180 test -s /run/e2e-wb-hog.sum
        wait_for 60 out_ge $((64 * 1024 * 1024 + 1)) wb_orig "$z"
        check "pages went to zram" "orig_data_size $(wb_orig "$z"); $(swaps_summary)" test "$(wb_orig "$z")" -gt $((64 * 1024 * 1024))
        expect "nothing written back while the pages went to zram" "$(wb_bd "$z" 3)" "$w0"
        sleep 2
        ns writeback --force --json
        ns_expect_rc "nodeswap writeback --force exits 0" 0
        if [[ $(json 'j["devices"][0]["waiting_for_idle"]') == true ]]; then
                info "this kernel marks idle pages by 'all' only: a second run writes them back"
                sleep 2
                ns writeback --force --json
                ns_expect_rc "the second writeback run exits 0" 0
        else
                info "idle pages marked by age" "$(json 'j["devices"][0]')"
        fi
        w1=$(wb_bd "$z" 3)
        check "bd_stat shows pages written back" "bd_stat $(cat "/sys/block/$z/bd_stat"); $(json 'j["devices"]')" test "${w1:-0}" -gt "$w0"
        check "the limit holds: at most 8M written back" "bd_writes ${w1} x 4 KiB" test "${w1:-0}" -le 2048
        expect "the day's budget is used up" "$(cat "/sys/block/$z/writeback_limit") $(json 'j["devices"][-1]["limit_reached"]')" "0 true"
        ns writeback --json
        expect "a run before WritebackInterval= has passed does nothing" "$NS_RC $(json 'j["devices"][0]["due"]')" "0 false"
        expect "and writes nothing" "$(wb_bd "$z" 3)" "$w1"
        systemctl start nodeswap-writeback.service
        expect "nodeswap-writeback.service (what the timer runs) succeeds" "$(prop nodeswap-writeback.service Result)" success
        ns status --json
        expect "status shows the bytes written back" \
                "$(json '[d["zram"]["writeback"]["written"] for d in j["swaps"] if d.get("zram") and d["zram"].get("writeback")]')" \
                "[$((w1 * 4096))]"
        touch /run/e2e-wb-verify
        wait_for 120 test -s /run/e2e-wb-hog.check
        expect "the process reads its pages back intact" "$(cat /run/e2e-wb-hog.check 2>&1)" "$(cat /run/e2e-wb-hog.sum)"
        check "pages were read back from the loop device" "bd_stat $(cat "/sys/block/$z/bd_stat")" test "$(wb_bd "$z" 2)" -gt 0
        systemctl stop "$WB_HOG" >/dev/null 2>&1
        rm -f /run/e2e-wb-verify /run/e2e-wb-hog.sum /run/e2e-wb-hog.check

        systemctl start nodeswap-writeback.timer
        expect "the timer started again" "$(prop nodeswap-writeback.timer ActiveState)" active

        # a policy without writeback: the timer stops, the device is replaced, and the file nodeswap
        # made for it goes once its loop device has gone with the old device
        cp "$POLICY" "$RUN/wb-policy.conf"
        printf '%s\n' '[Swap]' 'Backend=zram' '' '[Zram]' 'Algorithm=zstd' 'Size=256M' 'Priority=100' '' \
                '[Sysctl]' 'Swappiness=100' >"$POLICY"
        ns apply --json
        ns_expect_rc "apply without writeback exits 0" 0
        expect "a policy without writeback stops nodeswap-writeback.timer" \
                "$(prop nodeswap-writeback.timer ActiveState)" inactive
        check "... and deletes the writeback file nodeswap made, no longer the policy's" "$(ls -l "$WB_FILE" 2>&1)" \
                test ! -e "$WB_FILE"
        check "... and forgets it" "$(grep writeback_file= /var/lib/nodeswap/state 2>&1)" \
                bash -c '! grep -q writeback_file= /var/lib/nodeswap/state'
        ns apply --json
        expect "a second apply without writeback changes nothing" "$NS_RC $(json 'j["changed"]')" "0 false"
        cp "$RUN/wb-policy.conf" "$POLICY"
        ns apply --json
        ns_expect_rc "writeback again: apply exits 0" 0
        expect "writeback again: the timer is active" "$(prop nodeswap-writeback.timer ActiveState)" active
        expect "writeback again: the file is made anew" "$(stat -c '%a %s' "$WB_FILE" 2>&1)" "600 $((256 * 1024 * 1024))"
        z=$(wb_dev)

        ns revert --json
        ns_expect_rc "revert exits 0" 0
        expect "revert stops nodeswap-writeback.timer" "$(prop nodeswap-writeback.timer ActiveState)" inactive
        check "revert: the zram device is gone" "$(ls /sys/block | tr '\n' ' ')" test -n "$z" -a ! -e "/sys/block/$z"
        wait_for 10 out_is "" loops_on "$WB_FILE"
        expect "revert: no loop device on $WB_FILE" "$(losetup -n -O NAME -j "$WB_FILE" 2>&1)" ""
        check "revert: the writeback record is gone" "" test ! -e /run/nodeswap-state/writeback
        check "revert (without --purge) keeps $WB_FILE" "" test -f "$WB_FILE"
        ns revert --purge --json
        ns_expect_rc "revert --purge exits 0" 0
        check "revert --purge deletes the writeback file nodeswap made" "$(ls -l "$WB_FILE" 2>&1)" test ! -e "$WB_FILE"
        check "... and forgets it" "$(grep writeback_file= /var/lib/nodeswap/state 2>&1)" \
                bash -c '! grep -q writeback_file= /var/lib/nodeswap/state'
        systemctl daemon-reload
        check "after revert the generator no longer pulls in the timer" "" \
                test ! -e /run/systemd/generator/timers.target.wants/nodeswap-writeback.timer
        expect "the timer stays stopped after the reload" "$(prop nodeswap-writeback.timer ActiveState)" inactive
        rm -f "$WB_FILE" "$POLICY" "$RUN/wb-policy.conf"
        no_failed_units "after the writeback scenario"
}

# p (issue 25, part 2): the kubelet's unit out of swap while pods swap ([Kubelet] NoSwapUnits=,
# default "kubelet": k3s-agent.service here). apply sets MemorySwapMax=0 at once through systemd
# (its cgroup's memory.swap.max 0, no restart), a daemon-reload adds the generator's drop-in and a
# restart of the unit starts with 0 (the fake k3s records its cgroup's memory.swap.max at start);
# check warns when the policy opts out; revert gives the unit back what it had, with no drop-in
# left in the generator's directory or systemd's runtime control directory. Its reboot checks ride
# on scenario e's boots (run p with e): scenario_p_boot2 before e's revert, scenario_p_reverted
# after it.
P_UNIT=k3s-agent.service
P_CONTROL=/run/systemd/system.control/$P_UNIT.d/50-MemorySwapMax.conf
P_GENERATED=/run/systemd/generator/$P_UNIT.d/50-nodeswap-no-swap.conf
p_cgroup_swap_max() { cat "/sys/fs/cgroup$(prop "$P_UNIT" ControlGroup)/memory.swap.max" 2>/dev/null || echo none; }
p_recorded() { grep -qx "no_swap_unit=$P_UNIT" /var/lib/nodeswap/state 2>/dev/null; }
scenario_p() {
        ns revert --json
        ns_expect_rc "precondition: revert" 0
        wait_for 30 out_is active prop "$P_UNIT" ActiveState
        local before_prop before_cg starts
        before_prop=$(prop "$P_UNIT" MemorySwapMax) before_cg=$(p_cgroup_swap_max)
        printf 'prop=%s\ncgroup=%s\n' "$before_prop" "$before_cg" >"$STATE/p-before"
        info "before: MemorySwapMax and memory.swap.max" "$before_prop, $before_cg"
        check "before: k3s-agent may swap" "memory.swap.max $before_cg" test "$before_cg" != 0 -a "$before_cg" != none

        write_policy zram
        ns apply --json
        ns_expect_rc "apply (LimitedSwap)" 0
        check "apply planned unit-swap-max for $P_UNIT" "$(json '[a["id"] for a in j["actions"]]')" \
                test "$(action_index unit-swap-max "$P_UNIT")" -ge 0
        expect "at once: $P_UNIT's memory.swap.max" "$(p_cgroup_swap_max)" 0
        expect "at once: its MemorySwapMax" "$(prop "$P_UNIT" MemorySwapMax)" 0
        check "systemd's control drop-in is there" "$P_CONTROL" test -f "$P_CONTROL"
        check "nodeswap recorded the unit" "$(grep no_swap_unit /var/lib/nodeswap/state)" p_recorded
        ns status --json
        expect "status: memory_swap_max" "$(json 'j["no_swap_units"][0]["memory_swap_max"]')" 0
        expect "status: set_by" "$(json 'j["no_swap_units"][0]["set_by"]')" nodeswap
        ns check --json
        check "check: no kubelet-unit-swappable" "$(json '[f["id"] for f in j["findings"]]')" \
                test "$(json '[f["id"] for f in j["findings"] if f["id"] == "kubelet-unit-swappable"]')" = "[]"
        ns apply --json
        ns_expect_rc "second apply" 0
        expect "second apply: nothing to do" "$(json 'j["changed"]')" false

        # A daemon-reload runs the generator: its drop-in is there, the value stays 0, and the unit
        # starts with 0 (the fake k3s records its cgroup's memory.swap.max as it starts).
        systemctl daemon-reload
        check "the generator's drop-in" "$(cat "$P_GENERATED" 2>/dev/null | tr '\n' ' ')" \
                grep -qx 'MemorySwapMax=0' "$P_GENERATED"
        starts=$(k3s_starts)
        systemctl restart "$P_UNIT"
        wait_for 30 out_is active prop "$P_UNIT" ActiveState
        expect "restarted once" "$(k3s_starts)" $((starts + 1))
        expect "the restarted unit started with memory.swap.max" "$(k3s_seen cgroup_swap_max)" 0

        # Opted out (NoSwapUnits= empty): apply takes it away and check warns.
        printf '\n[Kubelet]\nNoSwapUnits=\n' >>"$POLICY"
        ns check --json
        check "check with NoSwapUnits= empty (still 0): no warning yet" "$(json '[f["id"] for f in j["findings"]]')" \
                test "$(json '[f["id"] for f in j["findings"] if f["id"] == "kubelet-unit-swappable"]')" = "[]"
        ns apply --json
        ns_expect_rc "apply with NoSwapUnits= empty" 0
        expect "opted out: memory.swap.max back" "$(p_cgroup_swap_max)" "$before_cg"
        check "opted out: no control drop-in" "" test ! -e "$P_CONTROL"
        check "opted out: no generator drop-in" "" test ! -e "$P_GENERATED"
        ns check --json
        check "check warns kubelet-unit-swappable" "$(json '[f["id"] for f in j["findings"]]')" \
                test "$(json '[f["id"] for f in j["findings"] if f["id"] == "kubelet-unit-swappable"]')" = '["kubelet-unit-swappable"]'

        # Back in, then revert: the property and the cgroup as they were, no drop-in anywhere.
        write_policy zram
        ns apply --json
        ns_expect_rc "apply again" 0
        expect "again: memory.swap.max" "$(p_cgroup_swap_max)" 0
        systemctl daemon-reload
        ns revert --json
        ns_expect_rc "revert" 0
        expect "revert: MemorySwapMax as before" "$(prop "$P_UNIT" MemorySwapMax)" "$before_prop"
        expect "revert: memory.swap.max as before" "$(p_cgroup_swap_max)" "$before_cg"
        check "revert: no control drop-in" "$(ls "/run/systemd/system.control/$P_UNIT.d" 2>&1)" test ! -e "$P_CONTROL"
        check "revert: no generator drop-in" "$(ls "/run/systemd/generator/$P_UNIT.d" 2>&1)" test ! -e "$P_GENERATED"
        check "revert: the unit forgotten" "" bash -c "! grep -q no_swap_unit= /var/lib/nodeswap/state"
        expect "revert: systemd has nothing to reload for it" "$(prop "$P_UNIT" NeedDaemonReload)" no
        ns revert --json
        expect "a second revert changes nothing" "$(json 'j["changed"]')" false
        no_failed_units "after scenario p"
}

# p at scenario e's second boot (e applied its LimitedSwap zram policy before the reboot): the
# generator's drop-in held before k3s-agent's first start.
scenario_p_boot2() {
        check "boot: the generator's drop-in" "$(cat "$P_GENERATED" 2>/dev/null | tr '\n' ' ')" \
                grep -qx 'MemorySwapMax=0' "$P_GENERATED"
        check "boot: no runtime control drop-in (nothing to set at boot)" "" test ! -e "$P_CONTROL"
        expect "boot: k3s-agent's first start saw memory.swap.max" "$(k3s_seen cgroup_swap_max)" 0
        expect "boot: k3s-agent started once" "$(k3s_starts)" 1
        expect "boot: MemorySwapMax" "$(prop "$P_UNIT" MemorySwapMax)" 0
        expect "boot: memory.swap.max" "$(p_cgroup_swap_max)" 0
        check "boot: still recorded" "" p_recorded
}

# ... and after e's revert in that boot: as before scenario p, no drop-in left.
scenario_p_reverted() {
        local before_prop before_cg
        before_prop=$(sed -n 's/^prop=//p' "$STATE/p-before" 2>/dev/null)
        before_cg=$(sed -n 's/^cgroup=//p' "$STATE/p-before" 2>/dev/null)
        expect "after revert at boot 2: MemorySwapMax" "$(prop "$P_UNIT" MemorySwapMax)" "${before_prop:-infinity}"
        expect "after revert at boot 2: memory.swap.max" "$(p_cgroup_swap_max)" "${before_cg:-max}"
        check "after revert at boot 2: no generator drop-in" "" test ! -e "$P_GENERATED"
        check "after revert at boot 2: no control drop-in" "" test ! -e "$P_CONTROL"
}

scenario_e_prepare() {
        write_policy zram
        ns apply --json
        ns_expect_rc "apply the zram policy before the reboot" 0
        echo applied >"$STATE/e-phase"
}

# e, second boot: the policy holds at boot; then revert for the third boot
scenario_e_boot2() {
        if [[ $(cat "$STATE/e-phase" 2>/dev/null) != applied ]]; then
                fail "the zram policy was applied before the reboot"
                return
        fi
        expect "nodeswap.service active" "$(prop nodeswap.service ActiveState)" active
        expect "nodeswap.service succeeded" "$(prop nodeswap.service Result)" success
        local ns_done k3s_start
        ns_done=$(prop nodeswap.service ActiveEnterTimestampMonotonic)
        k3s_start=$(prop k3s-agent.service ExecMainStartTimestampMonotonic)
        check "nodeswap.service finished before k3s-agent started" \
                "nodeswap active at ${ns_done} us, k3s-agent main process at ${k3s_start} us" \
                test "${ns_done:-0}" -gt 0 -a "${ns_done:-0}" -le "${k3s_start:-0}"
        expect "generator masked dev-zram0.swap early" \
                "$(readlink /run/systemd/generator.early/dev-zram0.swap 2>/dev/null)" /dev/null
        local z
        z=$(zram_swaps_with_alg zstd)
        expect "one zstd zram swap on at boot" "$(echo "$z" | grep -c .)" 1 "$(swaps_summary)"
        [[ -n $z ]] && expect "its priority" "$(swap_prio "$(echo "$z" | head -n 1)")" 100
        check "distro zram0 ($DISTRO_ALG) off" "$(swaps_summary)" test -z "$(distro_zram_swaps)"
        expect "dev-zram0.swap masked" "$(prop dev-zram0.swap LoadState)" masked
        expect "vm.swappiness" "$(sysctl_get swappiness)" 100
        expect "vm.page-cluster" "$(sysctl_get page-cluster)" 0
        expect "drop-in swapBehavior" "$(dropin_behavior)" LimitedSwap
        expect "k3s-agent started once this boot" "$(k3s_starts)" 1
        expect "k3s-agent never restarted (NRestarts)" "$(prop k3s-agent.service NRestarts)" 0
        k3s_saw_current "at boot" LimitedSwap
        zram_stays_off_through_writeback "writeback at boot"
        expect "k3s-agent still started once this boot" "$(k3s_starts)" 1
        if rpi; then
                expect "generator masked $RPI_LOOP_UNIT early" \
                        "$(readlink "/run/systemd/generator.early/$RPI_LOOP_UNIT" 2>/dev/null)" /dev/null
                check_rpi_swap_off "at boot"
        fi
        no_failed_units "at boot, policy applied"

        ns revert --json
        ns_expect_rc "revert before the third boot" 0
        wait_for 15 distro_zram_on
        check "revert in the same boot: distro zram0 back" "$(swaps_summary)" distro_zram_on
        check_rpi_swap_back "revert in the same boot"
        no_failed_units "after revert"
        echo reverted >"$STATE/e-phase"
}

# e, third boot: the node stays reverted
scenario_e_boot3() {
        if [[ $(cat "$STATE/e-phase" 2>/dev/null) != reverted ]]; then
                fail "the node was reverted before the reboot"
                return
        fi
        wait_for 30 distro_zram_on
        check "distro zram0 on at priority 100 with $DISTRO_ALG" "$(swaps_summary)" distro_zram_on
        check "no nodeswap swap" "$(swaps_summary)" test "$(swaps)" = "/dev/zram0 100"
        check "the generator masks nothing" \
                "$(find /run/systemd/generator.early -lname /dev/null 2>/dev/null | tr '\n' ' ')" \
                test -z "$(find /run/systemd/generator.early -lname /dev/null 2>/dev/null)"
        expect "dev-zram0.swap not masked" "$(prop dev-zram0.swap LoadState)" loaded
        expect "rpi-zram-writeback.timer active" "$(prop rpi-zram-writeback.timer ActiveState)" active
        if [[ -e $DROPIN ]]; then
                expect "drop-in says NoSwap" "$(dropin_behavior)" NoSwap
        else
                pass "no drop-in"
        fi
        expect "vm.swappiness as before nodeswap" "$(sysctl_get swappiness)" "$BASE_SWAPPINESS"
        expect "vm.page-cluster as before nodeswap" "$(sysctl_get page-cluster)" "$BASE_PAGE_CLUSTER"
        check "nodeswap.service did not fail" "$(prop nodeswap.service ActiveState)/$(prop nodeswap.service Result)" \
                test "$(prop nodeswap.service ActiveState)" != failed
        expect "k3s-agent started once this boot" "$(k3s_starts)" 1
        k3s_saw_current "at boot" NoSwap
        check_rpi_swap_back "reverted, at boot"
        no_failed_units "at boot, reverted"
}

# g: rpi-swap set to Mechanism=zram (its remove service deletes any file at its [File] Path=,
# /var/swap, early at every boot) and nodeswap's swap file at that very path. The boot before g2
# reverts nodeswap and sets rpi-swap to zram; g2 sees rpi-swap delete its old /var/swap, then
# applies nodeswap's policy; g3 proves the file survived the reboot, then reverts.
G_CONF=/etc/rpi/swap.conf.d/50-e2e-zram.conf
scenario_g_prepare() {
        if ! rpi; then
                line SKIP "needs the rpi-swap stand-in (E2E_STANDIN=rpi-swap)"
                return
        fi
        ns revert --json
        ns_expect_rc "prepare: revert nodeswap" 0
        # g's policy is the whole policy: the Ansible run before leaves its drop-in
        # (nodeswap.conf.d/50-ansible.conf), whose [File] Path= would win over g's.
        info "prepare: policy drop-ins removed" "$(ls /etc/nodeswap/nodeswap.conf.d/ 2>/dev/null | tr '\n' ' ')"
        rm -f /etc/nodeswap/nodeswap.conf.d/*.conf
        printf '# e2e scenario g\n[Main]\nMechanism=zram\n' >"$G_CONF"
        echo prepared >"$STATE/g-phase"
        pass "prepare: rpi-swap set to Mechanism=zram for the next boot" "$(tr '\n' ' ' <"$G_CONF")"
}
scenario_g_boot2() {
        if [[ $(cat "$STATE/g-phase" 2>/dev/null) != prepared ]]; then
                line SKIP "not prepared (needs the rpi-swap stand-in)"
                return
        fi
        wait_for 30 distro_zram_on
        check "rpi-swap's zram0 on (Mechanism=zram)" "$(swaps_summary)" distro_zram_on
        expect "rpi-swap's remove service ran at boot" \
                "$(prop rpi-remove-swap-file@var-swap.service Result)/$(prop rpi-remove-swap-file@var-swap.service ExecMainStatus)" \
                success/0
        check "rpi-swap deleted its old $RPI_FILE at boot" "$(ls -l "$RPI_FILE" 2>&1)" test ! -e "$RPI_FILE"
        check "no loop device (zram without writeback)" "$(losetup -a 2>&1)" test -z "$(losetup -a 2>/dev/null)"

        write_policy varswap
        ns apply --json
        ns_expect_rc "apply with [File] Path=$RPI_FILE" 0
        expect "nodeswap's file on at priority 10" "$(swap_prio "$RPI_FILE")" 10 "$(swaps_summary)"
        check "rpi-swap's zram0 off" "$(swaps_summary)" test -z "$(distro_zram_swaps)"
        systemctl daemon-reload
        expect "rpi-remove-swap-file@var-swap.service masked" \
                "$(prop rpi-remove-swap-file@var-swap.service LoadState)" masked
        expect "after a reload, the generator masks it early" \
                "$(readlink /run/systemd/generator.early/rpi-remove-swap-file@var-swap.service 2>/dev/null)" /dev/null
        check "rpi-swap-generator now links its remove service for $RPI_FILE (it is a regular file)" \
                "$(ls /run/systemd/generator/local-fs.target.wants/ 2>&1 | tr '\n' ' ')" \
                test -L /run/systemd/generator/local-fs.target.wants/rpi-remove-swap-file@var-swap.service
        no_failed_units "after apply"
        stat -c %i "$RPI_FILE" >"$STATE/g-inode"
        echo applied >"$STATE/g-phase"
}
scenario_g_boot3() {
        if [[ $(cat "$STATE/g-phase" 2>/dev/null) != applied ]]; then
                line SKIP "not applied before the reboot"
                return
        fi
        expect "nodeswap.service succeeded" "$(prop nodeswap.service Result)" success
        expect "rpi-remove-swap-file@var-swap.service masked at boot" \
                "$(prop rpi-remove-swap-file@var-swap.service LoadState)" masked
        expect "it never ran this boot" "$(prop rpi-remove-swap-file@var-swap.service ExecMainStartTimestampMonotonic)" 0
        expect "nodeswap's $RPI_FILE survived the reboot (same inode)" "$(stat -c %i "$RPI_FILE" 2>&1)" \
                "$(cat "$STATE/g-inode")"
        expect "and is on at priority 10" "$(swap_prio "$RPI_FILE")" 10 "$(swaps_summary)"
        check "rpi-swap's zram0 off" "$(swaps_summary)" test -z "$(distro_zram_swaps)"
        no_failed_units "at boot"
        ns revert --json
        ns_expect_rc "revert" 0
        wait_for 15 distro_zram_on
        check "after revert rpi-swap's zram0 is back" "$(swaps_summary)" distro_zram_on
        check "nodeswap's file is off" "$(swaps_summary)" test -z "$(swap_prio "$RPI_FILE")"
        no_failed_units "after revert"
}

# ---------------------------------------------------------------------------------------------
# x: the encrypted swap file ([File] Encrypt=, issue 37). Boot 1 (scenario x): a marker pushed into
# swap is found on the disk's blocks of a plain file and not in those of an encrypted one; the
# switch from the plain file to the encrypted one keeps the pages (through the bridge) and leaves
# no marker in the old file's blocks; the mapping's cipher, key size, sector size and loop device;
# the key in no file or log; a fault after each step of the switch leaves swap on and a rerun
# converges. x-prepare leaves the encrypted policy applied; boot x2: nodeswap.service made the
# mapping at boot with a new key, swap past 90 % under a memory hog without a hung task, revert.
X_NAME=nodeswap-var-lib-nodeswap-swapfile
X_CG=/sys/fs/cgroup/nodeswap-e2e-x
X_DIR=$RUN/x
x_policy() {  # x_policy yes|no: the swap file alone, encrypted or not
        mkdir -p /etc/nodeswap
        # no [Kubelet] section: no kubelet restart at each of the scenario's many applies
        printf '%s\n' "[Swap]" "Backend=file" "" "[File]" "Path=$SWAPFILE" "Size=64M" "Priority=10" "Encrypt=$1" >"$POLICY"
        chmod 0644 "$POLICY"
}
x_dm() { local d; for d in /sys/block/dm-*; do [[ $(cat "$d/dm/name" 2>/dev/null) == "$X_NAME" ]] && echo "/dev/${d##*/}"; done; }
x_mappings() { local n=0 d; for d in /sys/block/dm-*; do [[ $(cat "$d/dm/name" 2>/dev/null) == nodeswap-* ]] && n=$((n + 1)); done; echo "$n"; }
x_loops() { losetup -n -O NAME -j "$SWAPFILE" 2>/dev/null | wc -l; }
x_disk() { findmnt -n -o SOURCE --target "$SWAPFILE"; }
# x_extents FILE: "START LENGTH" in 4 KiB blocks of the file system's device, one line an extent
x_extents() {
        filefrag -v -b4096 "$1" 2>/dev/null | awk -F: '$1 ~ /^ *[0-9]+$/ { split($3, p, /\.\./); gsub(/ /, "", p[1]); gsub(/ /, "", $4); print p[1], $4 }'
}
# x_found MARK EXTENTS-FILE: in how many newline-separated runs of those extents on the device MARK is, read
# with O_DIRECT from the block device (not through the file system, which would read an unwritten
# extent as zeros)
x_found() {
        local disk start len n=0 k
        disk=$(x_disk)
        while read -r start len; do
                [[ -n $start && -n $len ]] || continue
                k=$(dd if="$disk" bs=4096 skip="$start" count="$len" iflag=direct status=none | grep -a -c -F "$1")
                n=$(( n + ${k:-0} ))
        done <"$2"
        echo "$n"
}
x_zswap_off() {
        if [[ -w /sys/module/zswap/parameters/enabled ]]; then
                [[ -e $X_DIR/zswap-was ]] || cat /sys/module/zswap/parameters/enabled >"$X_DIR/zswap-was"
                echo N >/sys/module/zswap/parameters/enabled
        fi
}
x_zswap_restore() {
        [[ -e $X_DIR/zswap-was ]] && cat "$X_DIR/zswap-was" >/sys/module/zswap/parameters/enabled 2>/dev/null
        rm -f "$X_DIR/zswap-was"
}
# x_marker_start TAG MIB: a process in a cgroup of 24 MiB that fills MIB MiB with a random 32-byte
# marker (whole markers in every 4 KiB page), pushed out to swap with memory.reclaim; on SIGUSR1
# it counts the markers in its memory (all back from swap, intact) into $X_DIR/TAG.result
x_marker_start() {
        local tag=$1 mib=$2
        X_MARK="NSX-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')-END"
        mkdir -p "$X_CG"
        echo 24M >"$X_CG/memory.max"
        echo max >"$X_CG/memory.swap.max" 2>/dev/null
        rm -f "$X_DIR/$tag.ready" "$X_DIR/$tag.result"
        ( echo "$BASHPID" >"$X_CG/cgroup.procs" && exec python3 -c '
import signal, sys
mark, mib, ready, result = sys.argv[1].encode(), int(sys.argv[2]), sys.argv[3], sys.argv[4]
n = mib * 1048576 // len(mark)
buf = bytearray(len(mark) * n)
for i in range(0, len(buf), 1048576):
    buf[i:i + 1048576] = mark * (1048576 // len(mark))
go = []
signal.signal(signal.SIGUSR1, lambda s, f: go.append(1))
open(ready, "w").write("ready")
while not go:
    signal.pause()
open(result, "w").write("ok" if buf.count(mark) == n else "corrupt %d of %d" % (buf.count(mark), n))
' "$X_MARK" "$mib" "$X_DIR/$tag.ready" "$X_DIR/$tag.result" ) </dev/null >"$X_DIR/$tag.out" 2>&1 &
        X_PID=$!
        wait_for 120 test -e "$X_DIR/$tag.ready" || { fail "$tag: the marker process is ready" "$(tail -c 300 "$X_DIR/$tag.out")"; return 1; }
        echo "$(( mib * 2 ))M" >"$X_CG/memory.reclaim" 2>/dev/null
        sync
        local sw; sw=$(cat "$X_CG/memory.swap.current" 2>/dev/null)
        check "$tag: the marker's pages were pushed to swap (memory.swap.current >= $((mib / 2)) MiB)" \
                "${sw:-?} bytes; $(swaps_summary)" test "${sw:-0}" -ge $(( mib / 2 * 1048576 ))
}
x_marker_end() {  # x_marker_end TAG: the process reads its memory back, then the cgroup goes
        kill -USR1 "$X_PID" 2>/dev/null
        wait "$X_PID" 2>/dev/null
        expect "$1: every marker came back from swap intact" "$(cat "$X_DIR/$1.result" 2>/dev/null)" ok "$(tail -c 300 "$X_DIR/$1.out")"
        rmdir "$X_CG" 2>/dev/null
}
x_converged() {  # x_converged WHEN WANT_ENCRYPTED(yes|no)
        ns plan --json
        expect "$1: a rerun has nothing left to do" "$(json 'len(j["actions"])')" 0 "$(json '[a["kind"] + " " + a["target"] for a in j["actions"]]')"
        if [[ $2 == yes ]]; then
                expect "$1: the encrypted file on through its mapping at priority 10" "$(swap_prio "$(x_dm)")" 10 "$(swaps_summary)"
        else
                expect "$1: the plain file on at priority 10" "$(swap_prio "$SWAPFILE")" 10 "$(swaps_summary)"
        fi
        expect "$1: mappings of nodeswap's" "$(x_mappings)" "$([[ $2 == yes ]] && echo 1 || echo 0)"
        expect "$1: loop devices over the file" "$(x_loops)" "$([[ $2 == yes ]] && echo 1 || echo 0)"
        check "$1: no bridge left" "$(ls -a /var/lib/nodeswap)" test ! -e /var/lib/nodeswap/.#swapfile.bridge
}
x_check_mapping() {  # what the mapping is made of, the key never shown
        local dm loop table keylen
        dm=$(x_dm)
        check "the mapping $X_NAME exists and is swap" "$dm; $(swaps_summary)" test -n "$(swap_prio "$dm")"
        check "the file itself is not swapped on" "$(swaps_summary)" test -z "$(swap_prio "$SWAPFILE")"
        table=$(dmsetup table "$X_NAME" 2>&1 | sed 's/ [0-9a-f]\{32,\} / KEY /')
        check "plain dm-crypt, aes-xts-plain64, data after the marker page (offset 8), 4096-byte sectors" "$table" \
                eval '[[ $table == *" crypt aes-xts-plain64 "*" 8 "*"sector_size:4096"* ]]'
        keylen=$(dmsetup table --showkeys "$X_NAME" 2>/dev/null | awk '{ print length($5) }')
        expect "a 512-bit key (AES-256 in XTS)" "$(( ${keylen:-0} * 4 ))" 512
        loop=$(losetup -n -O NAME -j "$SWAPFILE" 2>/dev/null | head -n 1)
        expect "the loop device under it does direct I/O" "$(cat "/sys/block/${loop#/dev/}/loop/dio" 2>/dev/null)" 1 "$loop"
        expect "it goes with the mapping (autoclear)" "$(cat "/sys/block/${loop#/dev/}/loop/autoclear" 2>/dev/null)" 1
        expect "its logical block size is the disk's" "$(cat "/sys/block/${loop#/dev/}/queue/logical_block_size" 2>/dev/null)" \
                "$(cat "/sys/block/$(basename "$(x_disk)")/queue/logical_block_size" 2>/dev/null)"
        check "the file is written, no unwritten (fallocated) extent" "$(filefrag -v "$SWAPFILE" 2>&1 | grep -c unwritten) unwritten" \
                eval '! filefrag -v "$SWAPFILE" 2>/dev/null | grep -q unwritten'
        expect "the file starts with nodeswap's marker" "$(head -c 16 "$SWAPFILE")" NODESWAP-CRYPT-1
        expect "the swap header is on the mapping" "$(blkid -o value -s TYPE "$dm")/$(blkid -o value -s LABEL "$dm")" swap/nodeswap
        # the key: in the kernel only (the check greps for it and prints nothing of it)
        local key hits
        key=$(dmsetup table --showkeys "$X_NAME" 2>/dev/null | awk '{ print $5 }')
        hits=$( { grep -rlF "$key" /var/lib/nodeswap /run/nodeswap-state /etc/nodeswap 2>/dev/null; journalctl -b -o cat 2>/dev/null | grep -cF "$key"; } | tr '\n' ' ')
        expect "the key is in no file of nodeswap's and not in the journal" "$hits" "0 "
        key=
}
# The [Zram] Writeback= file (WritebackEncrypt=): zram alone, 64M, writing back to X_WB, no timer
X_WB=/var/lib/nodeswap/xwb
X_WB_NAME=nodeswap-var-lib-nodeswap-xwb
X_WB_BRIDGE=/var/lib/nodeswap/.#xwb.bridge
x_wb_policy() {  # x_wb_policy yes|no
        printf '%s\n' "[Swap]" "Backend=zram" "" "[Zram]" "Size=64M" "Priority=100" "Writeback=$X_WB" \
                "WritebackEncrypt=$1" "WritebackInterval=0" >"$POLICY"
        chmod 0644 "$POLICY"
}
x_wb_zram() { local d; for d in /sys/block/zram*; do [[ $(cat "$d/backing_dev" 2>/dev/null) == /dev/* ]] && echo "${d##*/}"; done | head -n 1; }
x_wb_dm() { local d; for d in /sys/block/dm-*; do [[ $(cat "$d/dm/name" 2>/dev/null) == "$X_WB_NAME" ]] && echo "/dev/${d##*/}"; done; }
x_wb_loops() { losetup -n -O NAME -j "$X_WB" 2>/dev/null | wc -l; }
# x_wb_writeback TAG: every page of nodeswap's zram device marked idle and written back to the
# backing device (Documentation/admin-guide/blockdev/zram.rst: "echo all > idle", then
# "echo idle > writeback"), then sync
x_wb_writeback() {
        local z before after
        z=$(x_wb_zram)
        before=$(awk '{ print $3 }' "/sys/block/$z/bd_stat" 2>/dev/null)
        echo all >"/sys/block/$z/idle" 2>"$X_DIR/$1.idle.err"
        echo idle >"/sys/block/$z/writeback" 2>"$X_DIR/$1.wb.err"
        sync
        after=$(awk '{ print $3 }' "/sys/block/$z/bd_stat" 2>/dev/null)
        check "$1: pages written back to $(cat "/sys/block/$z/backing_dev" 2>/dev/null) (bd_stat writes ${before:-?} -> ${after:-?} pages)" \
                "$(cat "$X_DIR/$1.idle.err" "$X_DIR/$1.wb.err" 2>/dev/null)" test "${after:-0}" -gt $(( ${before:-0} + 1024 ))
}
# x_wb_apply_watched WHEN: apply while /proc/swaps is read every 20 ms; a moment without any swap
# area is counted
x_wb_apply_watched() {
        rm -f "$X_DIR/watch.stop" "$X_DIR/watch.out"
        ( while [[ ! -e $X_DIR/watch.stop ]]; do
                  n=$(( $(wc -l </proc/swaps) - 1 ))
                  (( n < 1 )) && echo "no swap at $(date +%T.%N)" >>"$X_DIR/watch.out"
                  sleep 0.02
          done ) &
        local watcher=$!
        ns apply --json
        touch "$X_DIR/watch.stop"
        wait "$watcher"
        ns_expect_rc "$1: apply exits 0" 0
        expect "$1: swap on throughout (/proc/swaps never empty)" "$(wc -l <"$X_DIR/watch.out" 2>/dev/null || echo 0)" 0 \
                "$(head -n 3 "$X_DIR/watch.out" 2>/dev/null)"
}
x_wb_converged() {  # x_wb_converged WHEN WANT_ENCRYPTED(yes|no)
        local z; z=$(x_wb_zram)
        ns plan --json
        expect "$1: a rerun has nothing left to do" "$(json 'len(j["actions"])')" 0 "$(json '[a["kind"] + " " + a["target"] for a in j["actions"]]')"
        if [[ $2 == yes ]]; then
                expect "$1: zram's backing_dev is the writeback file's mapping" "$(cat "/sys/block/$z/backing_dev" 2>/dev/null)" "$(x_wb_dm)"
        else
                expect "$1: zram's backing_dev is a loop device over the file" \
                        "$(cat "/sys/block/$z/backing_dev" 2>/dev/null)" "$(losetup -n -O NAME -j "$X_WB" 2>/dev/null | head -n 1)"
        fi
        expect "$1: one loop device over the writeback file" "$(x_wb_loops)" 1
        expect "$1: zram on at priority 100" "$(swap_prio "/dev/$z")" 100 "$(swaps_summary)"
        check "$1: no bridge left" "$(ls -a /var/lib/nodeswap)" test ! -e "$X_WB_BRIDGE"
}
# 5. zram's writeback file: the marker on the disk in clear with WritebackEncrypt=no, gone after the
# switch (which keeps swap on throughout), absent with WritebackEncrypt=yes; faults in the switch
x_writeback() {
        rm -f "$X_WB"
        x_wb_policy no
        ns apply --json
        ns_expect_rc "writeback: apply WritebackEncrypt=no (zram alone)" 0
        x_wb_converged "writeback in clear" no
        x_marker_start wbplain 32 || return
        x_wb_writeback wbplain
        x_extents "$X_WB" >"$X_DIR/wb-extents"
        local found; found=$(x_found "$X_MARK" "$X_DIR/wb-extents")
        check "WritebackEncrypt=no: the marker is in the writeback file's blocks on the disk" \
                "in $found runs of the blocks read; extents $(tr '\n' ' ' <"$X_DIR/wb-extents")" test "${found:-0}" -gt 0

        x_wb_policy yes
        ns plan --json
        local order
        order=$(json '" ".join(a["kind"] + ":" + a["target"] for a in j["actions"])')
        expect "writeback: the switch is make before break through the bridge" \
                "$(json '" ".join(a["kind"] for a in j["actions"] if a["kind"] != "features-write")')" \
                "file-create swapoff zram-remove zram-create swapoff file-remove" "$order"
        x_wb_apply_watched "writeback: the switch to WritebackEncrypt=yes"
        x_extents "$X_WB" >"$X_DIR/wb-extents2"
        expect "after the switch the writeback file's blocks hold no marker" \
                "$(x_found "$X_MARK" "$X_DIR/wb-extents") $(x_found "$X_MARK" "$X_DIR/wb-extents2")" "0 0"
        x_marker_end wbplain
        x_wb_converged "writeback encrypted" yes
        expect "the writeback file starts with nodeswap's marker" "$(head -c 16 "$X_WB")" NODESWAP-CRYPT-1
        local table keylen
        table=$(dmsetup table "$X_WB_NAME" 2>&1 | sed 's/ [0-9a-f]\{32,\} / KEY /')
        check "writeback: plain dm-crypt, aes-xts-plain64, offset 8, 4096-byte sectors" "$table" \
                eval '[[ $table == *" crypt aes-xts-plain64 "*" 8 "*"sector_size:4096"* ]]'
        keylen=$(dmsetup table --showkeys "$X_WB_NAME" 2>/dev/null | awk '{ print length($5) }')
        expect "writeback: a 512-bit key of its own" "$(( ${keylen:-0} * 4 ))" 512
        ns status --json
        expect "status: zram's writeback file encrypted, its cipher and key size (never the key)" \
                "$(json '[[s["zram"]["writeback"][k] for k in ("encrypted", "cipher", "key_bits", "ephemeral_key", "file", "loop_dio")] for s in j["swaps"] if s.get("zram") and s["zram"].get("writeback")]')" \
                "[[true, \"aes-xts-plain64\", 512, true, \"$X_WB\", true]]"

        x_marker_start wbcrypt 32 || return
        x_wb_writeback wbcrypt
        x_extents "$X_WB" >"$X_DIR/wb-extents"
        expect "WritebackEncrypt=yes: the marker is not in the writeback file's blocks on the disk" "$(x_found "$X_MARK" "$X_DIR/wb-extents")" 0
        x_marker_end wbcrypt

        # a fault after each step of the switch (in clear -> encrypted): swap stays on, a rerun converges
        if nodeswap --version 2>/dev/null | grep -q +fault-injection; then
                local steps n rc
                x_wb_policy no
                ns apply --json
                x_wb_policy yes
                ns plan --json
                # and the two steps inside zram-create: the file overwritten and marked, the mapping made
                steps=$(( $(json 'len(j["actions"])') + 2 ))
                for (( n = 1; n < steps; n++ )); do
                        x_wb_policy no
                        ns apply --json
                        [[ $NS_RC == 0 ]] || fail "writeback fault $n: back to the file in clear" "rc=$NS_RC"
                        x_wb_policy yes
                        NODESWAP_FAULT_KILL_AFTER=$n timeout 300 nodeswap apply >"$X_DIR/wbfault-$n.out" 2>&1
                        rc=$?
                        check "writeback fault after step $n of $steps: swap stays on" \
                                "rc=$rc $(grep -o 'killed after step.*' "$X_DIR/wbfault-$n.out"); $(swaps_summary)" test "$(swap_count)" -gt 0
                        ns apply --json
                        ns_expect_rc "writeback fault after step $n: the rerun" 0
                        x_wb_converged "writeback fault after step $n" yes
                done
        fi

        ns revert --json
        ns_expect_rc "writeback: revert" 0
        expect "after revert: no mapping of the writeback file, no loop device over it" "$(x_wb_dm)/$(x_wb_loops)" "/0" \
                "$(dmsetup ls 2>&1 | tr '\n' ' ')"
        rm -f "$X_WB"
        x_policy yes
        ns apply --json
        ns_expect_rc "back to the encrypted swap file alone" 0
        x_converged "after the writeback steps" yes
}
scenario_x() {
        mkdir -p "$X_DIR"
        ns revert --json
        ns_expect_rc "start from a reverted node" 0
        x_zswap_off

        # 1. a plain file: the marker is on the disk (the check below can fail)
        x_policy no
        ns apply --json
        ns_expect_rc "apply Encrypt=no" 0
        expect "the plain file is on at priority 10" "$(swap_prio "$SWAPFILE")" 10 "$(swaps_summary)"
        x_marker_start plain 48 || return
        x_extents "$SWAPFILE" >"$X_DIR/old-extents"
        local found; found=$(x_found "$X_MARK" "$X_DIR/old-extents")
        check "Encrypt=no: the marker is in the file's blocks on the disk" "in $found runs of the blocks read; extents $(tr '\n' ' ' <"$X_DIR/old-extents")" \
                test "${found:-0}" -gt 0

        # 2. the switch to the encrypted file, the marker's pages still in swap
        x_policy yes
        ns plan --json
        info "the switch's plan" "$(json '[a["kind"] + " " + a["target"] for a in j["actions"]]')"
        local order
        order=$(json '" ".join(a["kind"] for a in j["actions"] if "swapfile" in a["target"])')
        expect "make before break: the bridge, the old file off and overwritten, the new one, the bridge away" "$order" \
                "file-create swapoff file-remove file-create swapoff file-remove"
        ns apply --json
        ns_expect_rc "apply Encrypt=yes (the switch)" 0
        found=$(x_found "$X_MARK" "$X_DIR/old-extents")
        expect "after the switch the old file's blocks hold no marker" "$found" 0
        x_extents "$SWAPFILE" >"$X_DIR/new-extents"
        expect "nor does the new file" "$(x_found "$X_MARK" "$X_DIR/new-extents")" 0
        x_marker_end plain
        x_check_mapping

        # 3. the encrypted file: the marker's pages reach it, and it is not on the disk
        x_marker_start crypt 48 || return
        expect "the marker's pages went to the mapping" "$(awk -v d="$(x_dm)" 'NR > 1 && $1 == d { print ($4 > 16384) }' /proc/swaps)" 1 "$(swaps_summary)"
        x_extents "$SWAPFILE" >"$X_DIR/new-extents"
        expect "Encrypt=yes: the marker is not in the file's blocks on the disk" "$(x_found "$X_MARK" "$X_DIR/new-extents")" 0
        x_marker_end crypt

        # 4. a fault after each step of the switch (plain -> encrypted): swap stays on, a rerun converges
        if nodeswap --version 2>/dev/null | grep -q +fault-injection; then
                x_policy no
                ns apply --json
                x_policy yes
                ns plan --json
                local steps n
                steps=$(json 'len(j["actions"])')
                for (( n = 1; n < ${steps:-0}; n++ )); do
                        x_policy no
                        ns apply --json
                        [[ $NS_RC == 0 ]] || fail "fault $n: back to the plain file" "rc=$NS_RC"
                        x_policy yes
                        NODESWAP_FAULT_KILL_AFTER=$n timeout 300 nodeswap apply >"$X_DIR/fault-$n.out" 2>&1
                        local rc=$?
                        check "fault after step $n of $steps: swap stays on" "rc=$rc; $(swaps_summary)" test "$(swap_count)" -gt 0
                        ns apply --json
                        ns_expect_rc "fault after step $n: the rerun" 0
                        x_converged "fault after step $n" yes
                done
        else
                line SKIP "faults: this nodeswap is built without -Dfault-injection=true"
        fi
        x_converged "after the switch" yes
        local t0=$SECONDS
        x_writeback
        info "writeback steps" "$(( SECONDS - t0 )) s"
        x_zswap_restore
        no_failed_units "scenario x"
}
scenario_x_prepare() {
        x_policy yes
        ns apply --json
        ns_expect_rc "prepare: the encrypted policy stays applied for the next boot" 0
        # the first KiB of the encrypted swap header: made with this boot's key
        dd if="$SWAPFILE" bs=1024 skip=4 count=1 iflag=direct status=none | od -An -tx1 | tr -d ' \n' >"$STATE/x-key1-block"
        echo applied >"$STATE/x-phase"
}
x_hog() {  # swap on the mapping past 90 % under a memory hog held at 24 MiB, the hung-task detector on
        local hung_was size
        hung_was=$(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null)
        if [[ -z $hung_was ]]; then fail "pressure: the kernel has the hung-task detector" "no /proc/sys/kernel/hung_task_timeout_secs"; return; fi
        echo 10 >/proc/sys/kernel/hung_task_timeout_secs
        size=$(awk -v d="$(x_dm)" 'NR > 1 && $1 == d { print $3 }' /proc/swaps)
        # memory.high, not memory.max: above it the kernel reclaims and throttles the allocating
        # task until reclaim keeps up, where memory.max OOM-kills it when reclaim falls behind for a
        # moment (one run of 24 MiB memory.max did, 15 s in): the test is about the swap path
        # holding, not about the OOM killer
        mkdir -p "$X_CG"
        echo max >"$X_CG/memory.max"
        echo 24M >"$X_CG/memory.high"
        rm -f "$X_DIR/hog.result"
        # incompressible MiB after MiB until the mapping is 91 % full (checked after every MiB, so
        # it never fills up and the cgroup is not OOM-killed), then all of it read back twice
        # (swap-in under pressure, pushing the rest out again) against its checksums
        local t0=$SECONDS
        ( echo "$BASHPID" >"$X_CG/cgroup.procs" && exec timeout 900 python3 -c '
import hashlib, os, sys
dev, size, result = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def used():
    for l in open("/proc/swaps").read().splitlines()[1:]:
        f = l.split()
        if f[0] == dev:
            return int(f[3])
    return 0
chunks, sums, peak = [], [], 0
while used() < size * 0.91 and len(chunks) < 2048:
    c = bytearray(os.urandom(1 << 20))
    chunks.append(c)
    sums.append(hashlib.sha1(c).digest())
    peak = max(peak, used())
bad = 0
for _ in range(2):
    for c, s in zip(chunks, sums):
        bad += hashlib.sha1(c).digest() != s
        peak = max(peak, used())
open(result, "w").write("%s %d %d %d" % ("ok" if bad == 0 else "corrupt", len(chunks), peak, bad))
' "$(x_dm)" "${size:-0}" "$X_DIR/hog.result" ) </dev/null >"$X_DIR/hog.out" 2>&1
        local res peak
        res=$(cat "$X_DIR/hog.result" 2>/dev/null)
        peak=$(awk '{ print $3 }' <<<"$res")
        info "pressure: the hog" "${res:-no result}; $(( SECONDS - t0 )) s; memory.events $(tr '\n' ' ' <"$X_CG/memory.events"); $(tail -c 200 "$X_DIR/hog.out")"
        check "pressure: swap on the mapping past 90 % under the hog" "peak ${peak:-?} of ${size:-?} KiB" \
                test $(( ${peak:-0} * 100 )) -gt $(( ${size:-1} * 90 ))
        expect "pressure: the hog's memory came back intact, twice" "${res%% *}" ok
        rmdir "$X_CG" 2>/dev/null
        expect "pressure: no hung task (kernel log)" "$(dmesg 2>/dev/null | grep -c 'blocked for more than')" 0
        echo "$hung_was" >/proc/sys/kernel/hung_task_timeout_secs
}
scenario_x_boot2() {
        if [[ $(cat "$STATE/x-phase" 2>/dev/null) != applied ]]; then
                line SKIP "not applied before the reboot"
                return
        fi
        mkdir -p "$X_DIR"
        expect "nodeswap.service succeeded" "$(prop nodeswap.service Result)" success
        x_check_mapping
        x_converged "at boot" yes
        local now; now=$(dd if="$SWAPFILE" bs=1024 skip=4 count=1 iflag=direct status=none | od -An -tx1 | tr -d ' \n')
        check "a new key at boot: the encrypted swap header's first KiB differs from the last boot's" \
                "$(head -c 32 "$STATE/x-key1-block" 2>/dev/null)... -> ${now:0:32}..." \
                test -s "$STATE/x-key1-block" -a "$now" != "$(cat "$STATE/x-key1-block" 2>/dev/null)"
        ns status --json
        expect "status: the file encrypted, its cipher and key size (never the key)" \
                "$(json '[[s["encryption"]["encrypted"], s["encryption"]["cipher"], s["encryption"]["key_bits"], s["encryption"]["ephemeral_key"]] for s in j["swaps"] if s["path"] == "'"$SWAPFILE"'"]')" \
                '[[true, "aes-xts-plain64", 512, true]]'
        # nodeswap bench: the plain and the encrypted file side by side, and the cipher's own speed
        # through AF_ALG, which Debian's kernel offers (the figures are TCG's: relative only)
        ns bench --json
        expect "bench: exits 0" "$NS_RC" 0
        info "bench: plain file" "$(json '{k: j["file"].get(k) for k in ("write_bytes_per_second", "node_cpu_seconds_per_gib_out", "read_page_p50_seconds", "read_page_p99_seconds")}')"
        info "bench: encrypted file" "$(json '{k: j["file_encrypted"].get(k) for k in ("error", "write_bytes_per_second", "node_cpu_seconds_per_gib_out", "read_page_p50_seconds", "read_page_p99_seconds", "cipher_error", "cipher_encrypt_bytes_per_second", "cipher_decrypt_bytes_per_second")}')"
        expect "bench: the encrypted file measured" \
                "$(json 'j["file_encrypted"]["error"] is None and j["file_encrypted"]["write_bytes_per_second"] > 0 and j["file_encrypted"]["reads"] > 0')" true
        expect "bench: the cipher measured through AF_ALG" \
                "$(json 'j["file_encrypted"]["cipher_error"] is None and j["file_encrypted"]["cipher_encrypt_bytes_per_second"] > 0')" true
        expect "bench: no mapping, loop device or file of its own left" \
                "$(dmsetup ls 2>/dev/null | grep -c nodeswap-bench) $(losetup -a 2>/dev/null | grep -c nodeswap-bench)" "0 0"
        x_zswap_off
        x_hog
        x_zswap_restore
        ns revert --json
        ns_expect_rc "revert" 0
        expect "after revert: no mapping of nodeswap's" "$(x_mappings)" 0 "$(dmsetup ls 2>&1 | tr '\n' ' ')"
        expect "after revert: no loop device over the file" "$(x_loops)" 0
        check "after revert: the file is not swap" "$(swaps_summary)" test -z "$(swap_prio "$SWAPFILE")"
        no_failed_units "after revert"
}
# ---------------------------------------------------------------------------------------------
# charge: who pays for compressed swap. One process (tests/bench/memhog.c in its compressible
# mode, built by the harness) fills CH_HOG_MIB MiB of compressible memory in a cgroup of its own whose memory.max is CH_MAX_MIB,
# four times: without a limit (the baseline: what filling the memory costs without any swap),
# on a zram swap device (zswap off), on zswap in front of a swap file, and on the swap file
# alone. Everything is set up with the kernel's own interfaces (sysfs, mkswap, swapon), not with
# nodeswap, so the facts hold for any tool. The test's swap area has priority 32767, above every
# other area of the node, so all of the hog's pages go to it; the others stay untouched (checked).
# Checked: with zswap, the pool is above zero and inside the cgroup's memory.current (anon +
# zswap <= memory.current <= memory.max); with zram, mm_stat's memory is above zero and the
# cgroup shows none of it (memory.current <= memory.max < anon + mem_used_total).
# Every run prints its numbers (INFO lines) and one "DATA charge {json}" line, from which the
# host can write the README's table (E2E_CHARGE_DIR, tests/bench/charge-report.py).

CH_CG=/sys/fs/cgroup/nodeswap-e2e-charge
CH_HOG=/usr/local/lib/nodeswap-e2e/memhog
CH_DIR=$STATE/charge
CH_FILE=/var/lib/nodeswap-e2e/charge.swap
CH_MAX_MIB=64 CH_HOG_MIB=128 CH_SWAP_MIB=256 CH_PRIO=32767
CH_ZSWAP=/sys/module/zswap/parameters
CH_ALG=zstd CH_ZPOOL=zsmalloc
CH_ZRAM_ID='' CH_SWAP_DEV='' CH_HOG_PID='' CH_ROUND=1 CH_P=''
declare -A CH_SAVED=() CH=()

ch_kv() { awk -v k="$2" '$1 == k || $1 == k ":" { print $2; exit }' "$1" 2>/dev/null; }  # ch_kv FILE KEY
ch_hog_ready_or_gone() { [[ -e $CH_DIR/ready ]] || ! kill -0 "$CH_HOG_PID" 2>/dev/null; }
ch_num() { local v; v=$(cat "$1" 2>/dev/null); echo "${v:-0}"; }
ch_mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# the block device under / (the swap file's writes land there)
ch_disk() {
        local src
        src=$(findmnt -no SOURCE / 2>/dev/null)
        src=$(basename "$(readlink -f "$src")")
        [[ -e /sys/block/$src ]] && { echo "$src"; return; }
        basename "$(readlink -f "/sys/class/block/$src/..")"
}
ch_disk_written() { awk '{ print $7 * 512 }' "/sys/block/$CH_DISK/stat"; }   # bytes written to the disk
ch_cpu_sys_ticks() { awk '$1 == "cpu" { print $4 + $7 + $8 }' /proc/stat; }   # system + irq + softirq
ch_other_swap_used() { awk -v d="$CH_SWAP_DEV" 'NR > 1 && $1 != d { s += $4 } END { print s + 0 }' /proc/swaps; }

ch_zswap_set() {  # ch_zswap_set PARAM VALUE
        echo "$2" >"$CH_ZSWAP/$1" 2>/dev/null && [[ $(cat "$CH_ZSWAP/$1") == "$2" ]]
}
ch_zswap_save() {
        local p
        for p in enabled compressor zpool; do CH_SAVED[$p]=$(cat "$CH_ZSWAP/$p"); done
}
ch_zswap_restore() {
        [[ -n ${CH_SAVED[enabled]:-} ]] || return 0
        echo N >"$CH_ZSWAP/enabled"
        echo "${CH_SAVED[compressor]}" >"$CH_ZSWAP/compressor"
        echo "${CH_SAVED[zpool]}" >"$CH_ZSWAP/zpool"
        echo "${CH_SAVED[enabled]}" >"$CH_ZSWAP/enabled"
}

ch_setup() {  # ch_setup BACKEND: the swap under test; 0 when it is ready
        CH_ZRAM_ID='' CH_SWAP_DEV=''
        case $1 in
        none) return 0 ;;
        zram)
                ch_zswap_set enabled N || return 1
                CH_ZRAM_ID=$(cat /sys/class/zram-control/hot_add) || return 1
                local z=/sys/block/zram$CH_ZRAM_ID
                echo "$CH_ALG" >"$z/comp_algorithm" && echo "${CH_SWAP_MIB}M" >"$z/disksize" || return 1
                CH_SWAP_DEV=/dev/zram$CH_ZRAM_ID
                wait_for 10 test -b "$CH_SWAP_DEV" || return 1
                ;;
        zswap|file)
                rm -f "$CH_FILE"
                fallocate -l "${CH_SWAP_MIB}M" "$CH_FILE" && chmod 0600 "$CH_FILE" || return 1
                CH_SWAP_DEV=$CH_FILE
                if [[ $1 == zswap ]]; then
                        ch_zswap_set enabled N && ch_zswap_set compressor "$CH_ALG" &&
                                ch_zswap_set zpool "$CH_ZPOOL" && ch_zswap_set enabled Y || return 1
                else
                        ch_zswap_set enabled N || return 1
                fi
                ;;
        esac
        mkswap "$CH_SWAP_DEV" >/dev/null 2>&1 && swapon -p "$CH_PRIO" "$CH_SWAP_DEV"
}
ch_teardown() {
        if [[ -n $CH_HOG_PID ]]; then
                kill -KILL "$CH_HOG_PID" 2>/dev/null
                wait "$CH_HOG_PID" 2>/dev/null
                CH_HOG_PID=
        fi
        [[ -d $CH_CG ]] && wait_for 10 rmdir "$CH_CG" 2>/dev/null
        if [[ -n $CH_SWAP_DEV ]]; then
                swap_on "$CH_SWAP_DEV" && swapoff "$CH_SWAP_DEV"
        fi
        if [[ -n $CH_ZRAM_ID ]]; then
                echo 1 >"/sys/block/zram$CH_ZRAM_ID/reset" 2>/dev/null
                echo "$CH_ZRAM_ID" >/sys/class/zram-control/hot_remove 2>/dev/null
        fi
        rm -f "$CH_FILE"
        ch_zswap_restore
        CH_ZRAM_ID='' CH_SWAP_DEV=''
}

ch_sample() {  # ch_sample PREFIX: counters into CH[PREFIX.*]
        local p=$1
        sync
        CH[$p.pswpout]=$(ch_kv /proc/vmstat pswpout)
        CH[$p.zswpout]=$(ch_kv /proc/vmstat zswpout); CH[$p.zswpout]=${CH[$p.zswpout]:-0}
        CH[$p.disk]=$(ch_disk_written)
        CH[$p.ticks]=$(ch_cpu_sys_ticks)
        CH[$p.other_swap_kb]=$(ch_other_swap_used)
}

ch_run() {  # ch_run BACKEND
        local b=$1 t0 rc=0 z=
        ch_teardown
        rm -rf "$CH_DIR"; mkdir -p "$CH_DIR"
        if ! ch_setup "$b"; then
                fail "$CH_P$b: set up the swap under test" "$(swaps_summary); zswap $(cat "$CH_ZSWAP/enabled") $(cat "$CH_ZSWAP/compressor") $(cat "$CH_ZSWAP/zpool")"
                ch_teardown
                return 1
        fi
        mkdir "$CH_CG" || { fail "$CH_P$b: mkdir $CH_CG"; ch_teardown; return 1; }
        if [[ $b == none ]]; then echo max >"$CH_CG/memory.max"; else echo "${CH_MAX_MIB}M" >"$CH_CG/memory.max"; fi
        ch_sample "$b.0"
        t0=$(date +%s.%N)
        ( echo "$BASHPID" >"$CH_CG/cgroup.procs" && exec "$CH_HOG" "$CH_HOG_MIB" "$CH_DIR/ready" "$CH_DIR/result" compressible ) \
                </dev/null >"$CH_DIR/hog.out" 2>&1 &
        CH_HOG_PID=$!
        wait_for 600 ch_hog_ready_or_gone
        CH[$b.fill_s]=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        if [[ ! -e $CH_DIR/ready ]]; then
                fail "$CH_P$b: the hog filled its $CH_HOG_MIB MiB" "not ready after ${CH[$b.fill_s]} s; $(cat "$CH_DIR/hog.out"); events: $(tr '\n' ' ' <"$CH_CG/memory.events")"
                ch_teardown
                return 1
        fi
        # swap writes still in flight count once they are done
        wait_for 60 out_is 0 ch_kv /proc/vmstat nr_writeback
        sleep 1
        ch_sample "$b.1"
        local c=$CH_CG
        CH[$b.current]=$(ch_num "$c/memory.current")
        CH[$b.swap_current]=$(ch_num "$c/memory.swap.current")
        CH[$b.zswap_current]=$(cat "$c/memory.zswap.current" 2>/dev/null || echo none)
        CH[$b.anon]=$(ch_kv "$c/memory.stat" anon)
        CH[$b.stat_zswap]=$(ch_kv "$c/memory.stat" zswap); CH[$b.stat_zswap]=${CH[$b.stat_zswap]:-none}
        CH[$b.stat_zswapped]=$(ch_kv "$c/memory.stat" zswapped); CH[$b.stat_zswapped]=${CH[$b.stat_zswapped]:-none}
        CH[$b.user_us]=$(ch_kv "$c/cpu.stat" user_usec)
        CH[$b.sys_us]=$(ch_kv "$c/cpu.stat" system_usec)
        CH[$b.meminfo_zswap_kb]=$(ch_kv /proc/meminfo Zswap); CH[$b.meminfo_zswap_kb]=${CH[$b.meminfo_zswap_kb]:-none}
        CH[$b.meminfo_zswapped_kb]=$(ch_kv /proc/meminfo Zswapped); CH[$b.meminfo_zswapped_kb]=${CH[$b.meminfo_zswapped_kb]:-none}
        CH[$b.pool_total]=$(cat /sys/kernel/debug/zswap/pool_total_size 2>/dev/null || echo none)
        CH[$b.mm_orig]=0 CH[$b.mm_compr]=0 CH[$b.mm_used]=0
        if [[ -n $CH_ZRAM_ID ]]; then
                read -r "CH[$b.mm_orig]" "CH[$b.mm_compr]" "CH[$b.mm_used]" _ <"/sys/block/zram$CH_ZRAM_ID/mm_stat"
        fi
        CH[$b.events]=$(tr '\n' ' ' <"$c/memory.events")
        CH[$b.max_events]=$(ch_kv "$c/memory.events" max)
        CH[$b.pgscan]=$(ch_kv "$c/memory.stat" pgscan)
        CH[$b.pgsteal]=$(ch_kv "$c/memory.stat" pgsteal)
        CH[$b.oom_kill]=$(ch_kv "$c/memory.events" oom_kill)
        CH[$b.out_pages]=$(( ${CH[$b.1.pswpout]} - ${CH[$b.0.pswpout]} + ${CH[$b.1.zswpout]} - ${CH[$b.0.zswpout]} ))
        CH[$b.pswpout_pages]=$(( ${CH[$b.1.pswpout]} - ${CH[$b.0.pswpout]} ))
        CH[$b.disk_bytes]=$(( ${CH[$b.1.disk]} - ${CH[$b.0.disk]} ))
        CH[$b.vm_sys_ms]=$(( (${CH[$b.1.ticks]} - ${CH[$b.0.ticks]}) * 1000 / $(getconf CLK_TCK) ))
        CH[$b.other_swap_kb]=$(( ${CH[$b.1.other_swap_kb]} - ${CH[$b.0.other_swap_kb]} ))

        # read everything back: the data survived (and the hog's pages come back through the backend)
        kill -USR1 "$CH_HOG_PID"
        wait "$CH_HOG_PID"; rc=$?
        CH_HOG_PID=
        CH[$b.result]=$(cat "$CH_DIR/result" 2>/dev/null || echo "none (rc=$rc)")
        ch_teardown
        expect "$CH_P$b: the hog read back all of its memory intact" "${CH[$b.result]%% *}" ok \
                "${CH[$b.result]}; rc=$rc; memory.events: ${CH[$b.events]}"
        expect "$CH_P$b: no OOM kill in the cgroup" "${CH[$b.oom_kill]:-0}" 0
        check "$CH_P$b: the node's other swap areas got none of it" "used changed by ${CH[$b.other_swap_kb]} KiB" \
                test "${CH[$b.other_swap_kb]}" -le 1024 -a "${CH[$b.other_swap_kb]}" -ge -1024
        info "$CH_P$b: numbers" "memory.current $(ch_mib "${CH[$b.current]}") MiB (max $([[ $b == none ]] && echo max || echo "$CH_MAX_MIB")), anon $(ch_mib "${CH[$b.anon]}") MiB, memory.swap.current $(ch_mib "${CH[$b.swap_current]}") MiB, memory.zswap.current ${CH[$b.zswap_current]}, memory.stat zswap ${CH[$b.stat_zswap]} zswapped ${CH[$b.stat_zswapped]}, meminfo Zswap ${CH[$b.meminfo_zswap_kb]} kB Zswapped ${CH[$b.meminfo_zswapped_kb]} kB, zswap pool_total_size ${CH[$b.pool_total]}, zram mm_stat orig ${CH[$b.mm_orig]} compr ${CH[$b.mm_compr]} mem_used_total ${CH[$b.mm_used]}, swapped out $(( ${CH[$b.out_pages]} * 4 )) KiB (pswpout ${CH[$b.pswpout_pages]} pages, zswpout $(( ${CH[$b.1.zswpout]} - ${CH[$b.0.zswpout]} ))), $CH_DISK written $(ch_mib "${CH[$b.disk_bytes]}") MiB, hog user ${CH[$b.user_us]} us system ${CH[$b.sys_us]} us, VM system+irq+softirq ${CH[$b.vm_sys_ms]} ms, fill ${CH[$b.fill_s]} s, memory.events max ${CH[$b.max_events]}, pgscan ${CH[$b.pgscan]} pgsteal ${CH[$b.pgsteal]}"
        printf -v z '{"backend":"%s","memory_max_mib":%s,"hog_mib":%s,"memory_current":%s,"anon":%s,"swap_current":%s,"zswap_current":"%s","stat_zswap":"%s","stat_zswapped":"%s","meminfo_zswap_kb":"%s","pool_total_size":"%s","zram_orig":%s,"zram_compr":%s,"zram_mem_used_total":%s,"swapped_out_pages":%s,"pswpout_pages":%s,"disk_written":%s,"hog_user_us":%s,"hog_system_us":%s,"vm_system_ms":%s,"fill_s":%s,"max_events":%s,"pgscan":%s,"pgsteal":%s,"round":%s,"result":"%s"}' \
                "$b" "$([[ $b == none ]] && echo null || echo "$CH_MAX_MIB")" "$CH_HOG_MIB" "${CH[$b.current]}" "${CH[$b.anon]}" \
                "${CH[$b.swap_current]}" "${CH[$b.zswap_current]}" "${CH[$b.stat_zswap]}" "${CH[$b.stat_zswapped]}" \
                "${CH[$b.meminfo_zswap_kb]}" "${CH[$b.pool_total]}" "${CH[$b.mm_orig]}" "${CH[$b.mm_compr]}" "${CH[$b.mm_used]}" \
                "${CH[$b.out_pages]}" "${CH[$b.pswpout_pages]}" "${CH[$b.disk_bytes]}" "${CH[$b.user_us]}" "${CH[$b.sys_us]}" \
                "${CH[$b.vm_sys_ms]}" "${CH[$b.fill_s]}" "${CH[$b.max_events]:-0}" "${CH[$b.pgscan]:-0}" \
                "${CH[$b.pgsteal]:-0}" "$CH_ROUND" "${CH[$b.result]}"
        echo "DATA charge $z" >>"$RESULTS"
        flush
        return 0
}

# thrash: memory-thrashing named (issue 25). A pod-like cgroup built as the kubelet's systemd
# cgroup driver builds it (kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice,
# the UID's '-' written '_', and the container's cri-containerd-<id>.scope below it), with a
# memory limit well below the working set of the process in it and swap allowed as the kubelet's
# LimitedSwap would allow it (memory.max and memory.swap.max on the container's scope). The swap
# is a zram device of the scenario's own at priority 32767, so the node's other swap is untouched.
# At rest (the scope empty, the node's PSI full avg60 under 1 %), check says no memory-thrashing;
# then tests/bench/memhog.c fills TH_HOG_MIB MiB and reads it back, over and over, in the scope:
# once the kernel's own figure for the pod is at or above 10 % (nodeswap's threshold), check warns
# memory-thrashing naming the pod's UID, with memory-stall-zram beside it; status --pods --json and
# metrics --pods show the pod's stall.
TH_UID=7e57a11c-0de5-4a5e-9b1d-5ca1ab1e0025
TH_KP=/sys/fs/cgroup/kubepods.slice
TH_QOS=$TH_KP/kubepods-burstable.slice
TH_POD=$TH_QOS/kubepods-burstable-pod${TH_UID//-/_}.slice
TH_CG=$TH_POD/cri-containerd-5ca1ab1e0025c0ffee0000000000000000000000000000000000000000000025.scope
TH_HOG=/usr/local/lib/nodeswap-e2e/memhog
TH_DIR=$RUN/thrash
TH_MAX_MIB=24 TH_HOG_MIB=96 TH_SWAP_MIB=256 TH_PRIO=32767
TH_ZRAM_ID='' TH_LOOP_PID='' TH_MADE=()

th_full_avg60() { awk '$1 == "full" { sub("avg60=", "", $3); print $3 }' "$1" 2>/dev/null; }   # th_full_avg60 FILE
th_at_least() { awk -v a="$(th_full_avg60 "$1")" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 >= b) }'; }
th_below() { awk -v a="$(th_full_avg60 "$1")" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 < b) }'; }

th_cg_empty() { [[ -z $(cat "$TH_CG/cgroup.procs" 2>/dev/null) ]]; }
th_teardown() {
        if [[ -d $TH_CG ]]; then
                echo 1 >"$TH_CG/cgroup.kill" 2>/dev/null
                wait_for 20 th_cg_empty
        fi
        if [[ -n $TH_LOOP_PID ]]; then
                kill -KILL "$TH_LOOP_PID" 2>/dev/null
                wait "$TH_LOOP_PID" 2>/dev/null
                TH_LOOP_PID=
        fi
        local i
        for (( i = ${#TH_MADE[@]} - 1; i >= 0; i-- )); do
                wait_for 10 rmdir "${TH_MADE[i]}" 2>/dev/null
        done
        TH_MADE=()
        if [[ -n $TH_ZRAM_ID ]]; then
                swap_on "/dev/zram$TH_ZRAM_ID" && swapoff "/dev/zram$TH_ZRAM_ID"
                echo 1 >"/sys/block/zram$TH_ZRAM_ID/reset" 2>/dev/null
                echo "$TH_ZRAM_ID" >/sys/class/zram-control/hot_remove 2>/dev/null
                TH_ZRAM_ID=
        fi
        rm -rf "$TH_DIR"
}

th_setup() {
        local d
        for d in "$TH_KP" "$TH_QOS" "$TH_POD" "$TH_CG"; do
                if [[ ! -d $d ]]; then
                        mkdir "$d" || return 1
                        TH_MADE+=("$d")
                fi
                # the memory controller for the level below (a scope is the leaf)
                [[ $d == "$TH_CG" ]] || echo +memory >"$d/cgroup.subtree_control" || return 1
        done
        echo "${TH_MAX_MIB}M" >"$TH_CG/memory.max" && echo "${TH_SWAP_MIB}M" >"$TH_CG/memory.swap.max" || return 1
        TH_ZRAM_ID=$(cat /sys/class/zram-control/hot_add) || return 1
        echo "$(( TH_SWAP_MIB * 2 ))M" >"/sys/block/zram$TH_ZRAM_ID/disksize" || return 1
        wait_for 10 test -b "/dev/zram$TH_ZRAM_ID" || return 1
        mkswap "/dev/zram$TH_ZRAM_ID" >/dev/null 2>&1 && swapon -p "$TH_PRIO" "/dev/zram$TH_ZRAM_ID"
}

# The hog, again and again until killed: fill, read back (every page comes back from zram), exit.
th_loop() {
        local pid
        while :; do
                rm -f "$TH_DIR/ready" "$TH_DIR/result"
                "$TH_HOG" "$TH_HOG_MIB" "$TH_DIR/ready" "$TH_DIR/result" compressible </dev/null >>"$TH_DIR/hog.out" 2>&1 &
                pid=$!
                while [[ ! -e $TH_DIR/ready ]] && kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
                kill -USR1 "$pid" 2>/dev/null
                wait "$pid"
        done
}

th_findings() { json '" ".join(f["id"] for f in j.get("findings", []))'; }
th_message() { json '" ".join(f["message"] for f in j.get("findings", []) if f["id"] == "memory-thrashing")'; }

scenario_thrash() {
        if [[ ! -x $TH_HOG ]]; then line SKIP "memhog not installed (the harness builds it with the host's C compiler)"; return; fi
        check "PSI is on (the kernel writes /proc/pressure/memory)" "$(head -c 200 /proc/pressure/memory 2>&1)" \
                test -r /proc/pressure/memory
        th_teardown
        mkdir -p "$TH_DIR"
        if ! th_setup; then
                fail "set up the pod-like cgroup and the zram swap" "$(swaps_summary); $(ls -d "$TH_KP"/* 2>&1 | head -c 300)"
                th_teardown
                return
        fi
        pass "the pod-like cgroup is set up" "$TH_CG: memory.max $(cat "$TH_CG/memory.max"), memory.swap.max $(cat "$TH_CG/memory.swap.max"); swap /dev/zram$TH_ZRAM_ID at $TH_PRIO"

        # at rest: the scope is empty; the node quiet by the kernel's own figure
        wait_for 180 th_below /proc/pressure/memory 1
        info "at rest: /proc/pressure/memory" "$(tr '\n' ' ' </proc/pressure/memory)"
        ns check --json
        local ids
        ids=$(th_findings)
        check "at rest: check reports no memory-thrashing" "findings: ${ids:-none}; rc=$NS_RC" \
                eval '[[ " $ids " != *" memory-thrashing "* ]]'
        ns status --pods --json
        expect "at rest: status --pods shows the container's stall (memory_pressure.full_avg60)" \
                "$(json '[p["memory_pressure"]["full_avg60"] for p in j.get("pods", []) if p["cgroup"].endswith(".scope") and "'"${TH_UID//-/_}"'" in p["cgroup"]]')" "[0.0]"

        # thrashing: the hog in the scope
        ( echo "$BASHPID" >"$TH_CG/cgroup.procs" && th_loop ) </dev/null >/dev/null 2>&1 &
        TH_LOOP_PID=$!
        local t0=$SECONDS
        if wait_for 400 th_at_least "$TH_POD/memory.pressure" 15; then
                pass "the hog thrashes: the kernel's full avg60 for the pod reached 15 %" \
                        "after $(( SECONDS - t0 )) s: $(tr '\n' ' ' <"$TH_POD/memory.pressure")"
        else
                fail "the hog thrashes: the kernel's full avg60 for the pod reached 15 %" \
                        "not after $(( SECONDS - t0 )) s: $(tr '\n' ' ' <"$TH_POD/memory.pressure"); memory.events $(tr '\n' ' ' <"$TH_CG/memory.events"); $(tail -c 300 "$TH_DIR/hog.out")"
        fi
        info "thrashing: memory.stat swap counters" "$(grep -E '^(pswpin|pswpout|zswpin|zswpout) ' "$TH_CG/memory.stat" | tr '\n' ' ')"
        ns check --json
        ids=$(th_findings)
        local msg
        msg=$(th_message)
        check "thrashing: check warns memory-thrashing" "findings: ${ids:-none}; rc=$NS_RC" \
                eval '[[ " $ids " == *" memory-thrashing "* ]]'
        check "thrashing: memory-thrashing names the pod by its UID" "${msg:0:700}" \
                eval '[[ $msg == *"pod $TH_UID (burstable"* ]]'
        check "thrashing: ... with its swap and the allowance" "${msg:0:300}" \
                eval '[[ $msg == *"MiB allowed"* ]]'
        check "thrashing: memory-stall-zram says compression counts as stall" "findings: ${ids:-none}" \
                eval '[[ " $ids " == *" memory-stall-zram "* ]]'
        ns check
        check "thrashing: check's text names the pod" "$(grep -m1 memory-thrashing "$NS_OUT" | head -c 300)" \
                grep -q "pod $TH_UID" "$NS_OUT"
        ns metrics --pods
        check "thrashing: metrics --pods exports the pod's full stall" \
                "$(grep "^nodeswap_pod_memory_stall_full_seconds_total{pod_uid=\"$TH_UID\"" "$NS_OUT" | head -c 300)" \
                grep -q "^nodeswap_pod_memory_stall_full_seconds_total{pod_uid=\"$TH_UID\",qos=\"burstable\"" "$NS_OUT"
        local zram=/dev/zram$TH_ZRAM_ID
        th_teardown
        check "the pod-like cgroup and the scenario's zram device are gone" "$(swaps_summary)" \
                eval '[[ ! -d $TH_POD ]] && ! swap_on "$zram"'
}

scenario_charge() {
        if [[ ! -x $CH_HOG ]]; then line SKIP "memhog not installed (the harness builds it with the host's C compiler)"; return; fi
        check "the memory controller is enabled for the root's children" "$(cat /sys/fs/cgroup/cgroup.subtree_control)" \
                grep -qw memory /sys/fs/cgroup/cgroup.subtree_control || return
        check "the kernel has zswap" "$(ls "$CH_ZSWAP" 2>&1 | tr '\n' ' ')" test -w "$CH_ZSWAP/enabled" || return
        check "no cgroup left from an earlier run" "$CH_CG" test ! -e "$CH_CG" || return
        CH_DISK=$(ch_disk)
        ch_zswap_save
        local kver mcur=memory.zswap.current swaps0
        swaps0=$(swaps)
        kver=$(uname -r)
        if [[ -e /sys/fs/cgroup/system.slice/$mcur ]]; then
                pass "kernel $kver has memory.zswap.current"
        else
                info "kernel $kver has no memory.zswap.current: memory.stat's zswap field is used"
        fi
        info "setup" "kernel $kver; hog $CH_HOG_MIB MiB in a cgroup with memory.max ${CH_MAX_MIB}M; swap ${CH_SWAP_MIB} MiB at priority $CH_PRIO; zram and zswap compress with $CH_ALG, zswap's pool is $CH_ZPOOL (the kernel's default: ${CH_SAVED[compressor]}/${CH_SAVED[zpool]}, enabled=${CH_SAVED[enabled]}); swap file on $CH_DISK; node swaps: $(swaps_summary)"
        printf 'DATA charge {"meta":1,"kernel":"%s","date":"%s","cpu":"%s","ncpu":%s,"mem_kb":%s,"alg":"%s","zpool":"%s","disk":"%s"}\n' \
                "$kver" "$(date -u +%Y-%m-%dT%H:%MZ)" "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
                "$(nproc)" "$(ch_kv /proc/meminfo MemTotal)" "$CH_ALG" "$CH_ZPOOL" "$CH_DISK" >>"$RESULTS"

        local b t0=$SECONDS
        [[ $charge_rounds =~ ^[1-9][0-9]?$ ]] || charge_rounds=1
        for (( CH_ROUND = 1; CH_ROUND <= charge_rounds; CH_ROUND++ )); do
                CH_P=
                (( charge_rounds > 1 )) && CH_P="round $CH_ROUND: "
                for b in none zram zswap file; do unset "CH[$b.failed]"; ch_run "$b" || CH[$b.failed]=1; done
                ch_assert
        done
        expect "zswap's parameters restored" "$(cat "$CH_ZSWAP/enabled") $(cat "$CH_ZSWAP/compressor") $(cat "$CH_ZSWAP/zpool")" \
                "${CH_SAVED[enabled]} ${CH_SAVED[compressor]} ${CH_SAVED[zpool]}"
        check "the node's swaps are as before (the test's areas gone)" "$(swaps_summary)" \
                test "$(swaps)" = "$swaps0"
        info "took" "$(( SECONDS - t0 )) s for $charge_rounds round(s)"
}

# the facts, from one round's numbers
ch_assert() {
        local max=$(( CH_MAX_MIB << 20 ))
        if [[ -z ${CH[none.failed]:-} ]]; then
                expect "${CH_P}none: nothing swapped out without a limit" "${CH[none.out_pages]}" 0
                check "${CH_P}none: the cgroup holds the whole working set" "memory.current $(ch_mib "${CH[none.current]}") MiB" \
                        test "${CH[none.current]}" -ge $(( CH_HOG_MIB << 20 ))
        fi
        if [[ -z ${CH[zram.failed]:-} ]]; then
                check "${CH_P}zram: mm_stat mem_used_total > 0" "${CH[zram.mm_used]} bytes" test "${CH[zram.mm_used]}" -gt 0
                check "${CH_P}zram: memory.current <= memory.max" "$(ch_mib "${CH[zram.current]}") MiB <= $CH_MAX_MIB MiB" \
                        test "${CH[zram.current]}" -le "$max"
                # anon is part of memory.current: were zram's memory charged too, memory.current
                # would be at least anon + mem_used_total, and that is above memory.max
                check "${CH_P}zram: the compressed pages are outside the cgroup (anon + mem_used_total > memory.max >= memory.current)" \
                        "$(ch_mib "${CH[zram.anon]}") + $(ch_mib "${CH[zram.mm_used]}") MiB > $CH_MAX_MIB MiB" \
                        test $(( ${CH[zram.anon]} + ${CH[zram.mm_used]} )) -gt "$max"
                check "${CH_P}zram: the cgroup has no zswap" "memory.stat zswap ${CH[zram.stat_zswap]}" \
                        test "${CH[zram.stat_zswap]}" = 0 -o "${CH[zram.stat_zswap]}" = none
                check "${CH_P}zram: the swapped pages count as the cgroup's swap (memory.swap.current > 0)" \
                        "$(ch_mib "${CH[zram.swap_current]}") MiB" test "${CH[zram.swap_current]}" -gt 0
        fi
        if [[ -z ${CH[zswap.failed]:-} ]]; then
                local zs=${CH[zswap.zswap_current]}
                [[ $zs == none ]] && zs=${CH[zswap.stat_zswap]}
                check "${CH_P}zswap: the cgroup's zswap pool > 0 (memory.zswap.current, or memory.stat zswap)" "$zs bytes" \
                        test "${zs:-0}" != none -a "${zs:-0}" -gt 0
                check "${CH_P}zswap: memory.current <= memory.max" "$(ch_mib "${CH[zswap.current]}") MiB <= $CH_MAX_MIB MiB" \
                        test "${CH[zswap.current]}" -le "$max"
                # were the pool not charged, memory.current would be anon and little more
                check "${CH_P}zswap: the pool is inside memory.current (anon + zswap <= memory.current)" \
                        "$(ch_mib "${CH[zswap.anon]}") + $(ch_mib "$zs") MiB <= $(ch_mib "${CH[zswap.current]}") MiB" \
                        test $(( ${CH[zswap.anon]} + zs )) -le "${CH[zswap.current]}"
                if [[ -z ${CH[zram.failed]:-} ]]; then
                        check "${CH_P}zswap: the pool displaces the hog's own pages (anon on zram - anon on zswap >= pool / 2)" \
                                "$(ch_mib "${CH[zram.anon]}") - $(ch_mib "${CH[zswap.anon]}") MiB >= $(ch_mib $(( zs / 2 ))) MiB" \
                                test $(( ${CH[zram.anon]} - ${CH[zswap.anon]} )) -ge $(( zs / 2 ))
                fi
        fi
        if [[ -z ${CH[file.failed]:-} ]]; then
                check "${CH_P}file: pages went to the swap file (pswpout > 0)" "${CH[file.pswpout_pages]} pages" \
                        test "${CH[file.pswpout_pages]}" -gt 0
                check "${CH_P}file: the disk took at least the swapped-out bytes" \
                        "$(ch_mib "${CH[file.disk_bytes]}") MiB written >= $(ch_mib $(( ${CH[file.pswpout_pages]} * 4096 ))) MiB" \
                        test "${CH[file.disk_bytes]}" -ge $(( ${CH[file.pswpout_pages]} * 4096 ))
                check "${CH_P}file: memory.current <= memory.max" "$(ch_mib "${CH[file.current]}") MiB" \
                        test "${CH[file.current]}" -le "$max"
        fi
}

# ---------------------------------------------------------------------------------------------
# trial: nodeswap trial (issue 27) runs a workload of ours in transient units at shrinking limits,
# with and without swap, first on zram sized to the node's RAM (SwapTotal = MemTotal, so the
# LimitedSwap allowance the trial gives a swap run is about its limit), then on a swap file, and
# puts the two side by side with --compare. The workloads: hotcold (tests/bench/hotcold.c: HOT MiB
# touched every pass, COLD MiB written once and read at the end; it needs about HOT + COLD without
# swap and about (HOT + COLD) / 2 with an allowance equal to the limit) and gcc -O2 -c on one
# generated file (tests/bench/gen-compile.sh: gcc runs cc1 and as for it, and its peak is that of
# one file however many there are, so one keeps the 16M check at a third of three files'
# minutes). The trial must change nothing on the node: the swaps, the vm sysctls and the kubelet
# drop-ins are compared byte for byte right after every trial, and after the final revert with
# what they were before the scenario.
TR_HOG=/usr/local/lib/nodeswap-e2e/hotcold
TR_CC=/usr/local/lib/nodeswap-e2e/compile
TR_DIR=$STATE/trial
# Measured in the VM with systemd-run (6.12, 2026-12-02): hotcold 16 64 needs 81 MiB without swap
# (80 MiB is OOM-killed) and memory.max + memory.swap.max >= 83 MiB with swap (42M + 41M finishes,
# 41M + 40M does not).
TR_HOT=16 TR_COLD=64 TR_PASSES=3
TR_NEED=$(( TR_HOT + TR_COLD ))
TR_HALF=$(( TR_NEED / 2 + 4 ))  # about half: zram's allowance (L - 1 MiB) holds the rest, with 5 MiB to spare
TR_ROOMY=128                    # the roomiest limit of the --limits trials (the verdict's reference), MiB
# The compile trial's two limits: tight (without swap gcc's cc1 at 16M is OOM-killed within seconds
# or thrashes on its own pages until the timeout: 300.3 s, CI run of 2026-12-05, 59.7 s of it
# stalled; with swap it finishes, 13.6 s in that run) and roomy (5-6 s).
TR_CC_TIGHT=16 TR_CC_ROOMY=256
TR_TIMEOUT=300                  # --timeout of every run: a thrashing run ends as "timeout", not the scenario
# The compile trial's --timeout: the thrashing run above ends as "timeout" either way, which the
# checks accept, so it need not cost 300 s of part b's critical path; 90 s leaves the slowest run
# that must finish (16M with swap) more than six times what it took under CI's load
TR_CC_TIMEOUT=90
TR_N=0 TR_FILE_MIB=0 TR_LIMIT_MIB=0 TR_LIMITS=
declare -A TR_T=()              # seconds each step took

# The node's swaps, every vm sysctl, the kubelet drop-ins: what a trial must not change. /proc/swaps
# byte for byte but its Used column (the third tab-separated field from the end while Used is below
# 10000000 kB: swap_show() pads "partition" with one tab, "file" with two, and a number below
# 10000000 with one more): the kernel frees a dead process's swap
# slots lazily when their pages sit in the swap cache (under writeback at exit), so a few hundred
# KiB stay "used" for a while after a run (seen in the VM: 560 KiB); that is the kernel's state,
# not the node's configuration. tr_used prints the column for the details.
tr_snap() {
        awk -F '\t' -v OFS='\t' 'NR > 1 { $(NF - 2) = "(used)" } { print }' /proc/swaps
        local f
        for f in /proc/sys/vm/*; do printf '%s=%s\n' "${f##*/}" "$(tr '\n\t' '  ' <"$f" 2>/dev/null)"; done
        ls -A "$DROPIN_DIR" 2>&1
        for f in "$DROPIN_DIR"/*; do
                [[ -f $f ]] && echo "$(stat -c '%n %a %U:%G %s' "$f") $(sha256sum <"$f")"
        done
}
tr_is() { [[ $(tr_snap) == "$1" ]]; }
tr_used() { awk -F '\t' 'NR > 1 { sub(/ .*/, "", $1); printf "; %s %s kB used", $1, $(NF - 2) }' /proc/swaps; }
tr_same() {     # tr_same NAME SNAPSHOT: the node now is byte for byte SNAPSHOT
        local now
        now=$(tr_snap)
        check "$1" "$(diff <(echo "$2") <(echo "$now") | head -c 600)$(tr_used)" test "$now" = "$2"
}
# tr_ns ARGS...: nodeswap with ns()'s conventions ($NS_OUT, $NS_ERR, $NS_RC, json()), longer timeout
tr_ns() {
        NS_N=$((NS_N + 1))
        NS_OUT=$STATE/log/$phase-$NS_N.out NS_ERR=$STATE/log/$phase-$NS_N.err
        mkdir -p "$STATE/log"
        local t0=$SECONDS
        timeout 1200 nodeswap "$@" >"$NS_OUT" 2>"$NS_ERR"
        NS_RC=$?
        info "ran nodeswap $*" "rc=$NS_RC in $(( SECONDS - t0 )) s; stderr: $(tail -c 400 "$NS_ERR")"
}
# tr_trial json|text NAME ARGS...: one trial. json: with --json, whose document must be the record
# (TR_RECORDS/ID.json, 0600); text: the text table and verdict as INFO lines, the checks read the
# record it left. Either way $NS_OUT is the trial's JSON afterwards, for json() and tr_get().
TR_RECORDS=/var/lib/nodeswap/trials
tr_records() { local f; for f in "$TR_RECORDS"/*.json; do [[ -e $f ]] && echo "${f##*/}"; done; }
tr_trial() {
        local mode=$1 name=$2 t0=$SECONDS before rec l
        shift 2
        before=$(tr_records)
        if [[ $mode == json ]]; then tr_ns trial --json "$@"; else tr_ns trial "$@"; fi
        TR_T[$name]=$(( SECONDS - t0 ))
        expect "$name: nodeswap trial exits 0" "$NS_RC" 0 "stderr: $(tail -c 300 "$NS_ERR")"
        rec=$(tr_records | grep -vxF -e "${before:-/}" | tail -n 1)
        check "$name: the trial left a new record ($TR_RECORDS/ID.json, mode 0600)" \
                "${rec:-none}: $(stat -c '%a %U' "$TR_RECORDS/$rec" 2>&1)" \
                test -n "$rec" -a "$(stat -c %a "$TR_RECORDS/$rec" 2>/dev/null)" = 600
        TR_N=$((TR_N + 1))
        if [[ $mode == json ]]; then
                check "$name: --json prints the record's document" "record $rec" \
                        python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
                        "$NS_OUT" "$TR_RECORDS/$rec"
        else
                while IFS= read -r l; do info "$name: text: $l"; done <"$NS_OUT"
                cp "$NS_OUT" "$TR_DIR/trial-$TR_N.txt"
                [[ -n $rec ]] && cp "$TR_RECORDS/$rec" "$NS_OUT"
        fi
        cp "$NS_OUT" "$TR_DIR/trial-$TR_N.json"
        TR_ID=${rec%.json}
        tr_runs "$name"
}
# tr_runs NAME: every run of the trial in $NS_OUT as an INFO line (and a DATA line with its JSON)
tr_runs() {
        local l
        while IFS= read -r l; do
                case $l in
                DATA*) echo "DATA trial $1 ${l#DATA }" >>"$RESULTS" ;;
                *) info "$1: $l" ;;
                esac
        done < <(python3 - "$NS_OUT" <<'PY' 2>&1
import json, sys
def mib(b): return "-" if b is None else "%.1f" % (b / 1048576)
def num(v, f="%.1f"): return "-" if v is None else f % v
try:
    j = json.load(open(sys.argv[1]))
except Exception as e:
    print("invalid JSON:", str(e)[:100]); sys.exit(0)
n = j.get("node", {})
print("node: backend %s %s, MemTotal %s MiB, SwapTotal %s MiB, page %s, seed %s, id %s" % (
    n.get("backend"), n.get("zram_algorithm") or "", mib(n.get("mem_total_bytes")), mib(n.get("swap_total_bytes")),
    n.get("page_size"), j.get("seed"), j.get("id")))
for r in j.get("runs", []):
    print("run %s: limit %s MiB, %s (swap max %s MiB): %s%s%s; wall %s s, cpu %s s (user %s, sys %s); peak %s MiB, swap peak %s MiB; "
          "swapped out %s MiB, in %s MiB (%s); disk %s written %s MiB, read %s MiB; zram RAM %s MiB (peak %s); stall %s ms; oom_kills %s" % (
        r.get("index"), mib(r.get("limit_bytes")), "swap" if r.get("swap") else "no swap", mib(r.get("swap_max_bytes")),
        r.get("result"), "" if r.get("exit_status") is None else " exit %s" % r["exit_status"],
        "" if r.get("oom_at_s") is None else " at %.1f s" % r["oom_at_s"],
        num(r.get("wall_s")), num(r.get("cpu_s")), num(r.get("cpu_user_s")), num(r.get("cpu_system_s")),
        mib(r.get("memory_peak_bytes")), mib(r.get("swap_peak_bytes")), mib(r.get("swapped_out_bytes")),
        mib(r.get("swapped_in_bytes")), r.get("swap_counters"), r.get("disk"), mib(r.get("disk_written_bytes")),
        mib(r.get("disk_read_bytes")), mib(r.get("zram_ram_bytes")), mib(r.get("zram_ram_peak_bytes")),
        num(None if r.get("stall_full_us") is None else r["stall_full_us"] / 1000, "%.0f"), r.get("oom_kills")))
    print("DATA " + json.dumps(r, separators=(",", ":")))
v = j.get("verdict") or {}
print("verdict: floor without swap %s MiB, with swap %s MiB, roomiest wall %s s" % (
    mib(v.get("floor_no_swap_bytes")), mib(v.get("floor_swap_bytes")), num(v.get("roomiest_wall_s"))))
for r in j.get("swap_refused", []):
    print("swap refused at %s MiB: %s" % (mib(r.get("limit_bytes")), r.get("reason")))
PY
)
}
# tr_get EXPR: a Python expression over the trial JSON `j` in $NS_OUT (json()), with run(L, SWAP)
# the first run at limit L MiB with swap or not (None when there is none)
tr_get() {
        json "(lambda run: $1)(lambda l, s: next((r for r in j.get('runs', []) if r.get('limit_bytes') == l * 1048576 and r.get('swap') == s), None))"
}
tr_policy() {   # tr_policy zram|file: the policy under trial
        mkdir -p /etc/nodeswap
        if [[ $1 == zram ]]; then
                printf '%s\n' "[Swap]" "Backend=zram" "" "[Zram]" "Algorithm=zstd" "Size=ram" "Priority=100" >"$POLICY"
        else
                printf '%s\n' "[Swap]" "Backend=file" "" "[File]" "Path=$SWAPFILE" "Size=${TR_FILE_MIB}M" "Priority=10" "Encrypt=no" >"$POLICY"
        fi
        printf '%s\n' "" "[Sysctl]" "Swappiness=100" "PageCluster=0" "" "[Kubelet]" "SwapBehavior=LimitedSwap" >>"$POLICY"
        chmod 0644 "$POLICY"
        local t0=$SECONDS
        ns apply --json
        TR_T[apply-$1]=$(( SECONDS - t0 ))
        ns_expect_rc "apply the $1 policy" 0
}
tr_result() { tr_get "(lambda r: None if r is None else r['result'])(run($1, $2))"; }     # tr_result MIB True|False
# The hotcold checks common to both backends' --limits trials (in $NS_OUT); L: a limit that
# finishes with swap on this backend
tr_check_limits() {
        local b=$1 l=$2
        expect "$b: no swap at $TR_HALF and $TR_LIMIT_MIB MiB: OOM-killed (hotcold needs $TR_NEED MiB)" \
                "$(tr_result "$TR_HALF" False) $(tr_result "$TR_LIMIT_MIB" False)" "oom oom"
        expect "$b: with swap at $l MiB: finished, exit 0" "$(tr_result "$l" True) $(tr_get "run($l, True)['exit_status']")" "ok 0"
        expect "$b: without and with swap at $TR_ROOMY MiB: finished" "$(tr_result $TR_ROOMY False) $(tr_result $TR_ROOMY True)" "ok ok"
        check "$b: the OOM kill is counted (oom_kills >= 1)" "$(tr_get "run($TR_HALF, False)['oom_kills']")" \
                test "$(tr_get "run($TR_HALF, False)['oom_kills'] or 0")" -ge 1
        check "$b: the swap run at $l MiB swapped out at least the part above its limit ($(( TR_NEED - l )) MiB)" \
                "$(tr_get "run($l, True)['swapped_out_bytes']") bytes" \
                test "$(tr_get "run($l, True)['swapped_out_bytes'] or 0")" -ge $(( (TR_NEED - l) << 20 ))
        check "$b: the swap run's MemorySwapMax= is LimitedSwap's for a request 1 MiB below the limit ((L - 1 MiB) x SwapTotal / MemTotal, within 1 MiB)" \
                "swap_max $(tr_get "run($l, True)['swap_max_bytes']")" \
                test "$(tr_get "abs(run($l, True)['swap_max_bytes'] - ($l - 1) * 1048576 * j['node']['swap_total_bytes'] / j['node']['mem_total_bytes']) <= 1048576")" = true
        expect "$b: every no-swap run had MemorySwapMax=0" "$(json '[r["swap_max_bytes"] for r in j["runs"] if not r["swap"] and r["swap_max_bytes"] != 0]')" "[]"
        check "$b: the log of every run is kept (run-N.log)" "$(json '[r["log"] for r in j["runs"]]' | head -c 300)" \
                test "$(json 'all(__import__("os").path.isfile(r["log"]) for r in j["runs"])')" = true
}

scenario_trial() {
        if [[ ! -x $TR_HOG ]]; then line SKIP "hotcold not installed (the harness builds it with the host's C compiler)"; return; fi
        if ! nodeswap trial --help >/dev/null 2>&1 && ! nodeswap help trial >/dev/null 2>&1; then
                fail "nodeswap has a trial command" "$(nodeswap trial --help 2>&1 | head -c 200)"
                return
        fi
        local t0=$SECONDS s0 sa sb mt_mib avail hog
        rm -rf "$TR_DIR"; mkdir -p "$TR_DIR"
        s0=$(tr_snap)
        # the workload itself, once, outside any limit: what it needs
        local out rc=0
        out=$("$TR_HOG" "$TR_HOT" "$TR_COLD" 1 2>&1) || rc=$?
        expect "hotcold runs and checks its data outside a limit" "$rc" 0 "$(tail -n 1 <<<"$out")"
        check "gcc is in the VM (build-root.sh recipe 7)" "$(/usr/bin/gcc --version 2>&1 | head -n 1)" test -x /usr/bin/gcc
        # The swap file gets what the disk has room for, up to the RAM (the disk image is 2 GiB and
        # rpi-swap's /var/swap stays on it): free space minus nodeswap's margin (16 MiB + 1/64) and
        # 128 MiB for the rest of the node, in 32 MiB steps.
        mt_mib=$(( $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) / 1024 ))
        avail=$(( $(df -B1M --output=avail /var/lib | tail -n 1) ))
        TR_FILE_MIB=$(( ((avail - 128 - 16) * 64 / 65) / 32 * 32 ))
        (( TR_FILE_MIB > mt_mib )) && TR_FILE_MIB=$(( mt_mib / 32 * 32 ))
        # The limit at which the file's runs finish with swap: the smallest L with L + (L - 1 MiB) x
        # file / MemTotal (the file's allowance) >= hotcold's need + 10 MiB (3 measured; 4 was too
        # few: a run at 75 MiB with 9.6 MiB of swap was OOM-killed in a clean .ci/run).
        # The --limits trials run at TR_HALF (zram finishes with swap, the file's allowance is too
        # small), at this limit (both finish with swap) and roomy, on both backends, so that
        # --compare has both in every row.
        TR_LIMIT_MIB=$(awk -v t=$((TR_NEED + 10)) -v f="$TR_FILE_MIB" -v m="$mt_mib" \
                'BEGIN { r = f / m; l = (t + r) / (1 + r); print (l == int(l)) ? l : int(l) + 1 }')
        TR_LIMITS=${TR_HALF}M,${TR_LIMIT_MIB}M,${TR_ROOMY}M
        info "setup" "MemTotal $mt_mib MiB; $avail MiB free on /var/lib: swap file ${TR_FILE_MIB} MiB; hotcold hot $TR_HOT MiB, cold $TR_COLD MiB, $TR_PASSES passes; limits $TR_LIMITS; node swaps: $(swaps_summary)"
        check "the swap file gets at least 192 MiB and its limit stays 3 MiB below what hotcold needs" \
                "file ${TR_FILE_MIB} MiB, limit ${TR_LIMIT_MIB} MiB, hotcold $TR_NEED MiB" \
                test "$TR_FILE_MIB" -ge 192 -a "$TR_LIMIT_MIB" -le $(( TR_NEED - 3 )) || return
        hog=("$TR_HOG" "$TR_HOT" "$TR_COLD" "$TR_PASSES")
        cd "$TR_DIR" || return

        # --- zram, SwapTotal = MemTotal ---------------------------------------------------------
        tr_policy zram
        info "zram policy applied" "$(swaps_summary); SwapTotal $(swap_total_kb) kB, MemTotal $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) kB"
        sa=$(tr_snap)
        tr_trial json "zram limits" --limits "$TR_LIMITS" --runs 1 --timeout "$TR_TIMEOUT" -- "${hog[@]}"
        local ids=$TR_ID
        tr_check_limits zram "$TR_HALF"
        expect "zram: with swap at $TR_LIMIT_MIB MiB: finished" "$(tr_result "$TR_LIMIT_MIB" True)" ok
        expect "zram: the trial saw the zram backend" "$(json 'j["node"]["backend"]')" zram
        check "zram: SwapTotal = MemTotal within 1 %, so the allowance is about the limit" \
                "$(json '[j["node"]["swap_total_bytes"], j["node"]["mem_total_bytes"]]')" \
                test "$(json 'abs(j["node"]["swap_total_bytes"] - j["node"]["mem_total_bytes"]) <= j["node"]["mem_total_bytes"] / 100')" = true
        check "zram: the swap run's compressed pages are held outside its limit (zram_ram_peak_bytes > 0)" \
                "$(tr_get "run($TR_HALF, True)['zram_ram_peak_bytes']")" \
                test "$(tr_get "(run($TR_HALF, True)['zram_ram_peak_bytes'] or 0) > 0")" = true
        TR_ZRAM_OUT=$(tr_get "run($TR_HALF, True)['swapped_out_bytes'] or 0")
        TR_ZRAM_DISK=$(tr_get "run($TR_HALF, True)['disk_written_bytes']")
        # zram writes no disk: the disk figure is missing (no disk behind the swap) or, if the
        # trial names the root disk, noise: at most 4 MiB or 1/8 of the swapped-out bytes (the
        # journal, the run's log and record, k3s's fake files write a little meanwhile)
        check "zram: the swap run wrote no disk for its swap (disk_written_bytes null, or <= max(4 MiB, swapped out / 8))" \
                "disk $(tr_get "run($TR_HALF, True)['disk']"): written $TR_ZRAM_DISK bytes, swapped out $TR_ZRAM_OUT bytes" \
                test "$TR_ZRAM_DISK" = null -o "${TR_ZRAM_DISK/null/0}" -le $(( TR_ZRAM_OUT / 8 > 4194304 ? TR_ZRAM_OUT / 8 : 4194304 ))
        tr_same "zram: the --limits trial changed nothing on the node (swaps, vm sysctls, drop-ins)" "$sa"

        # --find-floor: bounds 16M..128M; the floor without swap by bisection (resolution 4 MiB),
        # then swap at 3/4, 5/8, 1/2, 3/8 ... of it. Two passes, not three: another command, so
        # that --compare pairs the --limits trials only.
        tr_trial text "zram floor" --find-floor --limits 16M,128M --runs 1 --timeout "$TR_TIMEOUT" -- "$TR_HOG" "$TR_HOT" "$TR_COLD" 2
        local fn fs
        fn=$(json 'j["verdict"]["floor_no_swap_bytes"] // 1048576')
        fs=$(json 'j["verdict"]["floor_swap_bytes"] // 1048576')
        info "zram floor" "without swap $fn MiB, with swap $fs MiB (hotcold $((TR_HOT + TR_COLD)) MiB)"
        check "zram floor: without swap from hotcold's size to 8 MiB above (1 MiB of its own pages, the bisection's 4 MiB resolution)" \
                "$fn MiB" test "$fn" -ge $TR_NEED -a "$fn" -le $((TR_NEED + 8))
        # About half: with the allowance = the limit, memory and swap hold twice the limit, so the
        # floor with swap is just above half the one without (83 MiB of limit + swap for hotcold,
        # measured; its 16 MiB hot part fits in either). The search tries 3/4, 5/8, 1/2, 3/8 of the
        # floor, rounded down to 1 MiB: "about half" is 1/2 when the bisection's floor is at least
        # 3 MiB above the true one (1/2 of 84 gives 42 + 41), else 5/8 (in the VM: 51 of 82 MiB).
        # The tolerance, 0.45 to 0.65, takes both and their rounding; 3/4 would mean swap held
        # less than the allowance, 3/8 more than limit + allowance. The --limits trial above
        # checked that half + 4 MiB finishes.
        check "zram floor: with swap about half the floor without (0.45 to 0.65 of it: the search's steps 1/2 and 5/8)" \
                "$fs of $fn MiB" test "$(json '0.45 <= j["verdict"]["floor_swap_bytes"] / j["verdict"]["floor_no_swap_bytes"] <= 0.65')" = true
        tr_same "zram floor: the trial changed nothing on the node" "$sa"

        # the compile workload at two limits
        rm -rf "$TR_DIR/cc"; cp -r "$TR_CC" "$TR_DIR/cc"; cd "$TR_DIR/cc" || return
        tr_trial text "zram compile" --limits "${TR_CC_TIGHT}M,${TR_CC_ROOMY}M" --runs 1 --timeout "$TR_CC_TIMEOUT" -- /usr/bin/gcc -O2 -c big1.c
        expect "zram compile: finished at $TR_CC_ROOMY MiB without and with swap" \
                "$(tr_result $TR_CC_ROOMY False) $(tr_result $TR_CC_ROOMY True)" "ok ok"
        expect "zram compile: finished at $TR_CC_TIGHT MiB with swap" "$(tr_result $TR_CC_TIGHT True)" ok
        check "zram compile: gcc wrote its object in the trial's directory" "$(ls -l *.o 2>&1 | head -c 300)" \
                test -s big1.o
        check "zram compile: every run ended as ok, oom or timeout" \
                "$(tr_get "[r['result'] for r in j['runs']]")" \
                test "$(tr_get "all(r['result'] in ('ok', 'oom', 'timeout') for r in j['runs'])")" = true
        cd "$TR_DIR" || return
        tr_same "zram compile: the trial changed nothing on the node" "$sa"

        # --- a swap file ------------------------------------------------------------------------
        tr_policy file
        check "file policy: the swap file is on, zram off" "$(swaps_summary)" in_file_state
        sb=$(tr_snap)
        tr_trial text "file limits" --limits "$TR_LIMITS" --runs 1 --timeout "$TR_TIMEOUT" -- "${hog[@]}"
        ids+=" $TR_ID"
        tr_check_limits file "$TR_LIMIT_MIB"
        expect "file: with swap at $TR_HALF MiB: OOM-killed (the file's allowance, $(( (TR_HALF - 1) * TR_FILE_MIB / mt_mib )) MiB, is too small)" \
                "$(tr_result "$TR_HALF" True)" oom
        expect "file: the trial saw the file backend" "$(json 'j["node"]["backend"]')" file
        local fo fd
        fo=$(tr_get "run($TR_LIMIT_MIB, True)['swapped_out_bytes'] or 0")
        fd=$(tr_get "run($TR_LIMIT_MIB, True)['disk_written_bytes']")
        check "file: the swap run's disk writes are at least its swap-outs (disk_written_bytes >= swapped_out_bytes > 0)" \
                "disk $(tr_get "run($TR_LIMIT_MIB, True)['disk']"): written $fd bytes, swapped out $fo bytes" \
                test "${fd/null/-1}" -ge "$fo" -a "$fo" -gt 0
        check "zram's swap run (more swapped out) wrote less to disk than the file's" \
                "zram $TR_ZRAM_DISK bytes for $TR_ZRAM_OUT swapped out, file $fd bytes for $fo" \
                test "${TR_ZRAM_DISK/null/0}" -lt "${fd/null/0}"
        tr_same "file: the trial changed nothing on the node" "$sb"

        # --- side by side -----------------------------------------------------------------------
        local cmpt=$SECONDS
        tr_ns trial --compare --json
        expect "compare --json exits 0" "$NS_RC" 0
        local want_cmd
        want_cmd=$(printf '%s\n' "${hog[@]}" | python3 -c 'import json,sys; print(json.dumps([l.rstrip("\n") for l in sys.stdin]))')
        local both
        both=$(python3 - "$NS_OUT" "$want_cmd" "$ids" "$TR_HALF" "$TR_LIMIT_MIB" <<'PY' 2>&1
import json, sys
try:
    j = json.load(open(sys.argv[1])); cmd = json.loads(sys.argv[2]); ids = sys.argv[3].split()
    # this scenario's two trials (the node may hold older ones of the same command)
    backends = {t["id"]: t["backend"] for t in j["trials"] if t["id"] in ids}
    c = next((c for c in j["commands"] if c["command"] == cmd), None)
    if c is None:
        print("no command", cmd); sys.exit(0)
    out = [" ".join(sorted(backends[t] for t in c["trials"] if t in backends))]
    for lim in sys.argv[4:]:
        row = next((r for r in c["rows"] if r["limit_bytes"] == int(lim) * 1048576 and r["swap"]), None)
        cells = [] if row is None else [(backends[x["id"]], x["result"]) for x in row["cells"] if x and x["id"] in backends]
        out.append(lim + ": " + " ".join("%s:%s" % b for b in sorted(cells)))
    print(" | ".join(out))
except Exception as e:
    print("error:", repr(e)[:200])
PY
)
        expect "compare --json: hotcold's trials on zram and the file side by side (with swap: at $TR_HALF MiB only zram's finished, at $TR_LIMIT_MIB both)" \
                "$both" "file zram | $TR_HALF: file:oom zram:ok | $TR_LIMIT_MIB: file:ok zram:ok"
        tr_ns trial --compare
        expect "compare (text) exits 0" "$NS_RC" 0
        local l
        while IFS= read -r l; do info "compare: $l"; done <"$NS_OUT"
        check "compare (text): one header line names both backends" "$(grep -m1 zram "$NS_OUT" | head -c 300)" \
                eval 'grep -Eq "zram zstd.*file|file.*zram zstd" "$NS_OUT"'
        TR_T[compare]=$(( SECONDS - cmpt ))
        tr_same "compare changed nothing on the node" "$sb"

        # --- back to the start ------------------------------------------------------------------
        cd / || return
        local rt=$SECONDS
        ns revert --purge --json
        ns_expect_rc "revert --purge" 0
        wait_for 30 tr_is "$s0"
        TR_T[revert]=$(( SECONDS - rt ))
        tr_same "after revert: swaps, vm sysctls and drop-ins byte for byte as before the scenario" "$s0"
        check "after revert --purge: no swap file left" "$(ls -l "$SWAPFILE" 2>&1)" test ! -e "$SWAPFILE"
        no_failed_units "after the trials"
        local k times=
        for k in "${!TR_T[@]}"; do times+="$k ${TR_T[$k]} s, "; done
        info "took" "$(( SECONDS - t0 )) s: ${times%, }"
}

# ---------------------------------------------------------------------------------------------
# density: nodeswap trial --density (issue 39) with two workloads of ours (tests/bench/replica.c:
# "idle" fills DN_MIB MiB once and touches none of it again, the sandbox case; "hot" passes over all
# of it again and again) on zram sized to the RAM and on a swap file. The replicas run in a budget
# of DN_BUDGET (--memory: their parent slice's MemoryMax=, as kubepods.slice is capped), which keeps
# the counts small and the OOM killer inside the budget; and the VM's RAM outside it is cut down to
# about DN_AVAIL MiB with huge pages (vm.nr_hugepages: out of MemAvailable, never swapped), so that
# zram's compressed pages, which no cgroup counts, come out of a node-sized RAM too; the huge pages
# go back at the end. Each trial searches from the arithmetic's prediction with --around 2 (one run
# a point, a short hold); e2e.density_full=1 (E2E_DENSITY_FULL=1 on the host) searches the whole
# range instead, three runs a point. Checked: the idle workload fits at least two more replicas
# with swap than without on both backends, the hot one gains less than the idle one; each
# replica's MemorySwapMax= is the kubelet's formula to the page; every replica's unit and the
# budget's slice are gone after every trial and after an interrupted one; the swaps and the vm
# sysctls are byte for byte as before.
DN_REPLICA=/usr/local/lib/nodeswap-e2e/replica
DN_DIR=$STATE/density
DN_MIB=40                       # each replica's fill
DN_REQUEST=16Mi DN_LIMIT=48Mi   # its request and limit: with zram Size=ram, an allowance of ~16 MiB
DN_FILE_REQUEST=40Mi            # on the file (~640 MiB on the 3 GiB disk: 0.32 of the RAM), ~12 MiB
DN_BUDGET=400Mi                 # --memory: about 9 replicas without swap
DN_AVAIL=1000                   # MiB of MemAvailable the huge pages leave
DN_HOLD=3
declare -A DN_T=()

# dn_trial NAME ARGS...: one density trial (--json), its record the document it printed; $NS_OUT
dn_trial() {
        local name=$1 t0=$SECONDS
        shift
        tr_ns trial --json --density --request "$DN_REQUEST" --limit "$DN_LIMIT" --memory "$DN_BUDGET" --hold "$DN_HOLD" \
                "${DN_SEARCH[@]}" --svg "$DN_DIR/$name.svg" "$@"
        DN_T[$name]=$(( SECONDS - t0 ))
        expect "$name: nodeswap trial --density exits 0" "$NS_RC" 0 "stderr: $(tail -c 300 "$NS_ERR")"
        cp "$NS_OUT" "$DN_DIR/$name.json" 2>/dev/null
        local id
        id=$(json 'j["id"]')
        check "$name: --json prints the saved record ($TR_RECORDS/$id.json, 0600)" "$(stat -c '%a' "$TR_RECORDS/$id.json" 2>&1)" \
                python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
                "$NS_OUT" "$TR_RECORDS/$id.json"
        local l
        while IFS= read -r l; do info "$name: $l"; done < <(json '"\n".join("%s replicas, %s: %s (oom %s, failed %s, unsettled %s), settle %s s, stall %s %%, memory %s MiB, in swap %s MiB, out %s MiB, written %s MiB, zram %s MiB, %s s" % (p["replicas"], "swap" if p["swap"] else "no swap", p["result"], p["oom_killed"], p["failed"], p["unsettled"], p["settle_max_s"], p["node_stall_full_percent"], (p["memory_bytes"] or 0) >> 20, (p["swap_bytes"] or 0) >> 20, (p["swapped_out_bytes"] or 0) >> 20, (p["disk_written_bytes"] or 0) >> 20, (p["zram_ram_peak_bytes"] or 0) >> 20, p["wall_s"]) for p in j["density"]["points"])')
        info "$name: density" "$(json '"without swap %s%s (predicted %s), with swap %s%s (predicted %s), ratio %s; swap_max %s; scheduler admits %s, request for the swap density %s" % (("at least " if j["density"]["at_least_no_swap"] else ""), j["density"]["density_no_swap"], j["density"]["predicted_no_swap"], ("at least " if j["density"]["at_least_swap"] else ""), j["density"]["density_swap"], j["density"]["predicted_swap"], j["density"]["ratio"], j["density"]["swap_max_bytes"], j["density"]["scheduler"]["admitted"], j["density"]["scheduler"]["request_for_density_swap_bytes"])')"
        expect "$name: no replica's unit and no budget slice left (systemctl list-units 'nodeswap-trial-*' 'nodeswap_trial_*')" \
                "$(systemctl list-units --all --plain --no-legend 'nodeswap-trial-*' 'nodeswap_trial_*' | wc -l)" 0
        check "$name: --svg drew the trial" "$(ls -l "$DN_DIR/$name.svg" 2>&1)" grep -q '</svg>' "$DN_DIR/$name.svg"
        # the record and the chart for the host (the README's table and picture): DATA lines
        echo "DATA density-record ${name// /-} $(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":")))' "$NS_OUT")" >>"$RESULTS"
        echo "DATA density-svg ${name// /-} $(base64 -w0 "$DN_DIR/$name.svg" 2>/dev/null)" >>"$RESULTS"
        check "$name: the budget is --memory" "$(json 'j["density"]["budget_bytes"]')" \
                test "$(json 'j["density"]["budget_bytes"]')" = $(( ${DN_BUDGET%Mi} << 20 ))
        # the allowance: int64(float64(request) / float64(MemTotal) x float64(SwapTotal)), in pages
        check "$name: a replica's MemorySwapMax= is the kubelet's formula in whole pages" \
                "$(json 'j["density"]["swap_max_bytes"]')" \
                test "$(json 'j["density"]["swap_max_bytes"] == (lambda a: a - a % j["node"]["page_size"])(int(float(j["density"]["request_bytes"]) / float(j["density"]["kubelet_mem_total_bytes"]) * float(j["density"]["kubelet_swap_total_bytes"])))')" = true
}
dn_gain() { json 'j["density"]["density_swap"] - j["density"]["density_no_swap"]'; }

# dn_compare: trial --compare of the saved density records, the idle replicas' on zram and on the
# file side by side (text, --json, and --svg: one panel a backend)
dn_compare() {
        tr_ns trial --compare -- "$DN_REPLICA" idle "$DN_MIB"
        expect "compare: exits 0 on the density records" "$NS_RC" 0 "stderr: $(tail -c 300 "$NS_ERR")"
        cp "$NS_OUT" "$DN_DIR/compare.txt"
        check "compare: the idle replicas' density trials in one table, zram and file side by side" \
                "$(grep -m1 '^  swap ' "$NS_OUT")" grep -Eq '^  swap +[|] zram [a-z0-9-]+ +[|] file *$' "$NS_OUT"
        check "compare: each backend's densities without / with swap and their ratio" \
                "$(grep -m1 '^  density no swap' "$NS_OUT")" \
                grep -Eq '^  density no swap / swap +[|] [0-9]+ / [0-9]+ [(][0-9.]+×[)] +[|] [0-9]+ / [0-9]+ [(][0-9.]+×[)] *$' "$NS_OUT"
        check "compare: the hot replicas left out (another command)" "" eval "! grep -q hot '$NS_OUT'"
        check "compare: says what the figures leave out" "" grep -q 'leave out what a pod adds' "$NS_OUT"
        tr_ns trial --compare --json -- "$DN_REPLICA" idle "$DN_MIB"
        expect "compare --json: the idle replicas' zram and file trials, with the densities the trials found" \
                "$(json '", ".join("%s %d/%d" % (t["backend"], t["density_no_swap"], t["density_swap"]) for t in j["density_trials"])')" \
                "$DN_IDLE_ZRAM, $DN_IDLE_FILE"
        expect "compare --json: one row list, a cell per backend" \
                "$(json 'sorted(set(len(r["cells"]) for r in j["density_commands"][0]["rows"]))')" "[2]"
        echo "DATA density-record compare-idle $(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":")))' "$NS_OUT" 2>/dev/null)" >>"$RESULTS"
        tr_ns trial --compare --svg "$DN_DIR/compare.svg" -- "$DN_REPLICA" idle "$DN_MIB"
        expect "compare --svg: exits 0" "$NS_RC" 0 "stderr: $(tail -c 300 "$NS_ERR")"
        check "compare --svg: drew the chart, 0600" "$(stat -c '%a %s' "$DN_DIR/compare.svg" 2>&1)" \
                test "$(stat -c %a "$DN_DIR/compare.svg" 2>/dev/null)" = 600
        check "compare --svg: one panel a backend, zram and file side by side" \
                "$(grep -Eo '>[0-9TZ_]+: [^<]*replicas<' "$DN_DIR/compare.svg" | tr '\n' ' ')" \
                eval "grep -Eq '>[0-9TZ_]+: zram [a-z0-9-]+, [0-9]+ / [0-9]+ replicas<' '$DN_DIR/compare.svg' && grep -Eq '>[0-9TZ_]+: file, [0-9]+ / [0-9]+ replicas<' '$DN_DIR/compare.svg'"
        echo "DATA density-svg compare-idle $(base64 -w0 "$DN_DIR/compare.svg" 2>/dev/null)" >>"$RESULTS"
}

scenario_density() {
        if [[ ! -x $DN_REPLICA ]]; then line SKIP "replica not installed (the harness builds it with the host's C compiler)"; return; fi
        local t0=$SECONDS s0 sa sb hp avail mt_mib file_mib idle_gain hot_gain
        rm -rf "$DN_DIR"; mkdir -p "$DN_DIR"
        if [[ $density_full == 1 ]]; then DN_SEARCH=(--runs 3); else DN_SEARCH=(--around 2 --runs 1); fi
        s0=$(tr_snap)
        local out rc=0
        out=$("$DN_REPLICA" hot 8 1 2>&1) || rc=$?
        expect "replica runs and checks its data outside a limit" "$rc" 0 "$(tail -n 1 <<<"$out")"
        # room: huge pages until about DN_AVAIL MiB are available
        avail=$(( $(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo) / 1024 ))
        hp=$(( (avail - DN_AVAIL) / 2 ))
        (( hp < 0 )) && hp=0
        sysctl -q -w vm.nr_hugepages=$hp
        info "setup" "MemAvailable $avail MiB before; $(cat /proc/sys/vm/nr_hugepages) huge pages of 2 MiB taken: $(( $(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo) / 1024 )) MiB available"
        cd "$DN_DIR" || return
        # the scenario's own shell (and nodeswap, its child) out of the OOM killer's way: a no-swap
        # point past the node's memory ends in the kernel's OOM killer, which should pick a replica
        echo -900 >/proc/self/oom_score_adj

        # --- zram, SwapTotal = MemTotal ------------------------------------------------------------
        tr_policy zram
        sa=$(tr_snap)
        dn_trial "zram idle" -- "$DN_REPLICA" idle "$DN_MIB"
        idle_gain=$(dn_gain)
        DN_IDLE_ZRAM=$(json '"zram %d/%d" % (j["density"]["density_no_swap"], j["density"]["density_swap"])')
        check "zram idle: at least 2 more replicas with swap than without" "$idle_gain more" test "${idle_gain/null/0}" -ge 2
        expect "zram idle: the trial saw the zram backend" "$(json 'j["node"]["backend"]')" zram
        check "zram idle: the points with swap swapped out (swapped_out_bytes > 0 where more replicas held than without swap)" \
                "$(json '[p["swapped_out_bytes"] for p in j["density"]["points"] if p["swap"]]')" \
                test "$(json 'any((p["swapped_out_bytes"] or 0) > 0 for p in j["density"]["points"] if p["swap"] and p["replicas"] > j["density"]["density_no_swap"])')" = true
        tr_same "zram idle: the trial changed nothing on the node (swaps, vm sysctls, drop-ins)" "$sa"
        dn_trial "zram hot" -- "$DN_REPLICA" hot "$DN_MIB"
        hot_gain=$(dn_gain)
        check "zram hot: swap buys the hot workload less than the idle one" "hot $hot_gain, idle $idle_gain more" \
                test "${hot_gain/null/0}" -lt "${idle_gain/null/0}"
        tr_same "zram hot: the trial changed nothing on the node" "$sa"

        # an interrupted trial: SIGINT during the lone replica's hold; every replica's unit
        # stopped, the record saved, exit 1
        local pid before_n
        before_n=$(tr_records | wc -l)
        nodeswap trial --density --request "$DN_REQUEST" --limit "$DN_LIMIT" --memory "$DN_BUDGET" --hold 120 --runs 1 \
                -- "$DN_REPLICA" idle 16 >"$DN_DIR/interrupted.out" 2>"$DN_DIR/interrupted.err" &
        pid=$!
        sleep 20
        kill -INT "$pid"
        rc=0
        wait "$pid" || rc=$?
        expect "interrupted: nodeswap trial --density exits 1" "$rc" 1 "stderr: $(tail -c 300 "$DN_DIR/interrupted.err")"
        expect "interrupted: no replica's unit left" \
                "$(systemctl list-units --all --plain --no-legend 'nodeswap-trial-*' 'nodeswap_trial_*' | wc -l)" 0
        expect "interrupted: the trial was recorded" "$(tr_records | wc -l)" $(( before_n + 1 ))
        tr_same "interrupted: the trial changed nothing on the node" "$sa"

        # --- a swap file as large as the disk leaves room for, up to the RAM ------------------------
        mt_mib=$(( $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) / 1024 ))
        avail=$(( $(df -B1M --output=avail /var/lib | tail -n 1) ))
        file_mib=$(( ((avail - 128 - 16) * 64 / 65) / 32 * 32 ))
        (( file_mib > mt_mib )) && file_mib=$(( mt_mib / 32 * 32 ))
        TR_FILE_MIB=$file_mib
        tr_policy file
        check "file policy: the swap file is on, zram off" "$(swaps_summary)" in_file_state
        sb=$(tr_snap)
        DN_REQUEST=$DN_FILE_REQUEST
        dn_trial "file idle" -- "$DN_REPLICA" idle "$DN_MIB"
        idle_gain=$(dn_gain)
        DN_IDLE_FILE=$(json '"file %d/%d" % (j["density"]["density_no_swap"], j["density"]["density_swap"])')
        check "file idle: at least 2 more replicas with swap than without" "$idle_gain more (file $file_mib MiB)" \
                test "${idle_gain/null/0}" -ge 2
        expect "file idle: the trial saw the file backend" "$(json 'j["node"]["backend"]')" file
        tr_same "file idle: the trial changed nothing on the node" "$sb"
        # the hot replicas on the file only in the full sweep: the same property as on zram, and
        # the slowest trial of the four (177 s of density's 536 s in a CI run of 2026-12-05, its replicas
        # thrashing the VM's disk)
        if [[ $density_full == 1 ]]; then
                dn_trial "file hot" -- "$DN_REPLICA" hot "$DN_MIB"
                hot_gain=$(dn_gain)
                check "file hot: swap buys the hot workload less than the idle one" "hot $hot_gain, idle $idle_gain more" \
                        test "${hot_gain/null/0}" -lt "${idle_gain/null/0}"
                tr_same "file hot: the trial changed nothing on the node" "$sb"
        fi

        DN_REQUEST=16Mi
        dn_compare

        # --- back to the start ------------------------------------------------------------------
        cd / || return
        echo 0 >/proc/self/oom_score_adj
        # the huge pages first: the RAM they hold back is the scenario's, and with them taken and
        # the file policy's reclaim headroom (watermark_scale_factor 2000: the high watermarks some
        # 40 % of the RAM above min, all out of MemAvailable) the revert's swapoff found MemAvailable
        # 0 B and refused (swapoff-no-room) in the .ci/run of 2026-12-03
        sysctl -q -w vm.nr_hugepages=0
        ns revert --purge --json
        ns_expect_rc "revert --purge" 0
        wait_for 30 tr_is "$s0"
        tr_same "after revert: swaps, vm sysctls (the huge pages given back) and drop-ins byte for byte as before" "$s0"
        no_failed_units "after the density trials"
        local k times=
        for k in "${!DN_T[@]}"; do times+="$k ${DN_T[$k]} s, "; done
        info "took" "$(( SECONDS - t0 )) s: ${times%, }"
}

# ---------------------------------------------------------------------------------------------
# kube: the real node (issue 36). containerd and the real kubelet (the version the harness put in,
# /etc/nodeswap-e2e/kube/version) in kubeadm's shape: kubelet.service with kubeadm's 10-kubeadm.conf,
# --config /var/lib/kubelet/config.yaml, kubeadm-flags.env, and /etc/default/kubelet naming the
# --config-dir nodeswap's drop-in goes to; the API server and etcd run on the host, reached at
# 10.0.2.100:6443 (tests/e2e/kube/control-plane.sh). Images come from the harness (no pulls); no
# scheduler (spec.nodeName) and no controller manager (the default ServiceAccount made here).
KUBE_LIB=/usr/local/lib/nodeswap-e2e
KUBE_NODE=nodeswap-e2e
KUBE_DROPIN_DIR=/etc/kubernetes/kubelet.conf.d
KUBEADM_DROPIN=$KUBE_DROPIN_DIR/90-nodeswap.conf        # the policy's DropIn= on kubeadm's shape
KUBE_DROPIN=$KUBEADM_DROPIN                             # ... on the shape under test
KUBE_MANIFESTS=/etc/kubernetes/manifests        # kubeadm's staticPodPath (config.yaml)
kapi() { python3 "$KUBE_LIB/kubeapi.py" api "$@" 2>>"$STATE/kube-api.err"; }
# kjson EXPR: a Python expression over the JSON document `j` on stdin
kjson() {
        python3 -c 'import json, sys
try:
    j = json.load(sys.stdin)
    v = eval(sys.argv[1])
except Exception as e:
    v = "error: %s" % e
print(v if isinstance(v, str) else json.dumps(v))' "$1"
}
kube_node() { kapi GET "/api/v1/nodes/$KUBE_NODE" | kjson "$1"; }
kube_ready() { [[ $(kube_node '[c["status"] for c in j["status"]["conditions"] if c["type"] == "Ready"][0]') == True ]]; }
kube_configz() { python3 "$KUBE_LIB/kubeapi.py" kubelet /configz 2>>"$STATE/kube-api.err" | kjson "$1"; }
kube_pod() { kapi GET "/api/v1/namespaces/default/pods/$1" | kjson "$2"; }
kube_phase() { kube_pod "$1" 'j["status"]["phase"]'; }
# the kubelet answers on its port 10250 (after a start or restart the node's Ready condition may
# still be the previous kubelet's: no controller manager marks it stale)
kube_up() { [[ $(kube_configz 'type(j["kubeletconfig"]["memorySwap"]).__name__') == dict ]]; }
kube_running() { [[ $(kube_phase "$1") == Running ]]; }
kube_swap_capacity() { kube_node 'j["status"]["nodeInfo"].get("swap", {}).get("capacity", 0)'; }
kube_capacity_is() { [[ $(kube_swap_capacity) == "$1" ]]; }
kube_cid() { kube_pod "$1" 'j["status"]["containerStatuses"][0]["containerID"].split("//")[1]'; }
kube_mem() { local v; v=$(cat "/sys/fs/cgroup/system.slice/$1/memory.current" 2>/dev/null); echo $(( ${v:-0} / 1048576 )); }
# kube_new_pod NAME REQUEST LIMIT: a pod of the workload image on this node (Burstable with a
# request below its limit), Running within 300 s
kube_new_pod() {
        local res=
        [[ -n $2 ]] && res+="\"requests\": {\"memory\": \"$2\"}"
        [[ -n $3 ]] && res+="${res:+, }\"limits\": {\"memory\": \"$3\"}"
        cat >"$STATE/pod-$1.json" <<JSON
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1", "namespace": "default"},
 "spec": {"nodeName": "$KUBE_NODE", "automountServiceAccountToken": false,
          "terminationGracePeriodSeconds": 1,
          "containers": [{"name": "work", "image": "nodeswap-e2e.test/workload:1",
                          "imagePullPolicy": "Never", "resources": {$res}}]}}
JSON
        kapi POST /api/v1/namespaces/default/pods "$STATE/pod-$1.json" >/dev/null
        wait_for 300 kube_running "$1"
}
# kube_cg_swap CONTAINER_ID: "CGROUP_SWAP_MAX CONFIG_JSON_SWAP_MAX CGROUP" of a container: the
# cgroup's memory.swap.max as the kernel keeps it (whole pages) and the byte value the kubelet asked
# for, linux.resources.unified in the OCI config.json containerd gave runc, and the cgroup as
# nodeswap names it (below /sys/fs/cgroup/); "none" for what is not there
kube_cg_swap() {
        local cg path
        cg=$(find /sys/fs/cgroup/kubepods.slice -type d -name "cri-containerd-$1.scope" 2>/dev/null | head -n 1)
        path=${cg#/sys/fs/cgroup/}
        echo "$(cat "$cg/memory.swap.max" 2>/dev/null || echo none)" \
             "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["linux"]["resources"].get("unified", {}).get("memory.swap.max", "none"))' \
                "$KUBE_TASKS/$1/config.json" 2>/dev/null || echo none)" \
             "${path:-none}"
}
kube_swap_of() { kube_cg_swap "$(kube_cid "$1")"; }   # kube_swap_of POD: its first container's
# kube_policy UNIT DROPIN [BACKEND [SWAPBEHAVIOR [NOSWAPUNITS [RECLAIM]]]]: a swap file (BACKEND
# file, the default) of 256M or a zstd zram device (zram) of 512M, whose different SwapTotal makes a
# switch between them restart the kubelet; SWAPBEHAVIOR LimitedSwap unless given (empty: no
# SwapBehavior=, the kubelet is left alone and not restarted, nodeswap.conf(5)); NOSWAPUNITS for
# NoSwapUnits=; RECLAIM, "MINFREE WSF", written as [Sysctl] MinFreeKbytes= and WatermarkScaleFactor=
# (unset: not written, their default auto)
kube_policy() {
        local backend=${3:-file} behavior=${4-LimitedSwap}
        mkdir -p /etc/nodeswap
        {
                printf '[Swap]\nBackend=%s\n\n' "$backend"
                if [[ $backend == zram ]]; then
                        printf '[Zram]\nAlgorithm=zstd\nSize=512M\nPriority=100\n\n'
                else
                        printf '[File]\nPath=%s\nSize=256M\nPriority=10\n\n' "$SWAPFILE"
                fi
                printf '[Kubelet]\n'
                [[ -n $behavior ]] && printf 'SwapBehavior=%s\n' "$behavior"
                printf 'Unit=%s\nDropIn=%s\n' "$1" "$2"
                [[ -n ${5:-} ]] && printf 'NoSwapUnits=%s\n' "$5"
                [[ -n ${6:-} ]] && printf '\n[Sysctl]\nMinFreeKbytes=%s\nWatermarkScaleFactor=%s\n' ${6}
        } >"$POLICY"
        chmod 0644 "$POLICY"
}
kube_unit_started() { prop "$KUBE_UNIT" ExecMainStartTimestampMonotonic; }
kube_delete_pods() {
        local p
        for p in "$@"; do kapi DELETE "/api/v1/namespaces/default/pods/$p" >/dev/null; done
        for p in "$@"; do wait_for 120 kube_gone "$p"; done
}
kube_gone() { ! kapi GET "/api/v1/namespaces/default/pods/$1" >/dev/null 2>&1; }
kube_swaps_bytes() { awk 'NR > 1 { s += $3 } END { print s * 1024 }' /proc/swaps; }
kube_cg_of_unit() { cat "/sys/fs/cgroup$(prop "$1" ControlGroup)/memory.swap.max" 2>/dev/null || echo none; }

# kube_stale_is WHEN yes|no: nodeswap's stale-capacity finding (check's kubelet-swap-stale, and
# status --json's kubelet.swap_stale) says the kubelet works with an old swap capacity, or not
kube_stale_is() {
        local f
        ns check --json
        f=$(json '"yes" if any(x.get("id") == "kubelet-swap-stale" for x in j.get("findings", [])) else "no"')
        ns status --json
        expect "$1: check's kubelet-swap-stale, status's kubelet.swap_stale" "$f $(json 'j["kubelet"]["swap_stale"]')" \
                "$2 $([[ $2 == yes ]] && echo true || echo false)" \
                "the node's swap capacity $(kube_swap_capacity), /proc/swaps $(kube_swaps_bytes)"
}

# --- item 3 of issue 36: every class and zero case, to the byte --------------------------------
# kube_ctr NAME MEMORY_REQUEST MEMORY_LIMIT [CPU]: one container of the workload image as JSON
# (an empty size: not set; CPU: as request and limit both)
kube_ctr() {
        local req=() lim=() r l
        [[ -n $2 ]] && req+=("\"memory\": \"$2\"")
        [[ -n $3 ]] && lim+=("\"memory\": \"$3\"")
        [[ -n ${4:-} ]] && req+=("\"cpu\": \"$4\"") && lim+=("\"cpu\": \"$4\"")
        r=$(IFS=,; echo "${req[*]}") l=$(IFS=,; echo "${lim[*]}")
        printf '{"name": "%s", "image": "nodeswap-e2e.test/workload:1", "imagePullPolicy": "Never", "resources": {"requests": {%s}, "limits": {%s}}}' \
                "$1" "$r" "$l"
}
# kube_pod_doc NAMESPACE NAME PRIORITY_CLASS CONTAINER_JSON...: a pod on this node (no
# PRIORITY_CLASS: empty)
kube_pod_doc() {
        local ns=$1 name=$2 pc=$3 ctrs
        shift 3
        ctrs=$(IFS=,; echo "$*")
        printf '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "%s", "namespace": "%s"}, "spec": {"nodeName": "%s", "automountServiceAccountToken": false, "terminationGracePeriodSeconds": 1, %s"containers": [%s]}}\n' \
                "$name" "$ns" "$KUBE_NODE" "${pc:+\"priorityClassName\": \"$pc\", }" "$ctrs"
}
# kube_pods_where running|present NAMESPACE/NAME...: prints those of the pods not yet running with
# every container started / still there (one list of the node's pods; "unknown" when the API
# server does not answer)
kube_pods_where() {
        local what=$1
        shift
        kapi GET "/api/v1/pods?fieldSelector=spec.nodeName%3D$KUBE_NODE" | python3 -c '
import json, sys
try:
    items = json.load(sys.stdin)["items"]
except Exception:
    print("unknown")
    sys.exit(0)
pods = {p["metadata"]["namespace"] + "/" + p["metadata"]["name"]: p for p in items}
def running(p):
    cs = p["status"].get("containerStatuses") or []
    return p["status"].get("phase") == "Running" and len(cs) == len(p["spec"]["containers"]) and \
        all("running" in c.get("state", {}) for c in cs)
want = sys.argv[2:]
if sys.argv[1] == "running":
    print(" ".join(i for i in want if i not in pods or not running(pods[i])))
else:
    print(" ".join(i for i in want if i in pods))' "$what" "$@"
}
# kube_case_facts PODS_JSON NAMESPACE POD CONTAINER: "CONTAINER_ID QOS_CLASS PRIORITY MIRROR" as the
# API server has them (MIRROR yes for a static pod's mirror pod)
kube_case_facts() {
        python3 - "$@" <<'PY' 2>/dev/null || echo "none none none no"
import json, sys
f, ns, name, ctr = sys.argv[1:5]
for p in json.load(open(f))["items"]:
    if p["metadata"]["namespace"] == ns and p["metadata"]["name"] == name:
        cs = [c for c in p["status"].get("containerStatuses") or [] if c["name"] == ctr]
        cid = cs[0]["containerID"].split("//")[1] if cs and cs[0].get("containerID") else "none"
        mirror = "kubernetes.io/config.mirror" in (p["metadata"].get("annotations") or {})
        print(cid, p["status"].get("qosClass", "none"), p["spec"].get("priority", "none"), "yes" if mirror else "no")
        break
else:
    print("none none none no")
PY
}
# kube_status_pod STATUS_JSON CGROUP: "SWAP_MAX ALLOWANCE REQUEST" of that container in status --pods
kube_status_pod() {
        python3 - "$@" <<'PY' 2>/dev/null || echo "none none none"
import json, sys
for c in json.load(open(sys.argv[1])).get("pods", []):
    if c.get("cgroup") == sys.argv[2]:
        print(*(json.dumps(c.get(k)) for k in ("swap_max", "allowance", "request")))
        break
else:
    print("none none none")
PY
}
# The cases of a batch TAG: "NAMESPACE POD CONTAINER QOS_CLASS REQUEST_BYTES|- SIZE_OPTIONS...".
# QOS_CLASS is what the API server must have made of the pod; REQUEST_BYTES, for a container with
# swap and a request of whole MiB, the request status --pods must infer from its memory.swap.max.
# nodeswap allowance gets the SIZE_OPTIONS, and --qos, --priority and --static-pod from the pod as
# the API server has it.
kube_case_lines() {
        local t=$1 ns pod rest p
        while read -r ns pod rest; do
                p=${pod#"$t"-}
                [[ " ${KUBE_BATCH[$t]} " == *" ${p%%-*} "* ]] && echo "$ns $pod $rest"
        done <<CASES
default $t-b1 work Burstable 67108864 --request 64Mi --limit 128Mi
default $t-b2 a Burstable 33554432 --request 32Mi --limit 96Mi
default $t-b2 b Burstable - --request 20.3Mi
default $t-b2 c Burstable - --request 48Mi --limit 48Mi
default $t-b2 d Burstable - --limit 40Mi
default $t-b2 e Burstable -
default $t-gu work Guaranteed - --request 48Mi --limit 48Mi
default $t-be work BestEffort -
kube-system $t-cr work Burstable - --request 64Mi --limit 128Mi
default $t-st-$KUBE_NODE work Burstable - --request 64Mi --limit 128Mi
CASES
}
# kube_case_pod TAG CASE: the API server's NAMESPACE/NAME of the batch's pod CASE (KUBE_BATCH):
# the critical pod in kube-system, the static pod's mirror NAME-NODE
kube_case_pod() {
        case $2 in
        cr) echo "kube-system/$1-cr" ;;
        st) echo "default/$1-st-$KUBE_NODE" ;;
        *) echo "default/$1-$2" ;;
        esac
}
kube_case_items() {  # the batch's pods as NAMESPACE/NAME
        local p out=()
        for p in ${KUBE_BATCH[$1]}; do out+=("$(kube_case_pod "$1" "$p")"); done
        echo "${out[*]}"
}
# The pods of each batch: every class on the swap file; on zram, after the backend switch, the
# two Burstable pods, whose allowances scale with the new swap capacity, and the critical pod at a
# priority class of its own. Guaranteed, BestEffort and the static pod get no swap whatever the
# capacity, which batch f shows; leaving them out of z spares three of its ten containers' starts
# (the batch's pods took 148-186 s to run on the one-vCPU VM).
declare -A KUBE_BATCH=([f]="b1 b2 gu be cr st" [z]="b1 b2 cr")
# kube_cases TAG CRITICAL_CLASS: the batch TAG (f on the swap file, z on zram; its pods in
# KUBE_BATCH), of up to six pods and ten containers: Burstable with one container (64Mi/128Mi) and with five (32Mi/96Mi; 20.3Mi without a
# limit, a fraction of a byte the kubelet's Quantity.Value() rounds up; request = limit; a limit
# without a request, which the API server makes the request; neither), Guaranteed, BestEffort, a
# Burstable pod at CRITICAL_CLASS in kube-system, and a static pod (its manifest in the kubelet's
# staticPodPath, seen through its mirror pod). For every container: what the kubelet asked for in
# config.json is nodeswap allowance's swap, the cgroup's memory.swap.max is that in whole pages,
# and status --pods has the cgroup's value (and no allowance where it is 0).
kube_cases() {
        local t=$1 crit=$2 t0 left ns pod ctr qos req args facts cid got_qos prio mirror cg cfg path allow pages
        local st_swap st_allow st_req want_allow want_cg extra what pods_json status_json
        t0=$SECONDS
        kube_pod_doc default "$t-b1" "" "$(kube_ctr work 64Mi 128Mi)" >"$STATE/pod-$t-b1.json"
        kube_pod_doc default "$t-b2" "" "$(kube_ctr a 32Mi 96Mi)" "$(kube_ctr b 20.3Mi "")" \
                "$(kube_ctr c 48Mi 48Mi)" "$(kube_ctr d "" 40Mi)" "$(kube_ctr e "" "")" >"$STATE/pod-$t-b2.json"
        kube_pod_doc default "$t-gu" "" "$(kube_ctr work 48Mi 48Mi 10m)" >"$STATE/pod-$t-gu.json"
        kube_pod_doc default "$t-be" "" "$(kube_ctr work "" "")" >"$STATE/pod-$t-be.json"
        kube_pod_doc kube-system "$t-cr" "$crit" "$(kube_ctr work 64Mi 128Mi)" >"$STATE/pod-$t-cr.json"
        for pod in ${KUBE_BATCH[$t]}; do
                if [[ $pod == st ]]; then
                        # the static pod: the kubelet reads its staticPodPath (kubeadm's config.yaml)
                        # and makes the mirror pod NAME-NODE in the API server (written beside it
                        # under a hidden name, which the kubelet does not read, then renamed)
                        kube_pod_doc default "$t-st" "" "$(kube_ctr work 64Mi 128Mi)" >"$KUBE_MANIFESTS/.$t-st.json"
                        mv "$KUBE_MANIFESTS/.$t-st.json" "$KUBE_MANIFESTS/$t-st.json"
                else
                        kapi POST "/api/v1/namespaces/$(kube_case_pod "$t" "$pod" | cut -d/ -f1)/pods" "$STATE/pod-$t-$pod.json" >/dev/null
                fi
        done
        if wait_for 400 out_is "" kube_pods_where running $(kube_case_items "$t"); then
                pass "$t: the batch's pods run (${KUBE_BATCH[$t]})" "$(( SECONDS - t0 )) s"
        else
                left=$(kube_pods_where running $(kube_case_items "$t"))
                fail "$t: the batch's pods run (${KUBE_BATCH[$t]})" "not running after $(( SECONDS - t0 )) s: $left"
                journalctl -b -u "$KUBE_UNIT" --no-pager | tail -n 30 | sed 's/^/LOG /' >>"$RESULTS"
        fi
        pods_json=$STATE/kube-pods-$t.json status_json=$STATE/kube-status-$t.json
        kapi GET "/api/v1/pods?fieldSelector=spec.nodeName%3D$KUBE_NODE" >"$pods_json"
        ns status --pods --json
        cp "$NS_OUT" "$status_json"
        pages=$(getconf PAGESIZE)
        while read -r ns pod ctr qos req args; do
                read -r cid got_qos prio mirror <<<"$(kube_case_facts "$pods_json" "$ns" "$pod" "$ctr")"
                read -r cg cfg path <<<"$(kube_cg_swap "$cid")"
                read -r st_swap st_allow st_req <<<"$(kube_status_pod "$status_json" "$path")"
                extra=(--qos "${got_qos,,}")
                [[ $prio =~ ^-?[0-9]+$ ]] && extra+=(--priority "$prio")
                [[ $mirror == yes ]] && extra+=(--static-pod)
                # (args: the case's own size options, split on purpose)
                # shellcheck disable=SC2086
                ns allowance $args "${extra[@]}" --json
                allow=$(json 'j["swap"]')
                # the kernel keeps memory.swap.max in whole pages; status --pods has no allowance
                # (null) for a container whose memory.swap.max is 0
                want_cg='?' want_allow=null
                [[ $allow =~ ^[0-9]+$ ]] && want_cg=$(( allow / pages * pages ))
                [[ $allow =~ ^[0-9]+$ ]] && (( allow / pages > 0 )) && want_allow=$want_cg
                what="$qos, priority $prio"
                [[ $mirror == yes ]] && what+=", the mirror of a static pod"
                expect "$t: $pod/$ctr ($what): QoS; config.json's memory.swap.max; the cgroup's; status --pods' swap_max/allowance" \
                        "$got_qos cfg=$cfg cgroup=$cg status=$st_swap/$st_allow" \
                        "$qos cfg=$allow cgroup=$want_cg status=$want_cg/$want_allow" \
                        "nodeswap allowance $args ${extra[*]}: $allow ($(json 'j["reason"]'))"
                if [[ $req != - ]]; then
                        expect "$t: $pod/$ctr: status --pods infers the request from memory.swap.max" "$st_req" "$req"
                fi
        done < <(kube_case_lines "$t")
}
# kube_cases_delete TAG: the batch's pods go (the static pod with its manifest); not waited for
kube_cases_delete() {
        local pod ref
        rm -f "$KUBE_MANIFESTS/$1-st.json"
        for pod in ${KUBE_BATCH[$1]}; do
                [[ $pod == st ]] && continue            # the kubelet deletes its mirror pod
                ref=$(kube_case_pod "$1" "$pod")
                kapi DELETE "/api/v1/namespaces/${ref%%/*}/pods/${ref#*/}" >/dev/null
        done
}

# kube_node_checks SHAPE: the node is up in SHAPE (kubeadm or k3s, $KUBE_UNIT the kubelet's unit,
# $KUBE_DROPIN where the policy puts nodeswap's drop-in): a pod before nodeswap, then apply
# (LimitedSwap, a swap file), /configz, the node's swap capacity, a new pod's swap to the byte,
# revert, and a pod after it. Pods are named SHAPE-before, -limited, -after. On kubeadm's shape
# the swap of every class of pod (kube_cases) on the swap file, then on zram after a backend switch
# that restarts the kubelet, then a switch whose restart the policy withholds (the capacity goes
# stale, and nodeswap says so exactly then), and NoSwapUnits= on kubelet.service and
# containerd.service.
kube_node_checks() {
        local shape=$1 t0 s0 got cg cfg path allow eh status_eh swaps_bytes old_bytes units= ctd_before
        t0=$SECONDS
        if kube_new_pod "$shape-before" 64Mi 128Mi; then
                pass "$shape: a pod from the API server runs on the node" "$(( SECONDS - t0 )) s"
        else
                fail "$shape: a pod from the API server runs on the node" "$(kapi GET "/api/v1/namespaces/default/pods/$shape-before" | head -c 800)"
                journalctl -b -u "$KUBE_UNIT" -u containerd.service --no-pager | tail -n 40 | sed 's/^/LOG /' >>"$RESULTS"
                return 1
        fi
        # NoSwap is the kubelet's empty value: /configz shows "" where no file sets swapBehavior
        expect "$shape: before nodeswap: /configz swapBehavior (empty: NoSwap)" "$(kube_configz 'repr(j["kubeletconfig"]["memorySwap"].get("swapBehavior", ""))')" "''"
        read -r got _ <<<"$(kube_swap_of "$shape-before")"
        expect "$shape: before nodeswap: the Burstable container's memory.swap.max" "$got" 0

        # nodeswap applies a swap file and LimitedSwap through its drop-in in the kubelet's
        # --config-dir; on kubeadm's shape NoSwapUnits= also names containerd.service, a unit of its
        # own. (The policy names this shape's unit from here on, for check's stale finding too.)
        if [[ $shape == kubeadm ]]; then
                units="kubelet containerd.service"
                ctd_before=$(kube_cg_of_unit containerd.service)
        fi
        kube_policy "$KUBE_UNIT" "$KUBE_DROPIN" file LimitedSwap "$units"
        kube_stale_is "$shape: before nodeswap" no
        s0=$(kube_unit_started)
        ns apply --json
        ns_expect_rc "$shape: apply exits 0" 0
        check "$shape: apply restarted $KUBE_UNIT" "$s0 -> $(kube_unit_started)" test "$(kube_unit_started)" != "$s0"
        wait_for 240 kube_up
        wait_for 240 kube_ready
        expect "$shape: /configz swapBehavior" "$(kube_configz 'j["kubeletconfig"]["memorySwap"].get("swapBehavior", "")')" LimitedSwap
        eh=$(kube_configz '",".join("%s<%s" % (k, v) for k, v in sorted(j["kubeletconfig"].get("evictionHard", {}).items()))')
        ns status --json
        status_eh=$(json 'j["kubelet"]["memory_eviction"]["threshold"]')
        check "$shape: /configz evictionHard has the memory.available threshold status says" "configz $eh; status $status_eh" \
                grep -q "memory.available<$status_eh\(,\|$\)" <<<"$eh"
        swaps_bytes=$(kube_swaps_bytes)
        wait_for 90 kube_capacity_is "$swaps_bytes"
        expect "$shape: the node's status.nodeInfo.swap.capacity is /proc/swaps' total (bytes)" "$(kube_swap_capacity)" "$swaps_bytes"
        kube_stale_is "$shape: after apply" no
        if [[ $shape == kubeadm ]]; then
                kube_cases f system-node-critical
        elif kube_new_pod "$shape-limited" 64Mi 128Mi; then
                read -r cg cfg path <<<"$(kube_swap_of "$shape-limited")"
                ns allowance --request 64Mi --limit 128Mi --json
                allow=$(json 'j["swap"]')
                expect "$shape: LimitedSwap: config.json's memory.swap.max is nodeswap allowance's, to the byte" "$cfg" "$allow"
                expect "$shape: LimitedSwap: the cgroup's memory.swap.max is it in whole pages" "$cg" \
                        "$(( allow / $(getconf PAGESIZE) * $(getconf PAGESIZE) ))"
                # status --pods reads the cgroup: the kernel's whole pages, not the kubelet's bytes
                ns status --pods --json
                expect "$shape: status --pods: the container's allowance is its cgroup's" \
                        "$(json "[p['allowance'] for p in j['pods'] if p['cgroup'] == '$path'][0]")" "$cg"
        else
                fail "$shape: a pod after apply runs" "$(kapi GET "/api/v1/namespaces/default/pods/$shape-limited" | head -c 600)"
        fi
        kube_after_apply "$shape"

        if [[ $shape == kubeadm ]]; then
                # the backend switch: zram's SwapTotal differs, so apply restarts the kubelet, which
                # reads the new capacity
                kube_policy "$KUBE_UNIT" "$KUBE_DROPIN" zram LimitedSwap "$units"
                s0=$(kube_unit_started)
                ns apply --json
                ns_expect_rc "$shape: the switch to zram exits 0" 0
                check "$shape: the switch to zram restarted $KUBE_UNIT" "$s0 -> $(kube_unit_started)" test "$(kube_unit_started)" != "$s0"
                wait_for 240 kube_up
                wait_for 240 kube_ready
                swaps_bytes=$(kube_swaps_bytes)
                wait_for 90 kube_capacity_is "$swaps_bytes"
                expect "$shape: after the switch: status.nodeInfo.swap.capacity is /proc/swaps' total (bytes)" "$(kube_swap_capacity)" "$swaps_bytes" "$(swaps_summary)"
                kube_stale_is "$shape: after the switch to zram" no
                kube_cases_delete f
                kube_cases z system-cluster-critical
                kube_cases_delete z
                # the restart withheld: a policy without SwapBehavior= leaves the kubelet alone
                # (nodeswap.conf(5), [Kubelet]), so the switch back to the file does not restart it
                old_bytes=$swaps_bytes
                kube_policy "$KUBE_UNIT" "$KUBE_DROPIN" file "" "$units"
                s0=$(kube_unit_started)
                ns apply --json
                ns_expect_rc "$shape: the switch back to the file without SwapBehavior= exits 0" 0
                expect "$shape: without SwapBehavior= apply did not restart $KUBE_UNIT" "$(kube_unit_started)" "$s0"
                swaps_bytes=$(kube_swaps_bytes)
                sleep 12        # a node status update (nodeStatusUpdateFrequency, 10 s) at least
                expect "$shape: restart withheld: status.nodeInfo.swap.capacity is still the old total, /proc/swaps' is new" \
                        "$(kube_swap_capacity) $swaps_bytes" "$old_bytes $swaps_bytes"
                check "$shape: restart withheld: the swap total did change" "$old_bytes -> $swaps_bytes" test "$old_bytes" != "$swaps_bytes"
                kube_stale_is "$shape: restart withheld" yes
                systemctl restart "$KUBE_UNIT"
                wait_for 240 kube_up
                wait_for 240 kube_ready
                wait_for 90 kube_capacity_is "$swaps_bytes"
                expect "$shape: after a restart by hand: status.nodeInfo.swap.capacity is /proc/swaps' total" "$(kube_swap_capacity)" "$swaps_bytes"
                kube_stale_is "$shape: after a restart by hand" no
                wait_for 120 out_is "" kube_pods_where present $(kube_case_items f) $(kube_case_items z)
                kube_policy "$KUBE_UNIT" "$KUBE_DROPIN" file LimitedSwap "$units"
        fi

        s0=$(kube_unit_started)
        ns revert --json
        ns_expect_rc "$shape: revert exits 0" 0
        check "$shape: revert restarted $KUBE_UNIT" "$s0 -> $(kube_unit_started)" test "$(kube_unit_started)" != "$s0"
        wait_for 240 kube_up
        wait_for 240 kube_ready
        expect "$shape: after revert: /configz swapBehavior (empty: NoSwap)" "$(kube_configz 'repr(j["kubeletconfig"]["memorySwap"].get("swapBehavior", ""))')" "''"
        swaps_bytes=$(kube_swaps_bytes)
        wait_for 90 kube_capacity_is "$swaps_bytes"
        expect "$shape: after revert: status.nodeInfo.swap.capacity is /proc/swaps' total" "$(kube_swap_capacity)" "$swaps_bytes" "$(swaps_summary)"
        kube_stale_is "$shape: after revert" no
        [[ $shape == kubeadm ]] && expect "kubeadm: after revert: containerd.service's memory.swap.max as before" \
                "$(kube_cg_of_unit containerd.service)" "$ctd_before"
        if kube_new_pod "$shape-after" 64Mi 128Mi; then
                read -r cg cfg _ <<<"$(kube_swap_of "$shape-after")"
                expect "$shape: after revert: a new pod's memory.swap.max (cgroup, config.json)" "$cg $cfg" "0 0"
        else
                fail "$shape: a pod after revert runs" "$(kapi GET "/api/v1/namespaces/default/pods/$shape-after" | head -c 600)"
        fi
}
kube_after_apply() {
        if [[ $1 == kubeadm ]]; then
                # NoSwapUnits=kubelet containerd.service: kubeadm's kubelet and container runtime are
                # units of their own; containerd.service (not restarted by apply) has 0 at once
                expect "kubeadm: NoSwapUnits: kubelet.service's and containerd.service's memory.swap.max" \
                        "$(kube_cg_of_unit kubelet.service) $(kube_cg_of_unit containerd.service)" "0 0"
                return 0
        fi
        # NoSwapUnits= (default: the kubelet's unit): k3s-agent.service holds the kubelet and its
        # containerd, and its cgroup may not swap, while the pods (kubepods.slice) get theirs
        expect "k3s: NoSwapUnits: k3s-agent.service's memory.swap.max" "$(kube_cg_of_unit k3s-agent.service)" 0
}

# --- issue 38 item 4: the swap storm on the real node -------------------------------------------
# On kubeadm's shape, after kube_node_checks: for zram and then the swap file, nodeswap applies
# LimitedSwap with its reclaim settings ([Sysctl] MinFreeKbytes=auto, WatermarkScaleFactor=auto,
# nodeswap.conf(5)) and NoSwapUnits=kubelet containerd.service; the VM's swap-out throughput is
# measured on that backend (a scratch cgroup held at 32M writes 128 MiB: /proc/vmstat's pswpout
# over the fill's time); three Burstable pods of the workload image start and wait (the no-storm
# baseline, at least STORM_BASE_S seconds from the kubelet's Ready), then run tests/bench/storm.c
# at once, each at the throughput, STORM_RATE_X (3) times it together: storm-hot and storm-cold
# (request 224Mi, limit 256Mi) fill their limit and half their swap and hold it hot (random
# pages written all the time) or cold (three quarters of the swap had storm-cold OOM-killed on
# the file, swap-out too slow for its fill: storm-hot is the one whose stall check must see);
# storm-over (128Mi/192Mi) goes 64 MiB past its limit and its swap. The pods write compressible memory (storm.c). A
# sampler reads the kubelet's Lease (kube-node-lease/NODE, spec.renewTime) and the node's Ready
# condition (status, lastHeartbeatTime) every 2 s. Checked: the Lease renewed with no gap over
# STORM_GAP_FAIL_S seconds (the node-monitor grace period, 40 s: a larger gap is what makes the
# node controller mark the node NotReady) and Ready True in every sample, in the baseline and in
# the storm (both gaps printed: on one TCG vCPU gaps appear without pressure); kubelet's and
# containerd's main PIDs unchanged and no oom_kill in their memory.events; every OOM kill in the
# kernel's log since the storm began inside kubepods.slice; storm-over OOM-killed in its own
# cgroup (an oom-kill line with its pod's cgroup as oom_memcg, the container's OOMKilled) or
# evicted; `check --json` warning memory-thrashing (PSI full avg60 at or above 10 %,
# plan/pressure.h) naming storm-hot while the storm runs, and without it within STORM_QUIET_S
# seconds after the pods are deleted. Then revert. The Ready condition's lastHeartbeatTime is
# printed, not checked: with the Lease as the heartbeat the kubelet posts its status only when it
# changed or every nodeStatusReportFrequency (5 min by default), so a storm shorter than that shows
# no update at all. e2e.storm_full=1 runs the comparison (kube_storm).
STORM_BIN=/usr/local/lib/nodeswap-e2e/storm
STORM_BASE_S=30 STORM_MIN_S=30 STORM_GAP_FAIL_S=40 STORM_QUIET_S=180 STORM_NAMED_S=180 STORM_RATE_X=3 STORM_SEED=38
STORM_PODS=(storm-hot storm-cold storm-over)

# storm_sampler FILE STOPFILE: "EPOCH READY HEARTBEAT RENEWTIME" lines every 2 s (err where the API
# server did not answer) until STOPFILE exists
storm_sampler() {
        python3 - "$1" "$2" "$KUBE_NODE" <<'PY' 2>>"$STATE/kube-api.err"
import json, os, ssl, sys, time, urllib.request
out, stop, node = sys.argv[1:4]
ctx = ssl.create_default_context(cafile="/etc/kubernetes/pki/ca.crt")
ctx.load_cert_chain("/etc/nodeswap-e2e/kube/admin.pem")
api = "https://10.0.2.100:6443"
def get(path):
    try:
        with urllib.request.urlopen(urllib.request.Request(api + path, headers={"Accept": "application/json"}),
                                    context=ctx, timeout=10) as r:
            return json.load(r)
    except Exception:
        return None
with open(out, "a", buffering=1) as f:
    while not os.path.exists(stop):
        t = time.time()
        lease = get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + node)
        n = get("/api/v1/nodes/" + node)
        ready = hb = "err"
        if n:
            c = [c for c in n["status"].get("conditions", []) if c["type"] == "Ready"]
            ready, hb = (c[0]["status"], c[0].get("lastHeartbeatTime", "none")) if c else ("none", "none")
        renew = lease["spec"].get("renewTime", "none") if lease else "err"
        f.write("%.1f %s %s %s\n" % (t, ready, hb, renew))
        time.sleep(max(0.0, 2 - (time.time() - t)))
PY
}
# storm_health FILE FROM TO: over the samples from epoch FROM to TO, "LEASE_MAX_GAP RENEWALS
# HB_MAX_GAP HEARTBEATS NOT_READY ERRORS SAMPLE_MAX_GAP SAMPLES": the longest time without a Lease
# renewal (from the last one before FROM, to TO for the last), the same for the Ready condition's
# lastHeartbeatTime, samples whose Ready was not True, samples the API server did not answer, the
# longest time between samples
storm_health() {
        python3 - "$1" "$2" "$3" <<'PY'
import sys, datetime
f, a, b = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
def ts(s):
    if s in ("err", "none"):
        return None
    s = s.rstrip("Z")
    fmt = "%Y-%m-%dT%H:%M:%S.%f" if "." in s else "%Y-%m-%dT%H:%M:%S"
    return datetime.datetime.strptime(s, fmt).replace(tzinfo=datetime.timezone.utc).timestamp()
rows = [l.split() for l in open(f) if len(l.split()) == 4]
def gaps(times):
    times = sorted(set(t for t in times if t is not None))
    before = [t for t in times if t <= a]
    inside = [t for t in times if a < t <= b]
    pts = ([before[-1]] if before else [a]) + inside + [b]
    return max(y - x for x, y in zip(pts, pts[1:])), len(inside)
win = [r for r in rows if a <= float(r[0]) <= b]
lg, ln = gaps([ts(r[3]) for r in rows])
hg, hn = gaps([ts(r[2]) for r in rows])
nr = sum(1 for r in win if r[1] not in ("True", "err"))
err = sum(1 for r in win if r[1] == "err" or r[3] == "err")
st = sorted(float(r[0]) for r in win)
sg = max([y - x for x, y in zip([a] + st, st + [b])])
print("%.1f %d %.1f %d %d %d %.1f %d" % (lg, ln, hg, hn, nr, err, sg, len(win)))
PY
}
storm_vmstat() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# the node's global reclaim: pages kswapd scanned, pages scanned in direct reclaim, direct reclaim
# stalls (allocstall_* of every zone). Reclaim against a cgroup's own limit counts in none of them:
# mm/vmscan.c (6.1 to 6.12, both LRU implementations) adds pgscan_* and allocstall to /proc/vmstat
# only when !cgroup_reclaim(sc), and the pod's own memory.stat has the rest
storm_reclaim() { awk '$1 == "pgscan_kswapd" { k = $2 } $1 == "pgscan_direct" { d = $2 } $1 ~ /^allocstall_/ { a += $2 } END { print k + 0, d + 0, a + 0 }' /proc/vmstat; }
storm_full_total() { awk '$1 == "full" { sub("total=", "", $5); print $5 }' /proc/pressure/memory; }
storm_oom_kills() { awk '$1 == "oom_kill" { print $2 }' "/sys/fs/cgroup/system.slice/$1/memory.events" 2>/dev/null; }
# storm_throughput: the VM's swap-out throughput in MiB/s on the swap the node has now: a scratch
# cgroup beside the others, memory.max 32M, fills 128 MiB (the storm's compressible content) as
# fast as it can; pswpout's growth over the fill's time
storm_throughput() {
        local cg=/sys/fs/cgroup/nodeswap-e2e-storm-probe out0 t0 t1 out1
        mkdir -p "$cg" && echo 32M >"$cg/memory.max" || { echo 0; return; }
        out0=$(storm_vmstat pswpout) t0=$(date +%s.%N)
        sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 128 0 0 cold compressible' sh "$cg" "$STORM_BIN" >"$STATE/storm-probe.out" 2>&1
        t1=$(date +%s.%N) out1=$(storm_vmstat pswpout)
        wait_for 10 rmdir "$cg" 2>/dev/null
        awk -v a="$out0" -v b="$out1" -v s="$t0" -v e="$t1" 'BEGIN { v = (b - a) * 4096 / 1048576 / (e - s); printf "%d\n", v < 1 ? 1 : v }'
}
# storm_pod NAME REQUEST LIMIT: a pod whose container waits for /go and then runs the stressor with
# the arguments written into it (restartPolicy Never: an OOM kill ends it for good)
storm_pod() {
        cat >"$STATE/pod-$1.json" <<JSON
{"apiVersion": "v1", "kind": "Pod",
 "metadata": {"name": "$1", "namespace": "default"},
 "spec": {"nodeName": "$KUBE_NODE", "automountServiceAccountToken": false,
          "terminationGracePeriodSeconds": 1, "restartPolicy": "Never",
          "containers": [{"name": "work", "image": "nodeswap-e2e.test/workload:1",
                          "imagePullPolicy": "Never",
                          "command": ["/bin/sh", "-c", "while [ ! -s /go ]; do sleep 1; done; exec /usr/local/bin/storm \$(cat /go)"],
                          "resources": {"requests": {"memory": "$2"}, "limits": {"memory": "$3"}}}]}}
JSON
        kapi POST /api/v1/namespaces/default/pods "$STATE/pod-$1.json" >/dev/null
}
storm_cg() { find /sys/fs/cgroup/kubepods.slice -type d -name "cri-containerd-$(kube_cid "$1").scope" 2>/dev/null | head -n 1; }
storm_uid() { kube_pod "$1" 'j["metadata"]["uid"]'; }
# storm_go POD ARGS...: the stressor's arguments into the waiting container's /go
storm_go() {
        local pod=$1 pid
        shift
        pid=$(head -n 1 "$(storm_cg "$pod")/cgroup.procs" 2>/dev/null)
        [[ -n $pid ]] && echo "$*" >"/proc/$pid/root/go.tmp" && mv "/proc/$pid/root/go.tmp" "/proc/$pid/root/go"
}
storm_ended() {  # storm_ended POD: "OOMKilled", "Evicted", another reason, or nothing yet
        kube_pod "$1" '(j["status"].get("reason") or ([s["state"]["terminated"]["reason"] for s in j["status"].get("containerStatuses", []) if "terminated" in s["state"]] or [""])[0])'
}
storm_over_ended() { [[ -n $(storm_ended storm-over) ]]; }
# storm_check: check --json into $STATE/storm-check.json (quietly: it runs every few seconds)
storm_check() { timeout 120 nodeswap check --json >"$STATE/storm-check.json" 2>/dev/null; }
storm_thrash_msg() {
        python3 -c 'import json, sys
try:
    j = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(0)
print(" ".join(f["message"] for f in j.get("findings", []) if f["id"] == "memory-thrashing"))' "$STATE/storm-check.json"
}
storm_names() { storm_check; [[ $(storm_thrash_msg) == *"pod $1 ("* ]]; }
storm_quiet() { storm_check; [[ -s $STATE/storm-check.json && -z $(storm_thrash_msg) ]]; }

# storm_backend BACKEND [off ROUND]: one storm on BACKEND (zram or file) with nodeswap's reclaim
# settings (auto), or with the kernel's (off: the values from before nodeswap, $STORM_OFF, written as
# the policy's); a record of it appended to $STATE/storm-records
storm_backend() {
        local b=$1 mode=${2:-auto} round=${3:-} name="storm $1" reclaim="auto auto" t0=$SECONDS tput rate per swp_hot swp_over tgt_hot tgt_over p klpid ctpid kloom ctoom
        local samples=$STATE/storm-$b.samples stop=$STATE/storm-$b.stop spid base0 storm0 storm1 since
        local in0 out0 full0 oom0 rc0 h uid_hot uid_over ended kern bad named_s quiet_s
        [[ -n $round ]] && name="storm $b $mode run $round"
        [[ $mode == off ]] && reclaim=$STORM_OFF
        kube_policy "$KUBE_UNIT" "$KUBE_DROPIN" "$b" LimitedSwap "kubelet containerd.service" "$reclaim"
        ns apply --json
        ns_expect_rc "kubeadm: $name: apply with the reclaim settings exits 0" 0
        wait_for 240 kube_up
        wait_for 240 kube_ready
        wait_for 90 kube_capacity_is "$(kube_swaps_bytes)"
        info "kubeadm: $name: reclaim settings" "vm.min_free_kbytes $(sysctl_get min_free_kbytes), vm.watermark_scale_factor $(sysctl_get watermark_scale_factor), swappiness $(sysctl_get swappiness); $(swaps_summary); MemTotal $(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) kB"
        rm -f "$samples" "$stop"
        base0=$(date +%s.%N)
        storm_sampler "$samples" "$stop" &
        spid=$!
        tput=$(storm_throughput)
        rate=$(( tput * STORM_RATE_X )) per=$(( (tput * STORM_RATE_X + ${#STORM_PODS[@]} - 1) / ${#STORM_PODS[@]} ))
        info "kubeadm: $name: the VM's swap-out throughput" "$tput MiB/s (128 MiB through a 32M cgroup: $(tr '\n' ' ' <"$STATE/storm-probe.out")); the storm: $STORM_RATE_X x = $rate MiB/s, $per MiB/s a pod"
        storm_pod storm-hot 224Mi 256Mi
        storm_pod storm-cold 224Mi 256Mi
        storm_pod storm-over 128Mi 192Mi
        if ! wait_for 300 out_is "" kube_pods_where running default/storm-hot default/storm-cold default/storm-over; then
                fail "kubeadm: $name: the storm's pods run" "not running: $(kube_pods_where running default/storm-hot default/storm-cold default/storm-over)"
                touch "$stop"; wait "$spid"
                kube_delete_pods "${STORM_PODS[@]}"
                return 1
        fi
        read -r swp_hot _ <<<"$(kube_swap_of storm-hot)"
        read -r swp_over _ <<<"$(kube_swap_of storm-over)"
        check "kubeadm: $name: the Burstable pods get swap (memory.swap.max of storm-hot, storm-over)" "$swp_hot $swp_over" \
                eval '[[ $swp_hot =~ ^[0-9]+$ && $swp_over =~ ^[0-9]+$ ]] && (( swp_hot > 0 && swp_over > 0 ))'
        tgt_hot=$(( 256 + ${swp_hot:-0} / 2 / 1048576 )) tgt_over=$(( 192 + ${swp_over:-0} / 1048576 + 64 ))
        # the baseline: the node with the pods up and waiting, STORM_BASE_S at least
        while (( $(date +%s) < ${base0%.*} + STORM_BASE_S )); do sleep 1; done
        uid_hot=$(storm_uid storm-hot) uid_over=$(storm_uid storm-over)
        klpid=$(prop kubelet.service MainPID) ctpid=$(prop containerd.service MainPID)
        kloom=$(storm_oom_kills kubelet.service) ctoom=$(storm_oom_kills containerd.service)
        in0=$(storm_vmstat pswpin) out0=$(storm_vmstat pswpout) full0=$(storm_full_total) oom0=$(storm_vmstat oom_kill) rc0=$(storm_reclaim)
        since=$(date +%s) storm0=$(date +%s.%N)
        storm_go storm-hot "$tgt_hot $per 3600 hot compressible $STORM_SEED"
        storm_go storm-cold "$tgt_hot $per 3600 cold compressible $(( STORM_SEED + 1 ))"
        storm_go storm-over "$tgt_over $per 3600 hot compressible $(( STORM_SEED + 2 ))"
        info "kubeadm: $name: started" "storm-hot and storm-cold $tgt_hot MiB (limit 256 MiB, swap $(( ${swp_hot:-0} / 1048576 )) MiB), storm-over $tgt_over MiB (limit 192 MiB, swap $(( ${swp_over:-0} / 1048576 )) MiB), $per MiB/s each"
        # during the storm: check names storm-hot; storm-over ends
        if wait_for "$STORM_NAMED_S" storm_names "$uid_hot"; then
                named_s=$(( $(date +%s) - since ))
                pass "kubeadm: $name: check warns memory-thrashing (PSI full avg60 >= 10 %) naming storm-hot" "after $named_s s: $(storm_thrash_msg | head -c 500)"
        else
                fail "kubeadm: $name: check warns memory-thrashing (PSI full avg60 >= 10 %) naming storm-hot" "not after $STORM_NAMED_S s (uid $uid_hot): $(storm_thrash_msg | head -c 500); pod: $(cat "$(dirname "$(storm_cg storm-hot)")/memory.pressure" 2>/dev/null | tr '\n' ' ')"
        fi
        wait_for 120 storm_over_ended
        while (( $(date +%s) < since + STORM_MIN_S )); do sleep 1; done
        storm1=$(date +%s.%N)
        touch "$stop"
        wait "$spid"
        # the node's health: baseline against storm
        local bl st
        read -r -a bl <<<"$(storm_health "$samples" "$base0" "$storm0")"
        read -r -a st <<<"$(storm_health "$samples" "$storm0" "$storm1")"
        info "kubeadm: $name: baseline $(awk -v a="$base0" -v b="$storm0" 'BEGIN { printf "%.0f", b - a }') s" "Lease: ${bl[1]} renewals, longest gap ${bl[0]} s; Ready's lastHeartbeatTime: ${bl[3]} updates, longest gap ${bl[2]} s; ${bl[7]} samples (longest between ${bl[6]} s), ${bl[5]} unanswered"
        info "kubeadm: $name: storm $(awk -v a="$storm0" -v b="$storm1" 'BEGIN { printf "%.0f", b - a }') s" "Lease: ${st[1]} renewals, longest gap ${st[0]} s; Ready's lastHeartbeatTime: ${st[3]} updates, longest gap ${st[2]} s; ${st[7]} samples (longest between ${st[6]} s), ${st[5]} unanswered"
        check "kubeadm: $name: the Lease renewed, no gap over $STORM_GAP_FAIL_S s (node-monitor grace period), baseline and storm" \
                "baseline ${bl[0]} s, storm ${st[0]} s" awk -v a="${bl[0]}" -v b="${st[0]}" -v m="$STORM_GAP_FAIL_S" 'BEGIN { exit !(a != "" && b != "" && a <= m && b <= m) }'
        check "kubeadm: $name: Ready True in every answered sample, baseline and storm" \
                "not True: baseline ${bl[4]} of ${bl[7]}, storm ${st[4]} of ${st[7]}" test "${bl[4]:-x}${st[4]:-x}" = 00
        expect "kubeadm: $name: kubelet's and containerd's main PIDs unchanged" "$(prop kubelet.service MainPID) $(prop containerd.service MainPID)" "$klpid $ctpid"
        expect "kubeadm: $name: no oom_kill in kubelet.service's and containerd.service's memory.events" \
                "$(storm_oom_kills kubelet.service) $(storm_oom_kills containerd.service)" "$kloom $ctoom"
        kern=$(journalctl -k -b -o cat --since "@$since" --no-pager 2>/dev/null | grep 'oom-kill:')
        bad=$(grep -v 'task_memcg=/kubepods.slice/' <<<"$kern" | grep .)
        check "kubeadm: $name: every OOM kill since the storm began was inside kubepods.slice" "${bad:-none}" test -z "$bad"
        ended=$(storm_ended storm-over)
        if [[ $ended == Evicted ]]; then
                pass "kubeadm: $name: storm-over, over its limit and swap, evicted by the kubelet or OOM-killed in its own cgroup" "Evicted"
        else
                check "kubeadm: $name: storm-over, over its limit and swap, evicted by the kubelet or OOM-killed in its own cgroup" \
                        "container: ${ended:-still running}; kernel: $(grep "${uid_over//-/_}" <<<"$kern" | head -n 1 | head -c 300)" \
                        eval '[[ $ended == OOMKilled ]] && grep "oom_memcg=/kubepods.slice/[^,]*${uid_over//-/_}" <<<"$kern" | grep -q "task_memcg=/kubepods.slice/[^,]*${uid_over//-/_}"'
        fi
        local victims evicted=
        kern=$(journalctl -k -b -o cat --since "@$since" --no-pager 2>/dev/null | grep 'oom-kill:\|Killed process')
        victims=$(sed -n 's/.*task_memcg=\([^,]*\),task=\([^,]*\),.*/\2 in \1/p' <<<"$kern" | sed 's|/kubepods.slice/.*pod\([0-9a-f_]*\)\.slice.*|pod \1|' | sort | uniq -c | tr -s ' ' | tr '\n' ';')
        for p in "${STORM_PODS[@]}"; do [[ $(storm_ended "$p") == Evicted ]] && evicted+="$p "; done
        # processes killed, each once: the kill of a memory.oom.group (the kubelet sets it on a
        # container's cgroup) logs "Killed process" for the victim again with the group's members
        local swin swout stall ooms gr
        read -r -a gr <<<"$rc0 $(storm_reclaim)"
        gr=( $(( gr[3] - gr[0] )) $(( gr[4] - gr[1] )) $(( gr[5] - gr[2] )) )
        swin=$(( ($(storm_vmstat pswpin) - in0) * 4 / 1024 )) swout=$(( ($(storm_vmstat pswpout) - out0) * 4 / 1024 ))
        stall=$(( ($(storm_full_total) - full0) / 1000 )) ooms=$(grep -o 'Killed process [0-9]*' <<<"$kern" | sort -u | grep -c .)
        info "kubeadm: $name: numbers" "swap in $swin MiB, out $swout MiB; node PSI full stall $stall ms; global reclaim: kswapd scanned ${gr[0]} pages, direct reclaim ${gr[1]} pages in ${gr[2]} stalls; processes OOM-killed $ooms (the OOM killer's victims: ${victims:-none}; vmstat oom_kill +$(( $(storm_vmstat oom_kill) - oom0 ))); evicted: ${evicted:-none}; pods: $(for p in "${STORM_PODS[@]}"; do echo -n "$p $(storm_ended "$p") "; done); $(tr '\n' ' ' </proc/pressure/memory)"
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$b" "$mode" "$(sysctl_get min_free_kbytes) $(sysctl_get watermark_scale_factor)" \
                "${bl[0]}" "${st[0]}" "${st[2]}" "$ooms" "${victims:-none}" "$(wc -w <<<"$evicted")" "$swin" "$swout" "$stall" "${named_s:-none}" \
                "${gr[0]}" "${gr[1]}" >>"$STATE/storm-records"
        # after the storm: the pods go, and check is quiet again within STORM_QUIET_S
        kube_delete_pods "${STORM_PODS[@]}"
        since=$(date +%s)
        if wait_for "$STORM_QUIET_S" storm_quiet; then
                quiet_s=$(( $(date +%s) - since ))
                pass "kubeadm: $name: check has no memory-thrashing within $STORM_QUIET_S s of the pods' deletion" "after $quiet_s s; $(tr '\n' ' ' </proc/pressure/memory)"
        else
                fail "kubeadm: $name: check has no memory-thrashing within $STORM_QUIET_S s of the pods' deletion" "$(storm_thrash_msg | head -c 500)"
        fi
        info "kubeadm: $name: took" "$(( SECONDS - t0 )) s"
}
# storm_table: the records of $STATE/storm-records as INFO lines, one per backend and setting:
# the median and the range over the runs
storm_table() {
        python3 - "$STATE/storm-records" <<'PY' | while IFS='|' read -r k v; do info "$k" "$v"; done
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.count("\t") == 14]
def num(v):
    try:
        return float(v)
    except ValueError:
        return None
def med(vals):
    v = [x for x in map(num, vals) if x is not None]
    if not v:
        return "none"
    return "%g [%g-%g]" % (statistics.median(v), min(v), max(v))
for b in ("zram", "file"):
    for m in ("off", "auto"):
        r = [x for x in rows if x[0] == b and x[1] == m]
        if not r:
            continue
        victims = sorted(set(v for x in r for v in x[7].split(";") if v.strip() and v != "none"))
        print("kubeadm: storm comparison %s %s (%d runs; vm.min_free_kbytes vm.watermark_scale_factor %s)|"
              "median [range]: Lease gap baseline %s s, storm %s s; Ready heartbeat gap %s s; processes OOM-killed %s (victims: %s); "
              "evictions %s; swap in %s MiB, out %s MiB; node PSI full stall %s ms; check named storm-hot after %s s; kswapd scanned %s pages, direct reclaim %s pages"
              % (b, m, len(r), "/".join(sorted(set(x[2] for x in r))), med(x[3] for x in r), med(x[4] for x in r),
                 med(x[5] for x in r), med(x[6] for x in r), "; ".join(victims) or "no victim",
                 med(x[8] for x in r), med(x[9] for x in r), med(x[10] for x in r), med(x[11] for x in r),
                 med(x[12] for x in r), med(x[13] for x in r), med(x[14] for x in r)))
PY
}
# kube_storm: the storm on zram, then on the swap file, then nodeswap reverted; with
# e2e.storm_full=1 (E2E_STORM_FULL=1) instead three rounds of both backends, each with the kernel's
# reclaim settings and then nodeswap's, the same seeds, and the comparison
kube_storm() {
        if [[ ! -x $STORM_BIN ]]; then line SKIP "kubeadm: storm: the stressor is not installed (the harness builds tests/bench/storm.c with the host's C compiler)"; return 0; fi
        local t0=$SECONDS r b
        rm -f "$STATE/storm-records"
        if [[ $storm_full == 1 ]]; then
                # the kernel's own values: nodeswap was reverted at the end of kube_node_checks
                STORM_OFF="$(sysctl_get min_free_kbytes) $(sysctl_get watermark_scale_factor)"
                for r in 1 2 3; do
                        for b in zram file; do
                                storm_backend "$b" off "$r"
                                storm_backend "$b" auto "$r"
                        done
                done
                storm_table
        else
                storm_backend zram
                storm_backend file
        fi
        ns revert --json
        ns_expect_rc "kubeadm: storm: revert exits 0" 0
        wait_for 240 kube_up
        wait_for 240 kube_ready
        info "kubeadm: storm: took" "$(( SECONDS - t0 )) s"
}
scenario_kube() {
        local want_version t0 i
        want_version=$(cat /etc/nodeswap-e2e/kube/version 2>/dev/null)
        # kubeadm's shape first: k3s's stand-in stays down (a runtime mask, gone at reboot)
        systemctl mask --runtime --now k3s-agent.service >/dev/null 2>&1
        KUBE_UNIT=kubelet.service KUBE_DROPIN=$KUBEADM_DROPIN
        KUBE_TASKS=/run/containerd/io.containerd.runtime.v2.task/k8s.io
        t0=$SECONDS
        systemctl start containerd.service
        expect "kubeadm: containerd active" "$(prop containerd.service ActiveState)" active
        for i in pause workload; do
                ctr -n k8s.io images import "$KUBE_LIB/images/$i.tar" >"$STATE/ctr-$i.log" 2>&1
        done
        expect "kubeadm: both offline images in containerd's k8s.io namespace" \
                "$(ctr -n k8s.io images ls -q | grep -c '^nodeswap-e2e.test/')" 2
        systemctl start kubelet.service
        if wait_for 300 kube_ready; then
                pass "kubeadm: the node registered and is Ready" "$(( SECONDS - t0 )) s after containerd's start"
        else
                fail "kubeadm: the node registered and is Ready" "$(kapi GET "/api/v1/nodes/$KUBE_NODE" | head -c 600); $(tail -n 3 "$STATE/kube-api.err")"
                journalctl -b -u kubelet.service --no-pager | tail -n 40 | sed 's/^/LOG /' >>"$RESULTS"
                return
        fi
        # the version the binary reports (a build without the release's -ldflags says v0.0.0-master)
        expect "kubeadm: the node's kubelet version is the binary's (built from v$want_version)" \
                "$(kube_node 'j["status"]["nodeInfo"]["kubeletVersion"]')" "$(kubelet --version | awk '{ print $2 }')"
        expect "kubeadm: the node's container runtime" "$(kube_node 'j["status"]["nodeInfo"]["containerRuntimeVersion"].split(":")[0]')" containerd
        # no controller manager: the default ServiceAccount, made as it would be, in default and in
        # kube-system (the critical pod's namespace; the API server makes kube-system itself)
        for i in default kube-system; do
                echo '{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default", "namespace": "'"$i"'"}, "automountServiceAccountToken": false}' \
                        >"$STATE/sa-$i.json"
                kapi POST "/api/v1/namespaces/$i/serviceaccounts" "$STATE/sa-$i.json" >/dev/null
        done
        kube_node_checks kubeadm || return
        kube_storm
        info "kubeadm: memory" "kubelet.service $(kube_mem kubelet.service) MiB, containerd.service $(kube_mem containerd.service) MiB, MemAvailable $(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo) MiB"
        info "kubeadm: took" "$(( SECONDS - t0 )) s"

        # k3s's shape: k3s-agent.service runs its containerd and the real kubelet (guest/k3s with
        # /run/nodeswap-e2e/k3s-real), on the same node object
        t0=$SECONDS
        kube_delete_pods kubeadm-before kubeadm-after
        systemctl stop kubelet.service containerd.service
        touch /run/nodeswap-e2e/k3s-real
        KUBE_UNIT=k3s-agent.service KUBE_DROPIN=$DROPIN
        KUBE_TASKS=/run/k3s/containerd/io.containerd.runtime.v2.task/k8s.io
        systemctl unmask --runtime k3s-agent.service >/dev/null 2>&1
        systemctl start k3s-agent.service
        expect "k3s: k3s-agent.service active (the kubelet's READY=1)" "$(prop k3s-agent.service ActiveState)" active
        local main cpid
        main=$(prop k3s-agent.service MainPID) cpid=$(pgrep -x containerd | head -n 1)
        expect "k3s: the unit's main process is the kubelet" "$(cat "/proc/$main/comm" 2>/dev/null)" kubelet
        expect "k3s: containerd runs in the same unit's cgroup" "$(sed -n 's/^0:://p' "/proc/$cpid/cgroup" 2>/dev/null)" \
                "$(prop k3s-agent.service ControlGroup)"
        if wait_for 300 kube_up && wait_for 120 kube_ready; then
                pass "k3s: the kubelet answers and the node is Ready" "$(( SECONDS - t0 )) s"
        else
                fail "k3s: the node is Ready" "$(kapi GET "/api/v1/nodes/$KUBE_NODE" | head -c 600)"
                journalctl -b -u k3s-agent.service --no-pager | tail -n 40 | sed 's/^/LOG /' >>"$RESULTS"
                return
        fi
        kube_node_checks k3s || return
        info "k3s: memory" "k3s-agent.service (kubelet and containerd) $(kube_mem k3s-agent.service) MiB, MemAvailable $(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo) MiB"
        info "k3s: took" "$(( SECONDS - t0 )) s"
        no_failed_units "at the end"
        # the host boots this image again for kube2 (run-e2e.sh)
        [[ $(cat /proc/cmdline) == *e2e.kube_reboot=1* ]] && kube_reboot_prepare
        # the pods' processes, each its PID namespace's init, ignore the SIGTERM of the poweroff,
        # which then waited its 90 s for them (run of 2026-12-03): they go now
        echo 1 >/sys/fs/cgroup/kubepods.slice/cgroup.kill
}

# --- issue 36 item 4: NoSwapUnits= after a reboot, on the real node --------------------------------
# At the end of the kube boot (kube_reboot_prepare): k3s's shape's pods deleted and its agent
# stopped and disabled; kubeadm's shape enabled as a kubeadm node has it (containerd.service and
# kubelet.service start at boot) but not started; nodeswap applies the swap file with LimitedSwap
# and NoSwapUnits=kubelet containerd.service, which restarts nothing (the kubelet is not running:
# "it reads the change when it starts"). The host boots the same image again (phase kube2, the
# control plane still up). After the reboot /run is new: no runtime control drop-in exists, and
# only nodeswap's generator, from its record, can have given the two units MemorySwapMax=0 before
# they started (scenario p proves the same on k3s-agent.service, in a boot without pods). Checked
# in kube2 (scenario_kube_boot2): the generator's drop-ins on both units, no runtime control
# drop-in; both units' cgroups at memory.swap.max 0 from their first start; the node Ready with
# LimitedSwap in /configz and its swap capacity /proc/swaps' total; a new Burstable pod's container
# gets nodeswap allowance's bytes (config.json) in whole pages (cgroup) while the kubelet's and
# containerd's cgroups stay at 0. Then revert: the kubelet restarted on NoSwap, both units'
# MemorySwapMax and memory.swap.max back to systemd's defaults (infinity, max), no drop-in left.
kube_reboot_prepare() {
        kube_delete_pods k3s-before k3s-limited k3s-after
        systemctl stop k3s-agent.service
        systemctl disable --quiet k3s-agent.service
        rm -f /run/nodeswap-e2e/k3s-real
        systemctl enable --quiet containerd.service kubelet.service
        KUBE_UNIT=kubelet.service KUBE_DROPIN=$KUBEADM_DROPIN
        kube_policy kubelet.service "$KUBEADM_DROPIN" file LimitedSwap "kubelet containerd.service"
        ns apply --json
        ns_expect_rc "reboot prepare: apply exits 0 (kubeadm's shape enabled, not running)" 0
        expect "reboot prepare: no restart planned (the kubelet is not running: it reads the change when it starts)" \
                "$(json '[a["kind"] for a in j["actions"] if a["kind"] == "restart-unit"]')" "[]"
        expect "reboot prepare: NoSwapUnits at once on the stopped units (MemorySwapMax)" \
                "$(prop kubelet.service MemorySwapMax) $(prop containerd.service MemorySwapMax)" "0 0"
        echo prepared >"$STATE/kube-phase"
}
scenario_kube_boot2() {
        local t0=$SECONDS u cg cfg allow swaps_bytes s0
        if [[ $(cat "$STATE/kube-phase" 2>/dev/null) != prepared ]]; then
                fail "kube2: the kube boot prepared the reboot"
                return
        fi
        KUBE_UNIT=kubelet.service KUBE_DROPIN=$KUBEADM_DROPIN
        KUBE_TASKS=/run/containerd/io.containerd.runtime.v2.task/k8s.io
        if wait_for 300 kube_up && wait_for 240 kube_ready; then
                pass "kube2: kubeadm's kubelet started at boot and the node is Ready" "$(( SECONDS - t0 )) s after the scenarios began"
        else
                fail "kube2: kubeadm's kubelet started at boot and the node is Ready" "$(kapi GET "/api/v1/nodes/$KUBE_NODE" | head -c 600)"
                journalctl -b -u kubelet.service -u containerd.service --no-pager | tail -n 40 | sed 's/^/LOG /' >>"$RESULTS"
                return
        fi
        for u in kubelet.service containerd.service; do
                check "kube2: the generator's drop-in on $u" \
                        "$(cat "/run/systemd/generator/$u.d/50-nodeswap-no-swap.conf" 2>&1 | tr '\n' ' ')" \
                        grep -qx 'MemorySwapMax=0' "/run/systemd/generator/$u.d/50-nodeswap-no-swap.conf"
                check "kube2: no runtime control drop-in on $u (a new /run)" "" \
                        test ! -e "/run/systemd/system.control/$u.d/50-MemorySwapMax.conf"
                info "kube2: $u" "restarts this boot (NRestarts) $(prop "$u" NRestarts), MemorySwapMax $(prop "$u" MemorySwapMax)"
        done
        expect "kube2: kubelet.service's and containerd.service's memory.swap.max at boot" \
                "$(kube_cg_of_unit kubelet.service) $(kube_cg_of_unit containerd.service)" "0 0"
        expect "kube2: /configz swapBehavior" "$(kube_configz 'j["kubeletconfig"]["memorySwap"].get("swapBehavior", "")')" LimitedSwap
        swaps_bytes=$(kube_swaps_bytes)
        wait_for 90 kube_capacity_is "$swaps_bytes"
        expect "kube2: the node's swap capacity is /proc/swaps' total (bytes)" "$(kube_swap_capacity)" "$swaps_bytes" "$(swaps_summary)"
        if kube_new_pod kube2-limited 64Mi 128Mi; then
                read -r cg cfg _ <<<"$(kube_swap_of kube2-limited)"
                ns allowance --request 64Mi --limit 128Mi --json
                allow=$(json 'j["swap"]')
                expect "kube2: a pod's config.json memory.swap.max is nodeswap allowance's, to the byte" "$cfg" "$allow"
                expect "kube2: its cgroup's memory.swap.max is that in whole pages" "$cg" \
                        "$(( allow / $(getconf PAGESIZE) * $(getconf PAGESIZE) ))"
                expect "kube2: while the pod has its swap, the kubelet's and containerd's cgroups stay at 0" \
                        "$(kube_cg_of_unit kubelet.service) $(kube_cg_of_unit containerd.service)" "0 0"
        else
                fail "kube2: a pod runs after the reboot" "$(kapi GET /api/v1/namespaces/default/pods/kube2-limited | head -c 600)"
        fi
        kube_delete_pods kube2-limited
        s0=$(kube_unit_started)
        ns revert --json
        ns_expect_rc "kube2: revert exits 0" 0
        check "kube2: revert restarted kubelet.service" "$s0 -> $(kube_unit_started)" test "$(kube_unit_started)" != "$s0"
        wait_for 240 kube_up
        expect "kube2: after revert: /configz swapBehavior (empty: NoSwap)" "$(kube_configz 'repr(j["kubeletconfig"]["memorySwap"].get("swapBehavior", ""))')" "''"
        expect "kube2: after revert: MemorySwapMax of both units" \
                "$(prop kubelet.service MemorySwapMax) $(prop containerd.service MemorySwapMax)" "infinity infinity"
        expect "kube2: after revert: memory.swap.max of both units" \
                "$(kube_cg_of_unit kubelet.service) $(kube_cg_of_unit containerd.service)" "max max"
        for u in kubelet.service containerd.service; do
                check "kube2: after revert: no drop-in on $u" \
                        "$(ls /run/systemd/generator/$u.d /run/systemd/system.control/$u.d 2>/dev/null | tr '\n' ' ')" \
                        test ! -e "/run/systemd/generator/$u.d/50-nodeswap-no-swap.conf" -a ! -e "/run/systemd/system.control/$u.d/50-MemorySwapMax.conf"
        done
        no_failed_units "kube2: at the end"
        echo 1 >/sys/fs/cgroup/kubepods.slice/cgroup.kill
        info "kube2: took" "$(( SECONDS - t0 )) s"
}

# ---------------------------------------------------------------------------------------------

journal_excerpt() {
        journalctl -b --no-pager -o short-monotonic \
                -u nodeswap.service -u k3s-agent.service -u kubelet.service -u containerd.service -u dev-zram0.swap \
                -u systemd-zram-setup@zram0.service -u rpi-zram-writeback.service \
                -u rpi-zram-writeback.timer -u rpi-setup-loop@var-swap.service -u rpi-resize-swap-file.service \
                -u 'rpi-remove-swap-file@*' 2>/dev/null | tail -n 80 | sed 's/^/LOG /' >>"$RESULTS"
        local f
        for f in $(ls "$STATE"/log/"$phase"-*.err 2>/dev/null | tail -n 4); do
                echo "LOG --- $f" >>"$RESULTS"
                tail -n 20 "$f" | sed 's/^/LOG /' >>"$RESULTS"
        done
        flush
}

finish() {
        local rc=$?
        CUR=runner
        if (( ${#SCENARIO_FAILED[@]} > 0 )); then
                echo "LOG failed scenarios: ${!SCENARIO_FAILED[*]}" >>"$RESULTS"
                journal_excerpt
        fi
        echo "END rc=$rc" >>"$RESULTS"
        flush
        sync
        if [[ $keep != 1 ]]; then
                systemctl poweroff --no-block
        fi
}

# h: hostile policies (tests/policies/hostile, those that need no setup) are refused in the real
# system: exit 2, a FILE:LINE: message, and /proc/swaps, the vm sysctls, the drop-in directory and
# every mask exactly as before.
node_snapshot() {
        cat /proc/swaps /proc/sys/vm/swappiness /proc/sys/vm/page-cluster
        ls -la --time-style=+%s /var/lib/rancher/k3s/agent/etc/kubelet.conf.d 2>&1
        sha256sum /var/lib/rancher/k3s/agent/etc/kubelet.conf.d/* 2>&1
        find /run/systemd/system /run/systemd/generator.early /etc/systemd/system -maxdepth 1 -lname /dev/null 2>&1 | sort
        # (not "..": the parent of /run/nodeswap-state is /run, which anything on the node touches)
        ls -la --time-style=+%s /var/lib/nodeswap /run/nodeswap-state 2>&1 | grep -v ' \.\.$'
}
scenario_h() {
        local dir=/usr/local/lib/nodeswap-e2e/hostile f n=0 bad=0 before after
        before=$(node_snapshot)
        for f in "$dir"/*.conf; do
                [[ -e $f ]] || continue
                n=$((n + 1))
                timeout 60 nodeswap apply --config "$f" >"$STATE/h.out" 2>"$STATE/h.err"
                local rc=$?
                if [[ $rc != 2 ]] || ! grep -q "^$f:[0-9]*: " "$STATE/h.err" || [[ -s $STATE/h.out ]]; then
                        bad=$((bad + 1))
                        fail "refused: ${f##*/}" "rc=$rc; stderr: $(head -c 300 "$STATE/h.err"); stdout: $(head -c 200 "$STATE/h.out")"
                fi
        done
        after=$(node_snapshot)
        check "every hostile policy refused with exit 2 and FILE:LINE:" "$n policies, $bad not" test "$n" -gt 50 -a "$bad" = 0
        check "the node is exactly as before" "$(diff <(echo "$before") <(echo "$after") | head -c 400)" \
                test "$before" = "$after"
}

# ---------------------------------------------------------------------------------------------
# n: node labels for node-feature-discovery (issue 26). NFD is not in the VM: the feature file is
# held to NFD's rules by tests/lib/nfd-local-check.py (installed beside this script), written from
# NFD's documentation. The boot before n2 applies the file policy, then the zram one (a backend
# switch), and leaves a stale file behind; n2 proves the boot service (apply --boot) rewrote it,
# then reverts.
NFD_FILE=/etc/kubernetes/node-feature-discovery/features.d/nodeswap
NFD_CHECK=/usr/local/lib/nodeswap-e2e/nfd-local-check.py
N_P=feature.node.kubernetes.io/nodeswap
nfd_labels() { python3 "$NFD_CHECK" "$NFD_FILE" 2>&1 | tr '\n' ' ' | sed 's/ $//'; }
# n_no_write WHAT: apply would not write the feature file now (plan's actions as the details)
n_no_write() {
        ns plan --json
        check "$1" "$(json '[a["id"] for a in j["actions"]]')" test "$(action_index features)" = -1
}
scenario_n_prepare() {
        ns revert --json
        ns_expect_rc "prepare: revert nodeswap" 0
        rm -f /etc/nodeswap/nodeswap.conf.d/*.conf
        check "after revert: no feature file" "$(ls -l "$NFD_FILE" 2>&1)" test ! -e "$NFD_FILE"
        write_policy file
        ns plan --json
        check "plan shows the feature file's write" "$(json '[a["kind"] for a in j["actions"]]')" \
                test "$(action_index features-write)" -ge 0
        ns apply --json
        ns_expect_rc "apply the file policy" 0
        expect "file policy: NFD's rules hold, the labels" "$(nfd_labels)" \
                "$N_P-backend=file $N_P-disk-swap-encrypted=false $N_P-kubelet-no-swap=true $N_P-policy-match=true $N_P-swap-behavior=LimitedSwap $N_P-swap-gib=1"
        expect "the file is 0644 root's, nothing hidden left beside it" \
                "$(stat -c '%a %U' "$NFD_FILE") $(ls -A "${NFD_FILE%/*}" | tr '\n' ' ')" "644 root nodeswap "
        n_no_write "a second apply plans no write"
        write_policy zram
        ns apply --json
        ns_expect_rc "switch to the zram policy" 0
        expect "zram policy: the labels changed with the backend" "$(nfd_labels)" \
                "$N_P-backend=zram $N_P-kubelet-no-swap=true $N_P-policy-match=true $N_P-swap-behavior=LimitedSwap $N_P-swap-gib=1 $N_P-zram-algorithm=zstd"
        n_no_write "a second apply plans no write"
        cp "$NFD_FILE" "$STATE/n-labels"
        # a stale file, as an older policy left it: the boot service must make it current
        printf '%s\n' "$N_P-backend=file" "$N_P-swap-gib=0" >"$NFD_FILE"
        echo prepared >"$STATE/n-phase"
        pass "prepare: the zram policy applied, a stale feature file left for the boot"
}
scenario_n_boot2() {
        if [[ $(cat "$STATE/n-phase" 2>/dev/null) != prepared ]]; then
                fail "n was prepared before the reboot"
                return
        fi
        expect "nodeswap.service succeeded" "$(prop nodeswap.service Result)" success
        check "the boot service rewrote the stale feature file with the node's labels" \
                "$(nfd_labels)" cmp -s "$NFD_FILE" "$STATE/n-labels"
        expect "after the reboot: NFD's rules hold, the zram labels" "$(nfd_labels)" \
                "$N_P-backend=zram $N_P-kubelet-no-swap=true $N_P-policy-match=true $N_P-swap-behavior=LimitedSwap $N_P-swap-gib=1 $N_P-zram-algorithm=zstd"
        n_no_write "apply plans no write after the boot"
}
# ... after the revert in that boot (its own in boot n2, e's in boot 2)
scenario_n_reverted() {
        check "revert removed the feature file" "$(ls -l "$NFD_FILE" 2>&1)" test ! -e "$NFD_FILE"
        no_failed_units "after revert"
}

echo "BEGIN phase=$phase scenarios=$scenarios boot_id=$BOOT_ID" >"$RESULTS"
flush
trap finish EXIT

want() { [[ ,$scenarios, == *,$1,* ]]; }
have_nodeswap() { command -v nodeswap >/dev/null; }

# The kernel this boot was meant to run (the host boots 6.12 for the scenarios and 6.1 once).
CUR=kernel
if [[ -n $want_kernel ]]; then
        expect "boot $phase runs the kernel the host chose (uname -r)" "$(uname -r)" "$want_kernel"
fi
info "boot $phase" "$(uname -srv); zram's default compressor $KERNEL_ZRAM_ALG; distro zram0's $DISTRO_ALG"
CUR=setup
baseline
case $phase in
1)
        for s in smoke h a b c d f k v kv m w charge p thrash trial density x; do
                want "$s" || continue
                CUR=$s
                if [[ $s != smoke && $s != charge ]] && ! have_nodeswap; then
                        line SKIP "nodeswap not installed"
                        continue
                fi
                t_scen=$SECONDS
                "scenario_$s"
                # each scenario's seconds, for tests/e2e/README.md's timings and the parts' balance
                info "scenario $s took" "$(( SECONDS - t_scen )) s"
        done
        if want e; then
                CUR=e
                if have_nodeswap; then scenario_e_prepare; else line SKIP "nodeswap not installed"; fi
        fi
        ;;
2)
        if want p; then CUR=p; scenario_p_boot2; fi
        if want n; then CUR=n; scenario_n_boot2; fi
        CUR=e; scenario_e_boot2
        if want p; then CUR=p; scenario_p_reverted; fi
        if want n; then CUR=n; scenario_n_reverted; fi
        ;;
3) CUR=e; scenario_e_boot3 ;;
g2) CUR=g; scenario_g_boot2 ;;
g3) CUR=g; scenario_g_boot3 ;;
x2) CUR=x; scenario_x_boot2 ;;
n2)
        CUR=n; scenario_n_boot2
        ns revert --json
        ns_expect_rc "revert" 0
        scenario_n_reverted
        ;;
kube) CUR=kube; if have_nodeswap; then scenario_kube; else line SKIP "nodeswap not installed"; fi ;;
kube2) CUR=kube; scenario_kube_boot2 ;;
ansible) ;;     # a VM without nodeswap: the host's playbooks install it (below)
*) CUR=runner; fail "unknown phase '$phase'" ;;
esac
# The host runs Ansible against this VM over ssh (tests/e2e/ansible-checks.sh) once the
# scenarios of this boot are done, and says when it has finished.
if want ansible; then
        CUR=ansible
        mkdir -p /run/nodeswap-e2e
        touch /run/nodeswap-e2e/ansible-ready
        if wait_for 2200 test -e /run/nodeswap-e2e/ansible-done; then
                pass "the host ran the playbooks against this VM"
        else
                fail "the host did not finish the playbooks within 2200 s"
        fi
fi
if want g-prepare; then
        CUR=g
        scenario_g_prepare
fi
if want x-prepare; then
        CUR=x
        scenario_x_prepare
fi
if want n-prepare; then
        CUR=n
        if have_nodeswap; then scenario_n_prepare; else line SKIP "nodeswap not installed"; fi
fi
exit 0
