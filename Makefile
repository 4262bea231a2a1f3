# pacer - an HTTP load generator.
#
#   make            build ./pacer
#   make test       install missing deps, build, run unit + integration tests
#   make demo       install missing build deps, build, benchmark `pacer serve`
#   make install    [PREFIX=/usr/local] [DESTDIR=...]: pacer, its man page, its docs,
#                   its bash and zsh completions
#   make uninstall  remove what make install put there (same PREFIX, DESTDIR)
#   make install-personas  install, plus links wrk, wrk2, ab, h2load, hey -> pacer
#                   (each runs that tool's command line: docs/pacer.md, Personas)
#   make SAN=1 ...  build with ASan + UBSan (into build-san/)
#   make fuzz-smoke run every fuzz target for FUZZ_SECONDS (default 20) each
#                   (-j2: two targets at once)
#   make ci         what CI runs: test, SAN=1 test, fuzz-smoke
#
#   make deb        build the Debian packages pacer and pacer-personas into deb/
#                   (dpkg-buildpackage from debian/; needs debhelper)
#
# CFLAGS (default -O2 -g; -O1 -g with SAN=1), CPPFLAGS, LDFLAGS and LDLIBS are yours:
# `make CFLAGS=-O3` replaces them, and the project's own flags (C11, the
# warnings, -Isrc, pkg-config's, the sanitizers) are added all the same.

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/pacer
# Where bash-completion and Debian's zsh look for completions.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/vendor-completions
CC      ?= cc
include libs.mk
PKGS    := $(PACER_PKGS)
SAN     ?= 0

ifeq ($(SAN),1)
BUILD   := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT     := -O1
else
BUILD   := build
SANFLAGS :=
OPT     := -O2
endif

# MPI (docs/distributed.md): with Open MPI's headers (libopenmpi-dev) pacer
# runs under mpirun, loading libmpi at run time only then (dlopen: a plain
# run never loads it); MPI=0 builds without. Only src/mpi/glue.c sees them.
MPI     ?= $(shell pkg-config --exists ompi-c 2>/dev/null && echo 1 || echo 0)
ifeq ($(MPI),1)
MPI_SONAME := $(shell objdump -p "$$(pkg-config --variable=libdir ompi-c)/libmpi.so" 2>/dev/null | awk '/SONAME/ {print $$2}')
MPI_CFLAGS := -DPACER_MPI=1 $(if $(MPI_SONAME),-DPACER_LIBMPI='"$(MPI_SONAME)"') $(shell pkg-config --cflags ompi-c)
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo $(PACER_LIBS_ANY))

# The user's flags (CFLAGS, CPPFLAGS, LDFLAGS, LDLIBS), kept apart from what the build
# always adds (FINAL_*); the user's come last, so their -O or -Wno-... wins.
CFLAGS  ?= $(OPT) -g
CPPFLAGS ?=
LDFLAGS ?=
LDLIBS  ?=
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
FINAL_CFLAGS  = -std=c11 -D_GNU_SOURCE $(WARN) -Isrc $(PKG_CFLAGS) $(SANFLAGS) -MMD -MP $(CPPFLAGS) $(CFLAGS)
FINAL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
FINAL_LIBS    = $(LDLIBS) $(PKG_LIBS) -lpthread -lm

SRC      := $(shell find src -name '*.c' | sort)
# Every .js and .css under src/ is compiled in as data (the HTML page's
# scripts and style): scripts/embed.sh writes src/DIR/F.EXT as C into
# $(BUILD)/gen/DIR/F.EXT.c, defining pc_F_EXT[] and pc_F_EXT_len.
EMBED    := $(shell find src -name '*.js' -o -name '*.css' | sort)
EMBED_C  := $(EMBED:src/%=$(BUILD)/gen/%.c)
EMBED_OBJ := $(EMBED:src/%=$(BUILD)/obj/gen/%.o)
OBJ      := $(SRC:src/%.c=$(BUILD)/obj/%.o) $(EMBED_OBJ)
LIBOBJ   := $(filter-out $(BUILD)/obj/main.o,$(OBJ))
UNIT_SRC := $(shell find tests/unit -name 'test_*.c' | sort)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)

ifeq ($(SAN),1)
PACER_BIN := $(BUILD)/pacer
all: $(PACER_BIN)
else
PACER_BIN := pacer
all: pacer
endif

$(PACER_BIN): $(OBJ)
	$(CC) $(FINAL_LDFLAGS) -o $@ $^ $(FINAL_LIBS)

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(FINAL_CFLAGS) -c -o $@ $<

# Only the MPI glue sees Open MPI's headers; it is rebuilt when MPI= changes.
$(BUILD)/obj/mpi/glue.o: FINAL_CFLAGS += $(MPI_CFLAGS)
$(BUILD)/obj/mpi/glue.o: $(BUILD)/mpi-flags
$(BUILD)/mpi-flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(MPI_CFLAGS)' | cmp -s - $@ || echo '$(MPI_CFLAGS)' >$@
FORCE:

# Static pattern rules: the generated sources are named, so make keeps them.
$(EMBED_C): $(BUILD)/gen/%.c: src/% scripts/embed.sh
	@mkdir -p $(dir $@)
	sh scripts/embed.sh $< >$@.tmp && mv $@.tmp $@

$(EMBED_OBJ): $(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(FINAL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(LIBOBJ)
	@mkdir -p $(dir $@)
	$(CC) $(FINAL_CFLAGS) -Itests/unit -o $@ $< $(LIBOBJ) $(FINAL_LDFLAGS) $(FINAL_LIBS)

# A protocol driven alone (tests/unit/http/): the test #includes the file
# under test and is its own fake engine (tests/unit/http/fake_engine.h);
# everything else comes from an archive without the engine and the
# protocols, so the linker takes only what the protocol itself uses (and
# a protocol that reached into the engine would not link). The shorter
# stem makes this rule win over the one above.
ALONE_OBJ := $(filter-out $(BUILD)/obj/engine/% $(BUILD)/obj/http/%,$(LIBOBJ))
$(BUILD)/alone.a: $(ALONE_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/http/%: tests/unit/http/%.c tests/unit/http/fake_engine.h $(BUILD)/alone.a \
                       $(wildcard src/http/*.c src/http/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(FINAL_CFLAGS) -Itests/unit -o $@ $< src/http/common.c $(BUILD)/alone.a \
	    $(FINAL_LDFLAGS) $(FINAL_LIBS)

$(BUILD)/tools/%: tests/tools/%.c tests/tools/tool_util.h $(LIBOBJ)
	@mkdir -p $(dir $@)
	$(CC) $(FINAL_CFLAGS) -o $@ $< $(LIBOBJ) $(FINAL_LDFLAGS) $(FINAL_LIBS)

deps:
	@scripts/deps.sh

deps-build:
	@scripts/deps.sh build

unit: $(UNIT_BIN)

tools: $(TOOL_BIN)

test: deps
	@$(MAKE) --no-print-directory all unit tools
	@BUILD=$(BUILD) PACER=$(abspath $(PACER_BIN)) tests/run.sh

demo: deps-build
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh ./pacer

# The docs the man page and each other point to (docs/NAME, which the
# installed man page calls $(DOCDIR)/NAME).
DOCS := docs/pacer.md docs/output.md docs/reading-the-report.md docs/methodology.md docs/scripting.md \
        docs/distributed.md docs/server-cost.md \
        docs/pacer-result.schema.json docs/pacer-workflow.schema.json

install: pacer
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)
	install -m 755 pacer $(DESTDIR)$(BINDIR)/pacer
	sed 's|docs/|$(DOCDIR)/|g' docs/pacer.1 >$(DESTDIR)$(MANDIR)/man1/pacer.1
	chmod 644 $(DESTDIR)$(MANDIR)/man1/pacer.1
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 644 contrib/completion/pacer.bash $(DESTDIR)$(BASHCOMPDIR)/pacer
	install -m 644 contrib/completion/_pacer $(DESTDIR)$(ZSHCOMPDIR)/_pacer

# Links named after other tools run pacer with that tool's command line
# (argv[0], as busybox): only when asked, and never over a file of that
# name that is not already such a link (the real tool stays).
PERSONAS := wrk wrk2 ab h2load hey

install-personas: install
	@for p in $(PERSONAS); do \
	    l=$(DESTDIR)$(BINDIR)/$$p; \
	    if [ -e "$$l" ] && [ "$$(readlink "$$l")" != pacer ]; then \
	        echo "install-personas: $$l exists and is not a link to pacer: left alone" >&2; \
	    else \
	        echo "ln -sf pacer $$l"; ln -sf pacer "$$l" || exit 1; \
	    fi; \
	done

# The persona links only (those that point at pacer).
uninstall-personas:
	@for p in $(PERSONAS); do \
	    l=$(DESTDIR)$(BINDIR)/$$p; \
	    if [ "$$(readlink "$$l")" = pacer ]; then echo "rm -f $$l"; rm -f "$$l"; fi; \
	done

# Exactly what install (and install-personas) put there; the directories
# bin/ and man1/ are shared with other programs and stay, pacer's own doc
# directory goes.
uninstall: uninstall-personas
	rm -f $(DESTDIR)$(BINDIR)/pacer $(DESTDIR)$(MANDIR)/man1/pacer.1
	rm -f $(addprefix $(DESTDIR)$(DOCDIR)/,$(notdir $(DOCS)))
	-rmdir $(DESTDIR)$(DOCDIR) 2>/dev/null
	rm -f $(DESTDIR)$(BASHCOMPDIR)/pacer $(DESTDIR)$(ZSHCOMPDIR)/_pacer

clean:
	rm -rf build build-san build-fuzz pacer

# The Debian packages (debian/): dpkg-buildpackage writes them next to the
# source tree; they are moved into deb/. DEB_BUILD_OPTIONS=nocheck skips
# the unit tests that debian/rules runs.
deb:
	@command -v dpkg-buildpackage >/dev/null && [ -e /usr/share/perl5/Debian/Debhelper/Dh_Lib.pm ] || \
	    { echo "make deb: needs dpkg-dev and debhelper (apt-get install dpkg-dev debhelper)" >&2; exit 1; }
	dpkg-buildpackage -b -us -uc
	@v=$$(dpkg-parsechangelog -S Version); mkdir -p deb; \
	for f in ../pacer_$${v}_*.deb ../pacer-personas_$${v}_*.deb ../pacer_$${v}_*.buildinfo ../pacer_$${v}_*.changes \
	         ../pacer-dbgsym_$${v}_*.deb; do \
	    [ -e "$$f" ] && mv "$$f" deb/; \
	done; ls deb/*.deb

# Everything CI checks, with one closing "N passed, N failed" line.
ci:
	@tests/ci.sh

# FORCE: always considered changed (the MPI flags file compares itself).
.PHONY: FORCE all deps deps-build unit tools test demo install uninstall install-personas \
        uninstall-personas clean ci deb

# Fuzz targets (clang libFuzzer): make fuzz, make fuzz-smoke [FUZZ_SECONDS=20]
include tests/fuzz/fuzz.mk

-include $(OBJ:.o=.d) $(UNIT_BIN:=.d)
