#!/usr/bin/env bash
# scripts/man.sh PAGE.md OUT.1 BIN - one man page from one docs/cli/ page.
#
# docs/cli/*.md are the documentation; the man pages are made from them at
# build time (go-md2man, a Debian package: scripts/deps.sh man), so the two
# never differ.  The NAME line's summary comes from the built program's own
# --help (main.c's table of subcommands), for the same reason.
set -euo pipefail
md=$1 out=$2 bin=$3
page=$(basename "$md" .md)
if [ "$page" = bench-versions ]; then
	name=bench-versions summary="compare versions of a kernel library, with verdicts that survive a noisy machine"
else
	name=bench-versions-$page
	summary=$("$bin" --help | awk -v n="$page" '$1 == n { $1 = ""; sub(/^ +/, ""); print; exit }')
	[ -n "$summary" ] || { echo "man.sh: $page is not a subcommand in $bin --help" >&2; exit 1; }
fi
version=$("$bin" --version | sed 's/^bench-versions //')
upper=$(echo "$name" | tr a-z A-Z)
tmp=$(mktemp "${out}.XXXXXX.md")
trap 'rm -f "$tmp"' EXIT
{
	# go-md2man reads a pandoc title block: title, section, date, source, manual.
	printf '%% %s 1 "" "bench-versions %s" "bench-versions manual"\n\n' "$upper" "$version"
	printf '# NAME\n\n%s - %s\n\n# DESCRIPTION\n' "$name" "$summary"
	# The page's own title is replaced by NAME; its sections become the
	# man page's sections.
	sed -e '1{/^# /d}' -e 's/^## /# /' "$md"
	if [ "$page" != bench-versions ]; then
		printf '\n# SEE ALSO\n\n**bench-versions**(1)\n'
	fi
} > "$tmp"
go-md2man -in "$tmp" -out "$out"
