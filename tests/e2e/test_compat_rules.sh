#!/usr/bin/env bash
# End to end: compat rules that patch a release's sources and override its
# build recipe, and `bench-versions compat` listing and building releases.
# The fixture's 0.1.0 carries a planted compile error that only its compat
# patch removes, so a build that passes proves the patch was applied.
source "$(dirname "$0")/lib.sh"
make_fixture

# 0.1.0 as released: does not compile.  0.1.1 fixes it.
sed -i 's/^#include "internal.h"$/#include "internal.h"\n#error planted: 0.1.0 needs its compat patch/' "$FIX/kernels/src/api.c"
git -C "$FIX" commit -qam "kernels 0.1.0 (broken build)"
git -C "$FIX" tag v0.1.0
sed -i '/#error planted/d' "$FIX/kernels/src/api.c"
echo 0.1.1 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "kernels 0.1.1: builds"

C="$TMP/compat"
mkdir -p "$C/patches"
export BENCH_VERSIONS_COMPAT="$C/compat.json"
cat > "$C/patches/unbreak-0.1.0.patch" <<'P'
--- a/src/api.c
+++ b/src/api.c
@@ -5,7 +5,6 @@
  * sane input; a backend that lacks an op answers KN_EUNSUPPORTED.
  */
 #include "internal.h"
-#error planted: 0.1.0 needs its compat patch
 
 #include <stdarg.h>
 #include <stdio.h>
P
cat > "$C/patches/stale.patch" <<'P'
--- a/src/api.c
+++ b/src/api.c
@@ -1,3 +1,3 @@
-this line is in no release
+nor is this one
 of the kernels
 library
P
rules() { printf '{"schema_version": 1, "rules": [%s]}\n' "$1" > "$C/compat.json"; }

rules ''
"$BV" compat > "$TMP/list" 2> "$TMP/err"; rc=$?
check "compat lists without building: exit 0" test $rc -eq 0
check "compat lists 0.1.0 (its tag) and 0.1.1 as not tried" \
	bash -c "grep -qE '^0\.1\.0 +0\.1\.0 +[0-9a-f]{12} +none +not tried' '$TMP/list' && grep -qE '^0\.1\.1 +0\.1\.1 +[0-9a-f]{12} +none +not tried' '$TMP/list'"
check "the tag and the release number are one line" test "$(grep -cE '^(v?0\.1\.0) ' "$TMP/list")" -eq 1
"$BV" compat local > "$TMP/list2" 2>&1
check "compat NAME lists that version" contains "$TMP/list2" "^local +0\.1\.1 +working tree +none +not tried"
# Names given select from the list: they are what was
# asked about, not more lines beside every release.
check "  and that version alone" bash -c "! grep -qE '^(v?0\.1\.[01]) ' '$TMP/list2'"
"$BV" compat nosuchversion > "$TMP/list3" 2>&1; rc=$?
check "compat: an unknown name is an input error (exit 2)" test $rc -eq 2

"$BV" compat --build > "$TMP/b1" 2> "$TMP/e1"; rc=$?
check "without its patch 0.1.0 fails to build: exit 3" test $rc -eq 3
check "the failure is shown with the compiler's message" contains "$TMP/b1" "^0\.1\.0 .* FAILED"
check "the failure's log tail names the planted error" contains "$TMP/b1" "planted: 0.1.0 needs its compat patch"
check "0.1.1 still builds" contains "$TMP/b1" "^0\.1\.1 .* builds \(built\)"

rules '{"id": "unbreak-0.1.0", "versions": "0.1.0", "patches": ["patches/unbreak-0.1.0.patch"], "note": "planted error"}'
"$BV" compat --build > "$TMP/b2" 2> "$TMP/e2"; rc=$?
check "with the patch every release builds: exit 0" test $rc -eq 0
check "0.1.0 builds with its rule" contains "$TMP/b2" "^0\.1\.0 +0\.1\.0 +[0-9a-f]{12} +unbreak-0\.1\.0 +builds \(built\)"
check "the patch is listed under its version" contains "$TMP/b2" "^    patch: .*/patches/unbreak-0\.1\.0\.patch"
check "0.1.1 is untouched and cached" contains "$TMP/b2" "^0\.1\.1 .* none +builds \(cached\)"
check "the shared source copy is not patched" bash -c "grep -rqs '#error planted' '$BENCH_VERSIONS_CACHE'/src/*/src/api.c"
"$BV" 0.1.0 main --quick --ops abs --backends scalar --sizes 1K --results "$TMP/results" > "$TMP/run" 2> "$TMP/runerr"; rc=$?
check "a comparison uses the patched 0.1.0: exit 0" test $rc -eq 0
check "the comparison reuses the patched build" contains "$TMP/runerr" "build: 0\.1\.0 +cached, nothing rebuilt \(compat: unbreak-0\.1\.0\)"

UNBREAK='{"id": "unbreak-0.1.0", "versions": "0.1.0", "patches": ["patches/unbreak-0.1.0.patch"]}'
rules "$UNBREAK"', {"id": "stale", "versions": "0.1.1", "patches": ["patches/stale.patch"]}'
"$BV" compat --build > "$TMP/b3" 2> "$TMP/e3"; rc=$?
check "a patch that does not apply fails that version: exit 3" test $rc -eq 3
check "it says which patch did not apply" contains "$TMP/b3" "applying compat patch .*/patches/stale\.patch failed"
check "no crash: the others still build and are counted" contains "$TMP/b3" "^1 of 2 versions build with the current harness"

# The recipe override: its flags reach the library's compiler.
rules '{"id": "recipe", "versions": "0.1.1", "build": ["make", "-C", "{src}", "BUILD={build}", "CUDA=0", "CFLAGS=-O1 -DBV_RECIPE_MARK", "lib"]}'
"$BV" compat --build 0.1.1 > "$TMP/b4" 2> "$TMP/e4"; rc=$?
# 0.1.0 has no rule that unbreaks it now: building it too failed the command
check "compat --build NAME builds that version alone: exit 0 (exit $rc)" test $rc -eq 0
check "  no other version is listed or built" bash -c "! grep -qE '^0\.1\.0 ' '$TMP/b4' && ! grep -qE '^build: 0\.1\.0 ' '$TMP/e4'"
check "  and the count is of it alone" contains "$TMP/b4" "^1 of 1 version builds with the current harness"
check "0.1.1 builds with its recipe" contains "$TMP/b4" "^0\.1\.1 .* recipe +builds \(built\)"
check "compat shows the recipe" contains "$TMP/b4" "^    build \(rule recipe\): make -C \{src\} BUILD=\{build\} CUDA=0 CFLAGS=-O1 -DBV_RECIPE_MARK lib"
check "the recipe ran (its flag is in the build log)" bash -c "grep -qs -- '-DBV_RECIPE_MARK' '$BENCH_VERSIONS_CACHE'/builds/*.log"
rules '{"id": "recipe", "versions": "0.1.1", "build": ["false", "{build}"]}'
"$BV" compat --build 0.1.1 > "$TMP/b5" 2> "$TMP/e5"; rc=$?
check "a failing recipe is that version's build failure (exit 3)" test $rc -eq 3
check "the failure names the recipe's rule" contains "$TMP/b5" "compat recipe of rule recipe"
# A build whose every step exits 0 but writes nothing (cc --version) is a
# failure and is not cached.  And an entry left without its plugin (by an
# older tool, or by hand) is replaced by the next build, not an error
# ("cannot move build ... Directory not empty") on every later run.
rules "$UNBREAK"', {"id": "nothing", "versions": "0.1.1", "cflags": ["--version"]}'
"$BV" compat --build > "$TMP/b7" 2> "$TMP/e7"; rc=$?
check "a build that writes nothing fails that version (exit 3)" test $rc -eq 3
check "... and is not cached" bash -c 'for d in "$1"/builds/*/; do [ -s "$d/plugin.so" ] || exit 1; done' _ "$BENCH_VERSIONS_CACHE"
rules "$UNBREAK"
rm -rf "$BENCH_VERSIONS_CACHE"/builds/* # only the entries of the builds below
"$BV" compat --build > "$TMP/b8" 2> "$TMP/e8"; rc=$?
check "without the flag the same version builds afterwards" test $rc -eq 0
for d in "$BENCH_VERSIONS_CACHE"/builds/*/; do rm -f "$d/plugin.so"; done
"$BV" compat --build > "$TMP/b9" 2> "$TMP/e9"; rc=$?
check "cache entries without their plugin are built again and replaced (exit 0)" test $rc -eq 0
check "... every entry has its plugin again" bash -c 'for d in "$1"/builds/*/; do [ -s "$d/plugin.so" ] || exit 1; done' _ "$BENCH_VERSIONS_CACHE"
check "... and nothing is left aside" bash -c '! ls -d "$1"/builds/*.broken-* 2> /dev/null' _ "$BENCH_VERSIONS_CACHE"

rules '{"id": "typo", "versions": "*", "build": ["make", "-C", "{source}", "BUILD={build}", "lib"]}'
"$BV" compat > "$TMP/b6" 2> "$TMP/e6"; rc=$?
check "an unknown placeholder is refused at load (exit 2)" test $rc -eq 2
check "the refusal names compat.json and the rule" contains "$TMP/e6" "compat\.json: rule 0 \('typo'\): unknown placeholder"
finish
