# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the scripts that boot a VM (tests/e2e/run-e2e.sh, tests/arm64/run-vm.sh).
#   vm_slot FD WAIT WHO  take one of the machine's two VM slots on file descriptor FD, waiting up
#                     to WAIT seconds for one to free; 0 when taken (held until FD closes, i.e.
#                     the script exits), 1 when none freed in time. Says so on stdout, each
#                     line starting with "WHO: ". Call it directly, never in a pipeline or $():
#                     the descriptor must stay open in the calling shell.
# Two slots: the machine has 2 cores and each TCG VM's single vCPU keeps about one of them busy,
# so two VMs run side by side (the README's run boots the e2e's two halves so) and a third waits.
VM_SLOT_DIR=/run/lock

vm_slot() {
        local fd=$1 wait=$2 who=$3 slot t0 now
        mkdir -p "$VM_SLOT_DIR"
        t0=$(date +%s)
        while :; do
                for slot in 0 1; do
                        eval "exec $fd>\"\$VM_SLOT_DIR/nodeswap-vm.$slot.lock\""
                        if flock -n "$fd"; then
                                now=$(date +%s)
                                echo "$who: VM slot $slot (waited $(( now - t0 )) s)"
                                return 0
                        fi
                done
                now=$(date +%s)
                (( now - t0 >= wait )) && return 1
                (( now == t0 )) && echo "$who: two VMs are running on this machine; waiting up to $wait s for a slot ($VM_SLOT_DIR/nodeswap-vm.[01].lock)"
                sleep 2
        done
}
