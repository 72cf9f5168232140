#!/usr/bin/env bash
# Every policy under hostile/ is refused: `nodeswap plan` and `nodeswap apply` with --config on a
# copy of a fixture tree exit 2, print each line of NAME.expect (as a fixed string, @FILE@ standing
# for the policy's path) on stderr, and leave the tree exactly as it was: every path, mode and
# sha256 identical before and after. Lines of NAME.expect starting with '!' set the file up first,
# since git keeps neither modes nor owners: "!mode 0666", "!owner UID", "!symlink" (--config names
# a link to the policy), "!fifo", "!directory", "!large" (a 1.1 MB file).
#   test-hostile.sh path/to/nodeswap HOSTILE_DIR FIXTURE_DIR
set -uo pipefail
export LC_ALL=C

HOSTILE=$(readlink -f "${2:?usage: $0 NODESWAP HOSTILE_DIR FIXTURE_DIR}")
FIXTURE=$(readlink -f "${3:?}")

tmp=$(mktemp -d /tmp/nodeswap-hostile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$(readlink -f "$0")")/../lib/common.sh"
NODESWAP=$(under_test "$1" "$tmp") || exit 1
chmod 0755 "$tmp"
mkdir -m 0755 "$tmp/p"
cp -a "$FIXTURE" "$tmp/root"

snapshot() {    # every path below the root with its type, mode, owner and content hash
	(cd "$tmp/root" && find . -printf '%p %y %m %u:%g %l\n' | sort &&
		find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
before=$(snapshot)
# Between two policies, whether anything below the root changed is asked with one find (an entry
# created, written, renamed, removed, chmod'ed or chown'ed has an mtime or ctime after the stamp,
# or its directory has); the whole snapshot is compared only then, and once at the end. A full
# snapshot per policy was ~10 processes each, and this unit test's time a matter of fork speed.
touch "$tmp/stamp"
changed_since_stamp() { [ -n "$(find "$tmp/root" -newer "$tmp/stamp" -print -quit -o -cnewer "$tmp/stamp" -print -quit)" ]; }

fails=0 n=0 k=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# Under valgrind, ASan+UBSan or qemu-user a run takes 0.3-5 s: there every fourth policy (every
# sixteenth under valgrind) is run (sample_step), which still reaches the binary's refusal paths;
# the messages of every policy are checked by the plain build, and fuzz-replay parses every one
# in-process in each build.
step=$(sample_step 4)
min=$((60 / step))

for conf in "$HOSTILE"/*.conf; do
	k=$((k + 1))
	[ $(((k - 1) % step)) = 0 ] || continue
	name=${conf##*/}
	name=${name%.conf}
	expect="$HOSTILE/$name.expect"
	[ -f "$expect" ] || { fail "$name: no $name.expect"; continue; }
	n=$((n + 1))
	file="$tmp/p/$name.conf"
	rm -rf "$file" "$tmp/p/$name.link"
	cp "$conf" "$file"
	chmod 0644 "$file"
	arg=$file
	skip=
	while IFS= read -r line; do
		case "$line" in
		"!mode "*) chmod "${line#!mode }" "$file" ;;
		"!owner "*)
			if [ "$(id -u)" = 0 ]; then chown "${line#!owner }" "$file"; else skip="needs root to chown"; fi ;;
		"!symlink") ln -s "$file" "$tmp/p/$name.link"; arg="$tmp/p/$name.link" ;;
		"!fifo") rm -f "$file"; mkfifo -m 0644 "$file" ;;
		"!directory") rm -f "$file"; mkdir -m 0755 "$file" ;;
		"!large") { echo "[Swap]"; for _ in $(seq 1 50000); do echo "# padding padding padding"; done; } >"$file" ;;
		"!"*) fail "$name: unknown directive '$line'" ;;
		esac
	done <"$expect"
	if [ -n "$skip" ]; then
		echo "SKIP: $name: $skip"
		continue
	fi
	for verb in plan apply; do
		timeout 20 "$NODESWAP" "$verb" --root "$tmp/root" --config "$arg" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		[ $rc = 2 ] || fail "$name: $verb exited $rc, not 2 (stderr: $(head -c 300 "$tmp/err"))"
		[ -s "$tmp/out" ] && fail "$name: $verb printed on stdout: $(head -c 200 "$tmp/out")"
		err=
		IFS= read -r -d '' err <"$tmp/err"
		while IFS= read -r line; do
			case "$line" in "!"* | "") continue ;; esac
			want=${line//@FILE@/$arg}
			[[ $err == *"$want"* ]] || fail "$name: $verb: stderr lacks '$want'; it says: $err"
		done <"$expect"
	done
	if changed_since_stamp && after=$(snapshot) && [ "$after" != "$before" ]; then
		fail "$name: the fixture tree changed"
		diff <(echo "$before") <(echo "$after") | head -20
		rm -rf "$tmp/root" && cp -a "$FIXTURE" "$tmp/root"
		before=$(snapshot)
		touch "$tmp/stamp"
	fi
	rm -rf "$file" "$tmp/p/$name.link"
done

[ "$(snapshot)" = "$before" ] || fail "the fixture tree changed (found by the final snapshot)"
[ "$n" -ge "$min" ] || fail "only $n hostile policies (at least $min expected)"
echo "$n hostile policies, $fails failure(s)"
[ "$fails" = 0 ]
