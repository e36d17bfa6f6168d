# bash completion for bench-versions (installed as
# share/bash-completion/completions/bench-versions).
#
# Everything offered is asked of the program itself, so it never drifts from
# it: subcommands from `bench-versions --help`, options from
# `bench-versions SUBCOMMAND --help`, version names from `list versions`
# (local, every release in reach, branches, tags), run where the user is, so
# they are the versions of the checkout at hand.

_bench_versions_subcommands() {
	"$1" --help 2>/dev/null | sed -n '/^subcommands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p'
}

# The options are the lines of the usage that begin with one (an option
# mentioned in prose, like "--opt VALUE", is not offered).
_bench_versions_options() {
	"$1" "$2" --help 2>/dev/null | grep -E '^[[:space:]]+--' | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

_bench_versions_versions() {
	"$1" list versions 2>/dev/null | awk '$1 !~ /:$/ { print $1 }' | sort -u
}

_bench_versions() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local bv=${COMP_WORDS[0]}
	# The program as typed (~/bin/bench-versions too), never through eval:
	# what is typed is not run as shell code.
	# shellcheck disable=SC2088 # a literal ~, as typed
	[[ $bv == "~/"* ]] && bv=$HOME/${bv#"~/"}
	bv=$(command -v "$bv" 2>/dev/null) || return 0
	local subs sub=run
	subs=$(_bench_versions_subcommands "$bv")
	if [ "$COMP_CWORD" -ge 2 ] && grep -qxF -- "${COMP_WORDS[1]}" <<<"$subs"; then
		sub=${COMP_WORDS[1]}
	fi
	COMPREPLY=()
	case $prev in
	--results | --resume | --budgets | --output | --token-file | --from | --join-to)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	--baseline)
		# compare's --baseline is a saved baseline's name; report's a version
		if [ "$sub" = compare ]; then
			COMPREPLY=($(compgen -W "$("$bv" list baselines 2>/dev/null | cut -f1)" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_bench_versions_versions "$bv")" -- "$cur"))
		fi
		return 0 ;;
	--good | --bad | --candidate)
		COMPREPLY=($(compgen -W "$(_bench_versions_versions "$bv")" -- "$cur"))
		return 0 ;;
	--format)
		COMPREPLY=($(compgen -W "table markdown csv json html text" -- "$cur"))
		return 0 ;;
	--units)
		COMPREPLY=($(compgen -W "time rate peak memory" -- "$cur"))
		return 0 ;;
	--color)
		COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
		return 0 ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_bench_versions_options "$bv" "$sub")" -- "$cur"))
		[ "$COMP_CWORD" -eq 1 ] && COMPREPLY+=($(compgen -W "--version" -- "$cur"))
		return 0
	fi
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$subs version $(_bench_versions_versions "$bv")" -- "$cur"))
		return 0
	fi
	case $sub in
	run | plan | compat | history) COMPREPLY=($(compgen -W "$(_bench_versions_versions "$bv")" -- "$cur")) ;;
	list) [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "benches backends versions baselines" -- "$cur")) ;;
	cache) [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=($(compgen -W "show trim" -- "$cur")) ;;
	compare | share | report | publish) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
	return 0
}
complete -F _bench_versions bench-versions
