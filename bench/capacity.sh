#!/usr/bin/env bash
# bench/capacity.sh [N...]: how close `pacer capacity` lands to a known knee.
# For each N, `pacer serve --threads 1 --capacity N` (core 0) serves at most
# N responses/s; `pacer capacity --slo 'p99<=50ms'` (core 1) searches from
# 100 req/s with 2 s steps. Prints N, the answer, the error and the steps.
set -u
PACER=${PACER:-$(cd "$(dirname "$0")/.." && pwd)/pacer}
[ $# -gt 0 ] || set -- 500 2000 8000
printf '%8s  %10s  %8s  %6s  %6s\n' knee answer error steps time
for n in "$@"; do
    log=$(mktemp)
    taskset -c 0 "$PACER" serve --port 0 --threads 1 --capacity "$n" >"$log" 2>/dev/null &
    srv=$!
    for _ in $(seq 1 100); do grep -q listening "$log" && break; sleep 0.05; done
    url=$(sed -n 's/^pacer serve: listening on //p' "$log")
    start=$SECONDS
    out=$(taskset -c 1 "$PACER" capacity "$url" --slo 'p99<=50ms' -t1 -c50 -d2s \
        --start-rate 100 --pause 200ms --quiet 2>/dev/null)
    kill "$srv"; wait "$srv" 2>/dev/null; rm -f "$log"
    ans=$(sed -nE 's/^Capacity: sustains ([0-9.]+) req\/s.*/\1/p' <<<"$out")
    steps=$(awk '$1 ~ /^[0-9]+$/ && NF == 9' <<<"$out" | wc -l)
    printf '%8s  %10s  %7s%%  %6s  %5ss\n' "$n" "${ans:-none}" \
        "$(awk -v a="${ans:-0}" -v n="$n" 'BEGIN { printf "%+.1f", (a - n) * 100 / n }')" \
        "$steps" "$((SECONDS - start))"
done
