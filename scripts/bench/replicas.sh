#!/usr/bin/env bash
# BENCHMARKS.md figure 9, replicas at scale: REPLICAS client processes on one redis-server (Debian's,
# started here on a free loopback port, no persistence).
#   scripts/bench/replicas.sh [AGENTS]      (default 1000)
# 1. Mark latency: one process sets MARKS suspect marks, GAP_MS apart; the other REPLICAS-1 each poll
#    their own cache and stamp when each mark appears (`a2a-bench mark-latency`).
# 2. The fleet through REPLICAS replicas at once (each gives every agent one task, starting at its own
#    offset), with the shared cache and then with local caches only; Redis commands per task are read
#    from the server's INFO stats.
# 3. The same with the shared cache while redis-server is killed RESTART_AFTER seconds in and started
#    again (empty) OUTAGE seconds later.
# Environment: BENCH (a built a2a-bench; default: build it with A2A_PROFILE, scripts/profile.sh), REPLICAS (10), MARKS (500), GAP_MS (20), IN_FLIGHT (32 per replica), RESULTS (default
# target/bench/replicas.jsonl: one JSON line per part, with the load average).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
agents="${1:-1000}"
replicas="${REPLICAS:-10}"
marks="${MARKS:-500}"
gap_ms="${GAP_MS:-20}"
in_flight="${IN_FLIGHT:-32}"
restart_after="${RESTART_AFTER:-1.5}"
outage="${OUTAGE:-2}"
target="${CARGO_TARGET_DIR:-$root/target}"
out="$target/bench"
mkdir -p "$out"
results="${RESULTS:-$out/replicas.jsonl}"
# shellcheck source=../profile.sh
source "$root/scripts/profile.sh"
bench="${BENCH:-$bin_dir/a2a-bench}"
work="$(mktemp -d)"
server_pids=()
redis_pid=""

# shellcheck source=../need.sh
source "$root/scripts/need.sh"
need_debian replicas.sh redis-server redis-server
need_debian replicas.sh redis-cli redis-tools
stop_all() {
    for pid in "${server_pids[@]}"; do kill -INT "$pid" 2>/dev/null || true; done
    [[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null || true
    sleep 0.5
    for pid in "${server_pids[@]}" $redis_pid; do kill -KILL "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap stop_all EXIT
ulimit -n "$(ulimit -Hn)"
[[ -n "${BENCH:-}" ]] || build replicas.sh -p a2a-bench --bin a2a-bench

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
redis_url="redis://127.0.0.1:$port/"
start_redis() {
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
    redis_pid=$!
    for _ in $(seq 1 100); do
        [[ "$(redis-cli -p "$port" ping 2>/dev/null)" == PONG ]] && return 0
        sleep 0.05
    done
    echo "replicas.sh: redis-server did not start" >&2
    exit 1
}
commands() { redis-cli -p "$port" info stats | sed -n 's/^total_commands_processed:\([0-9]*\).*/\1/p'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
start_redis
echo "redis-server $(redis-server --version | sed -n 's/.*v=\([^ ]*\).*/\1/p') on $redis_url" >&2

# 1. Mark latency.
prefix="marks-$$"
start_at=$(($(date +%s%3N) + 3000))
load_before="$(load)"
probe_pids=()
for ((r = 0; r < replicas; r++)); do
    role=reader
    ((r == 0)) && role=writer
    "$bench" mark-latency --role "$role" --redis "$redis_url" --key-prefix "$prefix" --marks "$marks" \
        --gap-ms "$gap_ms" --start-at-ms "$start_at" >"$work/probe-$r.json" &
    probe_pids+=("$!")
done
echo "+ $bench mark-latency --role writer|reader ... x $replicas" >&2
for pid in "${probe_pids[@]}"; do wait "$pid"; done
python3 - "$work" "$replicas" "$marks" "$gap_ms" "$load_before" "$(load)" >>"$results" <<'PY'
import json, sys
work, replicas, marks, gap, before, after = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
writer = json.load(open(f"{work}/probe-0.json"))
readers = [json.load(open(f"{work}/probe-{r}.json")) for r in range(1, replicas)]
def q(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round((len(values) - 1) * p)))] if values else None
every, each, missed = [], [], 0
for n, set_at in enumerate(writer["atNs"]):
    seen = [r["atNs"][n] for r in readers]
    if any(s is None for s in seen):
        missed += 1
        continue
    delays = [(s - set_at) / 1e6 for s in seen]
    each.extend(delays)
    every.append(max(delays))
print(json.dumps({
    "part": "mark-latency", "replicas": replicas, "marks": marks, "gapMs": int(gap),
    "connected": all(r["connected"] for r in [writer] + readers),
    "seenByAllMs": {"p50": q(every, .5), "p90": q(every, .9), "p99": q(every, .99), "max": q(every, 1)},
    "seenByEachMs": {"p50": q(each, .5), "p99": q(each, .99), "max": q(each, 1)},
    "missed": missed, "loadBefore": before, "loadAfter": after,
}))
PY
tail -1 "$results"

# The fleet for parts 2 and 3.
per=$(((agents + 1) / 2))
for i in 0 1; do
    first=$((i * per)); count=$((agents - first < per ? agents - first : per))
    "$bench" serve --kind fleet --first "$first" --agents "$count" >"$work/agents-$i.txt" &
    server_pids+=("$!")
    for _ in $(seq 1 1200); do [[ "$(wc -l <"$work/agents-$i.txt")" -ge "$count" ]] && break; sleep 0.1; done
done

# Runs every replica over the fleet at once; prints one JSON line summing them.
replicated() {
    local label="$1" shared="$2" prefix="fleet-$$-$1"
    local pids=() before after
    before="$(commands)"
    local load_before; load_before="$(load)"
    local started; started="$(date +%s%3N)"
    for ((r = 0; r < replicas; r++)); do
        local args=(fleet --agents-file "$work/agents-0.txt" --agents-file "$work/agents-1.txt"
            --in-flight "$in_flight" --batches 1 --offset $((r * agents / replicas)) --replica "replica-$r")
        [[ "$shared" == yes ]] && args+=(--redis "$redis_url" --key-prefix "$prefix")
        "$bench" "${args[@]}" >"$work/$label-$r.json" &
        pids+=("$!")
    done
    [[ "$label" == restart ]] && {
        sleep "$restart_after"; kill -KILL "$redis_pid"; wait "$redis_pid" 2>/dev/null || true
        sleep "$outage"; start_redis
    }
    for pid in "${pids[@]}"; do wait "$pid"; done
    local ended; ended="$(date +%s%3N)"
    sleep 2 # one resync interval and more, for the marks to reach a restarted server
    after="$(commands)"
    local keys; keys="$(redis-cli -p "$port" --scan --pattern "$prefix:suspect:*" | wc -l)"
    python3 - "$work" "$label" "$replicas" "$shared" "$before" "$after" "$keys" "$load_before" "$(load)" \
        "$((ended - started))" <<'PY'
import json, sys
work, label, replicas, shared, before, after, keys, lb, la, ms = sys.argv[1:11]
reports = [json.load(open(f"{work}/{label}-{r}.json")) for r in range(int(replicas))]
b = [r["batches"][0] for r in reports]
tasks = sum(x["tasks"] for x in b)
total = lambda k: sum(x[k] for x in b)
print(json.dumps({
    "part": label, "replicas": int(replicas), "agents": reports[0]["agents"], "lying": reports[0]["lying"],
    "shared": shared == "yes", "tasks": tasks, "seconds": int(ms) / 1e3,
    "wastedRoundTrips": total("wastedRoundTrips"), "wastedPerReplica": [x["wastedRoundTrips"] for x in b],
    "refusals": total("refusals"), "singleShotAtOnce": total("singleShotAtOnce"),
    "honestNotCompleted": total("honestNotCompleted"), "notCompleted": total("notCompleted"),
    "slowestTaskMs": max(x["slowestTaskMs"] for x in b),
    "sharedCacheErrors": total("sharedCacheErrors"), "sharedCacheReconnects": total("sharedCacheReconnects"),
    "sharedMarksReceived": total("sharedMarksReceived"), "sharedCardsLoaded": total("sharedCardsLoaded"),
    "redisCommands": int(after) - int(before) if label != "restart" else None,
    "redisCommandsPerTask": (int(after) - int(before)) / tasks if label != "restart" and tasks else None,
    "marksInRedisAfter": int(keys) if shared == "yes" else None,
    "honestMarked": sum(r["honestMarked"] for r in reports),
    "loadBefore": lb, "loadAfter": la,
}))
PY
}
for part in "shared yes" "local no" "restart yes"; do
    set -- $part
    echo "+ $replicas x $bench fleet --batches 1 --in-flight $in_flight (${1})" >&2
    replicated "$1" "$2" >>"$results"
    tail -1 "$results"
done
echo "replicas.sh: results in $results" >&2
