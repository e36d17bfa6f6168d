# bench-versions: compare versions of a kernel library, with verdicts that
# survive a noisy machine.
#
#   make            build bin/bench-versions and bin/bv-runner
#   make demo       install what is missing, build, compare kernels releases
#   make test       install what is missing, build, run every test
#   make install PREFIX=/usr/local
#   make clean

PREFIX  ?= /usr/local
CC      ?= cc
CFLAGS  ?= -O2 -g
override CFLAGS += -std=c11 -Wall -Wextra -D_GNU_SOURCE -Iorchestrator -Iharness
PKGS    := libgit2 libcurl libcjson libarchive libcrypto
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

HARNESS_HOST := harness/benches.c harness/stats.c
ORCH_SRCS := $(wildcard orchestrator/*.c)
ORCH_OBJS := $(patsubst %.c,build/%.o,$(ORCH_SRCS) $(HARNESS_HOST))
RUNNER_OBJS := build/harness/runner.o build/harness/benches.o build/harness/calibrate.o

.PHONY: all deps test-deps demo test install clean kernels-test
all: bin/bench-versions bin/bv-runner

deps:
	@scripts/deps.sh build
test-deps:
	@scripts/deps.sh test

build/%.o: %.c $(wildcard orchestrator/*.h harness/*.h) harness/ops.def
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c $< -o $@

bin/bench-versions: $(ORCH_OBJS)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(PKG_LIBS) -lm

bin/bv-runner: $(RUNNER_OBJS)
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $^ $(shell pkg-config --libs libcjson) -ldl -lm

# The embedded default: the first release of this repository's own kernel
# library against main and the working tree.
DEMO_ARGS ?= 0.1.0 main local --benches unary --ops abs,exp,relu,tanh --sizes 64K,1M --quick
demo: deps
	@$(MAKE) --no-print-directory all
	bin/bench-versions $(DEMO_ARGS)

test: test-deps
	@$(MAKE) --no-print-directory all tests/bin/unit
	@tests/run.sh

UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_OBJS := $(filter-out build/orchestrator/main.o,$(ORCH_OBJS))
tests/bin/unit: $(UNIT_SRCS) $(UNIT_OBJS) tests/unit/tests.h
	@mkdir -p tests/bin
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -Itests/unit -o $@ $(UNIT_SRCS) $(UNIT_OBJS) \
		$(PKG_LIBS) $(shell pkg-config --cflags --libs cmocka) -lm

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/bench-versions \
		$(DESTDIR)$(PREFIX)/share/bench-versions/harness $(DESTDIR)$(PREFIX)/share/bench-versions/compat/shims
	install -m 755 bin/bench-versions $(DESTDIR)$(PREFIX)/bin/
	install -m 755 bin/bv-runner $(DESTDIR)$(PREFIX)/libexec/bench-versions/
	install -m 644 harness/plugin.c harness/plugin.h harness/ops.def $(DESTDIR)$(PREFIX)/share/bench-versions/harness/
	install -m 644 compat/compat.json $(DESTDIR)$(PREFIX)/share/bench-versions/compat/
	if [ -d compat/shims ]; then cp -r compat/shims/. $(DESTDIR)$(PREFIX)/share/bench-versions/compat/shims/; fi
	if [ -d compat/patches ]; then install -d $(DESTDIR)$(PREFIX)/share/bench-versions/compat/patches && cp -r compat/patches/. $(DESTDIR)$(PREFIX)/share/bench-versions/compat/patches/; fi

clean:
	rm -rf bin build tests/bin kernels/build
