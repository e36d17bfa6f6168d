#!/usr/bin/env bash
# End to end: a cache entry that was changed after it was made is never
# taken as it is.  A library in libs/ or the catalog's objects in objs/,
# damaged by a recipe or by hand (an append, a FIFO, a symbolic link,
# garbage, an empty file), costs a rebuild, and the cache repairs itself; a
# plugin that does not load fails its own version's build and is never
# cached; `cache trim` keeps the builds a run is measuring.
source "$(dirname "$0")/lib.sh"
own_library_builds # the damage is done to this script's own libs/ and objs/
make_fixture
git -C "$FIX" tag v0.1.0
echo 0.1.1 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "kernels 0.1.1"
CACHE=$BENCH_VERSIONS_CACHE
C="$TMP/compat"
mkdir -p "$C"
export BENCH_VERSIONS_COMPAT="$C/compat.json"
rules() { printf '{"schema_version": 1, "rules": [%s]}\n' "$1" > "$C/compat.json"; }
# relink N: a rule for 0.1.0 that changes its harness side alone, so its
# next build takes the library from libs/ (a new build key, the same
# library key).
relink() { printf '{"id": "relink%s", "versions": "0.1.0", "cflags": ["-DBV_RELINK=%s"]}' "$1" "$1"; }
newest_log() { ls -t "$CACHE"/builds/*.log | head -1; }

rules ''
"$BV" compat --build 0.1.0 > "$TMP/b0" 2>&1
check "0.1.0 builds" contains "$TMP/b0" "^0\.1\.0 .* builds \(built\)"
L=$(ls -d "$CACHE"/libs/[0-9a-f]*)
A="$L/lib/libkernels.a"
sha0=$(sha256sum < "$A")
check "its library is one sealed entry of libs/" test "$(echo "$L" | wc -l)" -eq 1 -a -f "$L/SEAL"
check "the entry's files are read-only (a build that is not root cannot append to them)" \
	test "$(find "$L" -type f -perm /222 | wc -l)" -eq 0
O=$(ls -d "$CACHE"/objs/[0-9a-f]*)
check "the catalog's objects are one sealed entry of objs/" test -f "$O/fixed.o" -a -f "$O/SEAL"

# ---- a later version's recipe writes into an earlier one's cached library ----
# As root (CI runs so) the read-only mode stops nothing: the seal is what
# tells.  The recipe builds 0.1.1 as make does, then appends to every
# archive under libs/.
rules "{\"id\": \"writer\", \"versions\": \">=0.1.1\", \"build\": [\"sh\", \"-c\", \"make -C {src} BUILD={build} CUDA=0 lib && for f in $CACHE/libs/*/lib/*.a; do chmod u+w \\\"\$f\\\"; echo planted >> \\\"\$f\\\"; done\"]}"
"$BV" compat --build 0.1.1 > "$TMP/b1" 2>&1
check "a recipe that writes into 0.1.0's cached library: 0.1.1 builds" contains "$TMP/b1" "^0\.1\.1 .* builds \(built\)"
check "... and it did change that library (the damage this case is about)" test "$(sha256sum < "$A")" != "$sha0"
rules "$(relink 1)"
"$BV" compat --build 0.1.0 > "$TMP/b2" 2>&1
check "the next build of 0.1.0 that takes its library builds" contains "$TMP/b2" "^0\.1\.0 .* builds \(built\)"
check "... says the cached library was damaged and built it again" \
	contains "$(newest_log)" "library: the cache's entry .*$(basename "$L") was damaged \(its files differ from those it was sealed with"
check "... the cache holds the library as it was built, sealed again" \
	test "$(sha256sum < "$A")" = "$sha0" -a -f "$L/SEAL"
# The recipe's append reached 0.1.0's finished build too (its lib/ holds
# the same files): taken as it was, its layouts would link the appended
# archive.
rules ''
"$BV" compat --build 0.1.0 > "$TMP/b3" 2>&1
check "0.1.0's first build, whose lib/ the recipe changed, is not taken from the cache: built again" \
	contains "$TMP/b3" "^0\.1\.0 .* builds \(built\)"
check "... its log says the build's entry was damaged" \
	contains "$(newest_log)" "^build: the cache's entry .* was damaged \(lib/: its files differ from those it was sealed with"
"$BV" compat --build 0.1.0 > "$TMP/b4" 2>&1
check "... and the next build of it is taken from the cache again" contains "$TMP/b4" "^0\.1\.0 .* builds \(cached\)"

# ---- damaged libs/ and objs/ entries ----
# Each relink below meets one damaged library entry (a FIFO, a symbolic
# link, garbage, the entry itself a link) and, but for the last, one
# damaged objs/ entry (empty, garbage, a FIFO): both are found, set aside
# and made again by the same build.
damage() { # NAME N LIB_DAMAGE [OBJS_DAMAGE]: damage, then a relink of 0.1.0
	local name=$1 n=$2 lib=$3 objs=${4:-}
	"$lib"
	[ -z "$objs" ] || "$objs"
	rules "$(relink "$n")"
	timeout -k 2 300 "$BV" compat --build 0.1.0 > "$TMP/d$n" 2>&1
	local rc=$? log
	log=$(newest_log)
	check "$name: 0.1.0 builds (exit $rc)" bash -c "[ $rc -eq 0 ] && grep -qE '^0\.1\.0 .* builds \(built\)' '$TMP/d$n'"
	check "$name: the build log says the library's entry was damaged, and how" \
		contains "$log" "^library: the cache's entry .* was damaged \(.*$5.*\): set aside, the library is built again"
	check "$name: the library's entry is replaced by a sealed, regular one, as it was built" \
		bash -c "[ ! -L '$L' ] && [ -d '$L' ] && [ -f '$A' ] && [ ! -L '$A' ] && [ -f '$L/SEAL' ] && [ \"\$(sha256sum < '$A')\" = '$sha0' ]"
	if [ -n "$objs" ]; then
		check "$name: the build log says the objects' entry was damaged and compiled them again" \
			bash -c "grep -q \"^harness: the cache's entry .* was damaged\" '$log' && grep -q 'objects compiled once' '$log'"
		check "$name: the objects' entry is a sealed, regular one again" test -f "$O/fixed.o" -a -s "$O/fixed.o" -a -f "$O/SEAL"
	fi
	[ $rc -eq 0 ] || grep -E "damaged|FAILED|error" "$log" "$TMP/d$n" | head -5 | sed 's/^/#   /'
}
fifo() { rm -f "$A" && mkfifo "$A"; }
other_file() { rm -f "$A" && ln -s /etc/hostname "$A"; }
garbage() { chmod u+w "$A" && head -c 4096 /dev/urandom > "$A"; }
linked_entry() { mkdir -p "$TMP/elsewhere" && cp -a "$L" "$TMP/elsewhere/entry" && rm -rf "$L" && ln -s "$TMP/elsewhere/entry" "$L"; }
empty_object() { chmod u+w "$O/fixed.o" && : > "$O/fixed.o"; }
garbage_object() { chmod u+w "$O/fixed.o" && head -c 2048 /dev/urandom > "$O/fixed.o"; }
fifo_object() { rm -f "$O/fixed.o" && mkfifo "$O/fixed.o"; }
damage "the archive a FIFO, the objects empty" 2 fifo empty_object "lib/libkernels.a is a FIFO"
damage "the archive a symbolic link to another file, the objects garbage" 3 other_file garbage_object "lib/libkernels.a is a symlink"
damage "the archive garbage, the objects a FIFO" 4 garbage fifo_object "its files differ from those it was sealed with"
damage "the entry a symbolic link to a copy elsewhere" 5 linked_entry "" "it is a symlink, not a directory"
check "the linked entry: what it pointed to is left as it was" test -f "$TMP/elsewhere/entry/lib/libkernels.a"

# ---- a plugin that does not load costs its own version's build, never cached ----
# A compat include that calls a function nobody defines: the plugin links
# (a shared object may leave symbols to the loader) and cannot load.
cat > "$C/unresolved.h" <<'H'
void bv_no_such_function(void);
__attribute__((constructor)) static void bv_calls_nothing_there(void) { bv_no_such_function(); }
H
rules '{"id": "unresolved", "versions": "0.1.0", "include": "unresolved.h"}'
run=(0.1.0 0.1.1 --ops relu --backends scalar --sizes 1K --quick --budget 1)
"$BV" "${run[@]}" --results "$TMP/r1" > "$TMP/r1.out" 2> "$TMP/r1.err"
rc=$?
check "a plugin that does not load: the run goes on with the other version (exit 3: a build failed)" test $rc -eq 3
check "... its build failed saying so, with the loader's reason" \
	bash -c "grep -q 'the plugin it built does not load' '$TMP/r1.err' && grep -q 'undefined symbol: bv_no_such_function' '$TMP/r1.err'"
check "... 0.1.1 was measured" bash -c "python3 -c \"import json,glob,sys; d=json.load(open(glob.glob('$TMP/r1/*/0.1.1.json')[0])); sys.exit(0 if any(c['status']=='ok' for c in d['cells']) else 1)\""
"$BV" "${run[@]}" --results "$TMP/r2" > /dev/null 2> "$TMP/r2.err"
check "... and nothing was cached: the next run builds it again (never 'cached, nothing rebuilt')" \
	bash -c "grep -q 'does not load' '$TMP/r2.err' && ! grep -qE '0\.1\.0 +cached, nothing rebuilt' '$TMP/r2.err'"
rules ''
"$BV" "${run[@]}" --results "$TMP/r3" > "$TMP/r3.out" 2> "$TMP/r3.err"
rc=$?
check "without the rule both versions build and are measured (exit $rc)" test $rc -eq 0

# ---- cache trim while a run measures ----
"$BV" 0.1.0 0.1.1 --ops relu,abs,neg --backends scalar --sizes 1K,4K --budget 6 --results "$TMP/r4" \
	> "$TMP/r4.out" 2> "$TMP/r4.err" &
pid=$!
for _ in $(seq 600); do ls "$TMP"/r4/*/raw/process-*.json > /dev/null 2>&1 && break; grep -q '^measuring' "$TMP/r4.err" && break; sleep 0.1; done
"$BV" cache trim --max-size 0 > "$TMP/trim" 2>&1
wait "$pid"
rc=$?
check "trim while a run measures: the run ends well (exit $rc)" test $rc -eq 0
check "... trim kept the run's two builds, saying why" test "$(grep -c '^kept builds/[0-9a-f]*: in use by a run in progress' "$TMP/trim")" -eq 2
check "... and removed what no run holds" contains "$TMP/trim" "^removed (libs|objs|src)/"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$TMP/r4.err" | tail -5
finish
