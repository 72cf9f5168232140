#!/usr/bin/env bash
# The bash completion offers the commands, the common options and each command's own options.
set -u
COMPLETION=${1:?usage: $0 completion/nodeswap.bash}
[ -r /usr/share/bash-completion/bash_completion ] || { echo "SKIP: bash-completion is not installed"; exit 77; }
# shellcheck disable=SC1091
source /usr/share/bash-completion/bash_completion
# shellcheck disable=SC1090
source "$COMPLETION"

fails=0
complete_line() {       # complete_line WORD... : completions for the last word
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_nodeswap
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
expect() {              # expect "WANTED" WORD...
	local want=$1; shift
	local got; got=$(complete_line "$@")
	if [ "$got" = "$want" ]; then echo "PASS: $* -> $got"; else echo "FAIL: $*: got '$got', want '$want'"; fails=$((fails + 1)); fi
}
expect "allowance apply bench check metrics plan revert status trial writeback " nodeswap ""
expect "--find-floor " nodeswap trial --fi
expect "--compare " nodeswap trial --limits 48M --com
expect "--density " nodeswap trial --de
expect "--replicas-max " nodeswap trial --density --rep
expect "revert " nodeswap re
expect "--purge " nodeswap revert --pu
expect "--pods " nodeswap status --po
expect "--output " nodeswap metrics --pods --o
expect "--dir " nodeswap bench --d
expect "--force " nodeswap writeback --f
expect "besteffort burstable guaranteed " nodeswap allowance --qos ""
expect "--request " nodeswap --json allowance --req
expect "apply " nodeswap --root /tmp ap
expect "--policy-file-as " nodeswap plan --pol
expect "--json " nodeswap plan --policy-file-as /etc/nodeswap/nodeswap.conf=x --js
expect "--boot --config --dry-run --force --help --json --quiet --root --verbose --version " nodeswap apply --
[ "$fails" = 0 ]
