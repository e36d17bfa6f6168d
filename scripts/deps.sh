#!/usr/bin/env bash
# scripts/deps.sh - installs what bench-versions needs and this machine lacks.
#
# Asks pkg-config (libraries) and PATH (tools) first and runs apt-get only for
# what is missing, so on a machine that has everything it changes nothing.
# Usage: scripts/deps.sh [build|test|valgrind|man]   (test adds what the test
# suite needs: also clang and its libFuzzer runtime; valgrind is test's list,
# which, like build's, has valgrind: run's counts of changed cells use it;
# man is only the converter that turns docs/cli/*.md into man pages)
set -euo pipefail
want=${1:-build}
[ "$want" = valgrind ] && want=test
missing=()
need_pc() { pkg-config --exists "$1" 2>/dev/null || missing+=("$2"); }
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }

if [ "$want" = man ]; then
	# go-md2man: one small static program, against pandoc's hundreds of MB.
	need_cmd go-md2man go-md2man
else
	need_cmd cc gcc
	need_cmd make make
	need_cmd pkg-config pkg-config
	if command -v pkg-config >/dev/null 2>&1; then
		need_pc libgit2 libgit2-dev
		need_pc libcurl libcurl4-openssl-dev
		need_pc libcjson libcjson-dev
		need_pc libarchive libarchive-dev
		need_pc libcrypto libssl-dev
		# the history store (orchestrator/history/store.c)
		need_pc sqlite3 libsqlite3-dev
		need_pc openblas libopenblas-dev
		[ "$want" = test ] && need_pc cmocka libcmocka-dev
	else
		missing+=(libgit2-dev libcurl4-openssl-dev libcjson-dev libarchive-dev libssl-dev libsqlite3-dev libopenblas-dev)
		[ "$want" = test ] && missing+=(libcmocka-dev)
	fi
	# The tests build fixture repositories with git (bench-versions itself never runs git).
	[ "$want" = test ] && need_cmd git git
	# ...and check logs and JSON exports with Python's standard library.
	[ "$want" = test ] && need_cmd python3 python3
	# test_foreign.sh and test_recipes.sh build a foreign library with CMake, as such projects do.
	[ "$want" = test ] && need_cmd cmake cmake
	# test_faults.sh looks for leftover processes (pgrep) and mounts a small
	# tmpfs and a read-only bind mount where it may (mount).
	[ "$want" = test ] && need_cmd pgrep procps
	[ "$want" = test ] && need_cmd mount mount
	# test_install.sh installs the tool (its man pages need go-md2man), reads a
	# man page through man and runs the zsh completion.
	[ "$want" = test ] && need_cmd go-md2man go-md2man
	[ "$want" = test ] && need_cmd man man-db
	[ "$want" = test ] && need_cmd zsh zsh
	# The HTML report is checked in a real browser (headless Chromium).
	[ "$want" = test ] && need_cmd chromium chromium
	# The receiving side of share (server/bv-server) is Debian's nginx, with
	# its dav module; test_server.sh runs it on loopback.  In /usr/sbin,
	# which a user's PATH may lack: bv-server looks there too, and so does
	# this check.
	[ "$want" = test ] && { [ -x /usr/sbin/nginx ] || need_cmd nginx nginx; }
	# test_slurm.sh runs `run --slurm` on a real single-host cluster
	# (tests/e2e/slurm_cluster.sh): Debian's Slurm and munge.  Only for the
	# tests: make demo and the tool itself stay single-machine.
	[ "$want" = test ] && need_cmd slurmctld slurmctld
	[ "$want" = test ] && need_cmd slurmd slurmd
	[ "$want" = test ] && need_cmd sbatch slurm-client
	[ "$want" = test ] && need_cmd munged munge
	# The fuzz targets (tests/fuzz/) need clang and its libFuzzer runtime, which
	# Debian ships apart (libclang-rt-dev is only recommended by clang).
	if [ "$want" = test ]; then
		if command -v clang >/dev/null 2>&1; then
			[ -e "$(clang -print-file-name="libclang_rt.fuzzer-$(uname -m).a")" ] || missing+=(libclang-rt-dev)
		else
			missing+=(clang libclang-rt-dev)
		fi
	fi
	# run explains changed cells with Valgrind's counts (orchestrator/measure/counts.c);
	# without it they say "not counted" and why.
	need_cmd valgrind valgrind
fi

[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing ${missing[*]}; run as root or install them with apt-get" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
