#!/usr/bin/env bash
# A project file (bench-versions.json, docs/project.md): a library at the
# root of its repository, no VERSION file, its version in a CMake-like line,
# releases tagged release-0.13 and 0.14, resolves and builds without a
# wrapper repository; a bad project file is refused naming the file and key.
source "$(dirname "$0")/lib.sh"

FIX="$TMP/fm"
mkdir -p "$FIX"
cp -r "$ROOT"/kernels/* "$FIX"/
rm -rf "$FIX/build" "$FIX/VERSION"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_PROJECT BENCH_VERSIONS_COMPAT
cat > "$FIX/bench-versions.json" <<'EOF'
{
  "schema_version": 1,
  "name": "fastmath",
  "dir": ".",
  "version": { "file": "CMakeLists.txt", "regex": "project\\(kernels VERSION ([0-9]+\\.[0-9]+(\\.[0-9]+)?)" },
  "releases": "^(release-)?([0-9]+\\.[0-9]+(\\.[0-9]+)?)$",
  "compat": "bench/compat.json",
  "ops": "bench/ops.json"
}
EOF
# The project's own compat rules ("compat", relative to the project file):
# a quicker build of the library for every version (-O0, no cuda, no BLAS:
# the test is about naming versions, not their speed), a define for 0.13.x.
mkdir -p "$FIX/bench"
cat > "$FIX/bench/compat.json" <<'EOF'
{ "schema_version": 1,
  "rules": [
    { "id": "fm-quick-build", "versions": "*",
      "build": [ "make", "-C", "{src}", "BUILD={build}", "CFLAGS=-O0", "CUDA=0", "BLAS=0", "lib" ] },
    { "id": "old-fastmath", "versions": "0.13.x", "defines": { "FM_OLD": "1" } } ] }
EOF
echo '{"schema_version": 1, "ops": []}' > "$FIX/bench/ops.json"
# The same project without compat rules, kept outside the repository.
python3 - "$FIX/bench-versions.json" "$TMP/plain.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); del p["compat"]; del p["ops"]
json.dump(p, open(sys.argv[2], "w"), indent=1)
PY
printf 'cmake_minimum_required(VERSION 3.10)\nproject(kernels VERSION 0.13)\n' > "$FIX/CMakeLists.txt"
git -C "$FIX" init -q -b main
git -C "$FIX" add -A
git -C "$FIX" commit -qm "fastmath 0.13"
git -C "$FIX" tag release-0.13
sed -i 's/VERSION 0.13)/VERSION 0.14)/' "$FIX/CMakeLists.txt"
echo "0.14: a trivial change" >> "$FIX/README.md"
git -C "$FIX" commit -qam "fastmath 0.14"
git -C "$FIX" tag 0.14
echo "after 0.14" >> "$FIX/README.md"
git -C "$FIX" commit -qam "after 0.14: untagged"

cd "$FIX" || exit 1
"$BV" list versions > "$TMP/list" 2> "$TMP/list.err"
check "list versions exits 0" test $? -eq 0
check "local is the repository's root" contains "$TMP/list" "^local	\(working tree at $FIX\)"
check "the repository line names the project" contains "$TMP/list" "project fastmath, $FIX/bench-versions.json"
check "release-0.13 is release 0.13.0" contains "$TMP/list" "^0\.13\.0	\(release: tag release-0\.13, commit [0-9a-f]{12}\)"
check "0.14 is release 0.14.0" contains "$TMP/list" "^0\.14\.0	\(release: tag 0\.14, commit [0-9a-f]{12}\)"
grep -q . "$TMP/list" || sed 's/^/#   /' "$TMP/list.err"

# Two releases built and measured (each build is the whole library: a third
# would double the time); `local` and the other names resolve without one.
args=(--benches unary --ops relu --backends scalar --sizes 64K --quick --results "$TMP/results")
"$BV" release-0.13 0.14 "${args[@]}" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "comparison exits 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/err" | tail -20
check "release-0.13 resolves as its tag, version padded" \
	contains "$TMP/err" "release-0\.13 +-> commit [0-9a-f]{12}, fastmath 0\.13\.0 \[release tag release-0\.13 \(release 0\.13\.0\)\]"
check "0.14 resolves as the release tag 0.14" \
	contains "$TMP/err" "0\.14 +-> commit [0-9a-f]{12}, fastmath 0\.14\.0 \[release tag 0\.14\]"
check "both built by the project's recipe" test "$(grep -cE '^build: .*built \(compat: fm-quick-build' "$TMP/err")" -eq 2
check "the 0.13.x rule applies to release-0.13 only" \
	bash -c "grep -qE '^build: release-0.13 .*old-fastmath' '$TMP/err' && ! grep -qE '^build: 0.14 .*old-fastmath' '$TMP/err'"
check "relu measured on both" contains "$TMP/out" "^unary +relu +scalar +64K +[0-9.]+ us +[0-9.]+ us +[0-9]\.[0-9]{3} \["

# Names resolve without a build (compat lists them): 0.13 is the tag
# release-0.13's number, local reads CMakeLists.txt of the working tree.
BENCH_VERSIONS_PROJECT="$TMP/plain.json" "$BV" compat 0.13 local > "$TMP/compat" 2> "$TMP/compat.err"
check "compat exits 0" test $? -eq 0
check "compat: no rules for a project naming none" contains "$TMP/compat" '^compat rules: none'
rel13=$(git rev-parse --short=12 release-0.13)
check "0.13 is the commit of release-0.13" contains "$TMP/compat" "^0\.13 +0\.13\.0 +$rel13 "
check "local reads its version from CMakeLists.txt" contains "$TMP/compat" "^local +0\.14\.0 +working tree"

"$BV" compat > "$TMP/compat2" 2>&1
check "compat: the project's rules file" contains "$TMP/compat2" "^compat rules: $FIX/bench/compat.json"
# --help says the same file (it once named the tool's own)
"$BV" compat --help > "$TMP/compat-help" 2>&1
check "compat --help names the project's rules file, not the tool's" contains "$TMP/compat-help" \
	"^compat rules: $FIX/bench/compat.json$"
check "compat: its rule applies to 0.13 only" bash -c "grep -qE '^0\.13\.0 .*old-fastmath' '$TMP/compat2' && ! grep -qE '^0\.14\.0 .*old-fastmath' '$TMP/compat2'"
cp bench-versions.json "$TMP/good.json"

# BENCH_VERSIONS_PROJECT names the project file; the library stays where
# the repository around is.
mv bench-versions.json "$TMP/elsewhere.json"
BENCH_VERSIONS_PROJECT="$TMP/plain.json" "$BV" list versions > "$TMP/list2" 2>&1
check "BENCH_VERSIONS_PROJECT names the project file" contains "$TMP/list2" "project fastmath, $TMP/plain.json"
check "... and its releases are listed" contains "$TMP/list2" "^0\.13\.0	\(release: tag release-0\.13"
mv "$TMP/elsewhere.json" bench-versions.json
(cd "$TMP" && BENCH_VERSIONS_PROJECT="$FIX/bench-versions.json" "$BV" list versions) > "$TMP/list4" 2>&1
check "outside any repository: the project file's library" contains "$TMP/list4" "^local	\(working tree at $FIX\)"

# A bare clone (KERNEL_REPO): the project file is read from HEAD's tree.
git clone -q --bare "$FIX" "$TMP/bare.git"
(cd "$TMP" && KERNEL_REPO="$TMP/bare.git" "$BV" list versions) > "$TMP/list3" 2>&1
check "a bare repository's project file is read from HEAD" contains "$TMP/list3" "^0\.13\.0	\(release: tag release-0\.13"

# "version": {"tag": ""}: the version is the nearest release tag.
python3 - bench-versions.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["version"] = {"tag": ""}
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY
"$BV" compat HEAD local release-0.13 > "$TMP/compat3" 2>&1
check "tag versions: HEAD, untagged, is 0.14.0 by the nearest tag" contains "$TMP/compat3" "^HEAD +0\.14\.0 "
check "tag versions: release-0.13 is 0.13.0" contains "$TMP/compat3" "^release-0\.13 +0\.13\.0 "
check "tag versions: local is 0.14.0, HEAD's tag" contains "$TMP/compat3" "^local +0\.14\.0 +working tree"
cp "$TMP/good.json" bench-versions.json

# Two tags giving 0.14 at different commits: an error naming both.
git tag release-0.14 release-0.13
refused "two tags giving one number" "tags 0\.14 and release-0\.14 both give release 0\.14\.0" 0.14 "${args[@]}"
refused "list versions refuses them too" "both give release 0\.14\.0" list versions
git tag -d release-0.14 > /dev/null

# Bad input: each exit 2 naming the file and what to fix.
cp bench-versions.json "$TMP/good.json"
sed -i 's/"name"/"nmae"/' bench-versions.json
refused "unknown key" "bench-versions\.json: unknown key \"nmae\"" list versions
cp "$TMP/good.json" bench-versions.json
sed -i 's/project\\\\(kernels/project\\\\(fastmath/' bench-versions.json
refused "a version regex matching nothing" "matched nothing in .*CMakeLists\.txt at the working tree: fix \"version\"\.\"regex\" in .*bench-versions\.json" local "${args[@]}"
refused "matching nothing at a commit" "matched nothing in CMakeLists\.txt at commit [0-9a-f]{7}" release-0.13 "${args[@]}"
cp "$TMP/good.json" bench-versions.json
sed -i 's/"dir": "\."/"dir": "..\/x"/' bench-versions.json
refused "dir leaving the repository" "\"dir\" must stay inside the repository" list versions
ln -s "$TMP" outside
sed -i 's/"dir": "..\/x"/"dir": "outside"/' bench-versions.json
refused "dir leaving through a symlink" "\"dir\" outside leaves the repository" list versions
rm outside
cp "$TMP/good.json" bench-versions.json
sed -i 's/"releases": "\^/"releases": "(^/' bench-versions.json
refused "a regex that does not compile" "\"releases\" is not a valid POSIX extended regular expression" list versions
cp "$TMP/good.json" bench-versions.json
sed -i 's/bench\/ops.json/..\/ops.json/' bench-versions.json
refused "ops leaving the repository" "\"ops\" must be a path inside the repository" list versions
cp "$TMP/good.json" bench-versions.json
rm bench/compat.json
refused "compat naming a missing file" "\"compat\" names .*bench/compat\.json, which does not exist" list versions
# Hostile project files.  Each refusal comes within 10 s: a hang fails the check.
git checkout -q -- bench/compat.json
cp "$TMP/good.json" bench-versions.json
# A FIFO as "ops" was refused by run and ignored by list benches.
mv bench/ops.json "$TMP/ops.json.kept"
mkfifo bench/ops.json
refused_within=10 refused "ops naming a FIFO: list benches" "\"ops\" names .*bench/ops\.json, which is not a regular file" list benches
refused_within=10 refused "ops naming a FIFO: run --dry-run" "\"ops\" names .*bench/ops\.json, which is not a regular file" local --dry-run "${args[@]}"
rm bench/ops.json
mv "$TMP/ops.json.kept" bench/ops.json
# Back-references matched by backtracking: a 100-letter tag took
# over a minute in list versions, a version regex over a 2 KB line hung.
git tag "$(printf 'a%.0s' {1..100})"
python3 - bench-versions.json <<'PY2'
import json, sys
p = json.load(open(sys.argv[1])); p["releases"] = "(a*)(a*)(a*)\\3\\2\\1b|^(release-)?([0-9]+\\.[0-9]+)$"
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY2
refused_within=10 refused "a back-reference in releases" "bench-versions\.json: \"releases\" has a back-reference \(\\\\3\)" list versions
git tag -d "$(printf 'a%.0s' {1..100})" > /dev/null
cp "$TMP/good.json" bench-versions.json
cp CMakeLists.txt "$TMP/CMakeLists.kept"
{ printf '%02048d\n' 0 | tr 0 a; cat "$TMP/CMakeLists.kept"; } > CMakeLists.txt
python3 - bench-versions.json <<'PY2'
import json, sys
p = json.load(open(sys.argv[1]))
p["version"]["regex"] = "(a*)(a*)(a*)\\3\\2\\1b|project\\(kernels VERSION ([0-9]+\\.[0-9]+(\\.[0-9]+)?)"
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY2
refused_within=10 refused "a back-reference in version.regex" "bench-versions\.json: \"version\"\.\"regex\" has a back-reference" local --dry-run "${args[@]}"
cp "$TMP/CMakeLists.kept" CMakeLists.txt
cp "$TMP/good.json" bench-versions.json
# "version"."file" a symlink out of the repository: local's version
# was the linked file's (12.11.0 from /etc/debian_version); a link inside
# the library's directory still reads.
echo 12.11.0 > "$TMP/outside-version"
ln -s "$TMP/outside-version" VERSION.link
python3 - bench-versions.json <<'PY2'
import json, sys
p = json.load(open(sys.argv[1])); p["version"] = {"file": "VERSION.link"}
json.dump(p, open(sys.argv[1], "w"), indent=1)
PY2
refused "version.file leading out by a symlink" "\"version\"\.\"file\" VERSION\.link leads out of the library's directory" compat local
echo 0.15 > VERSION.real
ln -sf VERSION.real VERSION.link
"$BV" compat local > "$TMP/compat-link" 2>&1
check "version.file a symlink inside the library's directory reads" contains "$TMP/compat-link" "^local +0\.15\.0 +working tree"
contains "$TMP/compat-link" "^local +0\.15\.0" || sed 's/^/#   /' "$TMP/compat-link"
rm VERSION.link VERSION.real
cp "$TMP/good.json" bench-versions.json
finish
