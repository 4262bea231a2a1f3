#!/usr/bin/env bash
# TLS and QUIC failures whose cause is known are named, with what to do,
# not left as a number ("transport error 0x150", "TLS alert 42"): a
# certificate no trusted CA signed, one for another name, a server with no
# certificate for the name asked, nothing listening on the UDP port.
. "$(dirname "$0")/lib.sh"
start_nginx || { fail nginx_start "nginx did not start"; finish; }
start_caddy || { fail caddy_start "Caddy did not start: $(tail -3 "$CADDY_DIR/out" 2>/dev/null)"; finish; }

# says NAME TEXT ARGS...: a short run's report names the failure with TEXT.
says() {
    local name=$1 text=$2
    shift 2
    timeout 30 "$PACER" -t1 -c1 -d300ms "$@" >"$T_DIR/out" 2>&1
    ok "$name" "$(grep -m1 'Errors:' "$T_DIR/out" || tail -2 "$T_DIR/out")" \
        "grep -qF -- \"$text\" '$T_DIR/out' && ! grep -qE 'transport error 0x1[0-9a-f]{2}|TLS alert [0-9]+\\)' '$T_DIR/out'"
}
NGX_TLS="https://127.0.0.1:$NGX_TLS_PORT/"
says tls_verify_untrusted "self-signed certificate (no trusted CA signed it: --cacert FILE, or drop --verify)" \
    --verify "$NGX_TLS"
says tls_verify_other_name "hostname mismatch (not for this name: URL host, --host NAME)" \
    --verify --cacert "$NGX_DIR/cert.pem" --host example.com "$NGX_TLS"
says h3_verify_untrusted "certificate verify failed: no trusted CA signed it (--cacert FILE, or drop --verify) (TLS alert 42 bad_certificate)" \
    --h3 --verify "$CADDY_URL"
says h3_verify_other_name "certificate verify failed: not for this name (URL host, --host NAME) (TLS alert 42 bad_certificate)" \
    --h3 --verify --cacert "$H3_CERT" --host example.com "$CADDY_URL"
port=$(pick_udp_port)
says h3_nothing_on_udp "nothing listens on UDP port $port (ICMP port unreachable: is an HTTP/3 server there?)" \
    --h3 "https://127.0.0.1:$port/"

# Caddy serving localhost only: a handshake for another name gets its
# internal_error alert (QUIC: CRYPTO_ERROR 0x150).
kill "$CADDY_PID" 2>/dev/null
wait "$CADDY_PID" 2>/dev/null
sed -i "s|^https://:$CADDY_PORT {|https://localhost:$CADDY_PORT {|" "$CADDY_DIR/Caddyfile"
HOME="$CADDY_DIR/home" XDG_DATA_HOME="$CADDY_DIR/data" XDG_CONFIG_HOME="$CADDY_DIR/config" \
    caddy run --config "$CADDY_DIR/Caddyfile" --adapter caddyfile >"$CADDY_DIR/out2" 2>&1 &
CADDY_PID=$!
T_PIDS+=("$CADDY_PID")
if wait_port 127.0.0.1 "$CADDY_PORT" "$CADDY_PID" && wait_udp "$CADDY_PORT" "$CADDY_PID"; then
    says h3_no_cert_for_name "(TLS alert 80 internal_error, 0x150: no certificate for this name? (--host NAME))" \
        --h3 --host example.com "$CADDY_URL"
    says tls_no_cert_for_name "TLS: the server sent TLS alert 80 internal_error: no certificate for this name? (--host NAME)" \
        --host example.com "$CADDY_URL"
else
    fail caddy_restart "Caddy (localhost only) did not start: $(tail -3 "$CADDY_DIR/out2")"
fi

finish
