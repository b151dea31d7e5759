# Sourced by the scripts that start a system program: each need installs it from Debian's packages
# when it is missing and this runs as root with apt-get, else stops the script at once with the one
# command that installs it. Quick when present (`command -v`).
#   need_debian WHO COMMAND PACKAGE     e.g. need_debian crash.sh redis-server redis-server
need_debian() {
    local who="$1" command="$2" package="$3"
    command -v "$command" >/dev/null 2>&1 && return 0
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
        echo "$who: installing $package (Debian's package) for $command" >&2
        if [[ -z "${A2A_APT_UPDATED:-}" ]]; then
            apt-get update -qq >&2 || true
            export A2A_APT_UPDATED=1
        fi
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$package" >&2 || true
    fi
    command -v "$command" >/dev/null 2>&1 || {
        echo "$who: needs $command, which is missing: apt-get install $package" >&2
        exit 1
    }
}
