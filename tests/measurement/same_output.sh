#!/usr/bin/env bash
# tests/measurement/same_output.sh OLD_BIN NEW_BIN - whether two builds of
# the tool say the same thing, byte for byte, where nothing is measured:
# every command's --help, `list`, `compat`, `plan`'s cut, bad options, and
# `compare` and `report --from` over the checked-in logs in every format and
# at three widths.  For a change that moves code without changing what it
# does (a file split, a folder move): run it with the build before and the
# build after; it prints each difference and exits 1 on any.
#   OLD_BIN, NEW_BIN: directories holding bench-versions and bv-runner
# Run from the repository root (the fixtures are read from tests/e2e/).
set -u
old=${1:?usage: same_output.sh OLD_BIN NEW_BIN}
new=${2:?usage: same_output.sh OLD_BIN NEW_BIN}
out=$(mktemp -d /tmp/bv-same-output-XXXXXX)
trap 'rm -rf "$out"' EXIT
# a copy: report --from writes its files beside the logs it reads
cp -r tests/e2e/fixtures "$out/fixtures"
fx=$out/fixtures
cmds=()
for c in run compare history bisect report list compat cache plan share; do
	cmds+=("$c --help")
done
cmds+=("list benches" "list backends" "list versions" "compat")
cmds+=("run --processes abc" "run 0.1.0 --rounds -1" "history --bogus" "bisect --good" "report --from"
       "compare /nonexistent/dir" "run 0.1.0 main --threshold abc" "plan 0.1.0 --shards 0")
for d in "$fx/table_width/demo" "$fx/table_width/suite" "$fx/plugin_path"; do
	for f in table markdown csv json html; do
		cmds+=("compare $d --format $f")
	done
	cmds+=("compare $d --wide" "compare $d --filter relu")
done
cmds+=("report --from $fx/table_width/demo/0.1.0.json $fx/table_width/demo/main.json"
       "report --from $fx/table_width/demo/0.1.0.json $fx/table_width/demo/main.json --format markdown"
       "report --from $fx/table_width/demo/0.1.0.json $fx/table_width/demo/main.json --format json")
n=0 differ=0
for c in "${cmds[@]}"; do
	for w in 80 120 200; do
		n=$((n + 1))
		# shellcheck disable=SC2086 # the command's words
		(cd "$PWD" && COLUMNS=$w NO_COLOR=1 "$old/bench-versions" $c > "$out/old.out" 2> "$out/old.err"; echo "exit $?" >> "$out/old.err")
		(cd "$PWD" && COLUMNS=$w NO_COLOR=1 "$new/bench-versions" $c > "$out/new.out" 2> "$out/new.err"; echo "exit $?" >> "$out/new.err")
		# a build's own commit id is the one thing that may differ
		# and where each build lives
		for s in old new; do
			sed -i -e "s|$out/|OUT/|g" -e "s|$(cd "$old/.." && pwd)/|TOOL/|g" -e "s|$(cd "$new/.." && pwd)/|TOOL/|g" "$out/$s.out" "$out/$s.err"
		done
		for s in old new; do sed -i -E 's/\b[0-9a-f]{7,40}(-dirty)?\b/COMMIT/g' "$out/$s.out" "$out/$s.err"; done
		if ! cmp -s "$out/old.out" "$out/new.out" || ! cmp -s "$out/old.err" "$out/new.err"; then
			differ=$((differ + 1))
			echo "differs: COLUMNS=$w bench-versions $c"
			diff "$out/old.out" "$out/new.out" | head -5
			diff "$out/old.err" "$out/new.err" | head -5
		fi
	done
done
echo "same_output: $((n - differ)) of $n command lines say the same, byte for byte ($old vs $new)"
[ "$differ" -eq 0 ]
