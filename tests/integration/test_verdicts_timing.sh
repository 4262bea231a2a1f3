#!/usr/bin/env bash
# serial: runs a server at its capacity; a loaded machine must not change whom the verdict names
# test_verdicts.sh's runs at and over a server's capacity, which need the
# machine to themselves (the rest of test_verdicts.sh holds on a loaded
# one): against pacer serve --capacity 1500, a ramp through it, stages
# over it and a constant rate above it all name the server, never the
# client, judged stage by stage and ramp row by ramp row; ramps below it
# and a closed loop at it blame no one.
. "$(dirname "$0")/lib.sh"
D="$T_DIR/verdicts"; mkdir -p "$D"
SCHEMA="$(cd "$(dirname "$0")/../.." && pwd)/docs/pacer-result.schema.json"

start_serve --threads 1 --capacity 1500 || { fail serve_start "$(serve_err)"; finish; }
SERVER_RE='^The server, not the client, limited this run: '

# names_server NAME FILE JSON: the verdict (right after Transfer/sec and the
# send lag's lines, Send lag and To the wire) names the server, the client is blamed nowhere, and the JSON
# says the same.
names_server() {
    ok "$1_names_server" "$(grep -E 'limited|Requested' "$2")" \
        "grep -A3 '^Transfer/sec' '$2' | grep -qE '$SERVER_RE' && ! grep -q 'The client, not the server' '$2' && ! grep -q 'client could not keep up' '$2'"
    ok "$1_json_diagnosis" "$(json_get "$3" "d.get('diagnosis'), d['client']['limited']" 2>&1)" \
        "[ \"\$(json_get '$3' \"d['diagnosis']['by'] == 'server' and d['client']['limited'] is False and d['diagnosis']['text'].startswith('The server, not the client')\")\" = True ]"
}

# --- a ramp through the knee: judged by its rows ----------------------------
"$PACER" -t2 -c50 -R 0..2k -d3s --json "$D/ramp.json" "$SERVE_URL" >"$D/ramp.out" 2>&1
names_server ramp "$D/ramp.out" "$D/ramp.json"
# The saturation is placed in a ramp row (where the knee is), and the rate
# note says the same as the verdict.
ok ramp_knee_in_a_row "$(grep -E 'limited|Requested' "$D/ramp.out")" \
    "grep -qE '${SERVER_RE}saturated at step 1\.[0-9]+ \([0-9]+\.\.[0-9]+ req/s\)' '$D/ramp.out' && grep -qE '^  Requested rate .*: the server is saturated at step 1\.[0-9]+ ' '$D/ramp.out'"
# Ten rows under the ramp's row, 1.1 .. 1.10, a tenth of its rate each.
ok ramp_rows_text "$(grep -A12 '^  Stages' "$D/ramp.out")" \
    "[ \"\$(grep -cE '^ +1\.([1-9]|10) +0\.30s +[0-9]+\.\.[0-9]+ ' '$D/ramp.out')\" = 10 ] && grep -qE '^ +1\.1 +0\.30s +0\.\.200 +100\.00 ' '$D/ramp.out' && grep -qE '^ +1\.10 +0\.30s +1800\.\.2000 +1900\.00 ' '$D/ramp.out'"
# Exact accounting: each request in exactly one row, by its intended time.
ok ramp_rows_add_up "$(json_get "$D/ramp.json" "[(s['requests'], s['completed']) for s in d['stages'][0]['steps']], d['stages'][0]['requests']" 2>&1)" \
    "[ \"\$(json_get '$D/ramp.json' \"len(d['stages'][0]['steps']) == 10 and all(sum(s[k] for s in d['stages'][0]['steps']) == d['stages'][0][k] for k in ('requests', 'completed', 'errors', 'never_sent', 'interrupted')) and sum(s['latency']['count'] for s in d['stages'][0]['steps']) == d['stages'][0]['latency']['count'] and d['stages'][0]['requests'] == d['requests']['scheduled']\")\" = True ]"
ok ramp_json_schema "$("$PY" -c "import json,jsonschema; jsonschema.validate(json.load(open('$D/ramp.json')), json.load(open('$SCHEMA')))" 2>&1 | tail -1)" \
    "$PY" -c "import json,jsonschema; jsonschema.validate(json.load(open('$D/ramp.json')), json.load(open('$SCHEMA')))"
# pacer report reads the rows back and judges the same.
"$PACER" report --json "$D/ramp2.json" "$D/ramp.json" >"$D/ramp2.out" 2>&1
ok ramp_report_same_verdict "$(grep -E 'limited' "$D/ramp2.out")" \
    "[ \"\$(json_get '$D/ramp2.json' \"d['diagnosis'] == json.load(open('$D/ramp.json'))['diagnosis'] and d['stages'] == json.load(open('$D/ramp.json'))['stages']\")\" = True ] && [ \"\$(grep -cE '^ +1\.([1-9]|10) +0\.30s ' '$D/ramp2.out')\" = 10 ]"

# --- stages over the capacity: stage 3 is the server's ----------------------
"$PACER" -t2 -c50 --stages '1s:1000!,1s:1500!,1s:2000!' --json "$D/st.json" "$SERVE_URL" \
    >"$D/st.out" 2>&1
names_server stages "$D/st.out" "$D/st.json"
ok stages_names_the_stage "$(grep -E 'limited' "$D/st.out")" \
    "grep -qE '${SERVER_RE}saturated at stage [23] \((1500|2000) req/s\), where it answered [0-9]+ req/s' '$D/st.out'"
ok stages_keep_their_latencies "$(json_get "$D/st.json" "[(s['latency_uncorrected']['count'], s['send_lag']['count'], s['completed']) for s in d['stages']]" 2>&1)" \
    "[ \"\$(json_get '$D/st.json' \"all(s['latency_uncorrected']['count'] == s['send_lag']['count'] == s['completed'] > 0 and 'steps' not in s for s in d['stages'])\")\" = True ]"

# --- a constant rate above it ----------------------------------------------
"$PACER" -t2 -c50 -R2000 -d2s --json "$D/c.json" "$SERVE_URL" >"$D/c.out" 2>&1
names_server constant "$D/c.out" "$D/c.json"
ok constant_saturated "$(grep -E 'limited|Requested' "$D/c.out")" \
    "grep -qE '${SERVER_RE}it is saturated at about [0-9]+ req/s of the 2000 asked' '$D/c.out' && grep -qE '^  Requested rate 2000.00 req/s but achieved .*: the server is saturated at about [0-9]+ req/s' '$D/c.out'"

# --- two ramps merged, below the knee ----------------------------------------
"$PACER" -t1 -c20 -R 0..400 -d1s --json "$D/r1.json" "$SERVE_URL" >/dev/null 2>&1
"$PACER" -t1 -c20 -R 0..400 -d1s --json "$D/r2.json" "$SERVE_URL" >/dev/null 2>&1
"$PACER" report --json "$D/rm.json" "$D/r1.json" "$D/r2.json" >"$D/rm.out" 2>&1
# Rows below the knee (0..400 req/s, a fifth of the capacity): the server
# is not blamed, nor the connections. (On a loaded machine pacer itself may
# stall long enough to own the latency's tail, row 13, and say so.)
ok below_capacity_no_verdict "$(grep -E 'limited|rose|pacer.s own' "$D/rm.out")" \
    "! grep -qE 'limited this run|rose with the rate' '$D/rm.out' && case \"\$(json_get '$D/rm.json' \"d['diagnosis']['by']\")\" in none|client) true ;; *) false ;; esac"

# --- a closed loop at the capacity: no send lag, no blame -------------------
"$PACER" -t2 -c50 -d1s --json "$D/cl.json" "$SERVE_URL" >"$D/cl.out" 2>&1
ok closed_loop_quiet "$(grep -A2 '^Transfer/sec' "$D/cl.out")" \
    "! grep -q 'Send lag' '$D/cl.out' && ! grep -q 'The client, not the server' '$D/cl.out'"

# --- a server that goes away mid-run is not "the client could not keep up" --
# (gone: lib.sh)
# HTTP/3 to Caddy through the UDP relay, the relay killed mid-run: nothing
# refuses (no ICMP from a port that was a relay's), requests wait on
# connections whose handshake or streams get no answer. (1 s in: a loaded
# machine may not have finished the QUIC handshakes by then.)
if need_cmd caddy caddy && start_caddy && start_udprelay --to "$CADDY_PORT"; then
    GONE_PID=$RELAY_PID
    gone h3_relay_killed KILL "https://127.0.0.1:$RELAY_PORT/" --h3 -m4
    # A path that goes silent, no ICMP: each flow's first 90 datagrams only.
    # At 50 requests/s a connection that is 1.8 s in (a datagram a request:
    # the request's packet carries the ACKs), 0.6 s if it were 3 (an ACK each
    # for the response and MAX_STREAMS), both inside what the check allows.
    start_udprelay --to "$CADDY_PORT" --blackhole-after 90 &&
        LAST_MAX=2400000 gone h3_relay_blackholed none "https://127.0.0.1:$RELAY_PORT/" --h3 -m4
else
    fail h3_relay_start "Caddy or the relay did not start"
fi

finish
