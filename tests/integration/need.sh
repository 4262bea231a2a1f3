# need_cmd, sourced by lib.sh (and by test_serve.sh, which has its own
# pass/fail): the one way a test checks for a program or file it uses.
#
# need_cmd CMD PACKAGE: true when CMD (a command name, or an absolute path of
# a file or directory) is there. Otherwise a FAIL line, need_<CMD>, naming
# the Debian package that has it (scripts/deps.sh installs them all), and
# false. A missing dependency is a failure, never a skip: SKIP is only for
# what the platform cannot provide, and says why.
need_cmd() {
    local what=$1 pkg=$2 name
    case $what in
    /*) [ -e "$what" ] && return 0 ;;
    *) command -v "$what" >/dev/null 2>&1 && return 0 ;;
    esac
    name=${what#/}
    fail "need_${name//\//_}" "$what is missing: install the Debian package $pkg (scripts/deps.sh does)"
    return 1
}
