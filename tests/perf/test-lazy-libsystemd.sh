#!/usr/bin/env bash
# nodeswap loads libsystemd with dlopen() only when it talks to systemd (src/shared/sd-dl.c), and
# libcryptsetup only when it makes or removes an encrypted swap file's mapping (below):
#  - the binary has no libsystemd in DT_NEEDED;
#  - plan, status, check, allowance, --version and an apply on a copy of a fixture tree (--root:
#    no systemd calls) never map it (LD_DEBUG=files shows every object the loader maps);
#  - an apply whose stdout is the journal ($JOURNAL_STREAM names it) does map it, which shows the
#    check above can see a dlopen() at all.
#   test-lazy-libsystemd.sh path/to/nodeswap FIXTURE_DIR
set -uo pipefail
NODESWAP=$(readlink -f "${1:?usage: $0 NODESWAP FIXTURE_DIR}")
FIXTURE=$(readlink -f "${2:?}")
command -v readelf >/dev/null || { echo "SKIP: readelf missing"; exit 77; }

tmp=$(mktemp -d /tmp/nodeswap-lazy.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
# maps_libsystemd CMD...: whether running CMD makes the loader map libsystemd
# (through a file: with pipefail, grep -q closing the pipe early would fail the pipeline)
maps_libsystemd() { LD_DEBUG=files "$@" >/dev/null 2>"$tmp/ld"; grep -q 'file=libsystemd\.so' "$tmp/ld"; }
never() { local what=$1; shift; if maps_libsystemd "$@"; then fail "$what maps libsystemd"; else pass "$what: no libsystemd"; fi; }

if readelf -d "$NODESWAP" | grep -q 'NEEDED.*libsystemd'; then fail "libsystemd in DT_NEEDED"; else pass "no libsystemd in DT_NEEDED"; fi

root=$FIXTURE/rpi-untouched
# a policy, so that plan, status and check do their whole work (the fixture has none)
printf '[Swap]\nBackend=zram\n[Zram]\nSize=1G\nAlgorithm=lz4\nPriority=100\n' >"$tmp/zram.conf"
chmod 0644 "$tmp/zram.conf"
never "--version" "$NODESWAP" --version
never "plan" "$NODESWAP" plan --root "$root" --config "$tmp/zram.conf"
never "status" "$NODESWAP" status --root "$root" --config "$tmp/zram.conf"
never "check" "$NODESWAP" check --root "$root" --config "$tmp/zram.conf"
never "allowance" "$NODESWAP" allowance --root "$root" --request 256Mi --limit 1Gi --qos burstable

cp -a "$root" "$tmp/a"
never "apply under --root" "$NODESWAP" apply --root "$tmp/a" --config "$tmp/zram.conf"

cp -a "$root" "$tmp/b"
: >"$tmp/journal"
# (exit status ignored: zram cannot be provisioned in a fixture tree; what matters is the loader)
JOURNAL_STREAM=$(stat -c %d:%i "$tmp/journal") LD_DEBUG=files \
	"$NODESWAP" apply --root "$tmp/b" --config "$tmp/zram.conf" >"$tmp/journal" 2>"$tmp/ld" || true
if grep -q 'file=libsystemd\.so' "$tmp/ld"; then pass "logging to the journal maps libsystemd"; else fail "logging to the journal did not map libsystemd"; fi

# libcryptsetup the same way (src/shared/crypt-dl.c): only the encrypted swap file's setup and
# teardown on the host load it; a plan, status or an apply of an encrypted file under --root
# (which makes the file, but no mapping) never map it
maps_libcryptsetup() { LD_DEBUG=files "$@" >/dev/null 2>"$tmp/ld"; grep -q 'file=libcryptsetup\.so' "$tmp/ld"; }
if readelf -d "$NODESWAP" | grep -q 'NEEDED.*libcryptsetup'; then fail "libcryptsetup in DT_NEEDED"; else pass "no libcryptsetup in DT_NEEDED"; fi
printf '[Swap]\nBackend=file\n[File]\nSize=1M\nStorage=nvme ssd virtual rotational mmc\n' >"$tmp/crypt.conf"
chmod 0644 "$tmp/crypt.conf"
cp -a "$root" "$tmp/c"
for cmd in plan status apply; do
        if maps_libcryptsetup "$NODESWAP" $cmd --root "$tmp/c" --config "$tmp/crypt.conf"; then
                fail "$cmd of an encrypted file under --root maps libcryptsetup"
        else
                pass "$cmd of an encrypted file under --root: no libcryptsetup"
        fi
done
head -c 16 "$tmp/c/var/lib/nodeswap/swapfile" | grep -q NODESWAP-CRYPT-1 && pass "that apply made the encrypted file" ||
        fail "that apply did not make the encrypted file"

echo "$fails failed"
[ "$fails" = 0 ]
