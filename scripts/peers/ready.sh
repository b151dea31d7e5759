#!/usr/bin/env bash
# Waits until a peer on 127.0.0.1:PORT serves its Agent Card (HTTP 200), for shell use:
#   scripts/peers/start.sh python-honest 41101 & scripts/peers/ready.sh 41101 [TIMEOUT_SECONDS]
# Exits 0 when ready, 1 after TIMEOUT_SECONDS (default 60). Needs only bash (no curl).
set -uo pipefail

port="${1:?usage: ready.sh PORT [TIMEOUT_SECONDS]}"
timeout="${2:-60}"
deadline=$((SECONDS + timeout))

card_status() {
    exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf 'GET /.well-known/agent-card.json HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$port" >&3
    local status_line
    IFS= read -r -t 5 status_line <&3
    exec 3<&-
    [[ "$status_line" == HTTP/1.1\ 200* ]]
}

while ((SECONDS < deadline)); do
    if card_status 2>/dev/null; then
        exit 0
    fi
    sleep 0.1
done
echo "ready.sh: no agent card on 127.0.0.1:$port after ${timeout}s" >&2
exit 1
