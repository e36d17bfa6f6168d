#!/usr/bin/env bash
# Every release in this repository's history still builds with the current
# harness (and compat/compat.json): the promise compat/ exists for.  Needs the
# history; a shallow or single-commit clone has no releases to build, and
# says so instead of passing silently.
source "$(dirname "$0")/lib.sh"
shallow=$(git -C "$ROOT" rev-parse --is-shallow-repository 2>/dev/null || echo none)
commits=$(git -C "$ROOT" rev-list --count HEAD 2>/dev/null || echo 0)
if [ "$shallow" != false ] || [ "$commits" -le 1 ]; then
	history_missing "every release builds" "no history in this clone (shallow: $shallow, commits: $commits), so no releases to build"
	finish
fi
export KERNEL_DIR="$ROOT/kernels"
share_release_builds # test_docs_examples builds them too
unset KERNEL_REPO BENCH_VERSIONS_COMPAT
"$BV" compat --build > "$TMP/out" 2> "$TMP/err"; rc=$?
cat "$TMP/out"
check "bench-versions compat --build exits 0 (every release builds)" test $rc -eq 0
# Each kernels/VERSION the history has held is a release that must be listed and build.
for v in $(git -C "$ROOT" log --format=%H -- kernels/VERSION | while read -r c; do
		git -C "$ROOT" show "$c:kernels/VERSION" 2>/dev/null; done | sort -u); do
	check "release $v builds with the current harness" contains "$TMP/out" "^$v +$v +[0-9a-f]{12} .* builds \((built|cached)\)$"
done
check "no release failed" bash -c "! grep -q FAILED '$TMP/out'"
finish
