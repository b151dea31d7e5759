#!/usr/bin/env bash
# RELIABILITY.md, "Crashes": tasks lost and tasks executed twice when orchestrators are killed.
#   scripts/bench/crash.sh [AGENT_URL ...]
# Two phases of TASKS tasks each (task n goes to agent n mod count), through `a2a-crash` (an
# orchestrator with a task journal, a2a-bench/src/bin/a2a-crash.rs):
# 1. one client process with the embedded journal (a redb file);
# 2. three replicas with the Redis journal on one redis-server (Debian's, started here on a free
#    loopback port, no persistence), each running its third of the tasks.
# Each process is killed with SIGKILL at a random point of its run (after a random number of new
# outcomes) KILLS times, started again each time, then left to finish; on each start it recovers what
# its journal holds.
# 3. three replicas with the Redis journal (a replica lease of 1 s), one of them killed once at a
#    random point of the first half of its share and never started again: the two others, once their
#    own share is done, take its tasks over (`Client::take_over`) for TAKEOVER_MS and run the part of
#    its share it never began.
# The agents count every execution themselves: each must serve GET /test/executions, a JSON object
# of message text to the number of tasks that text started (the testkit's agents and the official
# Python SDK peer in scripts/peers/ do). Lost: a task no agent executed; executed twice: a task
# executed more than once.
# Without URLs it starts its own: a testkit agent (`a2a-bench serve --kind testkit`) and the Python
# SDK peer (`python-honest`, which scripts/peers/start.sh installs first when missing).
# Environment: A2A_PROFILE (release; dev for a quick check, scripts/profile.sh), TASKS (1000), KILLS (6), IN_FLIGHT (32), STEP_MS (50, the agents it starts), TAKEOVER_MS (10000),
# STREAMING (1: the tasks depend on streaming), RESULTS (target/bench/crash.jsonl: the summary line).
# The last line on stdout is one JSON object: tasks, lost, executedTwice, undetermined (may have
# started), noOutcome (tasks with no `ran`, `recovered` or `taken-over` outcome line), and per phase the same with
# what the orchestrators that were not killed reported (recovered, resent because never started).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
tasks="${TASKS:-1000}"
kills="${KILLS:-6}"
in_flight="${IN_FLIGHT:-32}"
step_ms="${STEP_MS:-50}"
takeover_ms="${TAKEOVER_MS:-10000}"
streaming="${STREAMING:-1}"
target="${CARGO_TARGET_DIR:-$root/target}"
mkdir -p "$target/bench"
results="${RESULTS:-$target/bench/crash.jsonl}"
# shellcheck source=../profile.sh
source "$root/scripts/profile.sh"
crash="$bin_dir/a2a-crash"
bench="$bin_dir/a2a-bench"
work="$(mktemp -d)"
pids=()
redis_pid=""

stop_all() {
    for pid in "${pids[@]}" $redis_pid; do kill -INT "$pid" 2>/dev/null || true; done
    sleep 0.3
    for pid in "${pids[@]}" $redis_pid; do kill -KILL "$pid" 2>/dev/null || true; done
    [[ -n "${KEEP_WORK:-}" ]] && echo "crash.sh: kept $work" >&2 || rm -rf "$work"
}
trap stop_all EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
# shellcheck source=../need.sh
source "$root/scripts/need.sh"
need_debian crash.sh redis-server redis-server
need_debian crash.sh redis-cli redis-tools
need_debian crash.sh curl curl

build crash.sh -p a2a-bench --bin a2a-crash --bin a2a-bench

urls=("$@")
if ((${#urls[@]} == 0)); then
    "$bench" serve --kind testkit --step-delay-ms "$step_ms" >"$work/testkit.url" &
    pids+=("$!")
    py_port="$(free_port)"
    "$root/scripts/peers/start.sh" python-honest "$py_port" --step-ms "$step_ms" >"$work/python.log" 2>&1 &
    pids+=("$!")
    for _ in $(seq 1 100); do [[ -s "$work/testkit.url" ]] && break; sleep 0.1; done
    "$root/scripts/peers/ready.sh" "$py_port" 120 --log "$work/python.log" --pid "${pids[-1]}" >&2
    urls=("$(head -1 "$work/testkit.url")" "http://127.0.0.1:$py_port")
fi
url_args=()
for url in "${urls[@]}"; do
    curl -sf "$url/test/executions" >/dev/null || { echo "crash.sh: $url serves no /test/executions" >&2; exit 1; }
    url_args+=(--url "$url")
done
echo "agents: ${urls[*]}" >&2
stream_arg=()
[[ "$streaming" == 1 ]] && stream_arg=(--streaming)

# One orchestrator's life: KILLS starts, each killed with SIGKILL at a random point of its share
# (after a random number of new outcomes, up to twice its even part of what is left), then one left
# to finish. Its share: SHARE tasks, outcomes appended to OUTCOMES.
life() {
    local name="$1" share="$2" outcomes="$3"
    shift 3
    local k pid have step goal
    for ((k = 0; k < kills; k++)); do
        have="$(wc -l <"$outcomes" 2>/dev/null || echo 0)"
        step=$(((share - have) * 2 / (kills - k + 1)))
        ((step < 1)) && step=1
        goal=$((have + 1 + RANDOM % step))
        "$crash" "${url_args[@]}" --tasks "$tasks" --in-flight "$in_flight" "${stream_arg[@]}" \
            --outcomes "$outcomes" "$@" >>"$work/$name.reports" 2>>"$work/$name.err" &
        pid=$!
        while kill -0 "$pid" 2>/dev/null && (($(wc -l <"$outcomes" 2>/dev/null || echo 0) < goal)); do
            sleep 0.01
        done
        if kill -KILL "$pid" 2>/dev/null; then
            echo "$name: killed after $(wc -l <"$outcomes") outcomes" >&2
            echo kill >>"$work/kills"
        fi
        wait "$pid" 2>/dev/null || true
    done
    "$crash" "${url_args[@]}" --tasks "$tasks" --in-flight "$in_flight" "${stream_arg[@]}" \
        --outcomes "$outcomes" "$@" >>"$work/$name.reports" 2>>"$work/$name.err" ||
        { echo "$name: last run failed" >&2; cat "$work/$name.err" >&2; }
}

kills_so_far() { wc -l <"$work/kills" 2>/dev/null || echo 0; }

# Executions of this phase's tasks, summed over the agents: one line per task index.
count() {
    local label="$1"
    for url in "${urls[@]}"; do curl -sf "$url/test/executions"; echo; done | python3 -c '
import json, sys
label, tasks = sys.argv[1], int(sys.argv[2])
seen = [0] * tasks
for line in sys.stdin:
    if not line.strip():
        continue
    for text, count in json.loads(line).items():
        prefix = f"crash task {label}-"
        if text.startswith(prefix) and text[len(prefix):].isdigit() and int(text[len(prefix):]) < tasks:
            seen[int(text[len(prefix):])] += count
print(json.dumps({"tasks": tasks, "lost": seen.count(0), "executedTwice": sum(1 for c in seen if c > 1)}))
' "$label" "$tasks"
}

# The tasks with no definite outcome: no `ran` or `recovered` line in the outcome files.
no_outcome() {
    cat "$@" | python3 -c '
import sys
tasks = int(sys.argv[1])
done = set()
for line in sys.stdin:
    fields = line.rstrip("\n").split("\t")
    if len(fields) >= 2 and fields[0].isdigit() and fields[1] in ("ran", "recovered", "taken-over"):
        done.add(int(fields[0]))
print(sum(1 for n in range(tasks) if n not in done))
' "$tasks"
}

# What the orchestrators reported, summed.
reported() {
    cat "$@" | python3 -c '
import json, sys
keys = ["recovered", "recoveredToATask", "notStartedResent", "mayHaveStarted", "resumeErrors", "takenOver", "runErrors", "notDurable"]
total = {k: 0 for k in keys}
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{"):
        report = json.loads(line)
        for k in keys:
            total[k] += report.get(k, 0)
print(json.dumps(total))
'
}

run_id="$(date +%s)"
# 1. One client process, the embedded journal.
label1="e$run_id"
started=$SECONDS
touch "$work/embedded.tsv" "$work/kills"
life embedded "$tasks" "$work/embedded.tsv" --label "$label1" --journal-file "$work/journal.redb"
phase1_kills="$(kills_so_far)"
phase1_open="$(no_outcome "$work/embedded.tsv")"
phase1="$(count "$label1")"
phase1_reports="$(reported "$work/embedded.reports")"
phase1_seconds=$((SECONDS - started))
echo "embedded: $phase1 $phase1_reports (${phase1_seconds} s)" >&2

# 2. Three replicas, the Redis journal.
port="$(free_port)"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no >/dev/null 2>&1 &
redis_pid=$!
for _ in $(seq 1 100); do [[ "$(redis-cli -p "$port" ping 2>/dev/null)" == PONG ]] && break; sleep 0.05; done
label2="r$run_id"
started=$SECONDS
life_pids=()
for r in 0 1 2; do
    touch "$work/replica-$r.tsv"
    life "replica-$r" $(((tasks - r + 2) / 3)) "$work/replica-$r.tsv" --label "$label2" \
        --redis "redis://127.0.0.1:$port/" --key-prefix "crash-$run_id" --replica "$r" --replicas 3 &
    life_pids+=("$!")
done
for pid in "${life_pids[@]}"; do wait "$pid"; done
phase2_kills=$(($(kills_so_far) - phase1_kills))
phase2_open="$(no_outcome "$work"/replica-*.tsv)"
phase2="$(count "$label2")"
phase2_reports="$(reported "$work"/replica-*.reports)"
phase2_seconds=$((SECONDS - started))
echo "replicas: $phase2 $phase2_reports (${phase2_seconds} s)" >&2

# 3. Three replicas, the Redis journal; replica 1 killed once and never started again.
label3="t$run_id"
started=$SECONDS
takeover_pids=()
for r in 0 1 2; do
    touch "$work/takeover-$r.tsv"
    "$crash" "${url_args[@]}" --tasks "$tasks" --in-flight "$in_flight" "${stream_arg[@]}" --label "$label3" \
        --redis "redis://127.0.0.1:$port/" --key-prefix "takeover-$run_id" --replica "$r" --replicas 3 \
        --replica-lease-ms 1000 --take-over-for-ms "$takeover_ms" --outcomes "$work/takeover-$r.tsv" \
        >>"$work/takeover-$r.reports" 2>>"$work/takeover-$r.err" &
    takeover_pids+=("$!")
done
share=$(((tasks + 1) / 3))
goal=$((1 + RANDOM % (share / 2 > 1 ? share / 2 : 1)))
while kill -0 "${takeover_pids[1]}" 2>/dev/null && (($(wc -l <"$work/takeover-1.tsv") < goal)); do sleep 0.01; done
if kill -KILL "${takeover_pids[1]}" 2>/dev/null; then
    echo "takeover: replica-1 killed after $(wc -l <"$work/takeover-1.tsv") outcomes, not started again" >&2
fi
phase3_kills=1
wait "${takeover_pids[1]}" 2>/dev/null || true
for r in 0 2; do wait "${takeover_pids[$r]}" || { echo "takeover: replica-$r failed" >&2; cat "$work/takeover-$r.err" >&2; }; done
phase3_open="$(no_outcome "$work"/takeover-*.tsv)"
phase3="$(count "$label3")"
phase3_reports="$(reported "$work"/takeover-0.reports "$work"/takeover-2.reports)"
phase3_seconds=$((SECONDS - started))
echo "takeover: $phase3 $phase3_reports (${phase3_seconds} s)" >&2

summary="$(python3 -c '
import json, sys
p1, r1, p2, r2, p3, r3 = (json.loads(a) for a in sys.argv[1:7])
s1, s2, s3, k1, k2, k3, o1, o2, o3 = (int(a) for a in sys.argv[7:16])
agents = sys.argv[16:]
phases = [
    dict(p1, name="one process, embedded journal", kills=k1, seconds=s1, noOutcome=o1, **r1),
    dict(p2, name="three replicas, redis journal", kills=k2, seconds=s2, noOutcome=o2, **r2),
    dict(p3, name="three replicas, one killed for good, taken over", kills=k3, seconds=s3, noOutcome=o3, **r3),
]
print(json.dumps({
    "tasks": p1["tasks"] + p2["tasks"] + p3["tasks"],
    "lost": p1["lost"] + p2["lost"] + p3["lost"],
    "executedTwice": p1["executedTwice"] + p2["executedTwice"] + p3["executedTwice"],
    "undetermined": r1["mayHaveStarted"] + r2["mayHaveStarted"] + r3["mayHaveStarted"],
    "noOutcome": o1 + o2 + o3,
    "agents": agents,
    "phases": phases,
}))
' "$phase1" "$phase1_reports" "$phase2" "$phase2_reports" "$phase3" "$phase3_reports" "$phase1_seconds" "$phase2_seconds" "$phase3_seconds" "$phase1_kills" "$phase2_kills" "$phase3_kills" "$phase1_open" "$phase2_open" "$phase3_open" "${urls[@]}")"
echo "$summary" >>"$results"
echo "$summary"
