# bench-versions: compare versions of a kernel library, with verdicts that
# survive a noisy machine.
#
#   make            build bin/bench-versions and bin/bv-runner
#   make demo       install what is missing, build, compare kernels releases
#   make test       install what is missing, build, run every test (with a
#                   sanitizer subset and a brief fuzz pass: docs/reliability.md)
#   make check      the same tests, without installing anything (no root)
#   make test-asan  the whole test suite under AddressSanitizer + UBSan
#   make fuzz       each libFuzzer target for FUZZ_SECONDS (default 60)
#   make valgrind   memcheck over the main paths
#   make install PREFIX=/usr/local   (also man pages, bash and zsh completion)
#   make clean

PREFIX  ?= /usr/local
CC      ?= cc
CFLAGS  ?= -O2 -g
# orchestrator/'s and harness/'s folders (docs/architecture.md, "Folders"):
# each is on the include path, so a file names a header by its name alone,
# wherever it lives.
ORCH_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard orchestrator/*/*.c))))
ORCH_INC  := $(addprefix -I,$(ORCH_DIRS)) -Iharness/common -Iharness/plugin -Iharness/runner
override CFLAGS += -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -D_GNU_SOURCE $(ORCH_INC)
PKGS    := libgit2 libcurl libcjson libarchive libcrypto sqlite3
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# The kernels library builds its cuda backend per version where nvcc exists;
# say once, here, when it will be left out.
NVCC := $(shell command -v nvcc 2>/dev/null || (test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc))
ifeq ($(NVCC),)
  ifeq ($(MAKELEVEL),0)
    $(info bench-versions: nvcc not found: kernels' cuda backend is left out of every build; its cells report 'unavailable')
  endif
endif

# VARIANT=asan builds the same programs with AddressSanitizer and UBSan into
# their own directories (bin-asan/, build-asan/, tests/bin-asan/), so the
# normal build is never clobbered.  The plugins bench-versions builds per
# version are not instrumented; the instrumented runner loads them as is.
# (The name VARIANT, not BUILD or CFLAGS, because command-line variables
# travel in MAKEFLAGS to the kernels' own make, which reads those two.)
VARIANT ?=
ifeq ($(VARIANT),asan)
  BIN   := bin-asan
  OBJ   := build-asan
  TBIN  := tests/bin-asan
  SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
  override CFLAGS += $(SAN_FLAGS)
else ifeq ($(VARIANT),)
  BIN   := bin
  OBJ   := build
  TBIN  := tests/bin
else
  $(error VARIANT=$(VARIANT): known variants are asan (or none))
endif

HARNESS_HOST := harness/common/benches.c harness/common/bench_inputs.c harness/common/bench_reference.c harness/common/child.c harness/common/stats.c \
		harness/common/trust.c harness/common/expr.c harness/common/ops_file.c harness/common/suite_file.c harness/common/numbers.c harness/common/parse_options.c
ORCH_SRCS := $(wildcard orchestrator/*/*.c)
ORCH_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(ORCH_SRCS) $(HARNESS_HOST))
RUNNER_OBJS := $(OBJ)/harness/runner/runner_main.o $(OBJ)/harness/runner/runner_limits.o $(OBJ)/harness/runner/runner_check.o \
	       $(OBJ)/harness/runner/runner_timing.o $(OBJ)/harness/runner/runner_cell.o $(OBJ)/harness/runner/pages.o $(OBJ)/harness/common/benches.o \
	       $(OBJ)/harness/common/bench_inputs.o $(OBJ)/harness/common/bench_reference.o $(OBJ)/harness/runner/calibrate.o \
	       $(OBJ)/harness/common/child.o $(OBJ)/harness/common/trust.o $(OBJ)/harness/common/expr.o $(OBJ)/harness/common/ops_file.o \
	       $(OBJ)/harness/common/suite_file.o $(OBJ)/harness/common/numbers.o $(OBJ)/harness/common/parse_options.o

.PHONY: gpu-bundle all unit deps test-deps demo test check test-asan fuzz fuzz-build valgrind man man-deps install clean FORCE
all: $(BIN)/bench-versions $(BIN)/bv-runner
unit: $(TBIN)/unit

deps:
	@scripts/deps.sh build
test-deps:
	@scripts/deps.sh test

# -MMD: each object depends on exactly the headers it includes (the .d
# files the compiler writes beside it), so editing one header rebuilds only
# its users.
$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -MMD -MP -c $< -o $@
-include $(ORCH_OBJS:.o=.d) $(RUNNER_OBJS:.o=.d)

# --version names the commit it was built from, where there is one.  Only
# main.o gets it; a stamp file that changes only when the commit does makes
# a new commit rebuild main.o (and relink) and nothing else.
BV_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null)
$(OBJ)/commit-stamp: FORCE
	@mkdir -p $(OBJ)
	@echo '$(BV_COMMIT)' | cmp -s - $@ || echo '$(BV_COMMIT)' > $@
$(OBJ)/orchestrator/cli/main.o: override CFLAGS += -DBV_COMMIT='"$(BV_COMMIT)"'
$(OBJ)/orchestrator/cli/main.o: $(OBJ)/commit-stamp
FORCE:

$(BIN)/bench-versions: $(ORCH_OBJS)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BIN)/bv-runner: $(RUNNER_OBJS)
	@mkdir -p $(BIN)
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs libcjson) -ldl -lm

# The GPU check's bundle (tests/gpu/bundle.sh, run by tests/gpu/check.sh on a
# GPU machine): the two programs linked to find their libraries beside them
# (DT_RPATH, which also covers the libraries' own dependencies), the
# libraries, the kernels' cuda tests and figures, a clone with the A/A and
# planted branches.
GPU_RPATH := -Wl,--disable-new-dtags,-rpath,'$$ORIGIN/../lib'
gpu-bundle: $(ORCH_OBJS) $(RUNNER_OBJS)
	@test -z "$(VARIANT)" || { echo "gpu-bundle: the plain build only (not VARIANT=$(VARIANT))"; exit 2; }
	@mkdir -p gpu-bundle/bin
	$(CC) $(CFLAGS) -o gpu-bundle/bin/bench-versions $(ORCH_OBJS) $(PKG_LIBS) -lm $(GPU_RPATH)
	$(CC) $(CFLAGS) -o gpu-bundle/bin/bv-runner $(RUNNER_OBJS) $(shell pkg-config --libs libcjson) -ldl -lm $(GPU_RPATH)
	@tests/gpu/bundle.sh

# The embedded default: the first release of this repository's own kernel
# library against main and the working tree.
DEMO_ARGS ?= 0.1.0 main local --benches unary --ops abs,exp,relu,tanh --sizes 64K,1M --quick
demo: deps
	@$(MAKE) --no-print-directory all
	bin/bench-versions $(DEMO_ARGS)

# make test: everything, plus the unit tests and a subset of the e2e scripts
# (hostile input, faults, report, share, compare, export) under ASan/UBSan
# and each fuzz target briefly over its corpus
# (tests/run.sh; the whole suite under the sanitizers is make test-asan).
test: test-deps
	@$(MAKE) --no-print-directory check

# The three builds run CHECK_JOBS compiles at a time (one per CPU) unless
# make was given its own -j: on CI's 2 vCPUs, 142 s one at a time.
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS))
check:
	@s=$$(date +%s); \
	$(MAKE) --no-print-directory $(CHECK_J) all unit && \
	$(MAKE) --no-print-directory $(CHECK_J) VARIANT=asan all unit && \
	$(MAKE) --no-print-directory $(CHECK_J) fuzz-build && \
	echo "# builds of make test: $$(($$(date +%s) - s)) s"
	@tests/run.sh

test-asan: test-deps
	@$(MAKE) --no-print-directory VARIANT=asan all unit
	@BV_VARIANT=asan tests/run.sh

UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_OBJS := $(filter-out $(OBJ)/orchestrator/cli/main.o,$(ORCH_OBJS))
$(TBIN)/unit: $(UNIT_SRCS) $(UNIT_OBJS) tests/unit/tests.h
	@mkdir -p $(TBIN)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/unit -o $@ $(UNIT_SRCS) $(UNIT_OBJS) \
		$(PKG_LIBS) $(shell pkg-config --cflags --libs cmocka) -lm

# ---- fuzzing (clang's libFuzzer) -----------------------------------------
# One target per parser: tests/fuzz/fuzz_<parser>.c, seed corpus in
# tests/fuzz/corpus/<parser>/.  The orchestrator's objects are rebuilt with
# clang and coverage hooks into build-fuzz/; the targets go to tests/bin-fuzz/.
# Adding a parser: one file tests/fuzz/fuzz_<name>.c and its corpus directory.
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 60
FUZZ_SRCS    := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS    := $(patsubst tests/fuzz/%.c,tests/bin-fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS    := $(patsubst %.c,build-fuzz/%.o,$(filter-out orchestrator/cli/main.c,$(ORCH_SRCS)) $(HARNESS_HOST))

build-fuzz/%.o: %.c $(wildcard orchestrator/*/*.h harness/*/*.h) harness/common/ops.def
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -Wall -Wextra -D_GNU_SOURCE $(ORCH_INC) $(FUZZ_FLAGS) \
		-fsanitize=fuzzer-no-link $(PKG_CFLAGS) -c $< -o $@

tests/bin-fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	@mkdir -p tests/bin-fuzz
	$(FUZZ_CC) -std=c11 -Wall -Wextra -D_GNU_SOURCE $(ORCH_INC) -Itests/fuzz $(FUZZ_FLAGS) \
		-fsanitize=fuzzer $(PKG_CFLAGS) -o $@ $< $(FUZZ_OBJS) $(PKG_LIBS) -lm

fuzz-build: $(FUZZ_BINS)

fuzz: test-deps
	@$(MAKE) --no-print-directory fuzz-build
	@tests/fuzz/run.sh $(FUZZ_SECONDS)

valgrind:
	@scripts/deps.sh valgrind
	@$(MAKE) --no-print-directory all
	@bash tests/valgrind.sh

# ---- man pages and install ----------------------------------------------
# One man page per page of docs/cli/ (bench-versions(1) from
# docs/cli/bench-versions.md, bench-versions-run(1) from docs/cli/run.md ...),
# made by go-md2man, installed through scripts/deps.sh only when it is not
# on PATH.
MAN_SRCS  := $(wildcard docs/cli/*.md)
MAN_PAGES := $(patsubst docs/cli/%.md,man/%.1,$(MAN_SRCS))
man: $(MAN_PAGES)
man-deps:
	@scripts/deps.sh man
man/%.1: docs/cli/%.md scripts/man.sh $(BIN)/bench-versions | man-deps
	@mkdir -p man
	scripts/man.sh $< $@ $(BIN)/bench-versions

# What a version's plugin is compiled from at run time (orchestrator/build/build.c:
# harness_files, catalog_sources and catalog_files; the suite runtime):
# installed beside the tool, since the bundled catalog is built as a suite.
PLUGIN_SOURCES = harness/plugin/plugin.c harness/plugin/plugin.h harness/common/ops.def harness/plugin/bv_suite.h harness/plugin/suite_plugin.c \
	harness/plugin/suite_declarations.c harness/plugin/suite_api.c harness/plugin/catalog.c harness/common/benches.c harness/common/benches.h \
	harness/common/bench_inputs.c harness/common/bench_reference.c harness/common/bench_internal.h harness/common/expr.c harness/common/expr.h \
	harness/common/ops_table.h harness/common/ops_file.h

install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/bench-versions \
		$(DESTDIR)$(PREFIX)/share/bench-versions/harness $(DESTDIR)$(PREFIX)/share/bench-versions/compat/shims \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 644 man/bench-versions.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	for p in $(filter-out man/bench-versions.1,$(MAN_PAGES)); do \
		install -m 644 $$p $(DESTDIR)$(PREFIX)/share/man/man1/bench-versions-$$(basename $$p); done
	install -m 644 completion/bench-versions.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/bench-versions
	install -m 644 completion/_bench-versions $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_bench-versions
	install -m 755 bin/bench-versions $(DESTDIR)$(PREFIX)/bin/
	install -m 755 bin/bv-runner $(DESTDIR)$(PREFIX)/libexec/bench-versions/
	for f in $(PLUGIN_SOURCES); do install -D -m 644 $$f $(DESTDIR)$(PREFIX)/share/bench-versions/$$f; done
	install -m 644 compat/compat.json $(DESTDIR)$(PREFIX)/share/bench-versions/compat/
	if [ -d compat/shims ]; then cp -r compat/shims/. $(DESTDIR)$(PREFIX)/share/bench-versions/compat/shims/; fi
	if [ -d compat/patches ]; then install -d $(DESTDIR)$(PREFIX)/share/bench-versions/compat/patches && cp -r compat/patches/. $(DESTDIR)$(PREFIX)/share/bench-versions/compat/patches/; fi

clean:
	rm -rf bin build tests/bin bin-asan build-asan tests/bin-asan build-fuzz tests/bin-fuzz kernels/build man gpu-bundle
