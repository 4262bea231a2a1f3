#!/usr/bin/env bash
# scripts/fresh-check.sh - the fresh-machine check: do `make demo` and
# `make test` work, as root, in a clean clone on a minimal Debian 12 that has
# nothing but `make`?
#
#   scripts/fresh-check.sh [--refresh] [--prepare] [--keep] [--logs DIR] [REPO [REV]]
#
# REPO is a git repository (default: the one this script is in) and REV a
# commit in it (default: its HEAD). Only what is committed is checked.
#
# The first run builds a pristine system, `debootstrap --variant=minbase
# bookworm` plus `make`, and keeps it as a tarball (FRESH_DIR/
# bookworm-minbase.tar, FRESH_DIR defaulting to /var/tmp/pacer-fresh);
# --refresh builds it again, --prepare stops once it is there. Every run
# unpacks a new copy of that tarball, clones REPO into it (/root/pacer),
# mounts /proc, /sys, /dev, /dev/pts and /dev/shm, and runs `make demo` then
# `make test` there with CI=true and no standard input; then `make deb`,
# installs the package with `apt-get install ./deb/pacer_*.deb` and runs
# `pacer --version` and the demo against the installed /usr/bin/pacer.
# Logs (demo.log, test.log, deb.log, summary.txt) go to DIR outside the
# chroot (default FRESH_DIR/logs/<date>-<commit>). Everything it mounted is
# unmounted on the way out, and the copy is removed unless --keep.
#
# Prints the test suite's closing "N passed, N failed, N skipped" line; exits
# 0 only when demo, test and the package all succeeded. Needs root and a Debian mirror
# (MIRROR, default http://deb.debian.org/debian), reached from the host for
# debootstrap and from the chroot for scripts/deps.sh.
set -euo pipefail

FRESH_DIR=${FRESH_DIR:-/var/tmp/pacer-fresh}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SUITE=bookworm
TARBALL=$FRESH_DIR/$SUITE-minbase.tar
# Wall-clock bounds for each step inside the chroot (seconds).
DEMO_LIMIT=${FRESH_DEMO_LIMIT:-2400}
TEST_LIMIT=${FRESH_TEST_LIMIT:-3600}

say() { echo "fresh-check: $*" >&2; }
die() { say "$*"; exit 1; }

refresh=0 prepare=0 keep=0 logs=""
while [ $# -gt 0 ]; do
    case $1 in
    --refresh) refresh=1 ;;
    --prepare) prepare=1 ;;
    --keep) keep=1 ;;
    --logs) [ $# -ge 2 ] || die "--logs needs a directory"; logs=$2; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
    esac
    shift
done
[ $# -le 2 ] || die "too many arguments (see --help)"
[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, chroot, mount)"

here=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:-$here}
command -v git >/dev/null 2>&1 || die "git is not installed on this host"
rev=$(git -C "$repo" rev-parse --verify "${2:-HEAD}^{commit}") || die "no commit ${2:-HEAD} in $repo"
short=${rev:0:12}

mkdir -p "$FRESH_DIR"
root=""  # the chroot being used (set before anything is mounted in it)
mounted=() # mount points, in mount order

# --- unmounting and cleaning up ---------------------------------------------

# mounts_below DIR: the mount points at or below DIR (from mountinfo).
mounts_below() {
    awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo
}

# Ends what is still running inside the chroot: only processes whose root
# directory is the chroot, which this script started there.
stop_chroot_procs() {
    local p r sig
    for sig in TERM KILL; do
        for p in /proc/[0-9]*; do
            r=$(readlink "$p/root" 2>/dev/null) || continue
            [ "$r" = "$root" ] && kill -s "$sig" "${p#/proc/}" 2>/dev/null
        done
        [ "$sig" = TERM ] && sleep 2
    done
    return 0
}

unmount_all() {
    local i m
    [ -n "$root" ] || return 0
    stop_chroot_procs
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        m=${mounted[i]}
        umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || say "could not unmount $m"
    done
    mounted=()
}

cleanup() {
    local rc=$?
    unmount_all
    if [ -n "$root" ] && [ -d "$root" ]; then
        if [ -n "$(mounts_below "$root")" ]; then
            # Never rm -rf through a mount point (it would reach the host's /dev).
            say "still mounted below $root, leaving it in place: $(mounts_below "$root" | tr '\n' ' ')"
        elif [ "$keep" = 1 ]; then
            say "kept the chroot at $root"
        else
            rm -rf --one-file-system "$root"
        fi
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# mount_in ARGS... TARGET: mount, and remember TARGET for unmounting.
mount_in() {
    local target=${!#}
    mount "$@"
    mounted+=("$target")
}

# Mounts what a running system has: / itself a mount point (a private
# bind of the chroot onto itself: `ip netns exec` remounts / as a slave,
# which fails where / is no mount), /proc, /sys, /dev (the host's, as a
# slave bind so nothing mounted inside reaches the host), /dev/pts, a
# fresh /dev/shm and a fresh /run (tmpfs, as on a booted system; what
# `ip netns add` mounts at /run/netns goes with it).
mount_system() {
    mount_in --bind "$root" "$root"
    mount --make-private "$root"
    mount_in -t tmpfs -o mode=0755,nosuid,nodev run "$root/run"
    mount_in -t proc proc "$root/proc"
    mount_in -t sysfs sysfs "$root/sys" 2>/dev/null || mount_in --bind /sys "$root/sys"
    mount_in --bind /dev "$root/dev"
    mount --make-rslave "$root/dev" 2>/dev/null || true
    if [ -d /dev/pts ] && [ -e /dev/pts/ptmx ]; then
        mount_in --bind /dev/pts "$root/dev/pts"
    else
        mount_in -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts"
    fi
    mkdir -p "$root/dev/shm"
    mount_in -t tmpfs -o mode=1777,nosuid,nodev shm "$root/dev/shm"
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
    # Every Debian system has an /etc/hosts naming localhost (the installer
    # or the container runtime writes it); debootstrap writes none.
    [ -s "$root/etc/hosts" ] ||
        printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
}

# in_chroot LIMIT COMMAND: run a shell command inside, as root, with a clean
# environment (what CI has: CI=true, no standard input).
in_chroot() {
    local limit=$1
    shift
    timeout --kill-after=30 "$limit" chroot "$root" /usr/bin/env -i \
        HOME=/root USER=root LOGNAME=root SHELL=/bin/sh TERM=dumb CI=true \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        /bin/sh -c "$1" </dev/null
}

# --- the pristine system -------------------------------------------------------

if [ "$refresh" = 1 ] || [ ! -s "$TARBALL" ]; then
    if ! command -v debootstrap >/dev/null 2>&1; then
        say "installing debootstrap on this host"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
    fi
    root=$(mktemp -d "$FRESH_DIR/build.XXXXXX")
    chmod 755 "$root"
    say "debootstrap --variant=minbase $SUITE $root $MIRROR (a few minutes)"
    debootstrap --variant=minbase "$SUITE" "$root" "$MIRROR" >"$FRESH_DIR/debootstrap.log" 2>&1 ||
        die "debootstrap failed; see $FRESH_DIR/debootstrap.log"
    mount_system
    say "installing make in the new system"
    in_chroot 900 'export DEBIAN_FRONTEND=noninteractive; apt-get update -qq &&
        apt-get install -y -qq --no-install-recommends make && apt-get clean &&
        rm -rf /var/lib/apt/lists/*' >>"$FRESH_DIR/debootstrap.log" 2>&1 ||
        die "installing make failed; see $FRESH_DIR/debootstrap.log"
    unmount_all
    : >"$root/etc/resolv.conf"
    tar -C "$root" --numeric-owner -cf "$TARBALL.tmp" . && mv "$TARBALL.tmp" "$TARBALL"
    say "pristine system kept as $TARBALL"
    rm -rf --one-file-system "$root"
    root=""
fi

[ "$prepare" = 0 ] || { say "pristine system: $TARBALL"; exit 0; }

# --- one run -----------------------------------------------------------------

logs=${logs:-$FRESH_DIR/logs/$(date +%Y%m%d-%H%M%S)-$short}
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
root=$(mktemp -d "$FRESH_DIR/run.XXXXXX")
chmod 755 "$root"
tar -C "$root" --numeric-owner -xf "$TARBALL"

# The clone is made from the host (the fresh system has no git, and needs
# none): a plain clone, checked out at REV, with nothing beside it.
git clone -q --no-hardlinks --no-checkout "$repo" "$root/root/pacer"
git -C "$root/root/pacer" checkout -q --detach "$rev"
say "checking $repo at $short in $root; logs in $logs"
mount_system

status=0
# step NAME LIMIT WHAT [COMMAND]: run COMMAND (default `make NAME`) in the
# chroot's clone, log to NAME.log; sets $NAME to ok or "failed (exit N)".
step() {
    local name=$1 limit=$2 what=$3 cmd=${4:-make $1} start=$SECONDS result=ok
    say "$name ($what)"
    in_chroot "$limit" "cd /root/pacer && $cmd" >"$logs/$name.log" 2>&1 ||
        { result="failed (exit $?)"; status=1; }
    printf -v "$name" '%s' "$result"
    say "$name: $result after $((SECONDS - start)) s"
}
step demo "$DEMO_LIMIT" "installs the dependencies first"
step test "$TEST_LIMIT" "about ten minutes"
# The Debian package, installed as a user would, and the demo against the
# installed /usr/bin/pacer.
step deb "$DEMO_LIMIT" "make deb, apt-get install ./deb/pacer_*.deb, the demo with /usr/bin/pacer" \
    'make deb && DEBIAN_FRONTEND=noninteractive apt-get install -y ./deb/pacer_*_$(dpkg --print-architecture).deb &&
     /usr/bin/pacer --version && scripts/demo.sh /usr/bin/pacer'

line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$logs/test.log" | tail -n 1 || true)
{
    echo "commit $rev of $repo"
    echo "make demo: $demo"
    echo "make test: $test"
    echo "deb: $deb"
    grep -E '^  \[.*\] (FAIL|SKIP)' "$logs/test.log" || true
    echo "${line:-no closing line from tests/run.sh}"
} >"$logs/summary.txt"
sed -n '4,$p' "$logs/summary.txt" | sed '$d' >&2
say "logs: $logs"
echo "${line:-0 passed, 1 failed (tests/run.sh printed no closing line; see $logs/test.log)}"
exit "$status"
