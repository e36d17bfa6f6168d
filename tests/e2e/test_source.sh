#!/usr/bin/env bash
# Source rules a compiler flag cannot hold, checked over the tree:
# - every allocation in orchestrator/ goes through the bv_x* helpers
#   (common.c), which end the process with a message when memory runs out;
#   a raw malloc/calloc/realloc whose NULL nobody checks is a crash far from
#   its cause (an outside review counted 49 of them);
# - no command file calls another command's function: a driver of the
#   stages depends on pipeline.c, not on cmd_run.c (issue 14, item 13).
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

raw=$(grep -nE '(^|[^A-Za-z0-9_])(malloc|calloc|realloc)\(' orchestrator/*.c | grep -v '^orchestrator/common.c:' |
	grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)')
check "orchestrator/: no raw malloc, calloc or realloc outside common.c${raw:+ (found: $(echo "$raw" | head -3 | tr '\n' ' '))}" \
	test -z "$raw"

# The functions each command file defines that are not static...
cross=""
for f in orchestrator/cmd_*.c; do
	for fn in $(grep -oE '^[a-z_ ]+\*?\s*(bv_[a-z_0-9]+)\(' "$f" | grep -v '^static' | grep -oE 'bv_[a-z_0-9]+'); do
		[ "$fn" = "bv_cmd_${f#orchestrator/cmd_}" ] && continue
		case "$fn" in bv_cmd_*) continue ;; esac
		# ...used by another file than main.c: a dependency on a command.
		users=$(grep -lw "$fn" orchestrator/*.c | grep -v -e "^$f\$" -e '^orchestrator/main.c$')
		[ -n "$users" ] && cross="$cross $fn($f <- $users)"
	done
done
check "no command file's function is used by another file${cross:+ (found:$cross)}" test -z "$cross"
exit $((failures > 0))
