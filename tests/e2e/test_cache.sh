#!/usr/bin/env bash
# End to end: the cache shared by runs.  Two runs at once on one empty cache
# both succeed; parallel builds give what sequential ones give; `cache show`
# lists the entries; `cache trim` removes old entries, keeps the rest and a
# run in progress's temporary directory; a run after trim builds again.
source "$(dirname "$0")/lib.sh"
own_library_builds # what the cache holds, and trim
make_fixture
sed -i 's/^ \* sane input;/ * sane input (0.1.1);/' "$FIX/kernels/src/api.c"
echo 0.1.1 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "kernels 0.1.1"
args=(--quick --ops abs --backends scalar --sizes 1K --format json)

# Two runs at once, one empty cache: one rename wins per key, the other uses it.
export BENCH_VERSIONS_CACHE="$TMP/shared"
"$BV" 0.1.0 main local "${args[@]}" --results "$TMP/ra" > "$TMP/a.json" 2> "$TMP/a.err" & pa=$!
"$BV" 0.1.0 main local "${args[@]}" --results "$TMP/rb" > "$TMP/b.json" 2> "$TMP/b.err" & pb=$!
wait $pa; rca=$?
wait $pb; rcb=$?
check "first of two concurrent runs succeeds" test $rca -eq 0
check "second of two concurrent runs succeeds" test $rcb -eq 0
check "no temporary directory is left behind" test -z "$(ls -A "$TMP/shared/builds" "$TMP/shared/src" | grep '^\.tmp-')"
check "one build per version, no half entries" test "$(ls "$TMP/shared/builds" | grep -vc '\.log$')" -eq 3
check "every build in the cache is complete" bash -c "for d in '$TMP/shared'/builds/*/; do test -f \"\$d/plugin.so\" || exit 1; done"
# The catalog's version-independent objects: one entry for every version.
check "the catalog's fixed objects are one cache entry for 3 versions, none half made" \
	test "$(ls -A "$TMP/shared/objs")" = "$(ls "$TMP/shared/objs" | grep -E '^[0-9a-f]{40}$')" -a "$(ls -A "$TMP/shared/objs" | wc -l)" -eq 1

# --jobs 1 (sequential, in one process) against the default, on a fresh cache.
export BENCH_VERSIONS_CACHE="$TMP/seq"
"$BV" 0.1.0 main local "${args[@]}" --jobs 1 --results "$TMP/rs" > "$TMP/s.json" 2> "$TMP/s.err"; rc=$?
check "sequential run (--jobs 1) succeeds" test $rc -eq 0
check "... compiling the catalog's fixed objects once, taking them twice" \
	test "$(cat "$TMP"/seq/builds/*.log | grep -c "version-independent objects compiled once")" -eq 1 -a \
	"$(cat "$TMP"/seq/builds/*.log | grep -c "version-independent objects taken from the cache")" -eq 2
check "parallel and sequential builds have the same keys" \
	test "$(ls "$TMP/seq/builds" | sort)" = "$(ls "$TMP/shared/builds" | sort)"
check "parallel and sequential runs give the same table" python3 - "$TMP/s.json" "$TMP/a.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
def shape(d):
    return sorted((r["bench"], r["op"], r["backend"], r["size"], tuple((x["version"], x["status"]) for x in r["results"]))
                  for r in d["rows"])
assert shape(a) == shape(b), (shape(a), shape(b))
assert all(x["status"] == "ok" for r in a["rows"] for x in r["results"])
PY

# The key hashes what the files hold, not where they lie: the tool's home
# copied elsewhere (a CI job's fresh workspace) reuses every build; a harness
# copy that differs by one byte builds again.
home="$TMP/home-copy"
mkdir -p "$home"
cp -r "$ROOT/harness" "$ROOT/compat" "$home/"
BENCH_VERSIONS_HOME="$home" "$BV" 0.1.0 main local "${args[@]}" --results "$TMP/rh" > /dev/null 2> "$TMP/h.err"; rc=$?
check "a copy of the tool's home elsewhere reuses every build" \
	test $rc -eq 0 -a "$(grep -c 'cached, nothing rebuilt' "$TMP/h.err")" -eq 3 -a "$(ls "$TMP/seq/builds" | grep -vc '\.log$')" -eq 3
echo "/* one byte more */" >> "$home/harness/plugin/plugin.h"
BENCH_VERSIONS_HOME="$home" "$BV" 0.1.0 "${args[@]}" --results "$TMP/rh" > /dev/null 2> "$TMP/h.err"; rc=$?
check "... and a changed harness file builds again" \
	test $rc -eq 0 -a "$(grep -c 'cached, nothing rebuilt' "$TMP/h.err")" -eq 0 -a "$(ls "$TMP/seq/builds" | grep -vc '\.log$')" -eq 4
check "... compiling the catalog's fixed objects again, beside the first" test "$(ls "$TMP/seq/objs" | grep -cE '^[0-9a-f]{40}$')" -eq 2
rm -rf "$TMP/rh"

# The build environment's values are in the key (--dry-run's JSON says
# whether the key is cached; nothing is built): a build made with CUDA=0 is not the one
# made without it, while an outer make's MAKEFLAGS never reaches the build
# and so changes nothing.
dry() { "$@" "$BV" 0.1.0 "${args[@]}" --dry-run 2> /dev/null; }
dry env > "$TMP/d1"
check "the plain build is cached" contains "$TMP/d1" '"build":[[:space:]]*"cached"'
dry env CUDA=0 > "$TMP/d2"
check "CUDA=0 in the environment is another build (to build)" contains "$TMP/d2" '"build":[[:space:]]*"to build"'
dry env CFLAGS=-O1 > "$TMP/d3"
check "so is CFLAGS" contains "$TMP/d3" '"build":[[:space:]]*"to build"'
dry env MAKEFLAGS=" -- CUDA=0" MAKELEVEL=1 FIXTURE_OTHER=1 > "$TMP/d4"
check "an outer make's MAKEFLAGS and an unnamed variable reach no build: cached" contains "$TMP/d4" '"build":[[:space:]]*"cached"'
dry env FIXTURE_OTHER=1 BENCH_VERSIONS_BUILD_ENV=FIXTURE_OTHER > "$TMP/d5"
check "a variable named in BENCH_VERSIONS_BUILD_ENV is in the key" contains "$TMP/d5" '"build":[[:space:]]*"to build"'
BENCH_VERSIONS_BUILD_ENV='X;rm' "$BV" 0.1.0 "${args[@]}" --dry-run > /dev/null 2> "$TMP/d6"; rc=$?
check "BENCH_VERSIONS_BUILD_ENV holding no name: exit 2 ($rc)" test $rc -eq 2
check "... saying what it must hold" contains "$TMP/d6" "BENCH_VERSIONS_BUILD_ENV: \"X;rm\" is not a variable's name"

# cache show / trim on that cache.
"$BV" cache show > "$TMP/show" 2>&1; rc=$?
check "cache show exits 0" test $rc -eq 0
check "cache show lists src/ and builds/ entries with sizes" \
	bash -c "grep -qE '^src +[0-9a-f]{40} +[0-9.]+[KMB]' '$TMP/show' && grep -qE '^builds +[0-9a-f]{40} +[0-9.]+[KMB]' '$TMP/show'"
check "cache show lists objs/" grep -qE '^objs +[0-9a-f]{40} +[0-9.]+[KMB]' "$TMP/show"
check "cache show lists machine/ and a total" \
	bash -c "grep -qE '^machine ' '$TMP/show' && grep -qE '^total: [0-9]+ entries, ' '$TMP/show'"
# Age everything but the machine's calibration; one build stays in use; a
# temporary directory being written now and a stale one from a crashed run.
find "$TMP/seq/src" "$TMP/seq/builds" -mindepth 1 -maxdepth 1 -exec touch -d '10 days ago' {} +
# (the kept build is 0.1.0's of the sequential run: the first key in the
# listing could be the changed harness's build above, which the run after
# trim cannot use; which one came first depended on the keys' hashes)
keep=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["version"]["build"]["key"])' "$(ls -d "$TMP"/rs/[0-9]*/ | head -1)/0.1.0.json")
touch "$TMP/seq/builds/$keep"
mkdir "$TMP/seq/builds/.tmp-busy" "$TMP/seq/builds/.tmp-stale"
touch -d '3 hours ago' "$TMP/seq/builds/.tmp-stale"
before=$(ls -A "$TMP/seq/builds" "$TMP/seq/src" | sort)
"$BV" cache trim --older-than 5 --dry-run > "$TMP/dry" 2>&1; rc=$?
check "trim --dry-run exits 0 and removes nothing" test $rc -eq 0 -a "$(ls -A "$TMP/seq/builds" "$TMP/seq/src" | sort)" = "$before"
check "trim --dry-run says what it would remove" contains "$TMP/dry" "^would remove builds/"
"$BV" cache trim --older-than 5 > "$TMP/trim" 2>&1; rc=$?
check "trim exits 0" test $rc -eq 0
check "trim says what it removed" contains "$TMP/trim" "^removed src/[0-9a-f]{40} "
check "trim removed the old builds" test "$(ls "$TMP/seq/builds" | grep -v '\.log$' | grep -vc '^\.tmp')" -eq 1
check "trim kept the build in use" test -f "$TMP/seq/builds/$keep/plugin.so"
check "trim kept the machine's calibration" test -n "$(ls "$TMP/seq/machine")"
check "trim kept a temporary directory being written" test -d "$TMP/seq/builds/.tmp-busy"
check "trim removed a stale temporary directory" test ! -e "$TMP/seq/builds/.tmp-stale"
"$BV" cache trim --max-size 1 --dry-run > "$TMP/dry2" 2>&1
check "trim --max-size would remove the rest, not the busy one" \
	bash -c "grep -q 'would remove builds/$keep' '$TMP/dry2' && ! grep -q 'tmp-busy' '$TMP/dry2'"
"$BV" cache trim > "$TMP/bad" 2>&1; rc=$?
check "trim without a limit is a usage error" test $rc -eq 2
rmdir "$TMP/seq/builds/.tmp-busy"

"$BV" 0.1.0 main local "${args[@]}" --results "$TMP/rt" > /dev/null 2> "$TMP/t.err"; rc=$?
check "a run after trim succeeds" test $rc -eq 0
check "a run after trim builds what trim removed" test "$(grep -cE '^build: .* built \(compat' "$TMP/t.err")" -eq 2
check "and reuses the build trim kept" test "$(grep -c 'cached, nothing rebuilt' "$TMP/t.err")" -eq 1

# A removal that fails midway (a tree deeper than PATH_MAX: nftw gives up
# with "File name too long") must not leave a half entry under its key.
deep="$TMP/seq/builds/$keep"
(cd "$deep" && for i in $(seq 1 45); do mkdir "d$i-$(printf 'x%.0s' $(seq 1 100))" && cd "d$i-"*; done && echo leaf > leaf)
touch -d '10 days ago' "$deep"
"$BV" cache trim --older-than 5 > "$TMP/trim2" 2>&1; rc=$?
check "a trim that cannot finish a removal exits 3 and names the entry" \
	bash -c '[ "$1" -eq 3 ] && grep -q "cannot remove .*$2" "$3"' _ "$rc" "$keep" "$TMP/trim2"
check "... and the entry is no longer under its key (moved aside first)" test ! -e "$deep"
check "... every entry left under a key has its plugin" \
	bash -c 'for d in "$1"/builds/*/; do case "$d" in */.trash-*|*/.tmp-*) continue;; esac; [ -s "$d/plugin.so" ] || exit 1; done' _ "$TMP/seq"
rm -rf "$TMP"/seq/builds/.trash-*

# A version built alone gets make -j with the CPUs its run leaves idle (one
# tree, a bisect step); with as many versions as --jobs each make is serial.
# The fixture's make says its flags in the build log beside the build.
sed -i 's|^lib: $(BUILD)/libkernels.a $(BUILD)/link-flags$|&\n\t@echo "make flags: [$(MAKEFLAGS)]"|' "$FIX/kernels/Makefile"
export BENCH_VERSIONS_CACHE="$TMP/jobs"
"$BV" local "${args[@]}" --jobs 2 --results "$TMP/rj" > /dev/null 2> "$TMP/j.err"; rc=$?
check "a single version with --jobs 2 builds" test $rc -eq 0
# (the flags before " -- "; the variables after it hold random paths)
check "... with make -j2" bash -c 'grep -h "^make flags:" "$1"/builds/*.log | sed "s/ -- .*//" | grep -q -- " -j2"' _ "$TMP/jobs"
rm -rf "$TMP/jobs"
"$BV" local "${args[@]}" --jobs 1 --results "$TMP/rj" > /dev/null 2> "$TMP/j.err"; rc=$?
check "with --jobs 1 the build is serial (no -j)" \
	bash -c '[ "$2" -eq 0 ] && grep -h "^make flags:" "$1"/builds/*.log | sed "s/ -- .*//" | grep -qv -- "-j"' _ "$TMP/jobs" "$rc"
finish
