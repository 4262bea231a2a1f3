#!/usr/bin/env bash
# once: the package is compiled here from the sources, with its own flags
# The Debian packages (make deb, debian/): they build from a copy of this
# tree, lintian finds nothing, they hold what `make install` installs (the
# binary hardened, its libraries as dependencies), and the binary and the
# persona links they hold run. Nothing is installed on this machine: the
# packages are unpacked with dpkg -x into the test's directory.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
need_cmd dpkg-buildpackage dpkg-dev
need_cmd dh debhelper
need_cmd lintian lintian
need_cmd git git
need_cmd readelf binutils

# The tree as a clone would have it (tracked files and new ones not
# ignored), so that dpkg-buildpackage's ../ is this test's directory.
SRC="$T_DIR/src/pacer"
mkdir -p "$SRC"
(cd "$ROOT" && git ls-files -co --exclude-standard -z | tar --null -cf - -T -) | tar -xf - -C "$SRC"
# Not the make that runs this suite's flags (`make SAN=1 test` passes SAN=1
# down through MAKEFLAGS): the package is built as a user would build it,
# at the lowest priority, so that its compile does not take the CPU from
# the files running beside it (their checks bound time and rate).
(cd "$SRC" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SAN DEB_BUILD_OPTIONS="nocheck parallel=2" \
    timeout 480 nice -n 19 make deb) >"$T_DIR/build.log" 2>&1
rc=$?
version=$(cd "$SRC" && dpkg-parsechangelog -S Version)
DEB="$SRC/deb/pacer_${version}_$(dpkg --print-architecture).deb"
PERS="$SRC/deb/pacer-personas_${version}_all.deb"
ok deb_builds "make deb exited $rc: $(tail -5 "$T_DIR/build.log" | tr '\n' ' ')" \
    "[ $rc -eq 0 ] && [ -f '$DEB' ] && [ -f '$PERS' ]"
# The package's version is the program's.
ok deb_version_is_pacers "changelog $version, $(grep -m1 PACER_VERSION "$ROOT/src/config.h")" \
    "grep -q '#define PACER_VERSION \"$version\"' '$ROOT/src/config.h'"

lintian "$DEB" "$PERS" >"$T_DIR/lintian.out" 2>&1
lrc=$?
grep -v 'running with root privileges is not recommended' "$T_DIR/lintian.out" >"$T_DIR/lintian.tags"
ok deb_lintian_clean "lintian exited $lrc: $(head -5 "$T_DIR/lintian.tags" | tr '\n' ' ')" \
    "[ $lrc -eq 0 ] && ! grep -qE '^[EWIP]: ' '$T_DIR/lintian.tags'"

dpkg-deb -c "$DEB" >"$T_DIR/contents" 2>&1
has() { grep -qE " \./$1( |\$)" "$T_DIR/contents"; }
missing=""
for f in usr/bin/pacer usr/share/man/man1/pacer.1.gz \
    usr/share/bash-completion/completions/pacer usr/share/zsh/vendor-completions/_pacer \
    usr/share/doc/pacer/copyright usr/share/doc/pacer/pacer.md usr/share/doc/pacer/methodology.md \
    usr/share/doc/pacer/pacer-result.schema.json; do
    has "$f" || missing="$missing $f"
done
ok deb_contents "missing:$missing" "[ -z '$missing' ]"
# The man page names the documents where the package put them.
dpkg-deb -x "$DEB" "$T_DIR/root"
dpkg-deb -x "$PERS" "$T_DIR/root"
zcat "$T_DIR/root/usr/share/man/man1/pacer.1.gz" >"$T_DIR/pacer.1" 2>/dev/null
bad=$(grep -oE '/usr/share/doc/pacer/[A-Za-z0-9._-]*[A-Za-z0-9_-]' "$T_DIR/pacer.1" | sort -u |
    while read -r p; do [ -e "$T_DIR/root$p" ] || echo "$p"; done)
ok deb_manpage_paths_exist "the man page names$bad, not in the package" \
    "grep -q /usr/share/doc/pacer/ '$T_DIR/pacer.1' && [ -z '$bad' ]"

deps=$(dpkg-deb -f "$DEB" Depends)
ok deb_depends_on_its_libraries "Depends: $deps" \
    "case '$deps' in *libnghttp2-*libngtcp2*) true ;; *) false ;; esac"
BIN="$T_DIR/root/usr/bin/pacer"
readelf -lW "$BIN" >"$T_DIR/phdr" 2>&1
readelf -dW "$BIN" >"$T_DIR/dyn" 2>&1
ok deb_binary_hardened "$(grep -E 'Elf file type|RELRO' "$T_DIR/phdr" | tr -s ' ' | tr '\n' ' ') $(grep -E 'FLAGS' "$T_DIR/dyn" | tr -s ' ')" \
    "grep -q 'DYN (Position-Independent' '$T_DIR/phdr' && grep -q GNU_RELRO '$T_DIR/phdr' && grep -qE 'FLAGS.*BIND_NOW|FLAGS_1.*NOW' '$T_DIR/dyn'"

# The packaged binary runs: its version, and a short run against `pacer serve`.
out=$("$BIN" --version 2>&1)
ok deb_binary_version "$out" "[ \"\$(\"$BIN\" --version 2>&1 | head -1 | cut -d' ' -f1-2)\" = 'pacer $version' ]"
start_serve
"$BIN" -c2 -d1s --json "$T_DIR/run.json" "$SERVE_URL/" >"$T_DIR/run.out" 2>&1
rc=$?
ok deb_binary_runs "exit $rc: $(tail -3 "$T_DIR/run.out" | tr '\n' ' ')" \
    "[ $rc -eq 0 ] && [ \"\$(json_get '$T_DIR/run.json' 'd[\"requests\"][\"completed\"] > 0')\" = True ]"

# pacer-personas: each link is relative to the packaged pacer and runs it as that tool.
bad=""
for p in wrk wrk2 ab h2load hey; do
    l="$T_DIR/root/usr/lib/pacer/personas/$p"
    [ -L "$l" ] && [ "$(readlink -f "$l")" = "$(readlink -f "$BIN")" ] || bad="$bad $p"
done
ok deb_personas_links "not links to the packaged pacer:$bad" "[ -z '$bad' ]"
"$T_DIR/root/usr/lib/pacer/personas/wrk" -t1 -c1 -d1s "$SERVE_URL/" >"$T_DIR/wrk.out" 2>&1
rc=$?
ok deb_persona_runs_as_wrk "exit $rc: $(head -3 "$T_DIR/wrk.out" | tr '\n' ' ')" \
    "[ $rc -eq 0 ] && grep -q '^Requests/sec:' '$T_DIR/wrk.out' && grep -q '^Running 1s test @' '$T_DIR/wrk.out'"
finish
