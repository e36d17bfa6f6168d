#!/usr/bin/env bash
# End to end: `make install PREFIX=...` gives a tool that works.
# From inside a fresh clone of a library, with no KERNEL_DIR, the
# installed program finds the library as git finds a repository, compares
# two releases and writes its results into that clone; outside any
# repository it says how to point it at a library; its man pages render; its
# bash completion offers subcommands, options and release names.
source "$(dirname "$0")/lib.sh"
make_fixture
# A second release in the fixture's history.
echo 0.1.1 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "kernels 0.1.1"

# make install makes the man pages with go-md2man and would install it with
# apt-get where it is missing: make test installs it (scripts/deps.sh test),
# make check installs nothing, so there it is a skip, not a failure.
if ! command -v go-md2man >/dev/null 2>&1; then
	skip "make install and the installed tool" "go-md2man is not installed (make test installs it)"
	finish
fi

P="$TMP/prefix"
IBV="$P/bin/bench-versions"
make -s -C "$ROOT" install PREFIX="$P" >"$TMP/install.log" 2>&1; rc=$?
check "make install PREFIX=\$TMP/prefix succeeds (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$TMP/install.log" | tail -5
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_HOME

# --version, both spellings.
out=$("$IBV" --version); rc=$?
check "--version exits 0 and names the tool ($out)" test "$rc" = 0 -a -n "$(echo "$out" | grep -E '^bench-versions [0-9]+\.[0-9]+')"
out=$("$IBV" version); rc=$?
check "'version' does the same" test "$rc" = 0 -a -n "$(echo "$out" | grep -E '^bench-versions [0-9]')"

# A fresh clone; the program is run from a directory inside it (kernels/src),
# so the repository is found from below, as git finds it.
git clone -q "$FIX" "$TMP/clone"
cd "$TMP/clone/kernels/src"
"$IBV" 0.1.0 0.1.1 --quick --ops abs --backends scalar --sizes 1K --budget 1 --save-baseline nightly \
	>"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
check "installed, inside a clone, no KERNEL_DIR: 0.1.0 against 0.1.1 compares (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$TMP/run.err" | tail -5
check "the table has the cell with its 0.1.1/0.1.0 ratio and interval" contains "$TMP/run.out" \
	'^unary +abs +scalar +1K .* [0-9]+\.[0-9]+ \[[0-9.]+, [0-9.]+\]'
check "the library is the clone's (resolve names its commits)" contains "$TMP/run.err" 'resolve: 0\.1\.1 .* kernels 0\.1\.1'
logs=$(ls "$TMP/clone/.bench-versions/results"/[0-9]*/0.1.0.json "$TMP/clone/.bench-versions/results"/[0-9]*/0.1.1.json 2>/dev/null | wc -l)
check "results under the clone's .bench-versions/results/<run>/ ($logs logs)" test "$logs" = 2
check "the run says where its results are" contains "$TMP/run.err" "results: $TMP/clone/\.bench-versions/results/"
check "nothing written under PREFIX/share" test ! -e "$P/share/bench-versions/results"
check "the clone's git status stays clean (.bench-versions ignores itself)" \
	test -z "$(git -C "$TMP/clone" status --porcelain)"
"$IBV" list baselines >"$TMP/list.out" 2>&1
check "list baselines names the saved one with its versions" contains "$TMP/list.out" $'^nightly\t\\(0\\.1\\.0, 0\\.1\\.1\\)$'
# list works from the clone too, naming the clone as the repository.
"$IBV" list versions >"$TMP/list.out" 2>&1
check "list versions from inside the clone names the clone" contains "$TMP/list.out" "^repository: $TMP/clone, library in kernels"

# Outside any repository, no KERNEL_DIR: a usage error that says how.
mkdir -p "$TMP/nowhere"
cd "$TMP/nowhere"
"$IBV" 0.1.0 0.1.1 --quick >"$TMP/none.out" 2>&1; rc=$?
check "outside any repository: exit 2 (got $rc)" test "$rc" = 2
check "...saying it is in no repository, and KERNEL_DIR" contains "$TMP/none.out" \
	'no kernel library here: .*not inside a git repository.*checkout of the library.*KERNEL_DIR'
"$IBV" list versions >"$TMP/none.out" 2>&1; rc=$?
check "list, too (exit $rc)" test "$rc" = 2
# In a repository with no library: the message names that repository.
git init -q "$TMP/other"
cd "$TMP/other"
"$IBV" list versions >"$TMP/other.out" 2>&1; rc=$?
check "a repository without kernels/: exit 2 naming it (exit $rc)" \
	test "$rc" = 2 -a -n "$(grep -E "repository at $TMP/other has no kernels/" "$TMP/other.out")"
# KERNEL_REPO alone, from outside any checkout: every name but `local`
# resolves from it; results go to the user's data directory.
git clone -q --bare "$FIX" "$TMP/bare.git"
cd "$TMP/nowhere"
XDG_DATA_HOME="$TMP/xdg" KERNEL_REPO="$TMP/bare.git" "$IBV" 0.1.0 0.1.1 --quick --ops abs --backends scalar \
	--sizes 1K --budget 1 >"$TMP/kr.out" 2>"$TMP/kr.err"; rc=$?
check "KERNEL_REPO (bare) and no checkout: 0.1.0 against 0.1.1 compares (exit $rc)" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$TMP/kr.err" | tail -5
logs=$(ls "$TMP/xdg/bench-versions/results"/[0-9]*/0.1.1.json 2>/dev/null | wc -l)
check "...its results under \$XDG_DATA_HOME/bench-versions/results ($logs)" test "$logs" = 1
check "...nothing written where the shell is" test -z "$(ls -A "$TMP/nowhere")"
XDG_DATA_HOME="$TMP/xdg" KERNEL_REPO="$TMP/bare.git" "$IBV" 0.1.0 local --quick >"$TMP/kr.out" 2>&1; rc=$?
check "...'local' there: exit 2 saying there is no working tree (exit $rc)" \
	test "$rc" = 2 -a -n "$(grep -E "'local' is a working tree, and there is none" "$TMP/kr.out")"
KERNEL_REPO="$TMP/bare.git" "$IBV" list versions >"$TMP/kr.out" 2>&1; rc=$?
check "...list versions lists its releases and says local has none (exit $rc)" \
	test "$rc" = 0 -a -n "$(grep -E '^0\.1\.1' "$TMP/kr.out")" -a -n "$(grep -E '^local.*none' "$TMP/kr.out")"
# KERNEL_DIR still wins, from anywhere.
KERNEL_DIR="$TMP/clone/kernels" "$IBV" list versions >"$TMP/kd.out" 2>&1; rc=$?
check "KERNEL_DIR set: used from outside the clone (exit $rc)" \
	test "$rc" = 0 -a -n "$(grep -E "^repository: $TMP/clone," "$TMP/kd.out")"
KERNEL_DIR="$TMP/missing" "$IBV" list versions >"$TMP/kd.out" 2>&1; rc=$?
check "KERNEL_DIR that does not exist: exit 2 naming it" \
	test "$rc" = 2 -a -n "$(grep -F "KERNEL_DIR $TMP/missing does not exist" "$TMP/kd.out")"

# The source tree's program keeps its embedded default outside a repository
# (make demo), and finds a clone's library from inside one.
cd "$TMP/nowhere"
"$BV" list versions >"$TMP/src.out" 2>&1; rc=$?
check "source tree, outside a repository: its own kernels/ (exit $rc)" \
	test "$rc" = 0 -a -n "$(grep -E '^repository: .*, library in kernels' "$TMP/src.out")"
cd "$TMP/clone"
"$BV" list versions >"$TMP/src.out" 2>&1
check "source tree, inside the clone: the clone's library" contains "$TMP/src.out" "^repository: $TMP/clone,"

# Man pages: one per subcommand, and the run page renders through man.
pages=0
for p in bench-versions bench-versions-run bench-versions-compare bench-versions-report bench-versions-bisect \
	bench-versions-compat bench-versions-cache bench-versions-list bench-versions-share bench-versions-plan; do
	[ -s "$P/share/man/man1/$p.1" ] && pages=$((pages + 1))
done
check "10 man pages installed under share/man/man1 ($pages)" test "$pages" = 10
if command -v man >/dev/null 2>&1; then
	MANPATH="$P/share/man" MANWIDTH=80 man bench-versions-run >"$TMP/man.out" 2>/dev/null
	check "man bench-versions-run shows the page" contains "$TMP/man.out" 'bench-versions-run +- +compare versions'
	check "...with its options, one tagged paragraph each" test -n "$(grep -A1 -E '^ +--quick$' "$TMP/man.out" | grep 'fewer processes')"
	MANPATH="$P/share/man" MANWIDTH=80 man bench-versions >"$TMP/man.out" 2>/dev/null
	check "man bench-versions explains finding the library" contains "$TMP/man.out" 'Finding the library'
else
	skip "man bench-versions-run shows the page" "man is not installed"
fi

# Bash completion, from inside the clone (its releases).
comp="$P/share/bash-completion/completions/bench-versions"
check "bash completion installed" test -s "$comp"
cd "$TMP/clone"
complete_words() { # WORD... : what the completion offers for the last word
	PATH="$P/bin:$PATH" bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ));
		_bench_versions; printf "%s\n" "${COMPREPLY[@]}"' _ "$comp" "$@"
}
out=$(complete_words bench-versions "")
check "completion offers the subcommands" test -n "$(echo "$out" | grep -x run)" -a -n "$(echo "$out" | grep -x report)" \
	-a -n "$(echo "$out" | grep -x bisect)"
out=$(complete_words bench-versions run --qu)
check "completion offers run's options (--qu: --quick)" test "$out" = --quick
out=$(complete_words bench-versions cache --)
check "completion offers cache's own options" test -n "$(echo "$out" | grep -x -- --older-than)" -a -z "$(echo "$out" | grep -x -- --quick)"
out=$(complete_words bench-versions run 0.1)
check "completion offers the clone's release names ($(echo $out))" test "$(echo $out)" = "0.1.0 0.1.1"
out=$(complete_words bench-versions report --baseline "")
check "completion offers versions after --baseline" test -n "$(echo "$out" | grep -x 0.1.0)" -a -n "$(echo "$out" | grep -x main)"
out=$(complete_words bench-versions compare --baseline "")
check "completion offers saved baselines after compare --baseline ($(echo $out))" test "$(echo $out)" = nightly
out=$(complete_words bench-versions list "")
check "completion offers what list lists" test -n "$(echo "$out" | grep -x baselines)"
zcomp="$P/share/zsh/site-functions/_bench-versions"
check "zsh completion installed" test -s "$zcomp"
if command -v zsh >/dev/null 2>&1; then
	check "zsh completion parses (zsh -n)" zsh -n "$zcomp"
	# Outside a completion widget compadd and _files are not there: stand-ins
	# print what would be offered, so the function itself runs as zsh runs it.
	zcomplete() { # WORD... : what the zsh completion offers for the last word
		PATH="$P/bin:$PATH" zsh -fc 'compadd() { if [[ $1 == -a ]]; then print -l -- ${(P)2}; else print -l -- "$@"; fi }
			_files() { print FILES }
			comp=$1; shift; words=("$@"); CURRENT=$#; PREFIX=${words[CURRENT]}
			source "$comp" | grep -- "^$PREFIX"' _ "$zcomp" "$@"
	}
	out=$(zcomplete bench-versions "")
	check "zsh completion offers the subcommands" test -n "$(echo "$out" | grep -x compat)" -a -n "$(echo "$out" | grep -x share)"
	out=$(zcomplete bench-versions run --qu)
	check "zsh completion offers run's options (--qu: --quick)" test "$out" = --quick
	out=$(zcomplete bench-versions run 0.1)
	check "zsh completion offers the clone's release names ($(echo $out))" test "$(echo $out)" = "0.1.0 0.1.1"
	out=$(zcomplete bench-versions compare --baseline "")
	check "zsh completion offers saved baselines after compare --baseline ($(echo $out))" test "$(echo $out)" = nightly
else
	skip "zsh completion parses (zsh -n)" "zsh is not installed"
	skip "zsh completion offers subcommands, options and release names" "zsh is not installed"
fi
finish
