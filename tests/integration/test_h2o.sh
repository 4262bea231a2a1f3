#!/usr/bin/env bash
# serial: a rate within 1%
# HTTP/2 against a second implementation, h2o (Debian's h2o package):
# h2c with prior knowledge and h2 over TLS, closed loop and constant rate.
. "$(dirname "$0")/lib.sh"

need_cmd h2o h2o && need_cmd openssl openssl || finish
D="$T_DIR/h2o"
mkdir -p "$D/www"
chmod 755 "$D" "$D/www"
head -c 512 /dev/zero | tr '\0' 'b' >"$D/www/index.html"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$D/key.pem" \
    -out "$D/cert.pem" -days 2 -subj /CN=localhost >/dev/null 2>&1
chmod 644 "$D/key.pem" "$D/cert.pem"
started=0
for try in 1 2 3 4 5; do
    P=$(pick_port) && PS=$(pick_port) || break
    cat >"$D/h2o.conf" <<CONF
listen:
  host: 127.0.0.1
  port: $P
listen:
  host: 127.0.0.1
  port: $PS
  ssl:
    certificate-file: $D/cert.pem
    key-file: $D/key.pem
    ocsp-update-interval: 0
error-log: $D/error.log
hosts:
  default:
    paths:
      /:
        file.dir: $D/www
CONF
    h2o -c "$D/h2o.conf" >"$D/out" 2>&1 &
    T_PIDS+=($!)
    if wait_port 127.0.0.1 "$P" "${T_PIDS[-1]}" && wait_port 127.0.0.1 "$PS" "${T_PIDS[-1]}"; then
        started=1
        break
    fi
done
[ $started = 1 ] || { fail h2o_start "h2o did not start: $(tail -3 "$D/out")"; finish; }
R="$T_DIR/report"

for url in "http://127.0.0.1:$P/" "https://127.0.0.1:$PS/"; do
    name=h2c; case $url in https*) name=h2 ;; esac
    "$PACER" -t1 -c4 -m8 -d1s --h2 "$url" >"$R" 2>&1
    ok h2o_${name}_closed_loop "$(tail -5 "$R")" \
        "grep -q '^  Application protocol: h2\$' '$R' && grep -qE '^  Status codes: 200 [0-9]+\$' '$R' && outcomes_add_up '$R' && ! grep -q 'Errors:' '$R'"
    "$PACER" -t2 -c4 -m8 -d2s -R800 --h2 "$url" >"$R" 2>&1
    rps=$(field "$R" '^Requests/sec:')
    ok h2o_${name}_rate "Requests/sec $rps" "awk -v r='$rps' 'BEGIN { exit !((r - 800)^2 <= 64) }' && outcomes_add_up '$R'"
done

finish
