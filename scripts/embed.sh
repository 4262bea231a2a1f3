#!/bin/sh
# scripts/embed.sh FILE: FILE as C source on stdout, for the build to compile
# into pacer (the HTML page's script and style; see the Makefile's EMBED).
# It defines
#     const char   pc_NAME[];     FILE's bytes, then a NUL
#     const size_t pc_NAME_len;   the number of FILE's bytes
# where NAME is FILE's base name with each character but A-Z a-z 0-9 made
# '_' (src/report/html_render.js: pc_html_render_js). Only POSIX sh, od and
# awk: nothing a bare system with a C compiler lacks.
#
# What it embeds goes inside a <script> or <style> element, whose text ends
# at the first "</script" or "</style" (any case) and which "<!--" can
# upset: a FILE holding one of those is refused (exit 1), so that no edit
# can break the page that way.
set -eu

if [ $# -ne 1 ]; then
    echo "usage: embed.sh FILE" >&2
    exit 2
fi
file=$1
[ -f "$file" ] && [ -r "$file" ] || { echo "embed.sh: cannot read '$file'" >&2; exit 1; }
if grep -qiE '</(script|style)|<!--' "$file"; then
    echo "embed.sh: $file: holds '</script', '</style' or '<!--', which would end the page's element early;" \
        "write '<\\/' or split the string" >&2
    exit 1
fi
name=pc_$(basename "$file" | sed 's/[^A-Za-z0-9]/_/g')

echo "/* Generated from $file by scripts/embed.sh: edit that file, not this one. */"
echo "#include <stddef.h>"
echo
echo "extern const char ${name}[];"
echo "extern const size_t ${name}_len;"
echo
echo "const char ${name}[] = {"
od -An -v -tx1 "$file" | awk '{ s = ""; for (i = 1; i <= NF; i++) s = s "0x" $i ","; print "    " s }'
echo "    0x00"
echo "};"
echo "const size_t ${name}_len = sizeof ${name} - 1;"
