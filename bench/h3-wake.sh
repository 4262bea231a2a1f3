#!/usr/bin/env bash
# bench/h3-wake.sh - does a QUIC timer cost more when a worker holds more
# connections? pacer over HTTP/3 at a constant rate with few and with many
# connections (-t1 -m1 -R RATE at -c10 and at -c1000), against one local
# Caddy, in one run: client CPU per request for each, and their medians.
#
#   bench/h3-wake.sh [PACER ...]     (default ./pacer)
#
# Several binaries (e.g. a branch's and main's) are run alternately in each
# round, so a before/after comparison sees the same machine load. Caddy
# (Debian's caddy, a generated certificate, a 1 KiB file, no access log) is
# pinned to core 0, pacer to core 1. Two CPU figures per request: the
# process's (user + system from GNU time, connecting 1000 QUIC connections
# included) over completed requests, and the worker's over the measured
# period alone (its busy fraction from --json, times the duration, over
# completed requests). Each run has a warm-up (the handshakes' tail is not
# measured). Requests that fail or time out (a loaded machine) are counted
# beside the run, not hidden. BENCH_ROUNDS (3), BENCH_SECONDS (5),
# BENCH_WARMUP (2s), BENCH_RATE (2000), BENCH_CONNS ("10 1000"). Exit 1:
# setup failed; 3: a run failed or could not be parsed.
set -u
set -o pipefail
export LC_ALL=C

ROUNDS=${BENCH_ROUNDS:-3} DUR=${BENCH_SECONDS:-5} RATE=${BENCH_RATE:-2000} WARM=${BENCH_WARMUP:-2s}
CONNS=${BENCH_CONNS:-10 1000}
[ $# -gt 0 ] || set -- ./pacer
BINS=()
for b in "$@"; do
    b=$(readlink -f "$b")
    [ -x "$b" ] || { echo "h3-wake: $b is not executable" >&2; exit 1; }
    BINS+=("$b")
done
for t in caddy openssl taskset jq /usr/bin/time; do
    command -v "$t" >/dev/null 2>&1 || { echo "h3-wake: $t not found (scripts/deps.sh bench)" >&2; exit 1; }
done
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

. "$(dirname "$0")/lib_caddy.sh"
caddy_start "h3-wake" || exit 1

# run OUT PACER CONNS: prints "process_us_per_req worker_us_per_req
# req_per_s failed" (or "fail").
run() {
    local out=$1 bin=$2 c=$3 n s u sy busy bad
    if ! /usr/bin/time -o "$out.time" -f '%U %S' taskset -c 1 timeout $((DUR + 90)) \
        "$bin" --h3 -t1 -c"$c" -m1 -R"$RATE" --warmup "$WARM" -d"${DUR}s" --json "$out.json" "$U" >"$out" 2>&1; then
        echo fail
        return
    fi
    read -r u sy <"$out.time"
    n=$(jq -r '.requests.completed' "$out.json" 2>/dev/null)
    busy=$(jq -r '.client.threads_busy.mean' "$out.json" 2>/dev/null)
    bad=$(jq -r '.requests.errors + .requests.timed_out + .requests.never_sent' "$out.json" 2>/dev/null)
    s=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
    [ -n "$n" ] && [ "$n" -gt 0 ] 2>/dev/null && [ -n "$busy" ] && [ "$busy" != null ] &&
        ! grep -q 'Non-2xx' "$out" || { echo fail; return; }
    awk -v u="$u" -v sy="$sy" -v n="$n" -v r="$s" -v b="$busy" -v d="$DUR" -v f="$bad" \
        'BEGIN { printf "%.2f %.2f %.0f %d\n", (u + sy) * 1e6 / n, b * d * 1e6 / n, r, f }'
}
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) print "-"; else print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
declare -A CPU WCPU RPS
FAILED=0
"${BINS[0]}" --h3 -t1 -c2 -d1s "$U" >/dev/null 2>&1 # warm Caddy up, not recorded
for ((r = 1; r <= ROUNDS; r++)); do
    echo "round $r/$ROUNDS" >&2
    for i in "${!BINS[@]}"; do
        for c in $CONNS; do
            res=$(run "$WORK/$i-$c-$r.out" "${BINS[$i]}" "$c")
            if [ "$res" = fail ]; then
                FAILED=1
                echo "  ${BINS[$i]} -c$c: failed: $(tail -2 "$WORK/$i-$c-$r.out" | tr '\n' ' ')" >&2
                continue
            fi
            read -r a w b f <<<"$res"
            CPU[$i,$c]="${CPU[$i,$c]:-} $a" WCPU[$i,$c]="${WCPU[$i,$c]:-} $w" RPS[$i,$c]="${RPS[$i,$c]:-} $b"
            echo "  ${BINS[$i]} -c$c: $b req/s, process $a us/req, worker (measured) $w us/req, $f failed/timed out/never sent" >&2
        done
    done
done

echo "pacer --h3 -t1 -m1 -R$RATE against Caddy $(caddy version 2>/dev/null | awk '{print $1}'), one 1 KiB file;"
echo "Caddy on core 0, pacer on core 1; median of $ROUNDS rounds of ${DUR} s; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)."
echo
echo "| pacer | connections | req/s | process CPU us/req | worker CPU us/req (measured period) | worker, per round |"
echo "|---|---:|---:|---:|---:|---|"
for i in "${!BINS[@]}"; do
    for c in $CONNS; do
        printf '| %s | %s | %s | %s | %s |%s |\n' "${BINS[$i]}" "$c" "$(echo "${RPS[$i,$c]:-}" | median)" \
            "$(echo "${CPU[$i,$c]:-}" | median)" "$(echo "${WCPU[$i,$c]:-}" | median)" "${WCPU[$i,$c]:-}"
    done
done
[ "$FAILED" = 0 ] || exit 3
