#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Makes this machine run aarch64 ELF binaries through qemu-user, as a systemd host with
# qemu-user-static does at boot (systemd-binfmt reads /usr/lib/binfmt.d/qemu-aarch64.conf): mounts
# binfmt_misc when it is not mounted (containers, hosts whose PID 1 is not systemd) and registers
# that line. Leaves an existing handler as it is (enabling it when it is disabled). Root only.
# exit: 0 the handler is enabled, 77 it cannot be (not root, no qemu-user-static, no binfmt_misc)
set -euo pipefail
BINFMT=/proc/sys/fs/binfmt_misc
CONF=/usr/lib/binfmt.d/qemu-aarch64.conf

skip() { echo "SKIP: $*" >&2; exit 77; }
[[ $(id -u) == 0 ]] || skip "registering a binfmt_misc handler needs root"
[[ -r $CONF ]] || skip "$CONF missing (qemu-user-static not installed)"

if ! mountpoint -q "$BINFMT"; then
        mount -t binfmt_misc binfmt_misc "$BINFMT" || skip "cannot mount binfmt_misc on $BINFMT"
fi
if [[ ! -e $BINFMT/qemu-aarch64 ]]; then
        grep -v '^[#;]' "$CONF" | grep -m1 . >"$BINFMT/register"
fi
[[ $(head -n1 "$BINFMT/qemu-aarch64") == enabled ]] || echo 1 >"$BINFMT/qemu-aarch64"
[[ $(head -n1 "$BINFMT/qemu-aarch64") == enabled ]] || { echo "the aarch64 binfmt handler is not enabled" >&2; exit 1; }
echo "aarch64 binfmt handler: $(grep '^interpreter' "$BINFMT/qemu-aarch64")" >&2
