# fuzz.mk - libFuzzer targets for pacer's parsers. Works on its own or
# included from the top-level Makefile; every name here starts with fuzz/FUZZ.
#
#   make -f tests/fuzz/fuzz.mk fuzz          build build-fuzz/fuzz_<name> for
#                                            every tests/fuzz/fuzz_<name>.c
#   make -f tests/fuzz/fuzz.mk fuzz-smoke    build, then run each for
#                                            FUZZ_SECONDS (default 20) over a
#                                            copy of tests/fuzz/corpus/<name>
#   make -f tests/fuzz/fuzz.mk fuzz-clean    remove build-fuzz/
#
# fuzz-smoke prints one line per target (with -j2 two run at once, and
# the lines come in the order they end), "PASS fuzz_<name>: N runs in S s"
# or "FAIL fuzz_<name>: <why> (input: <file>, log: <file>)", and fails when
# any target crashed, leaked, timed out or ran out of memory. The input
# that did it is kept under build-fuzz/artifacts/, the log under
# build-fuzz/logs/. FUZZ_ONLY=url,cli runs only those targets.
#
# The compiler is FUZZ_CC (default clang); tests/fuzz/ensure-clang.sh checks
# that it can build libFuzzer programs and installs clang with apt-get when
# it cannot. Each fuzz binary links every pacer source but src/main.c (and
# the .js and .css compiled in as data), all built once with the fuzzer's
# instrumentation and sanitizers. Everything built goes under build-fuzz/
# (FUZZ_OUT), which git is told to ignore.

# Where this file is, hence the repository root (relative when make runs
# there, as it normally does).
FUZZ_MK   := $(lastword $(MAKEFILE_LIST))
FUZZ_ROOT := $(abspath $(dir $(FUZZ_MK))/../..)
# FUZZ_R prefixes repository paths: empty at the root, where make runs
# (make drops a leading "./" from targets, so "./" would not do).
ifeq ($(FUZZ_ROOT),$(CURDIR))
FUZZ_R    :=
else
FUZZ_R    := $(FUZZ_ROOT)/
endif
# Included before the includer's first target, this file must not take the
# default goal from it; on its own, its default is `fuzz`.
FUZZ_SAVED_GOAL := $(.DEFAULT_GOAL)

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 20
FUZZ_OUT     ?= $(FUZZ_R)build-fuzz
FUZZ_ONLY    ?=
FUZZ_COMMA   := ,
include $(FUZZ_R)libs.mk
FUZZ_PKGS    := $(PACER_PKGS)
FUZZ_FLAGS   := -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
                -I$(FUZZ_R)src $(shell pkg-config --cflags $(FUZZ_PKGS) 2>/dev/null)
FUZZ_WARN    ?= -Wall -Wextra
FUZZ_LIBS    := $(shell pkg-config --libs $(FUZZ_PKGS) 2>/dev/null || echo $(PACER_LIBS_ANY)) \
                -lpthread -lm
FUZZ_RUNFLAGS ?= -timeout=10 -rss_limit_mb=1024 -max_len=65536

FUZZ_LIB_SRC := $(sort $(filter-out $(FUZZ_R)src/main.c,$(shell find $(FUZZ_R)src -name '*.c')))
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:$(FUZZ_R)%.c=$(FUZZ_OUT)/obj/%.o)
# The .js and .css files compiled in as data, as the Makefile does (EMBED).
FUZZ_EMBED   := $(sort $(shell find $(FUZZ_R)src -name '*.js' -o -name '*.css'))
FUZZ_EMBED_C := $(FUZZ_EMBED:$(FUZZ_R)src/%=$(FUZZ_OUT)/gen/%.c)
FUZZ_EMBED_OBJ := $(FUZZ_EMBED:$(FUZZ_R)src/%=$(FUZZ_OUT)/obj/gen/%.o)
FUZZ_SRC     := $(sort $(wildcard $(FUZZ_R)tests/fuzz/fuzz_*.c))
FUZZ_NAMES   := $(FUZZ_SRC:$(FUZZ_R)tests/fuzz/fuzz_%.c=%)
ifneq ($(strip $(FUZZ_ONLY)),)
FUZZ_NAMES   := $(filter $(subst $(FUZZ_COMMA), ,$(FUZZ_ONLY)),$(FUZZ_NAMES))
endif
FUZZ_BIN     := $(FUZZ_NAMES:%=$(FUZZ_OUT)/fuzz_%)
FUZZ_OBJ     := $(FUZZ_NAMES:%=$(FUZZ_OUT)/obj/tests/fuzz/fuzz_%.o)

fuzz: $(FUZZ_BIN)

# build-fuzz/ ignores itself, so no `git add -A` picks up what is built.
$(FUZZ_OUT)/.gitignore:
	@mkdir -p $(@D)
	@echo '*' >$@

fuzz-ensure-clang: | $(FUZZ_OUT)/.gitignore
	@FUZZ_CC='$(FUZZ_CC)' sh $(FUZZ_R)tests/fuzz/ensure-clang.sh '$(FUZZ_CC)'

$(FUZZ_LIB_OBJ): $(FUZZ_OUT)/obj/%.o: $(FUZZ_R)%.c | fuzz-ensure-clang
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_EMBED_C): $(FUZZ_OUT)/gen/%.c: $(FUZZ_R)src/% $(FUZZ_R)scripts/embed.sh | $(FUZZ_OUT)/.gitignore
	@mkdir -p $(@D)
	sh $(FUZZ_R)scripts/embed.sh $< >$@.tmp && mv $@.tmp $@

$(FUZZ_EMBED_OBJ): $(FUZZ_OUT)/obj/gen/%.o: $(FUZZ_OUT)/gen/%.c | fuzz-ensure-clang
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -MMD -MP -c -o $@ $<

$(FUZZ_OBJ): $(FUZZ_OUT)/obj/%.o: $(FUZZ_R)%.c | fuzz-ensure-clang
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_WARN) -MMD -MP -c -o $@ $<

$(FUZZ_BIN): $(FUZZ_OUT)/fuzz_%: $(FUZZ_OUT)/obj/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ) $(FUZZ_EMBED_OBJ)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $^ $(FUZZ_LIBS)

# Each target is one process and its own rule, fuzz-smoke-NAME, so that
# `make -j2 fuzz-smoke` runs two at once (one a core); every one waits for
# all the binaries, so no fuzzing time goes to the compiler. The corpus is
# copied so the run never writes into the repository. A target's rule
# prints its PASS/FAIL line as it ends (with -j, in the order they end) and
# keeps it in logs/fuzz_NAME.result; it always succeeds, so that every
# target runs, and fuzz-smoke fails if any of those lines is a FAIL.
FUZZ_SMOKE := $(FUZZ_NAMES:%=fuzz-smoke-%)

fuzz-smoke: $(FUZZ_SMOKE)
	@out='$(FUZZ_OUT)'; fail=0; \
	for n in $(FUZZ_NAMES); do \
	    grep -q '^PASS ' "$$out/logs/fuzz_$$n.result" 2>/dev/null || fail=1; \
	done; \
	exit $$fail

$(FUZZ_SMOKE): fuzz-smoke-%: $(FUZZ_BIN)
	@out='$(FUZZ_OUT)'; n='$*'; \
	mkdir -p "$$out/logs" "$$out/artifacts"; \
	corpus="$$out/corpus/$$n"; log="$$out/logs/fuzz_$$n.log"; res="$$out/logs/fuzz_$$n.result"; \
	rm -rf "$$corpus" "$$res" "$$out/artifacts/fuzz_$$n-"*; mkdir -p "$$corpus"; \
	if [ -d '$(FUZZ_R)'tests/fuzz/corpus/$$n ]; then \
	    cp -R '$(FUZZ_R)'tests/fuzz/corpus/$$n/. "$$corpus"/; fi; \
	start=$$(date +%s); \
	UBSAN_OPTIONS=$${UBSAN_OPTIONS:-print_stacktrace=1} \
	timeout -k 10 $$(( $(FUZZ_SECONDS) + 120 )) "$$out/fuzz_$$n" \
	    -max_total_time=$(FUZZ_SECONDS) $(FUZZ_RUNFLAGS) \
	    -artifact_prefix="$$out/artifacts/fuzz_$$n-" "$$corpus" >"$$log" 2>&1; \
	rc=$$?; secs=$$(( $$(date +%s) - start )); \
	runs=$$(sed -n 's/^Done \([0-9]*\) runs in.*/\1/p' "$$log" | tail -n 1); \
	if [ $$rc -eq 0 ] && [ -n "$$runs" ]; then \
	    echo "PASS fuzz_$$n: $$runs runs in $$secs s" | tee "$$res"; \
	else \
	    why=$$(grep -m 1 -E '^==[0-9]+== ?ERROR|^SUMMARY:|runtime error:' "$$log" \
	          | sed -e 's/^==[0-9]*== *//' | cut -c 1-160); \
	    at=$$(grep -m 1 -E '^ *#[0-9]+ 0x[0-9a-f]+ in [^ ]+ ([^ ]*/)?(src|tests/fuzz)/' "$$log" \
	          | sed -e 's/^ *#[0-9]* 0x[0-9a-f]* in \([^ ]*\) \(.*\)$$/\1 \2/'); \
	    [ -n "$$why" ] || why="exit status $$rc"; \
	    [ -z "$$at" ] || why="$$why at $$at"; \
	    [ $$rc -eq 124 ] || [ $$rc -eq 137 ] && why="killed after $$secs s (hung)"; \
	    art=$$(sed -n 's/.*Test unit written to \(.*\)$$/\1/p' "$$log" | tail -n 1); \
	    echo "FAIL fuzz_$$n: $$why (input: $${art:-none}, log: $$log)" | tee "$$res"; \
	fi

fuzz-clean:
	rm -rf $(FUZZ_OUT)

.PHONY: fuzz fuzz-smoke $(FUZZ_SMOKE) fuzz-clean fuzz-ensure-clang

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_EMBED_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d)

ifeq ($(FUZZ_SAVED_GOAL),)
ifeq ($(firstword $(MAKEFILE_LIST)),$(FUZZ_MK))
.DEFAULT_GOAL := fuzz
else
.DEFAULT_GOAL :=
endif
else
.DEFAULT_GOAL := $(FUZZ_SAVED_GOAL)
endif
