#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The [Zram] Writeback= file nodeswap makes, on copies of the "matching" fixture tree (no kernel
# touched: under --root no loop device is attached and a zram device can be neither set up nor
# removed, so the apply fails after the file is made, and each revert runs on a tree without the
# runtime record of zram1, which is then no device of nodeswap's): apply records the file it makes
# (writeback_file=) and not a file that was there; revert --purge deletes a recorded regular file
# with no loop device on it and forgets it, and leaves alone a symlink at the recorded path, an
# unrecorded file and a file a loop device is still backed by.
#   test-cli-writeback-file.sh path/to/nodeswap FIXTURE_DIR
set -uo pipefail
FIXTURE=$(readlink -f "${2:?usage: $0 NODESWAP FIXTURE_DIR}")

tmp=$(mktemp -d /tmp/nodeswap-cli-wbfile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
NODESWAP=$(under_test "$1" "$tmp") || exit 1

# tree NAME WRITEBACK: a copy of "matching" whose kernel has zram writeback, with a policy of zram
# (16M, writing back to WRITEBACK) and the fixture's swap file
tree() {
	local root=$tmp/$1
	cp -a "$FIXTURE/matching" "$root"
	for id in 0 1; do
		echo none >"$root/sys/block/zram$id/backing_dev"
		echo 0 >"$root/sys/block/zram$id/writeback_limit"
	done
	chmod 0600 "$root/var/lib/nodeswap/swapfile"
	install -d -m 0755 "$root/etc/nodeswap"
	printf '[Swap]\nBackend=zram file\n[Zram]\nSize=16M\nAlgorithm=lz4\nPriority=100\nWriteback=%s\n[File]\nSize=40K\nPriority=10\nEncrypt=no\n' \
		"$2" >"$root/etc/nodeswap/nodeswap.conf"
	chmod 0644 "$root/etc/nodeswap/nodeswap.conf"
	echo "$root"
}
# no_zram ROOT: forget /run/nodeswap-state/state (zram1 is then nobody's, and revert leaves it)
no_zram() { rm -f "$1/run/nodeswap-state/state"; }
state() { cat "$1/var/lib/nodeswap/state"; }
recorded() { grep -qx "writeback_file=$2" "$1/var/lib/nodeswap/state"; }

# apply makes the file, 0600, and records it before it is made
root=$(tree made /var/lib/nodeswap/wb)
"$NODESWAP" apply --root "$root" >"$tmp/apply.out" 2>&1
check "apply made the file, a regular file of mode 0600" \
	[ "$(stat -c '%F %a' "$root/var/lib/nodeswap/wb" 2>/dev/null)" = "regular file 600" ]
check "apply recorded it as nodeswap's ($(grep writeback_file "$root/var/lib/nodeswap/state"))" \
	recorded "$root" /var/lib/nodeswap/wb
# revert --purge deletes it (no loop device is backed by it here) and forgets it
no_zram "$root"
"$NODESWAP" revert --purge --json --root "$root" >"$tmp/purge.json" 2>"$tmp/err"
check "revert --purge planned its deletion ($(head -c 300 "$tmp/err"))" \
	grep -q '"id":"file-remove:/var/lib/nodeswap/wb"' "$tmp/purge.json"
check "revert --purge deleted it" [ ! -e "$root/var/lib/nodeswap/wb" ]
check "... and forgot it" bash -c "! grep -q writeback_file= '$root/var/lib/nodeswap/state'"
check "... and deleted the swap file too" [ ! -e "$root/var/lib/nodeswap/swapfile" ]

# a file that was there before apply is the operator's: not recorded, kept by revert --purge
root=$(tree operator /srv/wb)
install -d -m 0755 "$root/srv"
head -c 65536 /dev/zero >"$root/srv/wb"
chmod 0600 "$root/srv/wb"
"$NODESWAP" apply --root "$root" >"$tmp/apply2.out" 2>&1
check "apply did not record the operator's file" bash -c "! grep -q writeback_file= '$root/var/lib/nodeswap/state'"
no_zram "$root"
"$NODESWAP" revert --purge --root "$root" >"$tmp/purge2.out" 2>&1
check "revert --purge kept the operator's file" [ -f "$root/srv/wb" ]

# a symlink where the recorded file was: never followed, never deleted
root=$(tree symlink /var/lib/nodeswap/wb)
echo "writeback_file=/var/lib/nodeswap/wb" >>"$root/var/lib/nodeswap/state"
echo precious >"$tmp/target"
ln -s "$tmp/target" "$root/var/lib/nodeswap/wb"
no_zram "$root"
"$NODESWAP" revert --purge --root "$root" >"$tmp/purge3.out" 2>&1
check "revert --purge left the symlink alone" [ -L "$root/var/lib/nodeswap/wb" ]
check "... and what it points to" grep -qx precious "$tmp/target"
check "... and said so" grep -q "swapfile-record-left-alone" "$tmp/purge3.out"

# a loop device still backed by the file (not one of a device nodeswap removes): left alone
root=$(tree held /var/lib/nodeswap/wb)
echo "writeback_file=/var/lib/nodeswap/wb" >>"$root/var/lib/nodeswap/state"
head -c 65536 /dev/zero >"$root/var/lib/nodeswap/wb"
chmod 0600 "$root/var/lib/nodeswap/wb"
mkdir -p "$root/sys/block/loop3/loop"
echo /var/lib/nodeswap/wb >"$root/sys/block/loop3/loop/backing_file"
no_zram "$root"
"$NODESWAP" revert --purge --root "$root" >"$tmp/purge4.out" 2>&1; rc=$?
check "with a loop device on it: revert --purge exits 0 ($rc)" [ $rc = 0 ]
check "... saying why it keeps the file" grep -q "still backs /dev/loop3; left alone" "$tmp/purge4.out"
check "... and the file and its record stay" \
	bash -c "[ -f '$root/var/lib/nodeswap/wb' ] && grep -qx writeback_file=/var/lib/nodeswap/wb '$root/var/lib/nodeswap/state'"

# [Zram] WritebackEncrypt= (default yes): a file that may hold pages written back in clear is
# overwritten with zeros in full and given the encrypted file's marker page before its mapping is
# made (no mapping under --root); under WritebackEncrypt=no the marker is cleared again
root=$(tree crypt /var/lib/nodeswap/wb)
sed -i '/^Encrypt=no/d; s/^Writeback=.*/&\nWritebackEncrypt=yes/' "$root/etc/nodeswap/nodeswap.conf"
printf '[File]\nEncrypt=no\n' >>"$root/etc/nodeswap/nodeswap.conf"
marker=NODESWAP-MARKER-$RANDOM$RANDOM
{ head -c 8192 /dev/zero; for i in $(seq 64); do printf '%s' "$marker"; done; head -c 65536 /dev/zero; } >"$root/var/lib/nodeswap/wb"
chmod 0600 "$root/var/lib/nodeswap/wb"
size=$(stat -c %s "$root/var/lib/nodeswap/wb")
"$NODESWAP" apply --root "$root" >"$tmp/apply5.out" 2>&1
check "WritebackEncrypt=yes: the pages in clear are gone from the file" \
	bash -c "! grep -qa '$marker' '$root/var/lib/nodeswap/wb'"
check "... the file starts with the marker page" \
	bash -c "[ \"\$(head -c 16 '$root/var/lib/nodeswap/wb')\" = NODESWAP-CRYPT-1 ]"
check "... and keeps its size ($size)" [ "$(stat -c %s "$root/var/lib/nodeswap/wb")" = "$size" ]
check "... and the plan said encrypted" grep -q "writeback to /var/lib/nodeswap/wb (encrypted, on a loop device)" "$tmp/apply5.out"
"$NODESWAP" plan -v --root "$root" >"$tmp/explain5.out" 2>&1
check "plan -v shows WritebackEncrypt=yes" grep -Eq 'WritebackEncrypt.*yes' "$tmp/explain5.out"
no_zram "$root"
sed -i 's/^WritebackEncrypt=yes/WritebackEncrypt=no/' "$root/etc/nodeswap/nodeswap.conf"
"$NODESWAP" apply --root "$root" >"$tmp/apply6.out" 2>&1
check "WritebackEncrypt=no: the marker is cleared" \
	bash -c "! grep -qa NODESWAP-CRYPT-1 '$root/var/lib/nodeswap/wb'"
printf '[Swap]\nBackend=zram\n[Zram]\nWriteback=/var/lib/nodeswap/wb\nWritebackEncrypt=maybe\n' >"$tmp/bad.conf"
chmod 0644 "$tmp/bad.conf"
"$NODESWAP" plan --config "$tmp/bad.conf" --root "$root" >"$tmp/bad.out" 2>&1; rc=$?
check "WritebackEncrypt=maybe is refused naming file, line, key and value ($rc: $(head -c 200 "$tmp/bad.out"))" \
	bash -c "[ $rc != 0 ] && grep -q 'bad.conf:5' '$tmp/bad.out' && grep -q 'WritebackEncrypt' '$tmp/bad.out' && grep -q maybe '$tmp/bad.out'"

echo "$fails check(s) failed"
[ "$fails" = 0 ]
