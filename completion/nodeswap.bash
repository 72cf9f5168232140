# bash completion for nodeswap(8)                                   -*- shell-script -*-
# SPDX-License-Identifier: GPL-2.0-or-later

_nodeswap() {
	local cur prev words cword
	_init_completion || return

	local commands='plan apply revert status check allowance metrics bench writeback trial'
	local common='--config --root --json --quiet --verbose --help --version'
	local -A per=(
		[plan]='--policy-file-as'
		[apply]='--boot --force --dry-run'
		[revert]='--force --purge --dry-run'
		[status]='--pods'
		[check]='--policy-file-as'
		[allowance]='--request --limit --qos --critical --priority --static-pod'
		[metrics]='--pods --output'
		[bench]='--dir'
		[writeback]='--force'
		[trial]='--limits --find-floor --runs --cpus --timeout --seed --drive-tbw --compare --density --request --limit --replicas-max --hold --around --memory --svg'
	)

	case $prev in
	--config | -c)
		_filedir conf
		return
		;;
	--root | --dir)
		_filedir -d
		return
		;;
	--output)
		_filedir prom
		return
		;;
	--svg)
		_filedir svg
		return
		;;
	--qos)
		COMPREPLY=($(compgen -W 'burstable guaranteed besteffort' -- "$cur"))
		return
		;;
	--request | --limit)
		COMPREPLY=($(compgen -W '128Mi 256Mi 512Mi 1Gi 2Gi' -- "$cur"))
		return
		;;
	--limits | --runs | --cpus | --timeout | --seed | --drive-tbw | --replicas-max | --hold | --around | --memory)
		return
		;;
	esac

	# trial: after "--" the command and its arguments
	local j
	for ((j = 1; j < cword; j++)); do
		if [[ ${words[j]} == -- ]]; then
			if ((j == cword - 1)); then
				COMPREPLY=($(compgen -c -- "$cur"))
			else
				_filedir
			fi
			return
		fi
	done

	local i verb=
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--config | -c | --policy-file-as | --root | --qos | --request | --limit | --output | --dir | --priority | \
			--limits | --runs | --cpus | --timeout | --seed | --drive-tbw) ((i++)) ;;
		-*) ;;
		*) verb=${words[i]}; break ;;
		esac
	done

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$common ${verb:+${per[$verb]}}" -- "$cur"))
	elif [[ -z $verb ]]; then
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
	fi
}
complete -F _nodeswap nodeswap
