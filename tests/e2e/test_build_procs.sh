#!/usr/bin/env bash
# End to end: what a build starts ends with it, and a build has a time limit
# (--build-timeout).  A compat recipe that leaves a daemon behind
# (setsid, SIGTERM ignored) and exits 0: the daemon is gone when the build
# is.  A recipe that never exits: the build stops at --build-timeout, its
# processes (and the daemon it left) are killed, the version is a build
# failure naming the limit and how to raise it, and nothing of it is cached.
source "$(dirname "$0")/lib.sh"
own_library_builds # the processes a library build starts
make_fixture

C="$TMP/compat"
mkdir -p "$C"
export BENCH_VERSIONS_COMPAT="$C/compat.json"
rules() { printf '{"schema_version": 1, "rules": [%s]}\n' "$1" > "$C/compat.json"; }

# The processes the recipes leave are copies of sleep under $TMP: pgrep finds
# this test's alone, by their argv[0] and a marker argument.
DAEMON="$TMP/bv-build-daemon" HANG="$TMP/bv-build-hang"
cp "$(command -v sleep)" "$DAEMON"
cp "$(command -v sleep)" "$HANG"
alive() { pgrep -f "^$1 $2" > /dev/null; }
# gone PROG MARK: not alive within 5 s (a SIGKILL'd process is reaped at once;
# the wait is for a loaded machine's scheduler, not for the tool).
gone() { for _ in $(seq 25); do alive "$1" "$2" || return 0; sleep 0.2; done; return 1; }
reap() { for p in $(pgrep -f "^$1 $2"); do kill -KILL "$p" 2> /dev/null; done; }

# A daemon in a session of its own that ignores SIGTERM and SIGHUP (an
# ignored signal stays ignored across exec), then the library's usual build.
cat > "$C/daemon.sh" <<SH
#!/bin/sh
( trap '' TERM HUP; exec setsid "$DAEMON" 987653 ) < /dev/null > /dev/null 2>&1 &
exec make -C "\$1" BUILD="\$2" CUDA=0 lib
SH
rules '{"id": "daemon", "versions": "0.1.0", "build": ["sh", "{compat}/daemon.sh", "{src}", "{build}"]}'
"$BV" compat --build 0.1.0 > "$TMP/b1" 2> "$TMP/e1"
rc=$?
check "a recipe that leaves a daemon builds (exit $rc)" test $rc -eq 0
check "... with its recipe" contains "$TMP/b1" "^0\.1\.0 .* daemon +builds \(built\)"
check "the daemon (setsid, SIGTERM ignored) did not outlive the build" gone "$DAEMON" 987653
reap "$DAEMON" 987653

# A recipe that never exits, leaving a daemon as well.
cat > "$C/hang.sh" <<SH
#!/bin/sh
( trap '' TERM HUP; exec setsid "$DAEMON" 987654 ) < /dev/null > /dev/null 2>&1 &
echo "planted: building for ever"
exec "$HANG" 987655
SH
rules '{"id": "hang", "versions": "0.1.0", "build": ["sh", "{compat}/hang.sh", "{src}", "{build}"]}'
rm -rf "$BENCH_VERSIONS_CACHE/builds"
start=$(date +%s)
timeout -k 5 120 "$BV" compat --build 0.1.0 --build-timeout 3 > "$TMP/b2" 2> "$TMP/e2"
rc=$? took=$(( $(date +%s) - start ))
check "a recipe that never exits stops at --build-timeout: a build failure, exit 3 (exit $rc, ${took}s)" \
	test $rc -eq 3 -a $took -lt 60
check "the failure names the limit and how to raise it" \
	contains "$TMP/b2" "longer than its limit of 3 s and was stopped.*--build-timeout S"
check "... with the end of the build's log" contains "$TMP/b2" "planted: building for ever"
check "the hanging step is killed" gone "$HANG" 987655
check "and what it left in a session of its own" gone "$DAEMON" 987654
reap "$HANG" 987655
reap "$DAEMON" 987654
check "nothing of the stopped build is cached" \
	test -z "$(find "$BENCH_VERSIONS_CACHE/builds" -mindepth 1 -maxdepth 1 -type d)"

# The same version without the rule builds afterwards: no half-made entry
# stands in its way.
rules ''
"$BV" compat --build 0.1.0 > "$TMP/b3" 2> "$TMP/e3"
rc=$?
check "without the rule the version builds afterwards (exit $rc)" test $rc -eq 0

# run takes the limit too, and the message is the same.
rules '{"id": "hang", "versions": "0.1.0", "build": ["sh", "{compat}/hang.sh", "{src}", "{build}"]}'
rm -rf "$BENCH_VERSIONS_CACHE/builds"
timeout -k 5 120 "$BV" 0.1.0 --benches unary --ops abs --backends scalar --sizes 1K --quick --build-timeout 2s \
	--results "$TMP/results" > "$TMP/r" 2> "$TMP/re"
rc=$?
check "run: a build past --build-timeout is that version's failure (exit $rc)" test $rc -eq 3
check "run: the message names the limit" contains "$TMP/re" "longer than its limit of 2 s"
reap "$HANG" 987655
reap "$DAEMON" 987654

"$BV" compat --build --build-timeout 2X > /dev/null 2> "$TMP/e4"
rc=$?
check "a bad --build-timeout is a usage error that says what a duration is (exit $rc)" \
	sh -c '[ $1 -eq 2 ] && grep -q -- "--build-timeout .2X.: expected a duration" "$2"' _ $rc "$TMP/e4"
"$BV" run --help > "$TMP/help" 2>&1
check "run --help lists --build-timeout" contains "$TMP/help" "--build-timeout S"
finish
