#!/usr/bin/env bash
# Runs the client benchmarks of BENCHMARKS.md (figures 2-4) and prints their table.
#   scripts/bench/run.sh [fig2|fig3|fig4|all] [--reps N]
# Every measurement is one JSON line appended to target/bench/results.jsonl, tagged with its figure,
# its agent and the load average when it started; scripts/bench/table.py turns that file into the
# tables (median of the repetitions). Each command is echoed with a leading '+' so any single figure
# can be reproduced by hand. Figure 1 is criterion: cargo bench -p a2a-bench --bench parse.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

which_fig="${1:-all}"
reps=3
if [[ "${2:-}" == "--reps" ]]; then reps="${3:?--reps needs a number}"; fi

out="$root/target/bench"
mkdir -p "$out"
results="$out/results.jsonl"
bench="$root/target/release/a2a-bench"
py="$root/target/peers/py/bin/python"
agent_pids=()

cleanup() {
    for pid in "${agent_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -f "$out"/agents-$$-*.txt
}
trap cleanup EXIT

"$here/install.sh" >/dev/null
{
    echo "date: $(date -u +%FT%TZ)"
    echo "cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
    echo "memory: $(free -m | awk '/^Mem:/ {print $2}') MiB"
    echo "kernel: $(uname -sr)"
    echo "rustc: $(rustc --version)"
    echo "python: $("$py" --version 2>&1), a2a-sdk $("$py" -c 'import importlib.metadata as m; print(m.version("a2a-sdk"))')"
    echo "node: $(node --version), @a2a-js/sdk $(node -p "require('$root/target/peers/js/node_modules/@a2a-js/sdk/package.json').version")"
    echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$out/machine.txt" >&2
echo "+ cargo build --release -p a2a-bench --bin a2a-bench" >&2
cargo build --release -p a2a-bench --bin a2a-bench >&2

# Starts `a2a-bench serve ARGS...` in the background; sets AGENT_URLS (one per agent) and
# AGENT_FILE (the file that lists them).
serve() {
    local log="$out/agents-$$-${#agent_pids[@]}.txt"
    AGENT_FILE="$log"
    echo "+ $bench serve $*" >&2
    "$bench" serve "$@" >"$log" &
    agent_pids+=("$!")
    local want="$2"
    for _ in $(seq 1 200); do
        [[ "$(wc -l <"$log")" -ge "$want" ]] && break
        sleep 0.05
    done
    mapfile -t AGENT_URLS <"$log"
    [[ "${#AGENT_URLS[@]}" -ge "$want" ]] || { echo "run.sh: agents did not start ($log)" >&2; exit 1; }
}

# record FIGURE AGENT CMD...: runs CMD, tags its JSON line, appends it to results.jsonl.
record() {
    local figure="$1" agent="$2"
    shift 2
    local load
    load="$(cut -d' ' -f1 /proc/loadavg)"
    echo "+ $*" >&2
    local line
    line="$("$@")"
    "$py" -c 'import json,sys; d=json.loads(sys.argv[1]); d.update(figure=sys.argv[2], agent=sys.argv[3], load=float(sys.argv[4])); print(json.dumps(d))' \
        "$line" "$figure" "$agent" "$load" | tee -a "$results" >&2
}

rust() { "$bench" drive "$@"; }
python_client() { "$py" "$here/python_client.py" "$@"; }
js_client() { node "$here/js_client.mjs" "$@"; }

fig2() {
    # Interleaved: the three Rust clients take turns, one block each per round, so the ratios are not
    # skewed by whoever else was compiling in that minute.
    serve --agents 1 --kind bench --events 1000
    local url="${AGENT_URLS[0]}"
    serve --agents 1 --kind testkit --step-delay-ms 0
    local testkit="${AGENT_URLS[0]}"
    record fig2 bench "$bench" compare --workload send --url "$url" --rounds 20 --block 500 --in-flight 1
    record fig2 bench "$bench" compare --workload send --url "$url" --rounds 20 --block 2000 --in-flight 64
    record fig2 bench "$bench" compare --workload stream --url "$url" --rounds 20 --block 10 --in-flight 1 --expect-events 1000
    record fig2 testkit "$bench" compare --workload send --url "$testkit" --rounds 20 --block 250 --in-flight 1
}

fig3() {
    serve --agents 1 --kind bench --events 1000
    local url="${AGENT_URLS[0]}"
    for _ in $(seq 1 "$reps"); do
        for driver in python_client js_client; do
            record fig3 bench "$driver" --url "$url" --workload send --requests 1000 --in-flight 1
            record fig3 bench "$driver" --url "$url" --workload send --requests 4000 --in-flight 64
            record fig3 bench "$driver" --url "$url" --workload stream --requests 20 --in-flight 1 --expect-events 1000
        done
        # The Rust SDK on the same agent, in the same process layout, for the ratios.
        record fig3 bench rust --client sdk --workload send --url "$url" --requests 5000 --in-flight 1
        record fig3 bench rust --client sdk --workload send --url "$url" --requests 20000 --in-flight 64
        record fig3 bench rust --client sdk --workload stream --url "$url" --requests 100 --in-flight 1 --expect-events 1000
    done
}

fig4() {
    # 100 honest testkit agents; 10 ms between lifecycle events, so a task stays in flight ~30 ms
    # and 1,000 of them really overlap.
    serve --agents 100 --kind testkit --step-delay-ms 10
    for _ in $(seq 1 "$reps"); do
        for tasks in 1000 3000 10000; do
            for client in floor sdk sdk-engine; do
                record fig4 testkit-x100 rust --client "$client" --workload stream --urls-file "$AGENT_FILE" \
                    --requests "$tasks" --in-flight 1000 --expect-events 4
            done
        done
    done
}

case "$which_fig" in
    fig2) fig2 ;;
    fig3) fig3 ;;
    fig4) fig4 ;;
    all) fig2; cleanup; agent_pids=(); fig3; cleanup; agent_pids=(); fig4 ;;
    *) sed -n '2,3p' "${BASH_SOURCE[0]}" >&2; exit 2 ;;
esac
"$py" "$here/table.py" "$results"
