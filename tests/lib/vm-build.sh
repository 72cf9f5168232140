# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the scripts that build the cached VM roots (tests/e2e/build-root.sh,
# tests/arm64/build-root.sh). They set SUITE first.
#   find_mirror        the mirror apt uses for $SUITE on this machine (deb822 or one-line sources)
#   mirror_reachable   whether MIRROR answers for $SUITE (skips the check without curl and wget)
#   umount_under DIR   lazily unmount everything mounted below DIR, deepest first

find_mirror() {
        local f uri
        for f in /etc/apt/sources.list.d/*.sources; do
                [[ -r $f ]] || continue
                # one stanza at a time: URIs: + Suites: containing $SUITE
                uri=$(awk -v suite="$SUITE" '
                        BEGIN { RS=""; FS="\n" }
                        {
                                u=""; s=0
                                for (i = 1; i <= NF; i++) {
                                        if ($i ~ /^URIs:/)   { sub(/^URIs:[ \t]*/, "", $i); split($i, a, /[ \t]+/); u=a[1] }
                                        if ($i ~ /^Suites:/) { n=split($i, b, /[ \t]+/); for (j = 2; j <= n; j++) if (b[j] == suite) s=1 }
                                }
                                if (u != "" && s) { print u; exit }
                        }' "$f")
                [[ -n $uri ]] && { echo "$uri"; return 0; }
        done
        for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
                [[ -r $f ]] || continue
                uri=$(awk -v suite="$SUITE" '
                        $1 == "deb" {
                                i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                                if ($(i + 1) == suite) { print $i; exit }
                        }' "$f")
                [[ -n $uri ]] && { echo "$uri"; return 0; }
        done
        return 1
}

mirror_reachable() {    # mirror_reachable MIRROR
        if command -v curl >/dev/null; then
                curl -fsS -m 20 -o /dev/null "$1/dists/$SUITE/Release"
        elif command -v wget >/dev/null; then
                wget -q -T 20 -O /dev/null "$1/dists/$SUITE/Release"
        fi
}

umount_under() {
        local m
        while read -r m; do
                umount -l "$m" 2>/dev/null || true
        done < <(awk -v w="$1/" 'index($2, w) == 1 { print $2 }' /proc/self/mounts | sort -r)
}
