#!/usr/bin/env bash
# BENCHMARKS.md figure 11: every binding against its hand-written floor, with the rivals that speak
# it, interleaved in one process.
#   scripts/bench/bindings.sh [--runs N] [--out FILE]
# Starts the bench agent in its own process (one port: 1.0 JSON-RPC, HTTP+JSON and gRPC on its
# card, a 0.3 JSON-RPC face below /v03), so the compare process's CPU is the clients' own. For each
# workload (SendMessage one at a time, 64 in flight, a 1,000-event stream) it runs one
# `a2a-bench compare` over the thirteen clients of the four bindings, N times (default 3); every
# client is checked for the same answers before timing. Every command is echoed with '+'; the JSON
# lines go to FILE (default target/bench/bindings.jsonl), the table (ratios to each binding's own
# floor) to stdout. Environment: BENCH (a built a2a-bench; default: build it with A2A_PROFILE,
# scripts/profile.sh), SMOKE (1: a quick check, no figures).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

runs=3
out="$root/target/bench/bindings.jsonl"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$(dirname "$out")"
: >"$out"
# shellcheck source=../profile.sh
source "$root/scripts/profile.sh"
bench="${BENCH:-$bin_dir/a2a-bench}"
[[ -n "${BENCH:-}" ]] || build bindings.sh -p a2a-bench --bin a2a-bench
# SMOKE=1: a few blocks per workload, every client still checked for the same answers; the
# ratios then say nothing (the CI check of this script, scripts/check-scripts.sh).
scale() { if [[ -n "${SMOKE:-}" ]]; then echo 1; else echo "$1"; fi; }
clients="floor-hyper,sdk,a2a-client-lf,a2a-protocol-client"
clients+=",floor-rest,sdk-rest,a2a-client-lf-rest,a2a-protocol-client-rest"
clients+=",floor-grpc,sdk-grpc,a2a-protocol-client-grpc"
clients+=",floor-v03,sdk-v03"

# shellcheck source=compare_common.sh
source "$here/compare_common.sh"

for _ in $(seq 1 "$runs"); do
    record "send-1" "$bench" compare --clients "$clients" --workload send --url "$url" --rounds "$(scale 20)" --block "$(scale 200)"
    record "send-64" "$bench" compare --clients "$clients" --workload send --url "$url" --rounds "$(scale 20)" --block "$(scale 1000)" --in-flight 64
    record "stream" "$bench" compare --clients "$clients" --workload stream --expect-events 1000 --url "$url" --rounds "$(scale 40)" --block "$(scale 5)"
done

python3 "$here/bindings_table.py" "$out"
