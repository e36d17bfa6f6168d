#!/usr/bin/env bash
# End to end: secrets stay with bench-versions.  The upload token (and
# anything else that looks like a secret) must never reach the code the tool
# builds and runs: the kernel library's Makefile (make, cc, patch, a compat
# recipe) and bv-runner, which loads the library.  The fixture's Makefile
# writes its environment while the library builds, and a constructor in the
# library writes the measuring process's environment when bv-runner loads it;
# neither may hold a secret, and the runner's holds only what it needs.
source "$(dirname "$0")/lib.sh"
make_fixture

hex() { python3 -c 'import secrets; print(secrets.token_hex(12))'; }
TOKEN="bvt-$(hex)" GHTOKEN="ghp-$(hex)" PASSWORD="pw-$(hex)" AWSKEY="aws-$(hex)" URLPASS="urlpw-$(hex)"
declare -A secrets=([BENCH_VERSIONS_TOKEN]=$TOKEN [GITHUB_TOKEN]=$GHTOKEN [DEPLOY_PASSWORD]=$PASSWORD
	[AWS_SECRET_ACCESS_KEY]=$AWSKEY [BV_FIXTURE_URL]=$URLPASS)

# What a build can see: its environment, and its parent's (bench-versions)
# in /proc, which shows the environment a process was started with.
cat >> "$FIX/kernels/Makefile" <<MK

# planted by test_secrets.sh
\$(shell env > $TMP/build-env)
\$(shell tr '\\0' '\\n' < /proc/\$\$(awk '{print \$\$4}' /proc/\$\$PPID/stat)/environ > $TMP/parent-env)
MK
cat >> "$FIX/kernels/src/api.c" <<C
/* planted by test_secrets.sh: what the measuring process can see */
extern char **environ;
__attribute__((constructor)) static void planted_env_dump(void)
{
	FILE *f = fopen("$TMP/runner-env", "a");
	if (!f)
		return;
	for (char **e = environ; *e; e++)
		fprintf(f, "%s\n", *e);
	fclose(f);
}
C
git -C "$FIX" commit -qam "a library that reads its environment"

# no_leaks NAME FILE...: a check that no secret's value is in the files
no_leaks() {
	local name=$1 k found=
	shift
	for k in "${!secrets[@]}"; do
		cat "$@" 2> /dev/null | grep -qF -- "${secrets[$k]}" && found="$found $k"
	done
	if [ -z "$found" ]; then ok "$name"; else not_ok "$name (found:$found)"; fi
}

BENCH_VERSIONS_TOKEN="$TOKEN" GITHUB_TOKEN="$GHTOKEN" DEPLOY_PASSWORD="$PASSWORD" AWS_SECRET_ACCESS_KEY="$AWSKEY" \
	BV_FIXTURE_URL="https://ci:$URLPASS@example.invalid/x" BV_FIXTURE_PLAIN=plain-setting TSAN_OPTIONS=fixture-tsan \
	BENCH_VERSIONS_BUILD_ENV=BV_FIXTURE_PLAIN BV_FIXTURE_UNLISTED=unlisted MAKEFLAGS=" -- FIXTURE_MARK=1" \
	"$BV" main --benches unary --ops abs --backends scalar --sizes 1K --quick --results "$TMP/results" \
	> "$TMP/out" 2> "$TMP/err"
rc=$?
check "the run exits 0" test $rc -eq 0
check "the build's environment was written" contains "$TMP/build-env" "^PATH="
check "the build keeps the user's own setting named in BENCH_VERSIONS_BUILD_ENV" \
	contains "$TMP/build-env" "^BV_FIXTURE_PLAIN=plain-setting$"
check "... and gets no other of the user's settings, nor an outer make's variables" \
	test -z "$(grep -E '^(BV_FIXTURE_UNLISTED|BENCH_VERSIONS_|KERNEL_)|FIXTURE_MARK' "$TMP/build-env")"
no_leaks "the build never sees the token or another secret" "$TMP/build-env"
check "the build can read its parent's environment in /proc" contains "$TMP/parent-env" "^PATH="
no_leaks "and finds no secret there either" "$TMP/parent-env"
check "the measuring process's environment was written" contains "$TMP/runner-env" "^PATH="
no_leaks "the measuring process never sees the token or another secret" "$TMP/runner-env"
check "the measuring process gets only what it needs, not the user's other settings" \
	test -z "$(grep -E '^(BV_FIXTURE_|BENCH_VERSIONS_|KERNEL_)' "$TMP/runner-env")"
check "the measuring process keeps the thread counts and sanitizer options" \
	bash -c "grep -q '^OPENBLAS_NUM_THREADS=1$' '$TMP/runner-env' && grep -q '^TSAN_OPTIONS=fixture-tsan$' '$TMP/runner-env'"
log=$(ls "$TMP"/results/[0-9]*/main.json)
no_leaks "no secret in the output, the messages or the log" "$TMP/out" "$TMP/err" "$log"
finish
