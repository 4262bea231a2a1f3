#!/usr/bin/env bash
# The Makefile: the user's CFLAGS/LDFLAGS/LDLIBS never drop the project's
# own flags (make -n -B, nothing is built).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
need_cmd pkg-config pkg-config || finish

# mk ARGS...: make in the repository, as a user would type it (not as a
# sub-make of `make test`, whose SAN=1 and the like would leak in).
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES make -C "$ROOT" --no-print-directory "$@"; }

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
PKG_L=$(pkg-config --libs openssl zlib libnghttp2 luajit)

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

finish
