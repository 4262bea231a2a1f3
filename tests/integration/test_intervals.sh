#!/usr/bin/env bash
# The time series (--csv, --json intervals): every outcome lands in the
# interval it belongs to. Never-sent requests are known only when the run
# ends; they belong to the interval they were due in, not to the last one.
. "$(dirname "$0")/lib.sh"

D="$T_DIR/intervals"; mkdir -p "$D"

# A server that answers 300 requests/s, driven at 3000/s over 2
# connections for 3 s: about 2700 requests a second are never sent.
start_serve --threads 1 --capacity 300 || { fail serve_start "pacer serve did not start"; finish; }
"$PACER" -t2 -c2 -d3s -R3000 --timeout 1s --csv "$D/n.csv" --json "$D/n.json" \
    "$SERVE_URL" >"$D/n.txt" 2>&1
rc=$?
ok never_sent_run_exit0 "exit $rc: $(tail -3 "$D/n.txt")" [ "$rc" -eq 0 ]

# CSV: a never_sent column (the last), which errors include; the JSON
# series says the same.
csv_check() {
    "$PY" - "$D/n.csv" "$D/n.json" "$1" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
total = d['requests']['never_sent']
ns = [int(r.get('never_sent', -1)) for r in rows]
err = [int(r['errors']) for r in rows]
series = [p['errors'] for p in d['intervals']['series']]
what = sys.argv[3]
if what == 'sum':
    ok = total > 3000 and sum(ns) == total and sum(err) == total and sum(series) == total
elif what == 'spread':
    # Due at a steady 3000/s, not sent at 300/s: every whole second has
    # most of its share, and no interval holds most of them all (the
    # server fails nothing else: errors are the never-sent requests).
    whole = [n for r, n in zip(rows, err) if float(r['length_s']) > 0.9]
    ok = len(whole) >= 3 and all(n > total / 6 for n in whole) and max(err) < total / 2
elif what == 'json':
    ok = series == err
print('yes' if ok else 'no: total %d, csv never_sent %s, csv errors %s, json errors %s'
      % (total, ns, err, series))
PY
}
out=$(csv_check sum)
ok never_sent_intervals_add_up "$out" [ "$out" = yes ]
out=$(csv_check spread)
ok never_sent_in_due_intervals "$out" [ "$out" = yes ]
out=$(csv_check json)
ok never_sent_json_matches_csv "$out" [ "$out" = yes ]

finish
