# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by the scripts that build and boot the cached VM roots and kernel (tests/e2e/,
# tests/arm64/). The mirror functions need SUITE set first.
#   find_mirror        the mirror apt uses for $SUITE on this machine (deb822 or one-line sources)
#   newest_package     the newest package apt on this machine knows whose name matches a pattern
#   mirror_reachable   whether MIRROR answers for $SUITE (skips the check without curl and wget)
#   umount_under DIR   lazily unmount everything mounted below DIR, deepest first
#   cache_lookup       --key, or the cached file when it is there
#   cache_wait, remove_stale   the build lock of a cache, and what a killed build left
#   run_bg, stop_bg    a long step the caller's trap can stop at once
#   step, step_total   a build step's seconds (and the load) in the build's log
#   dpkg_times LOG     the slowest maintainer scripts and triggers of a bootstrap (its dpkg.log)

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

# newest_package REGEX ARCH: "NAME VERSION" of the package apt knows on this machine (its lists,
# /var/lib/apt/lists) whose name matches REGEX (apt-cache search --names-only), the newest name
# by version sort, for ARCH (a foreign ARCH must have been added with dpkg --add-architecture and
# apt-get update); fails when apt knows none. The cache keys use it: a new kernel in the archive
# (after an apt-get update) makes a new cache, and no version is written into the recipes.
newest_package() {
        local name ver
        name=$(apt-cache search --names-only "$1" 2>/dev/null | cut -d' ' -f1 | sort -V | tail -n 1)
        [[ -n $name ]] || return 1
        ver=$(apt-cache show --no-all-versions "$name:$2" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
        [[ -n $ver ]] || return 1
        echo "$name $ver"
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

# cache_lookup KEY FILE [ARG]: with ARG --key, print KEY; otherwise, when FILE exists, print it;
# exit 0 in both cases. Returns (to build FILE) when neither.
cache_lookup() {
        if [[ ${3:-} == --key ]]; then
                echo "$1"
                exit 0
        fi
        if [[ -f $2 ]]; then
                echo "$2"
                exit 0
        fi
}

# cache_wait LOCKFILE TARGET: take the cache's build lock (fd 9, held until the script exits); when
# TARGET exists by then (built by another run while this one waited), print it and exit 0.
cache_wait() {
        exec 9>"$1"
        echo "Waiting for the build lock $1 ..." >&2
        flock 9
        if [[ -f $2 ]]; then
                echo "$2"
                exit 0
        fi
}

# remove_stale DIR...: with the lock held no build runs, so these directories were left by one
# killed outright (SIGKILL, power loss): unmount what it mounted inside, remove them.
remove_stale() {
        local stale
        for stale in "$@"; do
                [[ -d $stale ]] || continue
                echo "Removing $stale, left by an interrupted build" >&2
                umount_under "$stale"
                rm -rf --one-file-system "$stale"
        done
}

# run_bg CMD...: a long step in its own process group, in the background and waited for, so that
# a TERM (meson's timeout, Ctrl-C) runs the caller's trap at once; stop_bg, from that trap, stops
# the whole group.
BG_PID=
run_bg() {
        local rc=0
        setsid "$@" &
        BG_PID=$!
        wait "$BG_PID" || rc=$?
        BG_PID=
        return "$rc"
}
stop_bg() {
        [[ -n $BG_PID ]] || return 0
        kill -TERM -- "-$BG_PID" 2>/dev/null
        wait "$BG_PID" 2>/dev/null
        BG_PID=
}

# step NAME CMD...: run CMD and print one line to stderr with NAME, its seconds, its exit code
# and the load average when it ended, so that a build's log shows where its time went (.ci/run
# keeps it in .ci/logs/cache-*.log). Returns CMD's exit code. STEP_T0 (set on the first call)
# gives the build's total in step_total. The lines go to the stderr the script started with
# (STEP_FD), also when the step's own output is sent to a file.
STEP_T0=
exec {STEP_FD}>&2
step() {
        local name=$1 s rc=0
        shift
        s=$(date +%s)
        STEP_T0=${STEP_T0:-$s}
        "$@" || rc=$?
        printf 'step %-26s %5d s  exit %d  (load %s)\n' "$name" "$(($(date +%s) - s))" "$rc" \
                "$(cut -d' ' -f1-3 /proc/loadavg)" >&"$STEP_FD"
        return "$rc"
}
step_total() {  # step_total WHAT: the line with the seconds since the first step
        printf 'step %-26s %5d s  total  (load %s)\n' "$1" "$(($(date +%s) - ${STEP_T0:-$(date +%s)}))" \
                "$(cut -d' ' -f1-3 /proc/loadavg)" >&2
}

# dpkg_times LOG [N]: from a root's dpkg.log LOG (one line a second at best), the N (default 8)
# packages whose configuration (maintainer scripts, from "configure" to "status installed") and
# trigger runs took longest, to stderr: where a bootstrap's minutes went.
dpkg_times() {
        [[ -r $1 ]] || return 0
        /usr/bin/python3 - "$1" "${2:-8}" <<'PY' >&2 || true
import sys, datetime
start, took = {}, {}
def t(line):
    return datetime.datetime.strptime(line[:19], "%Y-%m-%d %H:%M:%S")
for line in open(sys.argv[1], errors="replace"):
    f = line.split()
    if len(f) < 4:
        continue
    if f[2] in ("configure", "trigproc"):
        start[f[3]] = (f[2], t(line))
    elif f[2] == "status" and f[3] in ("installed", "triggers-pending") and f[4] in start:
        what, s = start.pop(f[4])
        key = f[4].split(":")[0] + (" (triggers)" if what == "trigproc" else "")
        took[key] = took.get(key, 0) + (t(line) - s).total_seconds()
for k, v in sorted(took.items(), key=lambda kv: -kv[1])[: int(sys.argv[2])]:
    print("  dpkg %-40s %5d s" % (k, v))
PY
}
