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
# floor) to stdout. Environment: BENCH (a built a2a-bench; default: build it).
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
bench="${BENCH:-${CARGO_TARGET_DIR:-$root/target}/release/a2a-bench}"
if [[ -z "${BENCH:-}" ]]; then
    echo "+ cargo build --release -p a2a-bench --bin a2a-bench" >&2
    cargo build --release -p a2a-bench --bin a2a-bench >&2
fi
clients="floor-hyper,sdk,a2a-client-lf,a2a-protocol-client"
clients+=",floor-rest,sdk-rest,a2a-client-lf-rest,a2a-protocol-client-rest"
clients+=",floor-grpc,sdk-grpc,a2a-protocol-client-grpc"
clients+=",floor-v03,sdk-v03"

# shellcheck source=compare_common.sh
source "$here/compare_common.sh"

for _ in $(seq 1 "$runs"); do
    record "send-1" "$bench" compare --clients "$clients" --workload send --url "$url" --rounds 20 --block 200
    record "send-64" "$bench" compare --clients "$clients" --workload send --url "$url" --rounds 20 --block 1000 --in-flight 64
    record "stream" "$bench" compare --clients "$clients" --workload stream --expect-events 1000 --url "$url" --rounds 40 --block 5
done

python3 "$here/bindings_table.py" "$out"
