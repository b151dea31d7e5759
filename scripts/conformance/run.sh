#!/usr/bin/env bash
# Grades A2A clients with the conformance fleet: for each client, a fresh fleet
# (`a2a conformance serve` on loopback), the client's driver pointed at every scenario, then the
# scorecard (`a2a conformance report --json`) written to $OUT/<client>.json; at the end the
# scorecards side by side as a Markdown table (scorecards.py).
#
#   scripts/conformance/run.sh [CLIENT...]     CLIENT: a2a (this SDK), python (a2a-sdk 1.3.0),
#                                              js (@a2a-js/sdk 1.3.0); all three by default
#   PATIENCE=10 OUT=target/conformance         the defaults (A2A_PROFILE: scripts/profile.sh)
#
# The official clients are installed with the peers (scripts/peers/install.sh, pinned versions).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
patience="${PATIENCE:-10}"
out="${OUT:-$root/target/conformance}"
clients=("$@")
[[ ${#clients[@]} -gt 0 ]] || clients=(a2a python js)
mkdir -p "$out"

# shellcheck source=../profile.sh
source "$root/scripts/profile.sh"
# shellcheck source=../need.sh
source "$root/scripts/need.sh"
need_debian run.sh curl curl
build run.sh --quiet -p a2a-typestate-cli --bin a2a
a2a="$bin_dir/a2a"
"$root/scripts/peers/install.sh" >/dev/null
peers="${A2A_PEERS_DIR:-$root/target/peers}"
export A2A_PEERS_JS_DIR="$peers/js"

port=19477
for client in "${clients[@]}"; do
    fleet="http://127.0.0.1:$port"
    "$a2a" conformance serve --json --patience "${patience}s" --listen "127.0.0.1:$port" >/dev/null 2>"$out/$client.serve.log" &
    serve=$!
    trap 'kill $serve 2>/dev/null || true' EXIT
    for _ in $(seq 100); do
        curl -sf "$fleet/scenarios" >/dev/null && break
        sleep 0.1
    done
    case "$client" in
        a2a) python3 "$here/drive_a2a.py" "$a2a" "$fleet" "$patience" ;;
        python) "$peers/py/bin/python" "$here/drive_python.py" "$fleet" "$patience" ;;
        js) node "$here/drive_js.mjs" "$fleet" "$patience" ;;
        *) echo "run.sh: unknown client $client (a2a, python, js)" >&2; exit 2 ;;
    esac 2>"$out/$client.driver.log"
    "$a2a" conformance report --json "$fleet" >"$out/$client.json" || true
    kill "$serve" 2>/dev/null || true
    wait "$serve" 2>/dev/null || true
    echo "run.sh: $client: $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(sum(g["outcome"]=="pass" for g in s["grades"]), "of", len(s["grades"]), "passed")' "$out/$client.json")" >&2
    port=$((port + 1))
done
python3 "$here/scorecards.py" "$out" "${clients[@]}"
