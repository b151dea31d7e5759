#!/usr/bin/env bash
# BENCHMARKS.md figure 9, the fleet: for each size, SERVERS processes of scripted agents
# (`a2a-bench serve --kind fleet`: seven honest and three lying in every ten) on 127.0.0.1, then one
# client giving every agent one verified task per batch, two batches (`a2a-bench fleet`).
#   scripts/bench/fleet.sh [SIZE...]        (default: 1000 3000 10000)
# Environment: BENCH (a built a2a-bench; default: build it), SERVERS (default 4), IN_FLIGHT (default 256), RESULTS (default
# target/bench/fleet.jsonl). One JSON line per size is appended to RESULTS, with the load average
# before and after the run. Everything started here is stopped on exit.
# The journal's cost in the fleet (BENCHMARKS.md figure 10): JOURNALS="none embedded redis" runs the
# client once per variant against the same agents, ROUNDS times in turn (default 1); `embedded` is
# a fresh redb file under target/bench, `redis` uses REDIS_URL (a fresh key prefix per run) or, when
# it is unset, a redis-server of its own (Debian's; started here on a free loopback port, no persistence).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1000 3000 10000)
servers="${SERVERS:-4}"
in_flight="${IN_FLIGHT:-256}"
target="${CARGO_TARGET_DIR:-$root/target}"
out="$target/bench"
mkdir -p "$out"
results="${RESULTS:-$out/fleet.jsonl}"
bench="${BENCH:-$target/release/a2a-bench}"
pids=()

stop_servers() {
    for pid in "${pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    pids=()
}
redis_pid=""
trap 'stop_servers; [[ -z "$redis_pid" ]] || kill "$redis_pid" 2>/dev/null || true; rm -f "$out"/fleet-$$-*.txt' EXIT
if [[ " ${JOURNALS:-none} " == *" redis "* && -z "${REDIS_URL:-}" ]]; then
    # shellcheck source=../need.sh
    source "$root/scripts/need.sh"
    need_debian fleet.sh redis-server redis-server
    need_debian fleet.sh redis-cli redis-tools
    redis_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
    redis_pid=$!
    for _ in $(seq 1 100); do [[ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" == PONG ]] && break; sleep 0.05; done
    [[ "$(redis-cli -p "$redis_port" ping 2>/dev/null)" == PONG ]] || { echo "fleet.sh: redis-server did not start" >&2; exit 1; }
    REDIS_URL="redis://127.0.0.1:$redis_port/"
    echo "fleet.sh: redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on $REDIS_URL" >&2
fi

# 10,000 agents are 10,000 listening sockets across the servers and as many connections in the client.
ulimit -n "$(ulimit -Hn)"
if [[ -z "${BENCH:-}" ]]; then
    echo "+ cargo build --release -p a2a-bench --bin a2a-bench" >&2
    cargo build --release -p a2a-bench --bin a2a-bench >&2
fi

for size in "${sizes[@]}"; do
    per=$(((size + servers - 1) / servers))
    files=()
    for ((i = 0; i < servers; i++)); do
        first=$((i * per))
        count=$((size - first < per ? size - first : per))
        ((count > 0)) || continue
        file="$out/fleet-$$-$i.txt"
        echo "+ $bench serve --kind fleet --first $first --agents $count > $file" >&2
        "$bench" serve --kind fleet --first "$first" --agents "$count" >"$file" &
        pids+=("$!")
        files+=(--agents-file "$file")
        expected[i]=$count
    done
    for ((i = 0; i < ${#pids[@]}; i++)); do
        file="$out/fleet-$$-$i.txt"
        for _ in $(seq 1 1200); do
            [[ "$(wc -l <"$file")" -ge "${expected[i]}" ]] && break
            kill -0 "${pids[i]}" 2>/dev/null || { echo "fleet.sh: server $i ended ($file)" >&2; exit 1; }
            sleep 0.1
        done
        [[ "$(wc -l <"$file")" -ge "${expected[i]}" ]] || { echo "fleet.sh: server $i too slow" >&2; exit 1; }
    done
    for ((round = 1; round <= ${ROUNDS:-1}; round++)); do
        for journal in ${JOURNALS:-none}; do
            flags=()
            case "$journal" in
                none) ;;
                embedded)
                    rm -f "$out/fleet-journal-$$.redb"
                    flags=(--journal "embedded:$out/fleet-journal-$$.redb")
                    ;;
                redis)
                    [[ -n "${REDIS_URL:-}" ]] || { echo "fleet.sh: JOURNALS=redis needs REDIS_URL" >&2; exit 2; }
                    flags=(--journal "redis:$REDIS_URL" --key-prefix "a2a-bench-fleet-$$-$size-$round")
                    ;;
                *) echo "fleet.sh: unknown journal $journal (none, embedded, redis)" >&2; exit 2 ;;
            esac
            load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
            echo "+ $bench fleet ${files[*]} --in-flight $in_flight ${flags[*]}" >&2
            line="$("$bench" fleet "${files[@]}" --in-flight "$in_flight" "${flags[@]}")"
            load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
            python3 - "$line" "$size" "$servers" "$load_before" "$load_after" "$journal" "$round" >>"$results" <<'PY'
import json, sys
report = json.loads(sys.argv[1])
report.update(size=int(sys.argv[2]), servers=int(sys.argv[3]), loadBefore=sys.argv[4], loadAfter=sys.argv[5],
              journalStore=sys.argv[6], round=int(sys.argv[7]))
print(json.dumps(report))
PY
            tail -1 "$results"
        done
    done
    rm -f "$out/fleet-journal-$$.redb"
    stop_servers
done
echo "fleet.sh: results in $results" >&2
