#!/usr/bin/env bash
# Figure 2 of BENCHMARKS.md: the Rust clients side by side, interleaved in one process.
#   scripts/bench/rust_clients.sh [--runs N] [--out FILE]
# Starts the bench agent in its own process (so the compare process's CPU is the clients' own),
# then for each workload runs `a2a-bench compare` N times (default 3) over the five clients: the
# two hand-written floors (reqwest, hyper-util), a2a-client, a2a-client-lf 0.2.9 and
# a2a-protocol-client 0.15.0, each checked for correct answers before timing. Then one `drive`
# process per client for peak RSS (20,000 sends, 64 in flight). Every command is echoed with '+';
# the JSON lines go to FILE (default target/bench/rust-clients.jsonl), the table to stdout.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

runs=3
out="$root/target/bench/rust-clients.jsonl"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$(dirname "$out")"
: >"$out"
bench="${CARGO_TARGET_DIR:-$root/target}/release/a2a-bench"
clients="floor,floor-hyper,sdk,a2a-client-lf,a2a-protocol-client"

# shellcheck source=compare_common.sh
source "$here/compare_common.sh"

for run in $(seq 1 "$runs"); do
    record "send-1" "$bench" compare --clients "$clients" --workload send --url "$url" --rounds 20 --block 500
    record "send-64" "$bench" compare --clients "$clients" --workload send --url "$url" --rounds 20 --block 2000 --in-flight 64
    record "stream" "$bench" compare --clients "$clients" --workload stream --expect-events 1000 --url "$url" --rounds 20 --block 5
done
for client in ${clients//,/ }; do
    for run in $(seq 1 "$runs"); do
        record "rss" "$bench" drive --client "$client" --workload send --url "$url" --requests 20000 --in-flight 64
    done
done

python3 "$here/rust_clients_table.py" "$out"
