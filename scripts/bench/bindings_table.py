"""The table of scripts/bench/bindings.sh: per binding, each client's CPU and throughput as a ratio
to that binding's hand-written floor (floor CPU / client CPU, so 1.0 is at the floor and more is
cheaper), medians over the runs with every run's figure beside them."""
import json, statistics, sys

rows = [json.loads(line) for line in open(sys.argv[1])]
med = statistics.median
BINDINGS = [
    ("JSON-RPC 1.0", "hyper-util + serde_json (hand-written)"),
    ("HTTP+JSON 1.0", "hyper-util + serde_json over HTTP+JSON (hand-written)"),
    ("gRPC 1.0", "tonic + prost (hand-written gRPC)"),
    ("JSON-RPC 0.3", "hyper-util + serde_json over 0.3 JSON-RPC (hand-written)"),
]
MEMBERS = {
    "JSON-RPC 1.0": ["a2a-client", "a2a-client-lf 0.2.9", "a2a-protocol-client 0.15.0"],
    "HTTP+JSON 1.0": ["a2a-client over HTTP+JSON", "a2a-client-lf 0.2.9 over HTTP+JSON",
                      "a2a-protocol-client 0.15.0 over HTTP+JSON"],
    "gRPC 1.0": ["a2a-client over gRPC", "a2a-protocol-client 0.15.0 over gRPC"],
    "JSON-RPC 0.3": ["a2a-client over 0.3 JSON-RPC"],
}
WORKLOADS = [("send-1", "SendMessage, one at a time"), ("send-64", "SendMessage, 64 in flight"),
             ("stream", "a 1,000-event stream")]


def figures(run, name):
    return next((c for c in run["clients"] if c["client"] == name), None)


def runs_list(values):
    return ", ".join(f"{v:.2f}" for v in values)


for tag, title in WORKLOADS:
    runs = [r for r in rows if r["tag"] == tag]
    if not runs:
        continue
    unit = "event" if tag == "stream" else "call"
    loads = [r["load"] for r in runs]
    print(f"\n{title} ({len(runs)} runs, load {min(loads)}-{max(loads)})")
    print(f"| binding | client | CPU µs per {unit} | CPU ratio to the floor (runs) | throughput ratio to the floor (runs) |")
    print("| --- | --- | ---: | --- | --- |")
    cpu_key = "cpu_us_per_event" if tag == "stream" else "cpu_us_per_call"
    for binding, floor in BINDINGS:
        for name in [floor] + MEMBERS[binding]:
            pairs = [(figures(r, floor), figures(r, name)) for r in runs]
            pairs = [(f, c) for f, c in pairs if f and c]
            if not pairs:
                continue
            cpu = [c[cpu_key] for _, c in pairs]
            cpu_ratio = [f[cpu_key] / c[cpu_key] for f, c in pairs]
            wall_ratio = [f["seconds"] / c["seconds"] for f, c in pairs]
            label = "**floor**" if name == floor else name
            print(f"| {binding} | {label} | {med(cpu):.2f} | {med(cpu_ratio):.2f} ({runs_list(cpu_ratio)}) "
                  f"| {med(wall_ratio):.2f} ({runs_list(wall_ratio)}) |")
