#!/usr/bin/env bash
# End to end: published releases.  A release index served over http:// (a
# python3 web server on loopback, started and stopped here) and read over
# file://; broken and hostile indexes and tarballs; KERNEL_REPO as a URL.
source "$(dirname "$0")/lib.sh"
make_fixture

SRV="$TMP/srv"
mkdir -p "$SRV"
quick=(--quick --ops abs --backends scalar --sizes 1K --results "$TMP/results")

# 0.2.0 exists only as a tarball: never committed to the fixture repository.
cp -r "$FIX/kernels" "$TMP/rel"
echo 0.2.0 > "$TMP/rel/VERSION"
make -s -C "$TMP/rel" dist
mv "$TMP/rel/kernels-0.2.0.tar.gz" "$SRV/"
sha() { sha256sum "$1" | cut -d' ' -f1; }
good_sha=$(sha "$SRV/kernels-0.2.0.tar.gz")

# index FILE VERSION=URL=SHA...: writes a release index.
index() {
	python3 - "$@" <<'PY'
import json, sys
rel = [dict(zip(("version", "url", "sha256"), a.split("=", 2))) for a in sys.argv[2:]]
json.dump({"schema": "bench-versions-releases", "schema_version": "1.0", "releases": rel}, open(sys.argv[1], "w"))
PY
}
# hostile TARBALL KIND: a tarball with one top-level directory and a planted entry.
hostile() {
	python3 - "$FIX/kernels" "$@" "$TMP/outside" <<'PY'
import io, os, sys, tarfile
src, out, kind, outside = sys.argv[1:5]
with tarfile.open(out, "w:gz") as t:
    t.add(src, arcname="kernels-0.2.0", filter=lambda i: None if i.name.endswith("/VERSION") else i)
    data = b"0.2.0\n"
    i = tarfile.TarInfo("kernels-0.2.0/VERSION"); i.size = len(data); t.addfile(i, io.BytesIO(data))
    if kind == "dotdot":
        i = tarfile.TarInfo("../evil"); i.size = 5; t.addfile(i, io.BytesIO(b"evil\n"))
    elif kind == "symlink":
        i = tarfile.TarInfo("kernels-0.2.0/link"); i.type = tarfile.SYMTYPE; i.linkname = outside; t.addfile(i)
        i = tarfile.TarInfo("kernels-0.2.0/link/pwned"); i.size = 5; t.addfile(i, io.BytesIO(b"evil\n"))
    elif kind == "hardlink":
        i = tarfile.TarInfo("kernels-0.2.0/hard"); i.type = tarfile.LNKTYPE; i.linkname = "/etc/passwd"; t.addfile(i)
PY
}
mkdir -p "$TMP/outside"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$SRV" "$port" > "$TMP/http.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
for _ in $(seq 100); do
	(exec 3<> "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break
	sleep 0.1
done
URL="http://127.0.0.1:$port"

# no_release CACHE: nothing of a release (or its temporary directory) is left.
no_release() { ! ls -d "$1"/src/release-* "$1"/src/.tmp-* > /dev/null 2>&1; }
# fails_with NAME CACHE INDEX-URL PATTERN: 0.2.0 fails with exit 2 or 3 and a message.
fails_with() {
	local name=$1 cache=$2 idx=$3 pattern=$4
	BENCH_VERSIONS_CACHE="$cache" KERNEL_RELEASES="$idx" "$BV" 0.2.0 "${quick[@]}" > "$TMP/out" 2> "$TMP/err"
	local rc=$?
	check "$name: exits 2 or 3" test $rc -eq 2 -o $rc -eq 3
	check "$name: says why" contains "$TMP/err" "$pattern"
	check "$name: leaves no release in the cache" no_release "$cache"
}

# ---- a version only in the index, over http:// and file:// ---------------
index "$SRV/index.json" "0.2.0=kernels-0.2.0.tar.gz=$good_sha"
KERNEL_RELEASES="$URL/index.json" "$BV" 0.1.0 0.2.0 "${quick[@]}" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "http: comparison exits 0" test $rc -eq 0
check "http: 0.2.0 resolves by the release index" contains "$TMP/err" \
	"0.2.0 +-> tarball ${good_sha:0:12}, kernels 0.2.0 \[release index $URL/index.json: sha256 ${good_sha:0:12}"
check "http: 0.1.0 (not in the index) still resolves by VERSION" contains "$TMP/err" \
	"0.1.0 +-> commit [0-9a-f]{12}, kernels 0.1.0 \[first commit whose kernels/VERSION reads 0.1.0\]"
check "http: unpacked into the cache by sha256" test -f "$BENCH_VERSIONS_CACHE/src/release-$good_sha/kernels-0.2.0/VERSION"
check "http: built and measured" contains "$TMP/out" "^unary +abs +scalar +1K +[0-9.]+ [nu]s +[0-9.]+ [nu]s"
check "http: the server saw the download" contains "$TMP/http.log" "GET /kernels-0.2.0.tar.gz HTTP/1.1\" 200"

KERNEL_RELEASES="file://$SRV/index.json" BENCH_VERSIONS_CACHE="$TMP/c-file" "$BV" 0.2.0 "${quick[@]}" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "file: exits 0" test $rc -eq 0
check "file: 0.2.0 resolves by the release index" contains "$TMP/err" "\[release index file://$SRV/index.json: sha256 ${good_sha:0:12}"
check "file: built and measured" contains "$TMP/out" "^unary +abs +scalar +1K +[0-9.]+ [nu]s"

# ---- credentials in KERNEL_RELEASES -------------------------------------------
# user:password@ in the index's URL is sent to the server (and to the
# tarball's, which is relative to it) but never shown or stored: not on the
# resolve or download line, not in an error, not in the logs nor in what
# share packs.  The server here ignores the credentials.
PASS="pw-$(python3 -c 'import secrets; print(secrets.token_hex(12))')"
CRED="http://ci-robot:$PASS@127.0.0.1:$port"
shown="http://\*\*\*@127\.0\.0\.1:$port"
# secret_free NAME FILE...: neither the password nor the user is in the files
secret_free() {
	local name=$1
	shift
	check "$name" bash -c '! cat "$@" 2> /dev/null | grep -qE -- "$0|ci-robot"' "$PASS" "$@"
}
KERNEL_RELEASES="$CRED/index.json" BENCH_VERSIONS_CACHE="$TMP/c-cred" "$BV" 0.2.0 "${quick[@]}" \
	--results "$TMP/cred" > "$TMP/cred.out" 2> "$TMP/cred.err"
rc=$?
check "credentials: exits 0" test $rc -eq 0
check "credentials: the resolve line shows the index without them" contains "$TMP/cred.err" \
	"0.2.0 +-> tarball ${good_sha:0:12}, kernels 0.2.0 \[release index $shown/index.json: sha256"
check "credentials: the download line too" contains "$TMP/cred.err" "^download: $shown/kernels-0.2.0.tar.gz$"
check "credentials: the tarball was downloaded" contains "$TMP/http.log" "GET /kernels-0.2.0.tar.gz"
secret_free "credentials: not in the output or the messages" "$TMP/cred.out" "$TMP/cred.err"
RUN=$(ls -d "$TMP"/cred/[0-9]*/)
secret_free "credentials: not in the results log or raw/" $(find "$RUN" -type f)
check "credentials: the log's summary is the tarball's URL without them" python3 - "$RUN/0.2.0.json" "$port" <<'PY2'
import json, sys
v = json.load(open(sys.argv[1]))["version"]
assert v["summary"] == "http://***@127.0.0.1:%s/kernels-0.2.0.tar.gz" % sys.argv[2], v
PY2
"$BV" share "$RUN" --output "$TMP/cred.tar.gz" > "$TMP/share.out" 2> "$TMP/share.err"
check "credentials: share packs the run" test $? -eq 0 -a -s "$TMP/cred.tar.gz"
mkdir -p "$TMP/cred-unpacked" && tar -xzf "$TMP/cred.tar.gz" -C "$TMP/cred-unpacked"
secret_free "credentials: not in what share packs or says" "$TMP/share.out" "$TMP/share.err" \
	$(find "$TMP/cred-unpacked" -type f)
KERNEL_RELEASES="$CRED/missing.json" BENCH_VERSIONS_CACHE="$TMP/c-cred" "$BV" 0.2.0 "${quick[@]}" \
	--results "$TMP/cred" > "$TMP/cred.out" 2> "$TMP/cred.err"
check "credentials: a failed download says which, without them" contains "$TMP/cred.err" \
	"release index \(KERNEL_RELEASES\): $shown/missing.json: HTTP status 404"
secret_free "credentials: not in the error" "$TMP/cred.out" "$TMP/cred.err"

# ---- broken downloads --------------------------------------------------------
bad_sha=$(printf '0%.0s' $(seq 64))
index "$SRV/bad-sha.json" "0.2.0=kernels-0.2.0.tar.gz=$bad_sha"
fails_with "wrong sha256" "$TMP/c-sha" "$URL/bad-sha.json" "sha256 mismatch: expected $bad_sha, got $good_sha"

index "$SRV/missing.json" "0.2.0=missing-0.2.0.tar.gz=$good_sha"
fails_with "tarball 404" "$TMP/c-404" "$URL/missing.json" "$URL/missing-0.2.0.tar.gz: HTTP status 404"
fails_with "index 404" "$TMP/c-404i" "$URL/no-such-index.json" "release index \(KERNEL_RELEASES\): $URL/no-such-index.json: HTTP status 404"

head -c 3000 "$SRV/kernels-0.2.0.tar.gz" > "$SRV/truncated.tar.gz"
index "$SRV/truncated.json" "0.2.0=truncated.tar.gz=$(sha "$SRV/truncated.tar.gz")"
fails_with "truncated tarball" "$TMP/c-trunc" "$URL/truncated.json" "truncated"

# ---- malformed and invalid indexes --------------------------------------------
printf '{"schema": "bench-versions-releases",\n "schema_version": "1.0",\n "releases": [,]}\n' > "$SRV/malformed.json"
fails_with "malformed index" "$TMP/c-bad" "$URL/malformed.json" "$URL/malformed.json:3:15: malformed JSON"
index "$SRV/badhex.json" "0.2.0=kernels-0.2.0.tar.gz=${good_sha:0:63}g"
fails_with "bad hex" "$TMP/c-bad" "file://$SRV/badhex.json" "badhex.json: releases\[0\].sha256: expected 64 hex digits"
index "$SRV/dup.json" "0.2.0=a.tar.gz=$good_sha" "0.2.0=b.tar.gz=$good_sha"
fails_with "duplicate version" "$TMP/c-bad" "$URL/dup.json" "dup.json: releases\[1\].version: 0.2.0 is listed twice"
echo '{"schema":"bench-versions-releases","schema_version":"2.0","releases":[]}' > "$SRV/v2.json"
fails_with "unknown major schema version" "$TMP/c-bad" "$URL/v2.json" "v2.json: schema_version: 2.0 is not supported"
echo '{"schema":"bench-versions-releases","schema_version":"1.0","releases":[{"version":"0.2.0","url":"x.tar.gz","sha256":7}]}' > "$SRV/type.json"
fails_with "wrong type" "$TMP/c-bad" "$URL/type.json" "type.json: releases\[0\].sha256: expected a string"
index "$SRV/local-file.json" "0.2.0=file:///etc/passwd=$good_sha"
fails_with "a web index may not point at file://" "$TMP/c-bad" "$URL/local-file.json" "scheme 'file' is not allowed"

# ---- hostile tarballs ----------------------------------------------------------
for kind in dotdot symlink hardlink; do
	hostile "$SRV/$kind.tar.gz" "$kind"
	index "$SRV/$kind.json" "0.2.0=$kind.tar.gz=$(sha "$SRV/$kind.tar.gz")"
	fails_with "$kind entry" "$TMP/c-$kind" "$URL/$kind.json" "refused: entry '[^']*' (has a '\.\.' component|is a symlink|is a hard link)"
done
check "nothing was written outside the cache" test -z "$(find "$TMP" -name evil -o -name pwned; ls -A "$TMP/outside")"

# The index promises 0.2.0, the tarball's VERSION reads otherwise.
(cd "$FIX" && tar -czf "$SRV/liar.tar.gz" --transform 's,^kernels,kernels-0.1.0,' kernels)
index "$SRV/liar.json" "0.2.0=liar.tar.gz=$(sha "$SRV/liar.tar.gz")"
fails_with "VERSION differs from the index" "$TMP/c-liar" "$URL/liar.json" "VERSION reads 0.1.0, but the index lists it as 0.2.0"

# ---- a tag still comes first ---------------------------------------------------
git -C "$FIX" tag v0.2.0
KERNEL_RELEASES="$URL/index.json" "$BV" 0.2.0 "${quick[@]}" > "$TMP/out" 2> "$TMP/err"
check "a tag v0.2.0 beats the index" contains "$TMP/err" "0.2.0 +-> commit [0-9a-f]{12}, kernels 0.1.0 \[release tag v0.2.0\]"
git -C "$FIX" tag -d v0.2.0 > /dev/null

# ---- KERNEL_REPO as a URL --------------------------------------------------------
unset KERNEL_DIR
KERNEL_REPO="file://$FIX" "$BV" main "${quick[@]}" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "clone: exits 0" test $rc -eq 0
check "clone: progress on stderr" contains "$TMP/err" "^clone: file://$FIX: received [0-9]+/[0-9]+ objects"
check "clone: main resolves as a branch" contains "$TMP/err" "main +-> commit [0-9a-f]{12}, kernels 0.1.0 \[branch\]"
check "clone: bare, in the cache" test -f "$(echo "$BENCH_VERSIONS_CACHE"/repos/*/HEAD)" -a ! -e "$(echo "$BENCH_VERSIONS_CACHE"/repos/*)/.git"
echo 0.1.7 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "kernels 0.1.7"
git -C "$FIX" branch feature/x
KERNEL_REPO="file://$FIX" "$BV" 0.1.7 feature/x "${quick[@]}" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "fetch: exits 0" test $rc -eq 0
check "fetch: a later run fetches into the same clone" contains "$TMP/err" "^fetch: file://$FIX -> "
check "fetch: the new commit resolves by VERSION" contains "$TMP/err" "0.1.7 +-> commit [0-9a-f]{12}, kernels 0.1.7 \[first commit"
check "fetch: a new branch resolves" contains "$TMP/err" "feature/x +-> commit [0-9a-f]{12}, kernels 0.1.7 \[branch\]"
KERNEL_REPO="file://$TMP/no-such-repo" "$BV" main "${quick[@]}" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "clone of a missing repository exits 2" test $rc -eq 2
check "clone of a missing repository says so" contains "$TMP/err" "cloning KERNEL_REPO: "
check "a failed clone leaves nothing" test "$(ls -A "$BENCH_VERSIONS_CACHE/repos" | wc -l)" -eq 1
finish
