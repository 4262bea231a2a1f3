# bench/lib_caddy.sh - sourced by the HTTP/3 benches (h3.sh, h3-wake.sh):
# one local Caddy (Debian's caddy: h1/h2 on TCP and h3 on UDP, one port,
# a generated certificate, a 1 KiB file, no access log) pinned to core 0.
#
#   caddy_start NAME     NAME prefixes its messages. Sets WORK (a temporary
#                        directory, removed on exit), CPID, P (the port) and
#                        U (the 1 KiB file's https:// URL); returns 1 when
#                        setup fails (the message is on stderr).

udp_bound() { grep -qE "^ *[0-9]+: (0100007F|00000000):$(printf '%04X' "$1") " /proc/net/udp; }

caddy_cleanup() {
    [ -n "${CPID:-}" ] && kill "$CPID" 2>/dev/null && wait "$CPID" 2>/dev/null
    [ -n "${WORK:-}" ] && rm -rf "$WORK"
}

caddy_start() {
    local name=$1
    WORK=$(mktemp -d -p /tmp pacer-caddy-bench.XXXXXX) || return 1
    CPID=""
    trap caddy_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    mkdir -p "$WORK/www" "$WORK/data" "$WORK/config" "$WORK/home"
    head -c 1024 /dev/zero | tr '\0' x >"$WORK/www/1k.html"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/key.pem" \
        -out "$WORK/cert.pem" -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
        >/dev/null 2>&1 || { echo "$name: openssl failed" >&2; return 1; }
    for _ in 1 2 3 4 5; do
        P=$((20000 + RANDOM % 12000))
        (exec 3<>"/dev/tcp/127.0.0.1/$P") 2>/dev/null || udp_bound "$P" || break
    done
    cat >"$WORK/Caddyfile" <<CADDY
{
	admin off
	skip_install_trust
	auto_https disable_redirects
	storage file_system $WORK/data
	servers {
		protocols h1 h2 h3
	}
}
https://:$P {
	bind 127.0.0.1
	tls $WORK/cert.pem $WORK/key.pem
	root * $WORK/www
	file_server
}
CADDY
    HOME=$WORK/home XDG_DATA_HOME=$WORK/data XDG_CONFIG_HOME=$WORK/config \
        taskset -c 0 caddy run --config "$WORK/Caddyfile" --adapter caddyfile >"$WORK/caddy.log" 2>&1 &
    CPID=$!
    for _ in $(seq 1 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$P") 2>/dev/null && udp_bound "$P" && break
        sleep 0.1
    done
    udp_bound "$P" || { echo "$name: Caddy did not start" >&2; tail -5 "$WORK/caddy.log" >&2; return 1; }
    U=https://127.0.0.1:$P/1k.html
}
