#!/usr/bin/env bash
# Install the Debian packages pacer needs that are missing, with apt-get.
#   scripts/deps.sh          build + test dependencies (make test, make demo)
#   scripts/deps.sh bench    also the peers bench/ compares against
# Runs apt-get only when something is missing, so a ready machine needs no
# network. Needs root (or sudo) when it does install.
set -eu

build_pkgs="gcc make pkg-config libc6-dev libssl-dev zlib1g-dev libnghttp2-dev libluajit-5.1-dev"
test_pkgs="nginx-light curl openssl procps python3-jsonschema libhdrhistogram-java default-jre-headless h2o valgrind chromium"
bench_pkgs="wrk apache2-utils nghttp2-client"

want="$build_pkgs $test_pkgs"
[ "${1:-}" = bench ] && want="$want $bench_pkgs"

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
