#!/usr/bin/env bash
# The kernel's send stamps (issue 28 item 3): under -R over TCP (plain and
# TLS, HTTP/1.1 pipelined or not, HTTP/2 in clear and over TLS) and over
# QUIC (HTTP/3, against Caddy) every request sent has its wire time from
# the kernel, the report says so in
# one line, and the uncorrected latency counts from that time: per request
# corrected = uncorrected + send lag + wire lag (+ any wait for a
# connection, none here), so the means add up with the wire lag and not
# without it. --no-tx-times and a closed loop stamp nothing.
. "$(dirname "$0")/lib.sh"
D="$T_DIR/tx"; mkdir -p "$D"
start_nginx || { fail nginx_start "nginx did not start"; finish; }

# sums_up FILE WIRE: per request, first byte (sent -> first byte of the
# response) + processing (-> its last byte) = uncorrected latency + wire
# lag, when the uncorrected latency counts from the wire (WIRE 1), or + 0
# (WIRE 0: it counts from pacer's write). The means must add up so, within
# 0.2% of their sum and 0.5 us (the histograms keep 3 significant digits),
# and, with WIRE 1, the wire lag must be over that tolerance (so leaving
# it out would not add up).
sums_up() {
    json_get "$1" "(lambda l: (lambda f, p, u, w: (lambda tol: abs(f + p - (u + w * $2)) <= tol and ($2 == 0 or w > tol))(0.002 * (f + p) + 0.5))(l['first_byte']['mean'], l['processing']['mean'], l['uncorrected']['mean'], l['wire_lag']['mean']))(d['latency'])"
}
means() { json_get "$1" "{k: d['latency'][k]['mean'] for k in ('first_byte', 'processing', 'uncorrected', 'wire_lag')}" 2>&1 | tail -1; }
stamped_all() { # FILE: every request sent was stamped, and the line says so
    local n
    n=$(json_get "$1.json" "d['requests']['completed']")
    [ "$n" -gt 100 ] &&
        [ "$(json_get "$1.json" "d['latency']['wire_lag']['count'] == d['latency']['send_lag']['count'] == $n")" = True ] &&
        grep -qE "^To the wire \(kernel send stamps, $n of $n requests sent\): p50 [0-9.]+us p99 [0-9.]+[mu]s max [0-9.]+[mu]?s after pacer's write$" "$1.out"
}
# run NAME ARGS...: pacer under a rate into $D/NAME.{json,out}; -c50 at
# 500/s leaves every connection idle most of the time, so no request
# waits for one.
run() {
    local name=$1
    shift
    "$PACER" -t1 -c50 -d2s -R500 --json "$D/$name.json" "$@" >"$D/$name.out" 2>&1
}

H="http://127.0.0.1:$NGX_PORT/index.html"
run h1 "$H"
ok tx_h1_all_stamped "$(grep -E '^(Send lag|To the wire)' "$D/h1.out"); $(means "$D/h1.json")" stamped_all "$D/h1"
ok tx_h1_uncorrected_from_wire "$(means "$D/h1.json")" "[ \"\$(sums_up '$D/h1.json' 1)\" = True ]"

run h1p --pipeline 4 "$H"
ok tx_h1_pipelined_stamped "$(grep -E '^To the wire' "$D/h1p.out")" stamped_all "$D/h1p"

run tls "https://127.0.0.1:$NGX_TLS1_PORT/index.html"
ok tx_tls_all_stamped "$(grep -E '^(Send lag|To the wire)|Errors' "$D/tls.out"); $(means "$D/tls.json"); $(tail -3 "$D/tls.out" | tr '\n' ' ')" stamped_all "$D/tls"
ok tx_tls_uncorrected_from_wire "$(means "$D/tls.json")" "[ \"\$(sums_up '$D/tls.json' 1)\" = True ]"

run h2c --h2 "http://127.0.0.1:$NGX_H2C_PORT/index.html"
ok tx_h2c_all_stamped "$(grep -E '^(Send lag|To the wire)|Errors' "$D/h2c.out")" stamped_all "$D/h2c"
ok tx_h2c_uncorrected_from_wire "$(means "$D/h2c.json")" "[ \"\$(sums_up '$D/h2c.json' 1)\" = True ]"

run h2 --h2 "https://127.0.0.1:$NGX_TLS_PORT/index.html"
ok tx_h2_tls_all_stamped "$(grep -E '^(Send lag|To the wire)|Errors' "$D/h2.out"); $(tail -3 "$D/h2.out" | tr '\n' ' ')" stamped_all "$D/h2"

# HTTP/3: a request's stamp is that of the datagram its first stream data
# went out in.
if start_caddy; then
    run h3 --h3 "$CADDY_URL"
    ok tx_h3_all_stamped "$(grep -E '^(Send lag|To the wire)|Errors' "$D/h3.out"); $(tail -3 "$D/h3.out" | tr '\n' ' ')" stamped_all "$D/h3"
    ok tx_h3_uncorrected_from_wire "$(means "$D/h3.json")" "[ \"\$(sums_up '$D/h3.json' 1)\" = True ]"
else
    fail caddy_start "Caddy did not start: $(tail -3 "$CADDY_DIR/out" 2>/dev/null)"
fi

# Asked not to: nothing stamped, no line, and the uncorrected latency from
# pacer's write.
run off --no-tx-times "$H"
ok tx_off_nothing "$(grep -E '^To the wire' "$D/off.out"); $(means "$D/off.json")" \
    "[ \"\$(json_get '$D/off.json' \"d['latency']['wire_lag']['count'] == 0 and d['requests']['completed'] > 100\")\" = True ] && ! grep -q '^To the wire' '$D/off.out' && [ \"\$(sums_up '$D/off.json' 0)\" = True ]"

# A closed loop has no schedule to time against: no stamps asked for.
"$PACER" -t1 -c2 -d1s --json "$D/closed.json" "$H" >"$D/closed.out" 2>&1
ok tx_closed_loop_none "$(grep -E '^To the wire' "$D/closed.out")" \
    "[ \"\$(json_get '$D/closed.json' \"d['latency']['wire_lag']['count'] == 0 and d['requests']['completed'] > 100\")\" = True ] && ! grep -q '^To the wire' '$D/closed.out'"

finish
