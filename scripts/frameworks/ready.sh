#!/usr/bin/env bash
# Waits until an agent on 127.0.0.1:PORT serves its Agent Card (HTTP 200), for shell use:
#   scripts/frameworks/start.sh fasta2a 41301 & scripts/frameworks/ready.sh 41301 [TIMEOUT_SECONDS] [CARD_PATH]
# Tries /.well-known/agent-card.json, then /.well-known/agent.json (0.2 agents), unless CARD_PATH is given.
# Exits 0 when ready, 1 after TIMEOUT_SECONDS (default 90: some frameworks import for a long time).
# Needs only bash (no curl).
set -uo pipefail

port="${1:?usage: ready.sh PORT [TIMEOUT_SECONDS] [CARD_PATH]}"
timeout="${2:-90}"
paths=("${3:-/.well-known/agent-card.json}")
[[ $# -ge 3 ]] || paths+=("/.well-known/agent.json")
deadline=$((SECONDS + timeout))

card_status() {
    local path="$1"
    exec 3<>"/dev/tcp/127.0.0.1/$port" || return 1
    printf 'GET %s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$path" "$port" >&3
    local status_line
    IFS= read -r -t 5 status_line <&3
    exec 3<&-
    [[ "$status_line" == HTTP/1.?\ 200* ]]
}

while ((SECONDS < deadline)); do
    for path in "${paths[@]}"; do
        if card_status "$path" 2>/dev/null; then
            exit 0
        fi
    done
    sleep 0.2
done
echo "ready.sh: no agent card on 127.0.0.1:$port (${paths[*]}) after ${timeout}s" >&2
exit 1
