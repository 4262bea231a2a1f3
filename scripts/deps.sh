#!/usr/bin/env bash
# Install the Debian packages pacer needs that are missing, with apt-get.
#   scripts/deps.sh          build + test dependencies (make test)
#   scripts/deps.sh build    the build dependencies only (make demo)
#   scripts/deps.sh bench    build + test, and what bench/ needs besides
# Runs apt-get only when something is missing, so a ready machine needs no
# network. Needs root (or sudo) when it does install.
#
# The test set is every package whose programs or files a test uses: a test
# that finds one of them missing FAILS and names the package (need_cmd in
# tests/integration/lib.sh); it does not skip. Nothing else is assumed but
# Debian's essential packages (coreutils, grep, sed, bash, util-linux for
# unshare, bsdutils for script(1), ...), which every Debian system has.
set -eu

# list: the package names in stdin, without the # comments.
list() { sed 's/#.*//' | tr -s ' \n' '  '; }

build_pkgs=$(list <<'EOF'
gcc make pkg-config libc6-dev
libssl-dev zlib1g-dev libnghttp2-dev libluajit-5.1-dev libjansson-dev
libngtcp2-dev libngtcp2-crypto-gnutls-dev libnghttp3-dev libgnutls28-dev  # HTTP/3 (QUIC TLS is GnuTLS)
libopenmpi-dev        # mpi.h: pacer under mpirun (libmpi is loaded only then)
EOF
)
test_pkgs=$(list <<'EOF'
openmpi-bin           # mpirun (test_mpi*.sh)
nginx-light           # nginx: the HTTP/1.1, TLS and h2 target (lib.sh start_nginx)
h2o                   # a second HTTP/2 server (test_h2o.sh)
curl                  # test_serve.sh, test_h1fault_selftest.sh, test_requests.sh
openssl               # test certificates (lib.sh, test_h2o.sh)
apache2-utils         # ab, side by side with --format ab (test_requests.sh)
wrk                   # its example Lua scripts in /usr/share/doc/wrk (test_scripts.sh)
nghttp2-client        # h2load, nghttp (test_h2.sh, test_h2fault_selftest.sh)
caddy                 # an HTTP/3 server (test_h3*.sh)
ngtcp2-server         # gtlsserver, a second HTTP/3 server (test_h3*.sh)
ngtcp2-client         # gtlsclient, checks the UDP relay without pacer (test_udprelay_selftest.sh)
hostname              # hostname (test_mpi_netns.sh: each host names itself)
hey                   # hey, side by side with `pacer hey` (test_hey.sh)
time                  # /usr/bin/time, peak RSS (test_faults.sh, test_h2_faults.sh)
procps                # pgrep (lib.sh nginx_worker)
tmux                  # a real terminal for the live view (test_live.sh)
iproute2              # ip, tc (test_core.sh, test_faults.sh, test_mpi_netns.sh: namespaces, netem), ss (test_conns.sh)
mount                 # mount --bind in a private namespace (test_labels.sh)
util-linux            # unshare, taskset (test_labels.sh, test_mpi_netns.sh, bench/)
python3               # echo server, JSON checks, raw-socket clients
prometheus            # scrapes --metrics-listen (test_metrics_listen.sh; the test starts its own,
                      # on loopback with a temporary config and storage; no service is started here)
python3-jsonschema    # result files against docs/*.schema.json (test_outputs.sh)
python3-yaml          # reads deploy/kubernetes/ to run its shard commands (test_shard.sh)
default-jre-headless  # java, to run ...
libhdrhistogram-java  # ... HdrHistogram's HistogramLogProcessor on --hlog files
valgrind              # test_valgrind.sh
chromium              # renders --html pages headless (tests/tools/html_check.sh)
zsh                   # the zsh completion, loaded by compinit (test_completion.sh)
dpkg-dev debhelper build-essential  # make deb (test_deb.sh; dpkg-checkbuilddeps wants build-essential)
lintian               # the packages checked (test_deb.sh)
git binutils          # the tree copied for make deb, readelf (test_deb.sh)
prometheus-node-exporter    # the server host's exporters, started on loopback (test_server_metrics.sh)
prometheus-process-exporter
EOF
)
# bench/run.sh compares pacer with wrk, ab and h2load and measures with
# /usr/bin/time, all in the test set; wrk2 is not packaged in Debian.
bench_pkgs=""

case ${1:-} in
"") want="$build_pkgs $test_pkgs" ;;
build) want="$build_pkgs" ;;
bench) want="$build_pkgs $test_pkgs $bench_pkgs" ;;
*) echo "usage: scripts/deps.sh [build|bench]" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        # nginx-light is one of several nginx flavours; any of them will do.
        if [ "$p" = nginx-light ] && command -v nginx >/dev/null 2>&1; then
            continue
        fi
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "deps: need root to install:$missing" >&2; exit 1; }
    SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >&2
# Debian's prometheus starts a service of its own on :9090 where systemd runs;
# test_metrics_listen.sh starts its own instead, so that one is stopped.
case " $missing " in
*" prometheus "*)
    if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet prometheus 2>/dev/null; then
        $SUDO systemctl disable --now prometheus >&2 || true
    fi ;;
esac
