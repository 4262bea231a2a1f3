#!/usr/bin/env bash
# bench/conns.sh - what a connection costs: peak RSS of the client at
# -c 1000, 5000 and 18000 (pacer -t1 -R5000 -d5s, wrk -t1 -d5s beside it),
# against `pacer serve`, with the kernel's SYN retransmits and accept-queue
# overflows of each run, pacer's connect phase and connect time p50/p99.
#
#   bench/conns.sh [PACER] [OLD_PACER]   (default ./pacer; OLD_PACER: a second
#                                        binary measured the same way, "before")
#   CONNS="1000 5000 18000" DUR=5s bench/conns.sh
#
# Prints a Markdown table on stdout and, per client, the slope of peak RSS
# between the smallest and the largest -c (user-space bytes per idle
# connection: kernel socket memory is not in RSS) and the RSS it extrapolates
# to at 100,000 connections. Needs `ulimit -n` above the largest -c (this
# shell raises its soft limit to the hard one). The kernel's counters
# (nstat) are the whole machine's: run it on a quiet one.
# Exit 1: setup failed (no pacer, /usr/bin/time, nstat).
set -u
export LC_ALL=C

PACER=$(readlink -f "${1:-./pacer}")
OLD=${2:+$(readlink -f "$2")}
CONNS=${CONNS:-"1000 5000 18000"}
DUR=${DUR:-5s}
for t in "$PACER" ${OLD:+"$OLD"} /usr/bin/time; do
    [ -x "$t" ] || { echo "conns: $t is not executable" >&2; exit 1; }
done
command -v nstat >/dev/null || { echo "conns: nstat not found (iproute2)" >&2; exit 1; }
HAVE_WRK=$(command -v wrk || true)
ulimit -n "$(ulimit -Hn)"
max=0
for n in $CONNS; do [ "$n" -gt "$max" ] && max=$n; done
if [ "$(ulimit -n)" -lt $((max + 100)) ]; then
    echo "conns: ulimit -n is $(ulimit -n), below -c $max + 100" >&2
    exit 1
fi

WORK=$(mktemp -d -p /tmp pacer-conns.XXXXXX) || exit 1
SPID=""
cleanup() {
    [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# serve: a fresh `pacer serve` (the new binary's) on a free port; sets URL.
serve() {
    [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
    "$PACER" serve --port 0 >"$WORK/serve.out" 2>&1 &
    SPID=$!
    URL=""
    for _ in $(seq 1 100); do
        URL=$(sed -n 's/.*listening on //p' "$WORK/serve.out")
        [ -n "$URL" ] && return 0
        sleep 0.05
    done
    echo "conns: pacer serve did not start" >&2
    exit 1
}

# kstat NAME: the counter's increase since the last nstat call.
kstat() { awk -v k="$1" '$1 == k {print $2; f=1} END {if (!f) print 0}' "$WORK/nstat"; }

# measure LABEL N CMD...: one run (against the serve started just before);
# appends a row to $WORK/rows and
# "LABEL N RSS_KB" to $WORK/rss.
measure() {
    local label=$1 n=$2 rss opened retr p50 p99 phase
    shift 2
    nstat -n >/dev/null
    /usr/bin/time -v -o "$WORK/time" "$@" >"$WORK/out" 2>&1
    nstat -z TcpExtListenOverflows TcpExtListenDrops TcpExtTCPSynRetrans >"$WORK/nstat"
    rss=$(awk -F': ' '/Maximum resident/ {print $2}' "$WORK/time")
    opened="-" retr="-" p50="-" p99="-" phase="-"
    if [ -s "$WORK/r.json" ]; then
        read -r opened retr p50 p99 phase < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); c = d["connections"]; l = d["latency"]["connect"]
ph = c.get("connect_phase_s")
print(c["opened"], c.get("syn_retransmitted", "-"), "%.2fms" % (l["percentiles"]["50"] / 1e3),
      "%.2fms" % (l["percentiles"]["99"] / 1e3), "%.2fs" % ph if ph is not None else "-")' "$WORK/r.json")
        rm -f "$WORK/r.json"
    else
        # wrk: its connect errors, not a per-connection figure
        opened="$(($n - $(grep -oE 'connect [0-9]+' "$WORK/out" | grep -oE '[0-9]+' || echo 0)))"
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$n" \
        "$((rss / 1024)).$(((rss % 1024) * 10 / 1024))" "$opened" "$retr" \
        "$(kstat TcpExtTCPSynRetrans)" "$(kstat TcpExtListenOverflows)" "$p50" "$p99" "$phase" \
        >>"$WORK/rows"
    echo "$label $n $rss" >>"$WORK/rss"
    echo "conns: $label -c$n: peak RSS ${rss} KiB" >&2
}

for n in $CONNS; do
    serve
    measure pacer "$n" "$PACER" -t1 -c"$n" -R5000 -d"$DUR" --quiet --json "$WORK/r.json" "$URL"
    [ -n "$OLD" ] && serve && measure "pacer (before)" "$n" "$OLD" -t1 -c"$n" -R5000 -d"$DUR" --quiet \
        --json "$WORK/r.json" "$URL"
    [ -n "$HAVE_WRK" ] && serve && measure wrk "$n" wrk -t1 -c"$n" -d"$DUR" "$URL"
done

echo "| client | -c | peak RSS MiB | opened | SYN retransmitted (pacer's count) | TcpExtTCPSynRetrans | TcpExtListenOverflows | connect p50 | connect p99 | connect phase |"
echo "|---|---|---|---|---|---|---|---|---|---|"
cat "$WORK/rows"
echo
echo "| client | bytes per connection (slope) | extrapolated peak RSS at 100k |"
echo "|---|---|---|"
awk '{ if (!($1 in lo) || $2 < lon[$1]) { lo[$1] = $3; lon[$1] = $2 }
       if (!($1 in hi) || $2 > hin[$1]) { hi[$1] = $3; hin[$1] = $2 } }
     END { for (k in lo) if (hin[k] > lon[k]) {
             s = (hi[k] - lo[k]) * 1024 / (hin[k] - lon[k])
             printf "| %s | %.0f B (-c %d to %d) | %.1f MiB |\n", k, s, lon[k], hin[k],
                    (lo[k] * 1024 + s * (100000 - lon[k])) / 1048576 } }' \
    <(sed 's/^pacer (before)/pacer-before/' "$WORK/rss")
