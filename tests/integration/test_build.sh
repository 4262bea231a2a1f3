#!/usr/bin/env bash
# once: make -n and a make of its own; no build under test
# The Makefile: the user's CFLAGS/LDFLAGS/LDLIBS never drop the project's
# own flags (make -n -B, nothing is built), an edit to a file compiled in as
# data (scripts/embed.sh) rebuilds what holds it, and make install /
# uninstall with DESTDIR and PREFIX put in, and take out, exactly pacer's
# files.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
need_cmd pkg-config pkg-config || finish

# mk ARGS...: make in the repository as typed here, not as a sub-make of
# `make [SAN=1] test`, whose variables (exported to the tests) would leak in.
mk() {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u SAN -u CFLAGS -u LDFLAGS -u LDLIBS \
        -u PREFIX -u DESTDIR -u BINDIR -u MANDIR -u DOCDIR make -C "$ROOT" --no-print-directory "$@"
}

# has LINE WORD...: every WORD is a whole word of LINE.
has() {
    local line=" $1 " w
    shift
    for w in "$@"; do
        case $line in *" $w "*) ;; *) return 1 ;; esac
    done
}

PKG_I=$(pkg-config --cflags-only-I openssl zlib libnghttp2 luajit)
ok pkg_config_include_dir "pkg-config gave '$PKG_I'" "[ -n '$PKG_I' ]"

# The fuzz targets are built only by `make fuzz` (clang, CI's last step):
# each must still compile against today's headers, here with the system
# compiler (syntax only: no libFuzzer needed), so a changed struct fails
# this suite, not CI's fuzz step after it.
bad=
for f in "$ROOT"/tests/fuzz/*.c; do
    cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$ROOT/src" $PKG_I -fsyntax-only "$f" \
        >"$T_DIR/fuzz_syntax.log" 2>&1 || bad="$bad ${f##*/}: $(grep -m1 error "$T_DIR/fuzz_syntax.log")"
done
ok fuzz_targets_compile "$bad" "[ -z \"\$bad\" ] && [ -e '$ROOT/tests/fuzz/fuzz_cli.c' ]"
PKG_L=$(pkg-config --libs openssl zlib libnghttp2 luajit)

# --- layering: no cycle between src/ folders, no file over its length ------
# scripts/layers.sh on the tree, and on small trees made to fail each way.
# OpenSSL is the transport's (src/net/) alone, and what differs between
# protocols is a field or an operation of proto_ops, never an identity check.
ossl=$(cd "$ROOT" && grep -rlE '#include <openssl/' src | grep -v '^src/net/')
ok openssl_only_in_net "included by: $ossl" "[ -z '$ossl' ]"
# Nor is a transport compared by address (it is asked: net_ops.tls_info),
# and the engine and the protocols never branch on the --h2 / --h3 flags:
# the table (src/http/table.c) turns them into a row once (http_wanted).
IDENT_RE='(==|!=) *&(proto|net)_[a-z0-9_]+|[^_]&(proto_h[0-9]|net_[a-z]+_ops)\b|\b(cfg|run)->h[23]\b'
identity_checks() { # DIR: the offending lines, the table's own call to http_wanted excepted
    grep -rnE "$IDENT_RE" "$@" | grep -vE 'src/http/table\.c:|http_wanted\((cfg|run)->h2, (cfg|run)->h3\)'
}
ident=$(cd "$ROOT" && identity_checks src/engine src/http; cd "$ROOT" && grep -rnE '(==|!=) *&(proto|net)_[a-z0-9_]+' src)
ok no_protocol_identity_checks "$ident" "[ -z \"\$ident\" ] && [ -s '$ROOT/src/http/table.c' ]"
# ... and the grep finds each kind it looks for, planted in a copy.
mkdir -p "$T_DIR/ident"
printf '%s\n' 'if (c->net == &net_tls_ops)' 'if (run->h3)' 'c->net = &net_udp_ops;' \
    'x = cfg->h2 ? 1 : 0;' 'if (p != &proto_h2)' >"$T_DIR/ident/planted.c"
n=$(identity_checks "$T_DIR/ident" | wc -l)
ok identity_grep_finds_planted "found $n of 5 planted lines" "[ $n -eq 5 ]"
# Nothing in src/ is exempt from the limits.
out=$(cd "$ROOT" && sh scripts/layers.sh src 2>&1)
rc=$?
ok layers_src "exit $rc: $out" "[ $rc -eq 0 ] && echo '$out' | grep -q '^engine -> ' && ! echo '$out' | grep -q '^engine -> .*script'"
L="$T_DIR/layers"
mkdir -p "$L/a" "$L/b" "$L/engine"
echo '#include "b/y.h"' >"$L/a/x.h"
echo '#include "a/x.h"' >"$L/a/x.c"
: >"$L/b/y.h"
out=$(sh "$ROOT/scripts/layers.sh" "$L" 2>&1)
rc=$?
ok layers_one_way "exit $rc: $out" "[ $rc -eq 0 ] && echo '$out' | grep -q '^a -> b\$'"
echo '#include "a/x.h"' >"$L/b/y.h"
out=$(sh "$ROOT/scripts/layers.sh" "$L" 2>&1)
rc=$?
ok layers_cycle_fails "exit $rc: $out" "[ $rc -eq 1 ] && echo '$out' | grep -q '^cycle between folders: '"
: >"$L/b/y.h"
seq 901 >"$L/a/long.c"
out=$(sh "$ROOT/scripts/layers.sh" "$L" 2>&1)
rc=$?
ok layers_long_c_fails "exit $rc: $out" "[ $rc -eq 1 ] && echo '$out' | grep -q 'too long: $L/a/long.c has 901 lines'"
seq 900 >"$L/a/long.c"
seq 801 >"$L/engine/e.h"
out=$(sh "$ROOT/scripts/layers.sh" "$L" 2>&1)
rc=$?
ok layers_long_engine_fails "exit $rc: $out" "[ $rc -eq 1 ] && echo '$out' | grep -q 'too long: $L/engine/e.h has 801 lines' && ! echo '$out' | grep -q long.c"
rm "$L/engine/e.h"
out=$(sh "$ROOT/scripts/layers.sh" "$L" 2>&1)
rc=$?
ok layers_clean_passes "exit $rc: $out" "[ $rc -eq 0 ]"

# --- calls: no two engine files call each other in a loop ----------------
# scripts/calls.sh on the objects built of src/engine (nm: who calls whom),
# and on two tiny objects made to call each other.
EOBJ=${BUILD_DIR:-$ROOT/build}/obj/engine
objs=$(cd "$ROOT/src/engine" && for f in *.c; do echo "$EOBJ/${f%.c}.o"; done)
out=$(sh "$ROOT/scripts/calls.sh" $objs 2>&1)
rc=$?
ok engine_no_call_cycles "exit $rc: $out" "[ $rc -eq 0 ] && echo '$out' | grep -q '^worker -> .*queue'"
C="$T_DIR/calls"
mkdir -p "$C"
printf '%s\n' 'int b(int);' 'int a(int x) { return x ? b(x - 1) : 0; }' >"$C/a.c"
printf '%s\n' 'int a(int);' 'int b(int x) { return x ? a(x - 1) : 1; }' >"$C/b.c"
printf '%s\n' 'int a(int);' 'int c(int x) { return a(x); }' >"$C/c.c"
cc -c -o "$C/a.o" "$C/a.c" && cc -c -o "$C/b.o" "$C/b.c" && cc -c -o "$C/c.o" "$C/c.c"
out=$(sh "$ROOT/scripts/calls.sh" "$C" 2>&1)
rc=$?
ok calls_cycle_fails "exit $rc: $out" "[ $rc -eq 1 ] && echo '$out' | grep -q '^call cycle: a -> b -> a\$' && echo '$out' | grep -q '^c -> a\$'"
out=$(sh "$ROOT/scripts/calls.sh" "$C/a.o" "$C/c.o" 2>&1)
rc=$?
ok calls_one_way_passes "exit $rc: $out" "[ $rc -eq 0 ] && echo '$out' | grep -q '^c -> a\$'"

# the compile line of one object
cc_line() { mk -n -B "$@" | grep -E -- '-c -o [^ ]*/obj/cli/url\.o src/cli/url\.c'; }
line=$(cc_line build/obj/cli/url.o CFLAGS=-O3)
ok cflags_user_kept "$line" has "$line" -O3 -Isrc -Werror -Wall -Wextra -std=c11 $PKG_I -MMD
ok cflags_user_replaces_default "$line" "! has '$line' -O2 && ! has '$line' -g"
line=$(cc_line build/obj/cli/url.o)
ok cflags_default "$line" has "$line" -O2 -g -Isrc -Werror $PKG_I
line=$(cc_line SAN=1 build-san/obj/cli/url.o CFLAGS=-O3)
ok cflags_san_kept "$line" has "$line" -O3 -Isrc -Werror $PKG_I -fsanitize=address,undefined
line=$(cc_line SAN=1 build-san/obj/cli/url.o)
ok cflags_san_default "$line" has "$line" -O1 -g -fsanitize=address,undefined

# the link line of pacer
ld_line() { mk -n -B "$@" | grep -E -- ' -o (build-san/)?pacer '; }
line=$(ld_line pacer LDFLAGS=-Wl,-O1 LDLIBS=-lrt)
ok ldflags_user_kept "$(echo "$line" | tail -c 300)" has "$line" -Wl,-O1 -lrt $PKG_L -lpthread -lm
line=$(ld_line SAN=1 build-san/pacer LDFLAGS=-Wl,-O1)
ok ldflags_san_kept "$(echo "$line" | tail -c 300)" has "$line" -Wl,-O1 -fsanitize=address,undefined $PKG_L

# --- files compiled in as data (scripts/embed.sh) ----------------------------
# An edit to the page's script or style regenerates its C, compiles that and
# links pacer (make -n -W: as if the file had changed; nothing is built).
for f in src/report/html_render.js src/report/html_page.css; do
    for san in 0 1; do
        b=build; [ $san -eq 1 ] && b=build-san
        o=$(mk -n -W "$f" SAN=$san all)
        ok "embed_rebuilds_$(basename "$f" | tr . _)_san$san" "make -n -W $f SAN=$san: $(echo "$o" | grep -E 'gen/| -o [^ ]*pacer ' | cut -c 1-120 | tr '\n' '|')" \
            "echo \"\$o\" | grep -qF 'sh scripts/embed.sh $f >$b/gen/${f#src/}.c' &&
             echo \"\$o\" | grep -qE -- '-c -o $b/obj/gen/${f#src/}\.o $b/gen/${f#src/}\.c' &&
             echo \"\$o\" | grep -qE -- ' -o ($b/)?pacer .*$b/obj/gen/${f#src/}\.o'"
    done
done
# The C holds the file's bytes, every one of the 256, and their number.
E="$T_DIR/embed"; mkdir -p "$E"
LC_ALL=C awk 'BEGIN { for (i = 255; i >= 0; i--) printf "%c", i; printf "tail, no newline" }' </dev/null >"$E/all_bytes.bin"
printf '#include <stdio.h>\nextern const char pc_all_bytes_bin[];\nextern const size_t pc_all_bytes_bin_len;\n%s\n' \
    'int main(void) { return fwrite(pc_all_bytes_bin, 1, pc_all_bytes_bin_len, stdout) != pc_all_bytes_bin_len || pc_all_bytes_bin[pc_all_bytes_bin_len] != 0; }' >"$E/main.c"
sh "$ROOT/scripts/embed.sh" "$E/all_bytes.bin" >"$E/all_bytes.c" 2>"$E/embed.err" &&
    cc -std=c11 -Wall -Wextra -Werror -o "$E/roundtrip" "$E/main.c" "$E/all_bytes.c" 2>>"$E/embed.err" &&
    "$E/roundtrip" >"$E/out.bin" 2>>"$E/embed.err"
rc=$?
ok embed_bytes_exact "exit $rc, $(wc -c <"$E/all_bytes.bin") bytes in, $(wc -c <"$E/out.bin" 2>/dev/null) out: $(head -3 "$E/embed.err")" \
    "[ $rc -eq 0 ] && [ \$(wc -c <'$E/all_bytes.bin') -eq 272 ] && cmp -s '$E/all_bytes.bin' '$E/out.bin'"
# What would end the page's <script> or <style> early is refused, in one line.
n=0
for bad in "x = '</script>';" "/* </STYLE > */" "a <!-- b"; do
    n=$((n + 1))
    printf 'var a = 1;\n%s\n' "$bad" >"$E/bad$n.js"
    out=$(sh "$ROOT/scripts/embed.sh" "$E/bad$n.js" 2>&1 >"$E/bad$n.c")
    rc=$?
    ok "embed_refuses_$n" "exit $rc for '$bad': $out" \
        "[ $rc -eq 1 ] && [ \$(printf '%s\n' \"\$out\" | wc -l) -eq 1 ] && printf '%s' \"\$out\" | grep -q '^embed.sh: .*bad$n.js: holds'"
done

# --- make install / uninstall -------------------------------------------------
# make test built ./pacer before the tests: install that one as it is (-o),
# rather than rebuild it should a source be newer. Without one (make SAN=1
# test alone), install builds it.
KEEP=""
[ -x "$ROOT/pacer" ] && KEEP="-o pacer"
D="$T_DIR/destdir"
mk install $KEEP DESTDIR="$D" PREFIX=/usr >"$T_DIR/install.log" 2>&1
rc=$?
files=$(cd "$D" 2>/dev/null && find . ! -type d | sort | tr '\n' ' ')
want="./usr/bin/pacer ./usr/share/bash-completion/completions/pacer ./usr/share/doc/pacer/distributed.md ./usr/share/doc/pacer/methodology.md \
./usr/share/doc/pacer/output.md ./usr/share/doc/pacer/pacer-result.schema.json \
./usr/share/doc/pacer/pacer-workflow.schema.json ./usr/share/doc/pacer/pacer.md \
./usr/share/doc/pacer/reading-the-report.md ./usr/share/doc/pacer/scripting.md ./usr/share/doc/pacer/server-cost.md \
./usr/share/man/man1/pacer.1 ./usr/share/zsh/vendor-completions/_pacer "
ok install_files "exit $rc, files: $files $(tail -3 "$T_DIR/install.log")" "[ $rc -eq 0 ] && [ '$files' = '$want' ]"
ok install_binary_runs "$("$D/usr/bin/pacer" --version 2>&1 | head -1)" "[ -x '$D/usr/bin/pacer' ] && '$D/usr/bin/pacer' --version >/dev/null 2>&1"
ok install_modes "$(stat -c '%a %n' "$D/usr/bin/pacer" "$D/usr/share/man/man1/pacer.1" "$D/usr/share/doc/pacer/pacer.md" 2>&1 | tr '\n' ' ')" \
    "[ \"\$(stat -c %a '$D/usr/bin/pacer' '$D/usr/share/man/man1/pacer.1' '$D/usr/share/doc/pacer/pacer.md' | tr '\n' ' ')\" = '755 644 644 ' ]"
# Every file the installed man page names is installed, under PREFIX (not
# DESTDIR, not the source tree's docs/).
refs=$(grep -oE '/[a-zA-Z0-9_./-]+\.(md|json)|docs/[a-zA-Z0-9_.-]+' "$D/usr/share/man/man1/pacer.1" 2>/dev/null | sort -u)
bad=""
for r in $refs; do
    case $r in /usr/share/doc/pacer/*) [ -f "$D$r" ] || bad="$bad $r" ;; *) bad="$bad $r" ;; esac
done
ok man_page_points_at_installed_docs "refs: $(echo $refs); not installed:$bad" "[ -n '$refs' ] && [ -z '$bad' ]"
ok man_page_has_the_reference "$(grep -n 'pacer.md' "$D/usr/share/man/man1/pacer.1" 2>&1)" \
    grep -q '/usr/share/doc/pacer/pacer\.md' "$D/usr/share/man/man1/pacer.1"
ok install_docs_unchanged "docs differ from docs/" "cmp -s '$ROOT/docs/pacer.md' '$D/usr/share/doc/pacer/pacer.md' && cmp -s '$ROOT/docs/output.md' '$D/usr/share/doc/pacer/output.md'"

# Something else in the same directories stays.
mkdir -p "$D/usr/bin" && : >"$D/usr/bin/other"
mk uninstall DESTDIR="$D" PREFIX=/usr >"$T_DIR/uninstall.log" 2>&1
rc=$?
left=$(cd "$D" && find . ! -type d | sort | tr '\n' ' ')
ok uninstall_removes_exactly "exit $rc, left: $left $(tail -3 "$T_DIR/uninstall.log")" "[ $rc -eq 0 ] && [ '$left' = './usr/bin/other ' ]"
ok uninstall_doc_dir_gone "$(ls -d "$D/usr/share/doc/pacer" 2>&1)" "[ ! -e '$D/usr/share/doc/pacer' ]"
mk uninstall DESTDIR="$D" PREFIX=/usr >"$T_DIR/uninstall2.log" 2>&1
rc=$?
ok uninstall_twice "exit $rc: $(tail -3 "$T_DIR/uninstall2.log")" "[ $rc -eq 0 ]"

# PREFIX alone (no DESTDIR) goes where it says.
P="$T_DIR/prefix"
mk install $KEEP PREFIX="$P" >"$T_DIR/install3.log" 2>&1
rc=$?
ok install_prefix "exit $rc: $(cd "$P" 2>/dev/null && find . ! -type d | sort | tr '\n' ' ')" \
    "[ $rc -eq 0 ] && [ -x '$P/bin/pacer' ] && [ -f '$P/share/doc/pacer/pacer.md' ] && grep -q '$P/share/doc/pacer/pacer.md' '$P/share/man/man1/pacer.1'"
mk uninstall PREFIX="$P" >/dev/null 2>&1
left=$(cd "$P" && find . ! -type d | sort | tr '\n' ' ')
ok uninstall_prefix "left: $left" "[ -z '$left' ]"

finish
