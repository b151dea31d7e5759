# Sourced by rust_clients.sh and bindings.sh: the bench agent in its own process, and `record`.
# Needs $bench (an a2a-bench binary) and $out (the JSON lines file); sets $url and stops the agent
# on exit.

urls="$(mktemp)"
"$bench" serve --kind bench --events 1000 >"$urls" &
agent=$!
trap 'kill $agent 2>/dev/null || true; rm -f "$urls"' EXIT
for _ in $(seq 1 100); do [[ -s "$urls" ]] && break; sleep 0.05; done
url="$(head -1 "$urls")"

# record TAG COMMAND...: runs COMMAND (echoed with '+' and the load) and appends its JSON line to
# $out with the tag and the 1-minute load.
record() {
    local tag="$1"; shift
    local load; load="$(cut -d' ' -f1 /proc/loadavg)"
    echo "+ $* (load $load)" >&2
    "$@" | python3 -c "import json,sys; r=json.load(sys.stdin); r['tag']='$tag'; r['load']=$load; print(json.dumps(r))" >>"$out"
}
