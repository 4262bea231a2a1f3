#!/usr/bin/env bash
# --urls with a million lines: memory bounded by what a URL needs (its
# text and a few pointers), not by fixed-size fields per line, and a
# result file that lists the busiest URLs and sums the rest
# (docs/methodology.md "What a URL and a connection cost").
. "$(dirname "$0")/lib.sh"
TIME=/usr/bin/time
need_cmd "$TIME" time || finish
start_serve || { fail urls_serve "pacer serve did not start"; finish; }
F="$T_DIR/urls.txt" J="$T_DIR/urls.json"
awk -v u="${SERVE_URL%/}" 'BEGIN { for (i = 0; i < 1000000; i++) printf "%s/p/%06d\n", u, i }' >"$F"

timeout 60 $TIME -f 'maxrss %M' -o "$T_DIR/rss" "$PACER" -t1 -c1 -n3000 --urls "$F" --json "$J" \
    >"$T_DIR/out" 2>&1
rc=$?
kb=$(awk '/maxrss/ { print $2 }' "$T_DIR/rss" 2>/dev/null)
# Under ASan, RSS holds its shadow memory and redzones, not pacer's own
# (test_hostile's rss_limits likewise): the plain build checks the bound,
# the ASan build that the run ends cleanly.
case "$PACER" in
*build-san*)
    ok urls_1m_run_clean "rc $rc, max RSS ${kb:-?} KB (ASan's, not judged)" "[ $rc -eq 0 ]"
    skip urls_1m_rss_bounded "an ASan build's RSS is ASan's shadow memory, not pacer's (the plain build checks the bound)" ;;
*)
    ok urls_1m_rss_bounded "rc $rc, max RSS ${kb:-?} KB for 1,000,000 URLs (rule: < 300 MB, about 250 bytes a URL beyond its text)" \
        "[ $rc -eq 0 ] && [ -n '$kb' ] && [ '$kb' -lt 307200 ]" ;;
esac

# urls[] lists at most 100 (the busiest), urls_other sums the rest, and
# the two add up to the requests completed; config.requests is bounded too.
out=$("$PY" - "$J" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
u, o, c = d["urls"], d["urls_other"], d["config"]
s = sum(x["requests"] for x in u) + o["requests"]
e = sum(x["errors"] for x in u) + o["errors"]
print(len(u), o["urls"], s, d["requests"]["completed"], e, d["requests"]["errors"],
      len(c["requests"]), c["requests_total"])
PY
)
read -r nu no sum done esum errs ncr total <<<"$out"
ok urls_json_bounded "$out" "[ '$nu' = 100 ] && [ '$no' = 999900 ] && [ '$ncr' = 100 ] && [ '$total' = 1000000 ]"
ok urls_json_other_adds_up "$out" "[ -n '$sum' ] && [ '$sum' = '$done' ] && [ '$done' = 3000 ] && [ '$esum' = '$errs' ]"
# -n3000 round-robin over a million: the first 3000 lines got one each,
# and urls[] (ties in the file's order) starts at line 1.
ok urls_json_busiest_first "$(head -c 300 "$J")" \
    "\"$PY\" -c 'import json,sys; u=json.load(open(sys.argv[1]))[\"urls\"]; sys.exit(not (u[0][\"url\"].endswith(\"/p/000000\") and u[-1][\"url\"].endswith(\"/p/000099\") and all(x[\"requests\"] == 1 for x in u)))' '$J'"
finish
