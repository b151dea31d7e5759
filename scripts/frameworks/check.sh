#!/usr/bin/env bash
# Runs each agent of the corpus and records the truth and what `a2a audit` says:
#   scripts/frameworks/check.sh [NAME[:VARIANT]...]     (default: every line of agents.tsv)
# For each agent variant: install (idempotent), start on a free loopback port, wait for the card, run
# probe.py (raw HTTP, JSON report) and `target/debug/a2a audit` (table and --json), stop the agent.
# Output under target/frameworks/check/NAME[-VARIANT]/: probe.json, audit.txt, audit.json, audit.rc.
# Needs target/debug/a2a (cargo build -p a2a-typestate-cli); A2A_BIN overrides it. PUSH_WAIT (default 15)
# is how long the probe waits for push callbacks.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/target/frameworks/check"
a2a="${A2A_BIN:-$root/target/debug/a2a}"
mkdir -p "$out"

want=("$@")
selected() {
    local key="$1" name="$2"
    ((${#want[@]} == 0)) && return 0
    local w
    for w in "${want[@]}"; do
        [[ "$w" == "$key" || "$w" == "$name" ]] && return 0
    done
    return 1
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

status=0
while IFS=$'\t' read -r name variant base args; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    key="$name"
    [[ "$variant" != "-" ]] && key="$name:$variant"
    selected "$key" "$name" || continue
    label="${key/:/-}"
    dir="$out/$label"
    mkdir -p "$dir"
    "$here/install.sh" "$name" >/dev/null || { echo "check.sh: $key: install failed" >&2; status=1; continue; }
    port="$(free_port)"
    # shellcheck disable=SC2086
    "$here/start.sh" "$name" "$port" $args 2>/dev/null &
    pid=$!
    base_url="http://127.0.0.1:$port${base%/}"
    card_path="${base%/}/.well-known/agent-card.json"
    [[ "$base" == *.json ]] && card_path="$base"  # the card URL itself (Mastra's /api/.well-known/{id}/agent-card.json)
    if ! "$here/ready.sh" "$port" 120 "$card_path" 2>/dev/null; then
        echo "check.sh: $key: no card at 127.0.0.1:$port$card_path" >&2
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        status=1
        continue
    fi
    python3 "$here/probe.py" "$base_url" --push-wait "${PUSH_WAIT:-15}" --out "$dir/probe.json" >/dev/null
    if [[ -x "$a2a" ]]; then
        "$a2a" audit --color never "$base_url" >"$dir/audit.txt" 2>&1
        echo $? >"$dir/audit.rc"
        "$a2a" audit --json "$base_url" >"$dir/audit.json" 2>/dev/null
    else
        echo "check.sh: $a2a missing (cargo build -p a2a-typestate-cli); audit skipped" >&2
    fi
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    echo "check.sh: $key on $base_url: probe $dir/probe.json, audit exit $(cat "$dir/audit.rc" 2>/dev/null || echo -)"
done <"$here/agents.tsv"
exit $status
