#!/usr/bin/env bash
# End to end: release names.  A fixture repository whose
# library is released through kernels/VERSION only (0.1.0, 0.2.0, 0.3.0, then
# a 0.3.0 fix tagged v0.3.0 and v3.5.1), and a release index holding 0.4.0:
# `list versions` shows every release in reach and where it comes from;
# vX.Y.Z means release X.Y.Z when no tag has that name, and a tag that has it
# still wins; an unknown release lists the known ones.
source "$(dirname "$0")/lib.sh"
make_fixture

commit_version() { # VERSION MESSAGE: commits the fixture with that VERSION
	echo "$1" > "$FIX/kernels/VERSION"
	git -C "$FIX" commit -qam "$2"
	git -C "$FIX" rev-parse HEAD
}
c1=$(git -C "$FIX" rev-parse HEAD)
c2=$(commit_version 0.2.0 "kernels 0.2.0")
c3=$(commit_version 0.3.0 "kernels 0.3.0")
echo "a fix" >> "$FIX/kernels/CHANGELOG.md"
git -C "$FIX" commit -qam "kernels 0.3.0, fixed"
c3fix=$(git -C "$FIX" rev-parse HEAD)
# The tags name the fix, not the first commit that reads 0.3.0: a tag wins.
git -C "$FIX" tag v0.3.0
git -C "$FIX" tag -a v3.5.1 -m "a tag whose number VERSION never read"

# 0.4.0 exists only as a tarball in a release index (file://).
cp -r "$FIX/kernels" "$TMP/rel"
echo 0.4.0 > "$TMP/rel/VERSION"
make -s -C "$TMP/rel" dist
idx_sha=$(sha256sum "$TMP/rel/kernels-0.4.0.tar.gz" | cut -d' ' -f1)
python3 - "$TMP/index.json" "$idx_sha" <<'PY'
import json, sys
json.dump({"schema": "bench-versions-releases", "schema_version": "1.0",
           "releases": [{"version": "0.4.0", "url": "kernels-0.4.0.tar.gz", "sha256": sys.argv[2]}]},
          open(sys.argv[1], "w"))
PY
mv "$TMP/rel/kernels-0.4.0.tar.gz" "$TMP/"

# ---- list versions -------------------------------------------------------------
"$BV" list versions > "$TMP/list" 2> "$TMP/list.err"
check "list: exits 0" test $? -eq 0
check "list: 0.1.0 from the history, with its commit" contains "$TMP/list" \
	"^0\.1\.0	\(release: first commit whose kernels/VERSION reads it, commit ${c1:0:12}\)$"
check "list: 0.2.0 from the history, with its commit" contains "$TMP/list" \
	"^0\.2\.0	\(release: first commit whose kernels/VERSION reads it, commit ${c2:0:12}\)$"
check "list: 0.3.0 from its tag (the fix), not the history" contains "$TMP/list" \
	"^0\.3\.0	\(release: tag v0\.3\.0, commit ${c3fix:0:12}\)$"
check "list: 3.5.1 from its annotated tag" contains "$TMP/list" \
	"^3\.5\.1	\(release: tag v3\.5\.1, commit ${c3fix:0:12}\)$"
check "list: releases oldest first" bash -c \
	'[ "$(grep -oE "^[0-9.]+	\(release" "$1" | cut -f1 | tr "\n" " ")" = "0.1.0 0.2.0 0.3.0 3.5.1 " ]' _ "$TMP/list"
check "list: still local, the branch and the tags" bash -c \
	'grep -q "^local	" "$1" && grep -q "^main	(branch)$" "$1" && grep -q "^v0.3.0	(tag)$" "$1"' _ "$TMP/list"
KERNEL_RELEASES="file://$TMP/index.json" "$BV" list versions > "$TMP/list-idx" 2> "$TMP/list.err"
check "list: with KERNEL_RELEASES, exits 0" test $? -eq 0
check "list: 0.4.0 from the release index, by sha256" contains "$TMP/list-idx" \
	"^0\.4\.0	\(release: release index file://$TMP/index.json, sha256 ${idx_sha:0:12}\)$"
check "list: the index downloads no tarball" bash -c '! ls -d "$1"/src/release-* > /dev/null 2>&1' _ "$BENCH_VERSIONS_CACHE"
echo '{"schema": "nonsense"}' > "$TMP/bad.json"
KERNEL_RELEASES="file://$TMP/bad.json" "$BV" list versions > "$TMP/out" 2> "$TMP/err"
check "list: a malformed index is exit 2" test $? -eq 2
check "list: ... naming the index" contains "$TMP/err" "bad\.json"

# ---- vX.Y.Z and tags, in a comparison ---------------------------------------------
"$BV" v0.2.0 v0.3.0 v3.5.1 --quick --budget 0.5 --ops abs --backends scalar --sizes 1K \
	--results "$TMP/results" > "$TMP/out" 2> "$TMP/err"
check "run v0.2.0 v0.3.0 v3.5.1: exits 0" test $? -eq 0
check "v0.2.0 (no tag): release 0.2.0, and the rule says so" contains "$TMP/err" \
	"resolve: v0\.2\.0 +-> commit ${c2:0:12}, kernels 0\.2\.0 \[no tag v0\.2\.0: release 0\.2\.0, first commit whose kernels/VERSION reads 0\.2\.0\]"
check "v0.3.0: its tag wins over the history" contains "$TMP/err" \
	"resolve: v0\.3\.0 +-> commit ${c3fix:0:12}, kernels 0\.3\.0 \[tag\]"
check "v3.5.1: an existing tag resolves as a tag, as before" contains "$TMP/err" \
	"resolve: v3\.5\.1 +-> commit ${c3fix:0:12}, kernels 0\.3\.0 \[tag\]"
check "run: measured" contains "$TMP/out" "^unary +abs +scalar +1K "
KERNEL_RELEASES="file://$TMP/index.json" "$BV" compat v0.4.0 > "$TMP/out" 2> "$TMP/err"
check "v0.4.0: a release only in the index resolves (compat, no build)" contains "$TMP/out" \
	"^(v0\.4\.0|0\.4\.0) +0\.4\.0 "
"$BV" compat > "$TMP/out" 2> "$TMP/err"
check "compat: lists every release from the same list (0.1.0 to 0.3.0, 3.5.1's tree once)" bash -c \
	'[ "$(grep -cE "^(0\.1\.0|0\.2\.0|0\.3\.0) " "$1")" = 3 ] && ! grep -q "^0\.3\.0 .*'"${c3:0:12}"'" "$1"' _ "$TMP/out"
# names given select from that list: those alone
"$BV" compat v0.1.0 0.3.0 > "$TMP/out" 2> "$TMP/err"
check "compat v0.1.0 0.3.0: those two alone, 0.3.0 at its tag" bash -c \
	'[ "$(grep -cE "^[^ ]+ +[0-9]+\.[0-9]+\.[0-9]+ " "$1")" = 2 ] && [ "$(grep -cE "^(v0\.1\.0|0\.3\.0) " "$1")" = 2 ] && ! grep -q "^0\.3\.0 .*'"${c3:0:12}"'" "$1"' _ "$TMP/out"

# ---- unknown releases --------------------------------------------------------------
for name in 0.5.9 v0.5.9; do
	BENCH_VERSIONS_CACHE="$TMP/c-unknown" "$BV" "$name" main --quick > "$TMP/out" 2> "$TMP/err"
	check "$name: exit 2" test $? -eq 2
	check "$name: says it is an unknown release" contains "$TMP/err" "unknown release '$name'"
	check "$name: lists the known ones, closest first" contains "$TMP/err" \
		"known releases, closest first: 0\.3\.0, 0\.2\.0, 0\.1\.0, 3\.5\.1 \(bench-versions list versions\)"
	check "$name: nothing built" bash -c '! ls -d "$1"/builds/* > /dev/null 2>&1' _ "$TMP/c-unknown"
done
KERNEL_RELEASES="file://$TMP/index.json" "$BV" 0.5.9 --quick > "$TMP/out" 2> "$TMP/err"
check "0.5.9 with an index: the index's releases are known too" contains "$TMP/err" \
	"not in the release index, .*known releases, closest first: 0\.4\.0, 0\.3\.0"
# A bare repository without any release: the message says there are none.
git init -q -b main "$TMP/empty"
mkdir -p "$TMP/empty/kernels" && echo x > "$TMP/empty/kernels/README" && git -C "$TMP/empty" add -A &&
	git -C "$TMP/empty" commit -qm "no library yet"
KERNEL_DIR="$TMP/empty/kernels" "$BV" 0.1.0 --quick > "$TMP/out" 2> "$TMP/err"
check "no releases at all: exit 2" test $? -eq 2
check "no releases at all: says so" contains "$TMP/err" "unknown release '0\.1\.0'.*no releases in reach"
finish
