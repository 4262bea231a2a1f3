#!/usr/bin/env bash
# make demo: start the built-in target on loopback, run a 5-second
# constant-rate benchmark against it, print the report, stop the target.
set -eu
PACER=${1:-./pacer}
out=$(mktemp)
trap 'kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; rm -f "$out"' EXIT

"$PACER" serve --port 0 --size 4096 >"$out" 2>/dev/null &
srv=$!
url=""
for _ in $(seq 1 100); do
    url=$(sed -n 's/^pacer serve: listening on //p' "$out")
    [ -n "$url" ] && break
    sleep 0.05
done
[ -n "$url" ] || { echo "demo: pacer serve did not start" >&2; exit 1; }

echo "demo: pacer serve is listening on $url"
html=${DEMO_HTML:-pacer-demo.html}
echo "demo: $PACER -t2 -c50 -d5s -R2000 --latency --slo 'p99<=50ms,errors<=0.1%' --html $html $url"
echo
"$PACER" -t2 -c50 -d5s -R2000 --latency --slo 'p99<=50ms,errors<=0.1%' --html "$html" "$url"
echo
echo "demo: the same run with plots: $html (open it in a browser; it loads nothing)"
