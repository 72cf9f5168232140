#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# nodeswap-generator never talks to D-Bus or sysfs, and the link shows it: none of the code that
# could (libsystemd loading, zram, swap files, swapon, probe()) is in the binary at all.
#
# usage: test-generator-links.sh GENERATOR
set -u
gen=${1:?usage: $0 nodeswap-generator}
command -v nm >/dev/null || { echo "SKIP: nm is not installed"; exit 77; }

# functions only (T, t): data such as the policy's [Zram] key table may share a prefix
defined=$(nm --defined-only "$gen" | awk '$2 ~ /^[Tt]$/ { print $3 }') || exit 1
[ -n "$defined" ] || { echo "FAIL: no symbols in $gen (stripped?)"; exit 1; }
grep -qx main <<<"$defined" || { echo "FAIL: no main in $gen"; exit 1; }

bad=$(grep -E '^(sd_dl_|sym_sd_|systemd_|zram_|swapfile_|swap_on$|swap_off$|swap_header_write$|probe$|probe_zswap$|kubelet_write_dropin$|execute_)' <<<"$defined")
if [ -n "$bad" ]; then
        echo "FAIL: nodeswap-generator links code that talks to systemd or writes sysfs/swap:"
        sed 's/^/  /' <<<"$bad"
        exit 1
fi
# And no libsystemd, neither linked nor loaded by name.
if nm -D "$gen" | grep -qE ' U (sd_bus_|dlopen)'; then
        echo "FAIL: nodeswap-generator uses sd-bus or dlopen():"
        nm -D "$gen" | grep -E ' U (sd_bus_|dlopen)'
        exit 1
fi
echo "ok   nodeswap-generator links none of the D-Bus, zram, swap or probe code"
