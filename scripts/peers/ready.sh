#!/usr/bin/env bash
# Waits until a peer on 127.0.0.1:PORT serves its Agent Card (HTTP 200), for shell use:
#   scripts/peers/start.sh python-honest 41101 >peer.log 2>&1 & scripts/peers/ready.sh 41101 [TIMEOUT_SECONDS] [--log FILE] [--pid PID]
# Exits 0 when ready, 1 after TIMEOUT_SECONDS (default 60), or at once when PID (the start.sh you
# started) has ended. A failure says why it is likely: whether anything listens on the port, whether
# the peers are installed (A2A_PEERS_DIR, default target/peers), and the last lines of FILE (the
# peer's output, where start.sh's install and the interpreter's traceback land). Needs only bash.
set -uo pipefail

usage() { echo "usage: ready.sh PORT [TIMEOUT_SECONDS] [--log FILE] [--pid PID]" >&2; exit 2; }
[[ $# -ge 1 ]] || usage
port="$1"
shift
timeout=60
if [[ $# -gt 0 && "$1" != --* ]]; then timeout="$1"; shift; fi
log=""
pid=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --log) log="${2:?--log needs a file}"; shift 2 ;;
        --pid) pid="${2:?--pid needs a pid}"; shift 2 ;;
        *) usage ;;
    esac
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="${A2A_PEERS_DIR:-$(cd "$here/../.." && pwd)/target/peers}"
deadline=$((SECONDS + timeout))

card_status() {
    last_status=""
    exec 3<>"/dev/tcp/127.0.0.1/$port" || return 2
    printf 'GET /.well-known/agent-card.json HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$port" >&3
    local status_line
    IFS= read -r -t 5 status_line <&3
    exec 3<&-
    last_status="${status_line%$'\r'}"
    [[ "$status_line" == HTTP/1.1\ 200* ]]
}

# Why the card is not there, as far as this script can tell, on stderr.
explain() {
    if [[ -n "$last_status" ]]; then
        echo "ready.sh: 127.0.0.1:$port answers, but not with the card: '$last_status'" >&2
    else
        echo "ready.sh: nothing answers on 127.0.0.1:$port" >&2
    fi
    if [[ ! -x "$peers/py/bin/python" || ! -f "$peers/py/.a2a-peers-stamp" ]]; then
        echo "ready.sh: the Python peers are not installed in $peers/py (run scripts/peers/install.sh)" >&2
    fi
    if [[ ! -f "$peers/js/.a2a-peers-stamp" ]]; then
        echo "ready.sh: the JS peers are not installed in $peers/js (run scripts/peers/install.sh)" >&2
    fi
    if [[ -n "$log" ]]; then
        if [[ -s "$log" ]]; then
            echo "ready.sh: the last lines of $log:" >&2
            tail -n 20 "$log" | sed 's/^/  | /' >&2
        else
            echo "ready.sh: $log is empty" >&2
        fi
    fi
}

last_status=""
while ((SECONDS < deadline)); do
    if card_status 2>/dev/null; then
        exit 0
    fi
    if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then
        echo "ready.sh: the peer (pid $pid) ended before serving a card on 127.0.0.1:$port" >&2
        explain
        exit 1
    fi
    sleep 0.1
done
echo "ready.sh: no agent card on 127.0.0.1:$port after ${timeout}s" >&2
explain
exit 1
