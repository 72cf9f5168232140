#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs inside the VM after multi-user.target: smoke program + generator checks, results to /dev/vdb.
exec > /run/sdvm-results.txt 2>&1
echo "BEGIN"
echo "== generator output"
ls -l /run/systemd/generator.early/ | grep -v '^total'
ls -lR /run/systemd/generator/sysinit.target.wants /run/systemd/generator/nodeswap.service.d 2>&1
cat /run/systemd/generator/nodeswap.service.d/*.conf
echo "== fake nodeswap calls"; cat /run/nodeswap-fake.log
echo "== nodeswap.service"; systemctl status --no-pager nodeswap.service | head -12
systemctl show -p Wants,After,Before,DropInPaths,UnitFileState nodeswap.service
echo "== modprobe@zram"; systemctl is-active modprobe@zram.service; ls -d /sys/class/zram-control
echo "== zram swap"; cat /proc/swaps
echo "== verify"; systemd-analyze verify --man=no nodeswap.service && echo "verify rc=0"
echo "== security"; systemd-analyze security nodeswap.service | tail -1
echo "== cycles / generator messages"; journalctl -b --no-pager | grep -iE "cycle|nodeswap-generator|generator.*fail" | head
echo "== smoke"; /usr/local/bin/sdsmoke; echo "smoke rc=$?"
echo "== policy error after daemon-reload"
cp /etc/nodeswap/nodeswap.conf /root/nodeswap.conf.good
printf '[Swap]\nBackend=zrm\n' > /etc/nodeswap/nodeswap.conf
systemctl daemon-reload
ls /run/systemd/generator.early/ | grep -c . ; ls /run/systemd/generator/sysinit.target.wants/ 2>&1
journalctl -b --no-pager -t nodeswap-generator | tail -3
systemctl show -p LoadState dev-zram0.swap
echo "== reverted state"
cp /root/nodeswap.conf.good /etc/nodeswap/nodeswap.conf
mkdir -p /var/lib/nodeswap && echo reverted=yes > /var/lib/nodeswap/state
systemctl daemon-reload
ls /run/systemd/generator.early/ | grep -c . ; systemctl show -p LoadState dev-zram0.swap nodeswap.service
rm /var/lib/nodeswap/state; systemctl daemon-reload; systemctl show -p LoadState dev-zram0.swap
echo "END"
exec >/dev/console 2>&1
cat /run/sdvm-results.txt
dd if=/run/sdvm-results.txt of=/dev/vdb conv=fsync 2>/dev/null
systemctl poweroff
