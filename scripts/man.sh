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
# go-md2man writes markdown tables as tbl tables whose cells never wrap, so a
# row of prose runs far past the screen.  A man page's own form for these
# two-column lists (option, meaning; code, meaning) is the tagged paragraph:
# each row becomes .TP, its first cell the tag and the rest the paragraph
# (the header row, a table's column names, is left out).
# A long cell comes as a text block, T{ on the row's line, its text, then T}
# and the rest of the row: the blocks are joined back into one row first.
go-md2man -in "$tmp" -out /dev/stdout | awk '
	/^\.TS/ { tbl = 1; fmt = 0; head = 0; row = ""; blk = 0; next }
	/^\.TE/ { tbl = 0; next }
	tbl && !fmt { if ($0 ~ /\.$/) fmt = 1; next } # tbl options and formats
	tbl {
		line = $0
		if (blk) {
			if (line !~ /^T}/) { row = row " " line; next }
			blk = 0; line = substr(line, 3)
		}
		if (line ~ /T\{$/) { row = row substr(line, 1, length(line) - 2); blk = 1; next }
		row = row line
		if (!head) { head = 1; row = ""; next }
		n = split(row, c, "\t"); row = ""
		rest = c[2]
		for (i = 3; i <= n; i++) rest = rest " \\(em " c[i]
		print ".TP"; print c[1]; print rest; next
	}
	{ print }' > "$out"
