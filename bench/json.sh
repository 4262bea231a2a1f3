#!/usr/bin/env bash
# bench/json.sh [BASE_REV] - time reading and writing pacer's largest result
# files, optionally against the tree at git revision BASE_REV (built in a
# temporary directory), alternating the two binaries rep by rep.
#
#   bench/json.sh              this tree only
#   bench/json.sh cae6bf7      this tree against cae6bf7 (the hand-written JSON)
#   BENCH_REPS=11 BENCH_INTERVALS=7200 bench/json.sh cae6bf7
#
# The file: a 10 s run at -R 5000 over 20 URLs (--urls) with 1 s intervals
# against `pacer serve`, its interval series repeated to BENCH_INTERVALS
# (default 3600, an hour at 1 s; each interval carries two encoded
# histograms), then rewritten by `pacer report --json` so it is exactly what
# pacer writes (11-14 MB). Measured: CPU time (user + system, so that load
# from elsewhere moves it little), median of BENCH_REPS (default 7):
#   report       pacer report big.json                 (reading)
#   report_json  pacer report --json out.json big.json (reading + the json_out writer)
#   report_x2    pacer report big.json big.json        (a merge of two)
#   parse, write util/json.h alone (bench/json_bench.c): json_parse_file, and
#                json_w_value of the tree at indent 2
#   jansson      jansson alone (bench/json_jansson.c): load, build, dump
# Needs: make, cc, python3, /usr/bin/time, pkg-config jansson. Prints a
# Markdown table.
set -eu

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BASE=${1:-}
REPS=${BENCH_REPS:-7}
NINT=${BENCH_INTERVALS:-3600}
W=$(mktemp -d "${TMPDIR:-/tmp}/pacer-json-bench.XXXXXX")
SERVE_PID=""
cleanup() {
    [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
    rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

log() { echo "json.sh: $*" >&2; }
JCF=$(pkg-config --cflags --libs jansson)
CCF="-O2 -std=c11 -D_GNU_SOURCE"

# build NAME TREE: TREE's pacer -> $W/NAME/pacer, json_bench -> $W/NAME/jb
build() {
    local name=$1 tree=$2
    mkdir -p "$W/$name"
    log "building $name ($tree)"
    make -C "$tree" -j2 pacer >"$W/$name/make.log" 2>&1 || { cat "$W/$name/make.log" >&2; exit 1; }
    cp "$tree/pacer" "$W/$name/pacer"
    # shellcheck disable=SC2086
    cc $CCF -I"$tree/src" -o "$W/$name/jb" "$ROOT/bench/json_bench.c" "$tree"/src/util/json*.c $JCF -lm
}

build new "$ROOT"
names=new
if [ -n "$BASE" ]; then
    mkdir -p "$W/src-base"
    git -C "$ROOT" archive "$BASE" | tar -x -C "$W/src-base"
    build base "$W/src-base"
    names="base new"
fi
# shellcheck disable=SC2086
cc $CCF -o "$W/jj" "$ROOT/bench/json_jansson.c" $JCF

P=$W/new/pacer
"$P" serve --port 0 >"$W/serve.out" 2>"$W/serve.err" &
SERVE_PID=$!
url=""
for _ in $(seq 1 100); do
    url=$(head -n1 "$W/serve.out" 2>/dev/null | awk '{print $NF}')
    [ -n "$url" ] && break
    sleep 0.05
done
[ -n "$url" ] || { log "pacer serve did not start"; exit 1; }
for i in $(seq 1 20); do echo "GET ${url}p$i"; done >"$W/urls.txt"
log "seed run (10 s)"
"$P" -R 5000 -t 1 -c 16 -d 10s --urls "$W/urls.txt" --quiet --json "$W/seed.json" "$url" >/dev/null
kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true; SERVE_PID=""

python3 - "$W/seed.json" "$W/gen.json" "$NINT" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[3])
s = d['intervals']['series']
step = d['intervals']['length_s']
out = []
for i in range(n):
    p = dict(s[i % len(s)])
    p['start_epoch_s'] = s[0]['start_epoch_s'] + i * step
    out.append(p)
d['intervals']['series'] = out
d['duration_s'] = n * step
json.dump(d, open(sys.argv[2], 'w'), indent=2)
EOF
"$P" report --json "$W/big.json" "$W/gen.json" >/dev/null
log "big.json: $(wc -c <"$W/big.json") bytes, $NINT intervals"

# ms CMD...: CPU milliseconds (user + system) of one run, output discarded.
# CPU time, not wall time: the numbers should hold on a shared machine.
ms() {
    /usr/bin/time -f '%U %S' -o "$W/time.out" "$@" >/dev/null 2>&1 || { log "failed: $*"; exit 1; }
    awk '{ printf "%d\n", ($1 + $2) * 1000 + 0.5 }' "$W/time.out"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

for r in $(seq 1 "$REPS"); do
    for n in $names; do
        b=$W/$n/pacer
        ms "$b" report "$W/big.json" >>"$W/$n.report"
        ms "$b" report --json "$W/$n.out.json" "$W/big.json" >>"$W/$n.report_json"
        ms "$b" report "$W/big.json" "$W/big.json" >>"$W/$n.report_x2"
    done
    log "rep $r/$REPS"
done
for n in $names; do
    "$W/$n/jb" "$W/big.json" "$REPS" >"$W/$n.jb"
done
"$W/jj" "$W/big.json" "$REPS" >"$W/jj.out"

echo "| CPU ms, median of $REPS | $(for n in $names; do printf '%s | ' "$n"; done)"
echo "| --- | $(for n in $names; do printf -- '---: | '; done)"
for m in report report_json report_x2; do
    printf '| %s |' "$m"
    for n in $names; do printf ' %s |' "$(median <"$W/$n.$m")"; done
    echo
done
for k in parse_ms write_ms; do
    printf '| json.h %s |' "${k%_ms}"
    for n in $names; do printf ' %s |' "$(awk -v k="$k" '{for (i = 1; i < NF; i++) if ($i == k) print $(i + 1)}' "$W/$n.jb")"; done
    echo
done
echo
echo "jansson alone (bench/json_jansson.c, CPU ms): $(cat "$W/jj.out")"
echo "file: $(wc -c <"$W/big.json") bytes, $NINT intervals, 20 URLs"
