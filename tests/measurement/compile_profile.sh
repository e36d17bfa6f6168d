#!/usr/bin/env bash
# compile_profile.sh - where `make test`'s compiling goes: the whole suite
# (tests/run.sh, in a fresh clone of this checkout) with CC set to a wrapper
# that logs each compile's CPU time (user + system) and the e2e script it ran
# under; then the CPU per source file and per script.  Not part of
# `make test`; docs/evidence/ci-time.md reports it.  Takes as long as
# `make test` and a little more (the wrapper's cost); the CPU times hold on a
# loaded machine, the wall times do not.
#
#   tests/measurement/compile_profile.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d /tmp/bv-compile-profile-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK" # the suite runs a check as nobody, which calls the wrapper too
cat > "$WORK/cc" <<'E'
#!/bin/bash
# the e2e script this compile runs under: the nearest test_*.sh ancestor
who=? p=$$
for _ in $(seq 1 30); do
	p=$(awk '{print $4}' "/proc/$p/stat" 2> /dev/null) || break
	[ -n "$p" ] && [ "$p" -gt 1 ] || break
	c=$(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null)
	case "$c" in *tests/e2e/test_*) who=$(echo "$c" | grep -oE 'test_[a-z_0-9]+\.sh' | head -1); break ;; esac
done
t=$(mktemp)
/usr/bin/time -f "%U %S" -o "$t" cc "$@"; rc=$?
src=none
for a in "$@"; do [ "${prev:-}" = -c ] && src=${a##*/}; prev=$a; done
echo "$(tail -1 "$t") $who $src" >> "$(dirname "$0")/log" 2> /dev/null
rm -f "$t"
exit $rc
E
chmod 755 "$WORK/cc"
: > "$WORK/log" && chmod 666 "$WORK/log"
git clone -q "$ROOT" "$WORK/clone"
(cd "$WORK/clone" && CC="$WORK/cc" bash .ci/run > "$WORK/run.log" 2>&1)
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(tail -1 "$WORK/run.log")"
awk '{t += $1 + $2} END {printf "compiling: %.0f s of CPU, %d compiles\n", t, NR}' "$WORK/log"
echo "# by source file (the 15 largest)"
awk '{u[$4] += $1 + $2; n[$4]++} END {for (k in u) printf "%8.1f s %5d  %s\n", u[k], n[k], k}' "$WORK/log" | sort -rn | head -15
echo "# by e2e script (the 15 largest; ? = the tool's own builds)"
awk '{u[$3] += $1 + $2; n[$3]++} END {for (k in u) printf "%8.1f s %5d  %s\n", u[k], n[k], k}' "$WORK/log" | sort -rn | head -15
