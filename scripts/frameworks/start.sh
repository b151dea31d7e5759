#!/usr/bin/env bash
# Starts one framework agent in the foreground on 127.0.0.1, logging to target/frameworks/logs/NAME-PORT.log:
#   scripts/frameworks/start.sh NAME PORT [AGENT_ARGS...]   (e.g. `start.sh beeai 41303 --protocol http_json`)
# Run scripts/frameworks/install.sh NAME first. The interpreter, or a Rust agent's own binary, replaces
# this shell (exec), so the pid you started is the agent's. See scripts/frameworks/README.md for card paths.
set -euo pipefail

[[ $# -ge 2 ]] || { sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
name="$1"
port="$2"
shift 2
[[ "$port" =~ ^[0-9]+$ ]] || { echo "start.sh: PORT must be a number, got '$port'" >&2; exit 2; }

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/target/frameworks"
[[ -d "$here/$name" ]] || { echo "start.sh: unknown framework '$name'" >&2; exit 2; }
mkdir -p "$out/logs"
log="$out/logs/$name-$port.log"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
# Nothing leaves the machine: no telemetry, no model API (every agent's model is canned).
export AGNO_TELEMETRY=false ANONYMIZED_TELEMETRY=false CREWAI_DISABLE_TELEMETRY=true OTEL_SDK_DISABLED=true \
    DO_NOT_TRACK=1 BEEAI_TELEMETRY_DISABLED=true MASTRA_TELEMETRY_DISABLED=1 LANGSMITH_TRACING=false \
    HF_HUB_OFFLINE=1

if [[ -f "$here/$name/agent.py" ]]; then
    py="$out/$name/venv/bin/python"
    [[ -x "$py" ]] || { echo "start.sh: $py missing: run scripts/frameworks/install.sh $name" >&2; exit 3; }
    echo "start.sh: $name on 127.0.0.1:$port, log $log" >&2
    exec "$py" "$here/$name/agent.py" --port "$port" "$@" >>"$log" 2>&1
elif [[ -f "$here/$name/agent.mjs" ]]; then
    dir="$out/$name/node"
    [[ -d "$dir/node_modules" ]] || { echo "start.sh: $dir/node_modules missing: run scripts/frameworks/install.sh $name" >&2; exit 3; }
    echo "start.sh: $name on 127.0.0.1:$port, log $log" >&2
    # ES modules resolve packages next to the importing file, not through NODE_PATH: run a copy beside
    # the installed node_modules.
    cp "$here/$name/agent.mjs" "$dir/agent.mjs"
    cd "$dir"
    exec node "$dir/agent.mjs" --port "$port" "$@" >>"$log" 2>&1
elif [[ -f "$here/$name/Cargo.toml" ]]; then
    agent="$out/$name/bin/agent"
    [[ -x "$agent" ]] || { echo "start.sh: $agent missing: run scripts/frameworks/install.sh $name" >&2; exit 3; }
    echo "start.sh: $name on 127.0.0.1:$port, log $log" >&2
    exec "$agent" --port "$port" "$@" >>"$log" 2>&1
else
    echo "start.sh: $here/$name has no agent.py, agent.mjs or Cargo.toml" >&2
    exit 3
fi
