#!/usr/bin/env bash
# End to end: hostile and broken input of every kind the issue lists, each
# refused with a clear message (exit 2) and nothing lost or left behind:
# version names, repositories (no VERSION, garbage, missing commits, shallow
# clones, submodules), JSON files (results logs, compat.json, the release
# index), and release tarballs.  tests/e2e/test_releases.sh covers the rest
# of the tarball cases over HTTP (.., symlinks, hard links, truncated, wrong
# sha256); docs/reliability.md has the table.
source "$(dirname "$0")/lib.sh"
make_fixture
cd "$TMP"
quick=(--benches unary --ops abs --backends scalar --sizes 1K --quick --processes 6 --rounds 3 --results "$TMP/results")

# refused_cmd NAME PATTERN CMD...: (a whole command, unlike lib.sh's refused, which runs bench-versions ARGS) exit 2 and a message matching PATTERN, no crash
refused_cmd() {
	local name=$1 pattern=$2
	shift 2
	"$@" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	if [ $rc -eq 2 ] && grep -qE -- "$pattern" "$TMP/err"; then
		ok "$name"
	else
		not_ok "$name (exit $rc)"
		sed 's/^/#   /' "$TMP/err" | head -5
	fi
}

# ---- version names ------------------------------------------------------------
refused_cmd "name '..' is an unknown version" "unknown version '\.\.'" "$BV" .. "${quick[@]}"
refused_cmd "name '--x' is an unknown option, never a version" "unknown option --x \(see bench-versions run --help\)" "$BV" --x
refused_cmd "name '-x' is an unknown option, never a version" "unknown option -x" "$BV" -x
long=$(printf 'a%.0s' $(seq 300))
refused_cmd "a 300-character name is too long" "version name of 300 characters is too long" "$BV" "$long" "${quick[@]}"
refused_cmd "a name with a newline is refused" "space or control character" "$BV" $'main\nx' "${quick[@]}"
refused_cmd "a name with an escape sequence is refused" "space or control character" "$BV" $'\e[2Jmain' "${quick[@]}"
refused_cmd "backticks and \$() are just an unknown name" "unknown version '\`touch" "$BV" '`touch${IFS}pwned3`$(touch${IFS}pwned4)' "${quick[@]}"
check "nothing in a name was executed" test ! -e pwned3 -a ! -e pwned4
refused_cmd "a commit id not in the repository" "unknown version '0123456789abcdef0123456789abcdef01234567'" \
	"$BV" 0123456789abcdef0123456789abcdef01234567 "${quick[@]}"

# Two commits whose ids share their first four hex digits (libgit2's shortest
# prefix): found by hashing candidate commit objects, then made for real.
head=$(git -C "$FIX" rev-parse HEAD) tree=$(git -C "$FIX" rev-parse 'HEAD^{tree}')
read -r m1 m2 prefix < <(python3 - "$tree" "$head" <<'PY'
import hashlib, sys
tree, parent = sys.argv[1:3]
seen = {}
who = "fixture <fixture@example.invalid> 1700000000 +0000"
for i in range(200000):
    body = f"tree {tree}\nparent {parent}\nauthor {who}\ncommitter {who}\n\ncollide {i}\n".encode()
    h = hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()
    if h[:4] in seen:
        print(seen[h[:4]], i, h[:4]); break
    seen[h[:4]] = i
PY
)
for m in "$m1" "$m2"; do
	GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000" \
		git -C "$FIX" commit-tree "$tree" -p "$head" -m "collide $m" > /dev/null
done
check "the fixture has two commits sharing the prefix $prefix" \
	test "$(git -C "$FIX" rev-parse --disambiguate="$prefix" 2>/dev/null | wc -l)" -ge 2
refused_cmd "an ambiguous short commit id says so" "'$prefix' is ambiguous in .*: give more hex digits" "$BV" "$prefix" "${quick[@]}"

# ---- repositories -----------------------------------------------------------
git -C "$FIX" rm -q kernels/VERSION
git -C "$FIX" commit -qm "no VERSION"
refused_cmd "a commit without VERSION is not a kernels tree" "has no kernels/VERSION: not a kernels library tree" "$BV" compat main
refused_cmd "local without VERSION says so" "the working tree has no VERSION file" "$BV" compat local
head -c 100000 /dev/urandom > "$FIX/kernels/VERSION"
git -C "$FIX" add kernels/VERSION
git -C "$FIX" commit -qm "binary VERSION"
refused_cmd "100 KB of binary in VERSION is a clear error" "kernels/VERSION does not hold a semantic version" "$BV" compat main
refused_cmd "binary VERSION in the working tree too" "kernels/VERSION is larger than 256 bytes" "$BV" compat local
echo 0.1.1 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "kernels 0.1.1"

git clone -q --depth 1 "file://$FIX" "$TMP/shallow"
KERNEL_DIR="$TMP/shallow/kernels" "$BV" compat main > "$TMP/out" 2> "$TMP/err"
check "shallow clone: its tip resolves" contains "$TMP/out" "^main +0\.1\.1 +[0-9a-f]{12}"
refused_cmd "shallow clone: HEAD~1 names the missing history" "unknown version 'HEAD~1'.*shallow clone.*fetch --unshallow" \
	env KERNEL_DIR="$TMP/shallow/kernels" "$BV" compat HEAD~1
refused_cmd "shallow clone: an older release number says why it cannot be found" \
	"shallow clone, its older history is missing.*first commit whose kernels/VERSION reads 0\.1\.0" \
	env KERNEL_DIR="$TMP/shallow/kernels" "$BV" compat 0.1.0

# The library as a submodule of a superproject.
cp -r "$FIX/kernels" "$TMP/lib"
git -C "$TMP/lib" init -q -b main && git -C "$TMP/lib" add -A && git -C "$TMP/lib" commit -qm "library alone"
mkdir "$TMP/super" && git -C "$TMP/super" init -q -b main
git -C "$TMP/super" -c protocol.file.allow=always submodule add -q "file://$TMP/lib" kernels
git -C "$TMP/super" commit -qm "library as a submodule"
KERNEL_DIR="$TMP/super/kernels" "$BV" compat main > "$TMP/out" 2> "$TMP/err"
check "submodule: KERNEL_DIR in its checkout resolves in its own history" \
	contains "$TMP/out" "^repository: $TMP/super/kernels\$"
refused_cmd "submodule: the superproject as KERNEL_REPO says what to do" "kernels/ is a submodule; set KERNEL_DIR to its checkout" \
	env -u KERNEL_DIR KERNEL_REPO="$TMP/super" "$BV" compat main
# A submodule inside the library is not followed: the rest builds.
git -C "$FIX" -c protocol.file.allow=always submodule add -q "file://$TMP/lib" kernels/vendor
git -C "$FIX" commit -qm "a submodule inside the library"
"$BV" compat main --build > "$TMP/out" 2> "$TMP/err"
check "submodule inside the library: main builds without it" contains "$TMP/out" "^main +0\.1\.1 .*builds \((built|cached)\)"
check "submodule inside the library: not copied into the source cache" \
	test -z "$(find "$BENCH_VERSIONS_CACHE/src" -path '*/vendor/*' -print -quit)"

# ---- results logs (compare) ---------------------------------------------------
log() { # FILE CELLS-JSON [SCHEMA_VERSION]
	printf '{"schema": "bench-versions-results", "schema_version": "%s", "run": {"id": "r"},\n "version": {"label": "a"}, "machine": {},\n "cells": %s}\n' \
		"${3:-1.1}" "$2" > "$1"
}
log good.json '[{"bench": "unary", "op": "abs", "backend": "scalar", "size": 1024, "status": "ok", "median_ns": 5, "median_ns_ci_low": 4, "median_ns_ci_high": 6}]'
"$BV" compare good.json > "$TMP/out" 2> "$TMP/err"
check "a hand-written good log compares" contains "$TMP/out" "^unary +abs +scalar +1K +5 ns"
head -c 150 good.json > truncated.json
refused_cmd "truncated log: file, line and column" "truncated.json:3:23: malformed JSON \(truncated\?\)" "$BV" compare truncated.json
printf '{"schema": "bench-versions-results",\n "cells": [1 2]}' > malformed.json
refused_cmd "malformed log: file, line and column" "malformed.json:2:14: malformed JSON$" "$BV" compare malformed.json
python3 -c 'print("{\"a\":" + "[" * 100000 + "]" * 100000 + "}")' > deep.json
refused_cmd "deeply nested log: refused at the limit" "deep.json:1:1005: malformed JSON \(nested more than 1000 levels deep\)" "$BV" compare deep.json
truncate -s 300M huge.json
refused_cmd "300 MB log (sparse): refused by size before reading" "huge.json is larger than 268435456 bytes" "$BV" compare huge.json
rm -f huge.json
# Five logs of 250 MB each (sparse, so reading them would find NUL bytes):
# more than 1 GiB together is refused before any is read.
for i in 1 2 3 4 5; do truncate -s 250M "part$i.json"; done
refused_cmd "logs over 1 GiB together: refused before reading" "the 5 logs up to part5\.json hold more than 1073741824 bytes together" \
	"$BV" compare part1.json part2.json part3.json part4.json part5.json
rm -f part?.json
ln -s /dev/zero zero.json
refused_cmd "a symlink to /dev/zero: refused at once by what it is" "zero\.json is a character device, not a regular file" \
	timeout 10 "$BV" compare zero.json
log dupkey.json '[{"bench": "unary", "op": "abs", "backend": "scalar", "size": 1024, "status": "ok", "median_ns": 5, "median_ns_ci_low": 4, "median_ns_ci_high": 6, "status": "failed"}]'
refused_cmd "a key twice in a log: file, line, column and key" "dupkey\.json:3:158: duplicate key \"status\" \(first at 3:79\)" "$BV" compare dupkey.json
log inf.json '[{"bench": "unary", "op": "abs", "backend": "scalar", "size": 1024, "status": "ok", "median_ns": 1e999, "median_ns_ci_low": 4, "median_ns_ci_high": 6}]'
refused_cmd "an infinite median names the cell" "inf\.json: cells\[0\] \(unary abs scalar 1K\): median_ns inf: expected a finite number > 0" "$BV" compare inf.json
log unknown.json '[{"bench": "unary", "op": "abs", "backend": "scalar", "size": 1024, "status": "great"}]'
refused_cmd "an unknown status names the cell" "unknown\.json: cells\[0\] \(unary abs scalar 1K\): \"status\": unknown status 'great'" "$BV" compare unknown.json
log v2.json '[]' 2.0
refused_cmd "unknown major schema version" "v2.json: results schema 2.0 is newer than this bench-versions reads \(1.x\)" "$BV" compare v2.json
log type.json '[{"bench": "unary", "op": "abs", "backend": "scalar", "size": "1K"}]'
refused_cmd "wrong type names the cell and field" "type.json: cells\[0\]: \"size\": expected a whole number" "$BV" compare type.json
log big.json '[{"bench": "unary", "op": "abs", "backend": "scalar", "size": 1e300}]'
refused_cmd "size 1e300 (a fuzz finding) names the cell and field" "big.json: cells\[0\]: \"size\": expected a whole number" "$BV" compare big.json
printf '{"schema": "bench-versions-results"}\0{}' > nul.json
refused_cmd "a NUL byte in a log" "nul.json: contains a NUL byte at offset 36" "$BV" compare nul.json
refused_cmd "a missing log" "cannot open $TMP/none.json: No such file" "$BV" compare "$TMP/none.json"

# A run's directory whose every log is refused: compare
# once said only "holds no results log"; the loader's reason is kept, with the count.
mkdir refused-run && cp inf.json unknown.json refused-run/
refused_cmd "compare DIR whose every log is refused: the first refusal (log, cell, element) and the count" \
	"refused-run holds no results log that loads: 2 \.json files refused, the first: .*refused-run/inf\.json: cells\[0\] \(unary abs scalar 1K\): median_ns inf: expected a finite number > 0" \
	"$BV" compare refused-run
# One process twice in a cell: --vs-backend pairs cells by these.
log dupid.json '[{"bench": "unary", "op": "abs", "backend": "scalar", "size": 1024, "status": "ok", "median_ns": 5, "median_ns_ci_low": 4, "median_ns_ci_high": 6, "process_medians_ns": [5, 5, 6], "process_ids": [2, 7, 2]}]'
refused_cmd "a process twice in a cell's process_ids: log, cell and both places" \
	"dupid\.json: cells\[0\] \(unary abs scalar 1K\): \"process_ids\": process 2 twice \(process_ids\[0\] and process_ids\[2\]\)" \
	"$BV" compare dupid.json

# ---- a run's directory given to --resume or compare --counts -----------------------
# A planted raw/process-N.json with N at INT_MAX: the
# resume numbered on from it, wrote process--2147483648.json, marked its logs
# complete with negative process_ids and then refused its own log.  A
# symlinked raw/ (also seen there) carried 25 documents outside the run.
"$BV" main local "${quick[@]}" > /dev/null 2> "$TMP/run.err"
run=$(ls -d "$TMP"/results/[0-9]*/ | head -1)
run=${run%/}
resume=("${quick[@]:0:${#quick[@]}-2}") # --resume DIR writes into DIR: quick without --results
check "a one-cell run of two versions to resume (exit 0)" test -f "$run/main.json" -a -f "$run/local.json"
cp -r "$run" "$TMP/big"
printf '{}' > "$TMP/big/raw/process-2147483647.json"
cp "$TMP/big/main.json" "$TMP/big-main.json"
rm "$TMP/big/main.json" # no finished cell: the resume would measure, numbering on from the name
refused_cmd "--resume with raw/process-2147483647.json: the name, refused before building" \
	"--resume: .*big/raw/process-2147483647\.json: process number past 100000000" \
	"$BV" main local "${resume[@]}" --resume "$TMP/big"
check "and nothing is built or written: no process--N file, no log" \
	bash -c "! grep -q '^build:' '$TMP/err' && ! ls '$TMP/big/raw' | grep -q -- 'process--' && test ! -e '$TMP/big/main.json'"
python3 - "$TMP/big-main.json" 1e300 > "$TMP/big-started.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["method"]["processes_started"] = float(sys.argv[2])
print(json.dumps(d))
PY
cp -r "$run" "$TMP/started" && cp "$TMP/big-started.json" "$TMP/started/main.json"
refused_cmd "--resume of a log that says 1e300 processes started: refused, never cast" \
	"--resume: .*started/main\.json: method\.processes_started: expected a whole number from 0 to 100000000" \
	"$BV" main local "${resume[@]}" --resume "$TMP/started"
for seed in -1 1e300 0.5; do
	python3 - "$TMP/big-main.json" "$seed" > "$TMP/seed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["method"]["seed"] = float(sys.argv[2])
print(json.dumps(d))
PY
	rm -rf "$TMP/seeded" && cp -r "$run" "$TMP/seeded" && cp "$TMP/seed.json" "$TMP/seeded/main.json"
	refused_cmd "--resume of a log whose seed is $seed: refused, never cast" \
		"--resume: .*seeded/main\.json: method\.seed: expected a whole number from 0 to 18446744073709551615" \
		"$BV" main local "${resume[@]}" --resume "$TMP/seeded"
done
cp -r "$run" "$TMP/linked" && mv "$TMP/linked/raw" "$TMP/elsewhere" && ln -s "$TMP/elsewhere" "$TMP/linked/raw"
rm -f "$TMP/linked/main.json" # no finished cell: the resume would measure into raw/
before=$(ls "$TMP/elsewhere" | wc -l)
refused_cmd "--resume of a run whose raw/ is a symlink: refused, nothing written through it" \
	"linked/raw is a symbolic link: a run's files go only into its own directory" \
	"$BV" main local "${resume[@]}" --resume "$TMP/linked"
check "and nothing landed where the link points" test "$(ls "$TMP/elsewhere" | wc -l)" -eq "$before"
# counts/ likewise: compare --counts writes counts.json and callgrind files there.
if command -v valgrind > /dev/null; then
	# (the run made a counts/ of its own when it counted a cell it found
	# changed or inconclusive: the link replaces it)
	cp -r "$run" "$TMP/counted" && mkdir "$TMP/counts-elsewhere" && rm -rf "$TMP/counted/counts" &&
		ln -s "$TMP/counts-elsewhere" "$TMP/counted/counts"
	refused_cmd "compare --counts into a run whose counts/ is a symlink: refused before counting" \
		"counted/counts is a symbolic link: a run's files go only into its own directory" \
		"$BV" compare "$TMP/counted" --counts all
	check "and nothing landed where that link points" test -z "$(ls -A "$TMP/counts-elsewhere")"
else
	skip "compare --counts into a run whose counts/ is a symlink" "no valgrind here"
fi

# ---- compat.json ----------------------------------------------------------------
compat() { BENCH_VERSIONS_COMPAT="$TMP/compat/$1" "$BV" compat local; }
mkdir -p compat
head -c 40 "$ROOT/compat/compat.json" > compat/truncated.json
refused_cmd "truncated compat.json: file, line and column" "compat/truncated.json:[0-9]+:[0-9]+: malformed JSON \(truncated\?\)" compat truncated.json
cp deep.json compat/deep.json
refused_cmd "deeply nested compat.json" "compat/deep.json:1:1005: malformed JSON \(nested more than 1000" compat deep.json
python3 -c 'print("{\"schema_version\": 1, \"rules\": [], \"pad\": \"" + "x" * 1200000 + "\"}")' > compat/huge.json
refused_cmd "huge compat.json (1.2 MB)" "compat/huge.json is larger than 1048576 bytes" compat huge.json
echo '{"schema_version": 1, "rules": [{"id": "a", "versions": 7}]}' > compat/type.json
refused_cmd "wrong type in compat.json names the rule" "compat/type.json: rule 0 \('a'\): \"versions\" \(a semver range\) is required" compat type.json
echo '{"schema_version": 2, "rules": []}' > compat/v2.json
refused_cmd "unknown compat.json schema version" "compat/v2.json: schema_version 2 is not supported" compat v2.json

# ---- release index (file://) -------------------------------------------------------
index() { KERNEL_RELEASES="file://$TMP/idx/$1" "$BV" compat 0.2.0; }
mkdir -p idx
printf '{"schema": "bench-versions-releases", "schema_version": "1.0",\n "releases": [{"version": "0.2.0", "u' > idx/truncated.json
refused_cmd "truncated index: file, line and column" "idx/truncated.json:2:[0-9]+: malformed JSON \(truncated\?\)" index truncated.json
cp deep.json idx/deep.json
refused_cmd "deeply nested index" "idx/deep.json:1:1005: malformed JSON \(nested more than 1000" index deep.json
python3 -c 'print("{\"pad\": \"" + "x" * 5000000 + "\"}")' > idx/huge.json
refused_cmd "huge index (5 MB) refused while downloading" "idx/huge.json.*(larger|more) than" index huge.json

# ---- release tarballs ------------------------------------------------------------------
sha() { sha256sum "$1" | cut -d' ' -f1; }
# tarball KIND: kernels-0.2.0/ with VERSION, and one planted entry of KIND
tarball() {
	python3 - "$FIX/kernels" "$TMP/rel/$1.tar.gz" "$1" "$TMP/outside" <<'PY'
import io, os, sys, tarfile, zlib
src, out, kind, outside = sys.argv[1:5]
def good(t):
    t.add(src, arcname="kernels-0.2.0", filter=lambda i: None if "/VERSION" in i.name or "/vendor" in i.name else i)
    i = tarfile.TarInfo("kernels-0.2.0/VERSION"); i.size = 6; t.addfile(i, io.BytesIO(b"0.2.0\n"))
if kind == "bomb":
    # 1.1 GiB of zeros in about 1 MB: written by hand, nothing big in memory
    size = 1100 << 20
    i = tarfile.TarInfo("kernels-0.2.0/zeros"); i.size = size
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(out, "wb") as f:
        f.write(c.compress(i.tobuf(format=tarfile.GNU_FORMAT)))
        chunk = bytes(1 << 20)
        for _ in range(size >> 20):
            f.write(c.compress(chunk))
        f.write(c.compress(bytes(1024))); f.write(c.flush())
    sys.exit(0)
with tarfile.open(out, "w:gz", format=tarfile.GNU_FORMAT) as t:
    good(t)
    if kind == "absolute":
        i = tarfile.TarInfo(outside + "/abs-evil"); i.size = 5; t.addfile(i, io.BytesIO(b"evil\n"))
    elif kind == "device":
        i = tarfile.TarInfo("kernels-0.2.0/null"); i.type = tarfile.CHRTYPE; i.devmajor, i.devminor = 1, 3; t.addfile(i)
    elif kind == "fifo":
        i = tarfile.TarInfo("kernels-0.2.0/fifo"); i.type = tarfile.FIFOTYPE; t.addfile(i)
    elif kind == "symlink-dir":
        # a link to outside, then a file written through it
        i = tarfile.TarInfo("kernels-0.2.0/out"); i.type = tarfile.SYMTYPE; i.linkname = outside; t.addfile(i)
        i = tarfile.TarInfo("kernels-0.2.0/out/through-link"); i.size = 5; t.addfile(i, io.BytesIO(b"evil\n"))
    elif kind == "late-dotdot":
        # everything good first, the bad entry last: nothing half-extracted may stay
        i = tarfile.TarInfo("kernels-0.2.0/../../dotdot-evil"); i.size = 5; t.addfile(i, io.BytesIO(b"evil\n"))
PY
}
mkdir -p rel outside
for kind in absolute device fifo symlink-dir late-dotdot bomb; do
	tarball "$kind"
	printf '{"schema": "bench-versions-releases", "schema_version": "1.0", "releases": [{"version": "0.2.0", "url": "%s.tar.gz", "sha256": "%s"}]}\n' \
		"$kind" "$(sha "rel/$kind.tar.gz")" > "rel/$kind.json"
	case $kind in
	absolute) want="entry '$TMP/outside/abs-evil' has an absolute path" ;;
	device) want="entry 'kernels-0.2.0/null' is a character device" ;;
	fifo) want="entry 'kernels-0.2.0/fifo' is a fifo" ;;
	symlink-dir) want="entry 'kernels-0.2.0/out' is a symlink" ;;
	late-dotdot) want="entry 'kernels-0.2.0/../../dotdot-evil' has a '\.\.' component" ;;
	bomb) want="refused: unpacks to more than 1073741824 bytes" ;;
	esac
	refused_cmd "tarball ($kind) refused with the reason" "release 0.2.0 .*: (refused: )?$want" \
		env KERNEL_RELEASES="file://$TMP/rel/$kind.json" BENCH_VERSIONS_CACHE="$TMP/c-$kind" "$BV" compat 0.2.0
	check "tarball ($kind): no release and no half-extracted entry in the cache" \
		test -z "$(ls -A "$TMP/c-$kind/src" 2> /dev/null)"
done
# An entry name with terminal escapes and a newline: refused, and named with
# them escaped: the terminal is not driven and no line is forged.
python3 - "$FIX/kernels" "$TMP/rel/escape.tar.gz" <<'PY'
import io, sys, tarfile
src, out = sys.argv[1:3]
with tarfile.open(out, "w:gz", format=tarfile.GNU_FORMAT) as t:
    t.add(src, arcname="kernels-0.2.0", filter=lambda i: None if "/VERSION" in i.name or "/vendor" in i.name else i)
    i = tarfile.TarInfo("kernels-0.2.0/VERSION"); i.size = 6; t.addfile(i, io.BytesIO(b"0.2.0\n"))
    i = tarfile.TarInfo("kernels-0.2.0/\x1b[2J\x1b]0;owned\x07red\nbench-versions: all good\r"); i.size = 5
    t.addfile(i, io.BytesIO(b"evil\n"))
PY
printf '{"schema": "bench-versions-releases", "schema_version": "1.0", "releases": [{"version": "0.2.0", "url": "escape.tar.gz", "sha256": "%s"}]}\n' \
	"$(sha rel/escape.tar.gz)" > rel/escape.json
# raw FILE...: how many ESC, BEL and CR bytes the files hold
raw() { cat "$@" | tr -cd '\033\007\r' | wc -c; }
refused_cmd "tarball (escapes in a name): refused, the name escaped" \
	"entry 'kernels-0.2.0/\\\\x1b\[2J\\\\x1b\]0;owned\\\\x07red\\\\x0abench-versions: all good\\\\x0d' has a control character" \
	env KERNEL_RELEASES="file://$TMP/rel/escape.json" BENCH_VERSIONS_CACHE="$TMP/c-escape" "$BV" compat 0.2.0
check "tarball (escapes in a name): no raw escape, bell or carriage return reaches the terminal" test "$(raw "$TMP/err")" -eq 0
check "tarball (escapes in a name): no forged line" test "$(grep -c '^bench-versions: all good' "$TMP/err")" -eq 0

# The same from a release index and a results log: what they name is shown
# escaped, wherever it is shown.
printf '{"schema": "bench-versions-releases", "schema_version": "1.0", "releases": [{"version": "\\u001b[2J0.2.0\\nx", "url": "a.tar.gz", "sha256": "%s"}]}\n' \
	"$(sha rel/escape.tar.gz)" > rel/escape-version.json
refused_cmd "index: a version with escapes is named escaped" "releases\[0\]\.version: '\\\\x1b\[2J0\.2\.0\\\\x0ax' is not a version number" \
	env KERNEL_RELEASES="file://$TMP/rel/escape-version.json" "$BV" compat 0.2.0
check "index: no raw escape reaches the terminal" test "$(raw "$TMP/err")" -eq 0
log escape-log.json '[{"bench": "unary", "op": "abs\u001b[31m", "backend": "scalar", "size": 1024, "status": "ok", "median_ns": 5, "median_ns_ci_low": 4, "median_ns_ci_high": 6}]'
sed -i 's/"label": "a"/"label": "a\\u001b]0;owned\\u0007\\u009b2J"/' escape-log.json
"$BV" compare escape-log.json > "$TMP/out" 2> "$TMP/err"
check "results log: the table shows its names escaped" contains "$TMP/out" \
	'^bench +op +backend +size +a\\x1b\]0;owned\\x07\\xc2\\x9b2J'
check "results log: ... the op's too" contains "$TMP/out" '^unary +abs\\x1b\[31m +scalar'
check "results log: no raw escape, bell or C1 control reaches the terminal" \
	test "$(raw "$TMP/out" "$TMP/err")" -eq 0 -a "$(grep -c $'\xc2\x9b' "$TMP/out")" -eq 0
log escape-schema.json '[]' '9\u001b[2J.0'
refused_cmd "results log: a schema version with escapes is named escaped" "schema_version: expected \"MAJOR.MINOR\", got '9\\\\x1b\[2J\.0'" \
	"$BV" compare escape-schema.json

check "tarballs: nothing was written outside the extraction directory" \
	test -z "$(ls -A "$TMP/outside"; find "$TMP" /tmp -maxdepth 6 \( -name abs-evil -o -name through-link -o -name dotdot-evil \) -print 2> /dev/null)"
finish
