#!/usr/bin/env bash
# nodeswap loads libsystemd with dlopen() only when it talks to systemd (src/shared/sd-dl.c):
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

echo "$fails failed"
[ "$fails" = 0 ]
