#!/bin/sh
# ensure-clang.sh - make sure a clang with libFuzzer is there for the fuzz
# targets, installing it with apt-get when it is not.
#
#   tests/fuzz/ensure-clang.sh [CC]      (default: $FUZZ_CC, else clang)
#
# Checks that CC exists, that its libFuzzer runtime is installed (clang
# -print-file-name=libclang_rt.fuzzer-<arch>.a) and that it links a tiny
# -fsanitize=fuzzer,address,undefined program. When one of those fails and
# CC is "clang" or "clang-N", installs that package and the compiler-rt
# package that holds libFuzzer (Debian bookworm: libclang-rt-N-dev; older
# releases: libclang-common-N-dev), then checks again. Needs root or sudo
# only when it installs. Exits 0 when the compiler is ready.
set -eu

cc=${1:-${FUZZ_CC:-clang}}
arch=$(uname -m)

say() { echo "ensure-clang: $*" >&2; }

runtime() { # the libFuzzer archive of $cc, or nothing
    f=$("$cc" -print-file-name="libclang_rt.fuzzer-$arch.a" 2>/dev/null) || return 1
    case $f in /*) [ -f "$f" ] && echo "$f" ;; *) return 1 ;; esac
}

links() { # can $cc build a libFuzzer binary?
    d=$(mktemp -d "${TMPDIR:-/tmp}/ensure-clang.XXXXXX") || return 1
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
        >"$d/t.c"
    ok=0
    "$cc" -fsanitize=fuzzer,address,undefined -o "$d/t" "$d/t.c" >"$d/log" 2>&1 && ok=1
    [ $ok = 1 ] || sed 's/^/  /' "$d/log" >&2
    rm -rf "$d"
    [ $ok = 1 ]
}

ready() {
    command -v "$cc" >/dev/null 2>&1 && runtime >/dev/null && links
}

ready && exit 0

case $(basename "$cc") in
clang) pkg=clang ;;
clang-[0-9]*) pkg=$(basename "$cc") ;;
*)
    say "$cc cannot build libFuzzer targets and is not a clang package name; install one or set FUZZ_CC"
    exit 1
    ;;
esac
command -v apt-get >/dev/null 2>&1 || { say "no apt-get: install $pkg with libFuzzer (compiler-rt) by hand"; exit 1; }
SUDO=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { say "need root to install $pkg"; exit 1; }
    SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive

apt_install() {
    say "installing $*"
    $SUDO apt-get install -y -qq --no-install-recommends "$@" >&2
}

updated=0
if ! command -v "$cc" >/dev/null 2>&1; then
    $SUDO apt-get update -qq >&2
    updated=1
    apt_install "$pkg"
    command -v "$cc" >/dev/null 2>&1 || { say "installed $pkg, but there is still no $cc"; exit 1; }
fi
if ! runtime >/dev/null; then
    major=$("$cc" -dumpversion | cut -d. -f1)
    [ $updated = 1 ] || $SUDO apt-get update -qq >&2
    rt=""
    for p in "libclang-rt-$major-dev" "libclang-common-$major-dev"; do
        if apt-cache show "$p" >/dev/null 2>&1; then
            rt=$p
            break
        fi
    done
    [ -n "$rt" ] || { say "no compiler-rt package for clang $major found by apt-cache"; exit 1; }
    apt_install "$rt"
fi
if ! ready; then
    say "$cc still cannot build a -fsanitize=fuzzer program"
    exit 1
fi
say "$cc is ready: $(runtime)"
