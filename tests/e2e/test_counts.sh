#!/usr/bin/env bash
# End to end: tests/run.sh counts what the checks print.  A skipped check is
# not a pass: a machine that cannot run half the suite must not report it as
# passed.  Scripts with known output (no bench-versions involved) go through
# `tests/run.sh SCRIPT...`, the same counting as the whole suite.
source "$(dirname "$0")/lib.sh"
# The plain run.sh, also when this script runs under BV_VARIANT=asan (which
# would add a "no sanitizer reports" pass per script).
runner() { env -u BV_VARIANT bash "$ROOT/tests/run.sh" "$@"; }

cat > "$TMP/test_mixed.sh" <<SH
source "$ROOT/tests/e2e/lib.sh"
check "passes" true
check "passes too" true
check "fails" false
skip "needs a GPU" "no device here"
skip "needs mount" "not permitted"
finish
SH
runner "$TMP/test_mixed.sh" > "$TMP/out" 2>&1
rc=$?
check "a failed check fails the run" test $rc -ne 0
check "skips are counted apart from passes" contains "$TMP/out" "^2 passed, 1 failed, 2 skipped$"
check "a skip says what and why" contains "$TMP/out" "^ok - needs a GPU # SKIP no device here$"

cat > "$TMP/test_skips.sh" <<SH
source "$ROOT/tests/e2e/lib.sh"
check "passes" true
skip "everything else" "nothing to test here"
finish
SH
runner "$TMP/test_skips.sh" > "$TMP/out" 2>&1
rc=$?
check "skips alone do not fail the run" test $rc -eq 0
check "and are still said" contains "$TMP/out" "^1 passed, 0 failed, 1 skipped$"

# A check that needs the repository's history, in a clone without it: a
# skip on a developer's machine, a failure under CI.
cat > "$TMP/test_history.sh" <<SH
source "$ROOT/tests/e2e/lib.sh"
check "passes" true
history_missing "every release builds" "no history in this clone"
finish
SH
env -u CI -u BV_VARIANT bash "$ROOT/tests/run.sh" "$TMP/test_history.sh" > "$TMP/out" 2>&1
check "a missing history without CI: a skip" contains "$TMP/out" "^1 passed, 0 failed, 1 skipped$"
for ci in true 1 yes; do
	CI=$ci runner "$TMP/test_history.sh" > "$TMP/out" 2>&1
	rc=$?
	check "a missing history with CI=$ci: a failure (exit $rc)" bash -c "[ $rc -ne 0 ] && grep -q '^1 passed, 1 failed, 0 skipped$' '$TMP/out' && grep -q 'not ok - every release builds (CI=$ci, and this clone lacks' '$TMP/out'"
done
CI=false runner "$TMP/test_history.sh" > "$TMP/out" 2>&1
check "CI=false is no CI: a skip" contains "$TMP/out" "^1 passed, 0 failed, 1 skipped$"

# A script started with SIGINT ignored (as nohup and & do) runs with it at
# its default (lib.sh starts it again), its arguments kept.
cat > "$TMP/test_sigint.sh" <<'SH'
source "$(dirname "$0")/lib.sh"
sigign=$(awk '/^SigIgn/ {print $2}' /proc/$$/status)
check "SIGINT at its default" test $(((16#${sigign: -1} >> 1) & 1)) -eq 0
check "arguments kept" test "$*" = "a b"
finish
SH
cp "$ROOT/tests/e2e/lib.sh" "$TMP/lib.sh"
bash -c 'trap "" INT; exec bash "$1" a b' _ "$TMP/test_sigint.sh" > "$TMP/out" 2>&1
check "a script started with SIGINT ignored gets it back at its default" bash -c "[ \$(grep -c '^ok' '$TMP/out') -eq 2 ]"
# ... and so does one started so by a script that was itself restarted (as
# this one is under nohup, where tests/run.sh starts test_counts.sh).
cat > "$TMP/test_parent.sh" <<'SH'
source "$(dirname "$0")/lib.sh"
bash -c 'trap "" INT; exec bash "$1" a b' _ "$(dirname "$0")/test_sigint.sh"
SH
bash -c 'trap "" INT; exec bash "$1"' _ "$TMP/test_parent.sh" > "$TMP/out" 2>&1
check "... also when its parent script was restarted so itself" bash -c "[ \$(grep -c '^ok' '$TMP/out') -eq 2 ]"
finish
