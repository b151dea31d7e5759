#!/usr/bin/env bash
# The CI check that the scripts the documents cite run from nothing installed: each in its shortest
# mode, built with the dev profile (scripts/profile.sh), with the official SDK peers installed into
# a fresh directory by the scripts themselves (A2A_PEERS_DIR) and the system programs they start
# (redis-server, curl) installed by scripts/need.sh when missing. What is checked is that each runs
# to its last line with no step its document does not name; the numbers of a dev build are no
# figures.
#   scripts/check-scripts.sh        (.ci/run calls it after the tests)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export A2A_PROFILE=dev
export A2A_PEERS_DIR="$work/peers"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
started=$SECONDS
step() { echo "== check-scripts: $* ($((SECONDS - started)) s in)" >&2; }

step "scripts/bench/crash.sh: three phases of 12 tasks, one kill each"
TASKS=12 KILLS=1 IN_FLIGHT=4 TAKEOVER_MS=4000 RESULTS="$work/crash.jsonl" \
    bash "$root/scripts/bench/crash.sh" | tail -n 1 | tee "$work/crash.last"
python3 - "$work/crash.last" <<'PY'
import json, sys
summary = json.loads(open(sys.argv[1]).read())
assert summary["tasks"] > 0, summary
assert summary["lost"] == 0 and summary["executedTwice"] == 0, summary
PY

step "scripts/bench/bindings.sh --runs 1 (SMOKE: a block per workload)"
SMOKE=1 bash "$root/scripts/bench/bindings.sh" --runs 1 --out "$work/bindings.jsonl" >/dev/null
[[ -s "$work/bindings.jsonl" ]] || { echo "check-scripts: bindings.sh wrote no line" >&2; exit 1; }

step "scripts/bench/replicas.sh: 2 replicas, 20 agents, 20 marks"
REPLICAS=2 MARKS=20 IN_FLIGHT=4 RESULTS="$work/replicas.jsonl" bash "$root/scripts/bench/replicas.sh" 20 >/dev/null
[[ -s "$work/replicas.jsonl" ]] || { echo "check-scripts: replicas.sh wrote no line" >&2; exit 1; }

step "scripts/conformance/run.sh: the three clients, patience 5 s"
PATIENCE=5 OUT="$work/conformance" bash "$root/scripts/conformance/run.sh" >/dev/null
for client in a2a python js; do
    [[ -s "$work/conformance/$client.json" ]] || { echo "check-scripts: no scorecard for $client" >&2; exit 1; }
done
step "done"
