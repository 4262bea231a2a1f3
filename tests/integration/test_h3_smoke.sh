#!/usr/bin/env bash
# HTTP/3 smoke test (--h3): Caddy (HTTP/3 on the UDP port of its https
# site, `tls internal`) and ngtcp2's example server (gtlsserver) as a
# second implementation; -n exact, -R's count, the report's and the JSON's
# QUIC figures, http:// refused, a dead UDP port a connect error.
# tests/integration/test_h3.sh (the h3test branch) has the fuller checks.
. "$(dirname "$0")/lib.sh"

need_cmd caddy caddy && need_cmd gtlsserver ngtcp2-server && need_cmd openssl openssl &&
    need_cmd ss iproute2 || finish
D="$T_DIR/h3"
mkdir -p "$D/data" "$D/cfg" "$D/www"
echo "hello over h3" >"$D/www/index.html"

# udp_listening PORT: something is bound to 127.0.0.1:PORT/udp (max ~5 s).
udp_listening() {
    for _ in $(seq 1 100); do
        ss -Huln "sport = :$1" | grep -q . && return 0
        sleep 0.05
    done
    return 1
}

started=0
for try in 1 2 3; do
    CP=$(pick_port) || break
    # default_sni: no SNI goes out for an IP address, and over QUIC Caddy
    # cannot tell the address the client used.
    cat >"$D/Caddyfile" <<CONF
{
	admin off
	auto_https disable_redirects
	local_certs
	skip_install_trust
	default_sni 127.0.0.1
	log {
		output discard
	}
}
https://127.0.0.1:$CP {
	tls internal
	respond "hello over h3" 200
}
CONF
    XDG_DATA_HOME="$D/data" XDG_CONFIG_HOME="$D/cfg" HOME="$D" \
        caddy run --config "$D/Caddyfile" --adapter caddyfile >"$D/caddy.out" 2>&1 &
    T_PIDS+=($!)
    if wait_port 127.0.0.1 "$CP" "${T_PIDS[-1]}" && udp_listening "$CP"; then
        started=1
        break
    fi
done
[ "$started" = 1 ] || { fail caddy_start "$(tail -3 "$D/caddy.out")"; finish; }

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$D/key.pem" \
    -out "$D/cert.pem" -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    >/dev/null 2>&1
started=0
for try in 1 2 3; do
    GP=$(pick_port) || break
    gtlsserver -q -d "$D/www" 127.0.0.1 "$GP" "$D/key.pem" "$D/cert.pem" >"$D/gtls.out" 2>&1 &
    T_PIDS+=($!)
    if udp_listening "$GP" && kill -0 "${T_PIDS[-1]}" 2>/dev/null; then
        started=1
        break
    fi
done
[ "$started" = 1 ] || { fail gtlsserver_start "$(tail -3 "$D/gtls.out")"; finish; }

# -n N: exactly N responses, over h3, with its QUIC lines.
for srv in caddy:$CP gtlsserver:$GP; do
    name=${srv%%:*} port=${srv##*:}
    out="$D/$name.n.txt" js="$D/$name.n.json"
    timeout 60 "$PACER" --h3 -t1 -c4 -m10 -n 1000 --json "$js" "https://127.0.0.1:$port/" \
        >"$out" 2>&1
    ok "h3_n_exact_$name" "$(tail -4 "$out")" \
        '[ "$(json_get "$js" "d[\"requests\"][\"completed\"]")" = 1000 ] &&
         [ "$(json_get "$js" "d[\"requests\"][\"errors\"]")" = 0 ]'
    ok "h3_protocol_$name" "$(grep -E "protocol|QUIC" "$out")" \
        'grep -q "Application protocol: h3" "$out" && grep -qE "^QUIC datagrams: [0-9]+ sent, [0-9]+ received; stream packets lost [0-9]+ " "$out" &&
         grep -qE "^QUIC RTT: smoothed [0-9.]+ms, min [0-9.]+ms, PTOs [0-9]+" "$out" &&
         [ "$(json_get "$js" "d[\"protocol\"] + d[\"config\"][\"protocol\"]")" = h3h3 ] &&
         [ "$(json_get "$js" "int(d[\"quic\"][\"packets_sent\"] > 0 and d[\"quic\"][\"packets_received\"] > 0)")" = 1 ] &&
         [ "$(json_get "$js" "int(d[\"quic\"][\"handshake_ms_mean\"] > 0)")" = 1 ]'
done

# -R 500 for 3 s: 1,500 requests intended, all answered.
js="$D/caddy.r.json"
timeout 60 "$PACER" --h3 -t1 -c4 -m10 -d3s -R500 --json "$js" "https://127.0.0.1:$CP/" \
    >"$D/caddy.r.txt" 2>&1
ok h3_rate_count "$(tail -4 "$D/caddy.r.txt")" \
    '[ "$(json_get "$js" "d[\"requests\"][\"scheduled\"]")" = 1500 ] &&
     [ "$(json_get "$js" "d[\"requests\"][\"completed\"]")" = 1500 ]'

# http:// with --h3: refused, exit 2.
"$PACER" --h3 -t1 -n1 "http://127.0.0.1:$CP/" >"$D/plain.txt" 2>&1
rc=$?
ok h3_plain_refused "rc $rc: $(cat "$D/plain.txt")" \
    '[ $rc -eq 2 ] && grep -q "needs an https://" "$D/plain.txt"'

# A UDP port nothing listens on: connect errors (ICMP), no hang.
DP=$(pick_port)
js="$D/dead.json"
start=$(date +%s)
timeout 30 "$PACER" --h3 -t1 -c2 -n 10 --json "$js" "https://127.0.0.1:$DP/" >"$D/dead.txt" 2>&1
ok h3_dead_port_connect_error "$(tail -3 "$D/dead.txt")" \
    '[ $(( $(date +%s) - start )) -lt 10 ] &&
     [ "$(json_get "$js" "d[\"errors\"][\"connect\"] >= 10 and d[\"requests\"][\"completed\"] == 0")" = True ]'
finish
