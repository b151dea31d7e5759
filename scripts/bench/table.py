"""Turns target/bench/results.jsonl (written by scripts/bench/run.sh) into the BENCHMARKS.md tables.

Each figure is the median over its repetitions; the load column is the highest 1-minute load
average seen when one of those repetitions started (2 cores: above ~1 the machine was busy).

Usage: python3 scripts/bench/table.py target/bench/results.jsonl
"""

import json
import statistics
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def group(rows):
    groups = defaultdict(list)
    for r in rows:
        if "clients" in r:  # an interleaved comparison: see fig2
            continue
        key = (r["figure"], r["agent"], r["client"], r["workload"], r["in_flight"], r["requests"])
        groups[key].append(r)
    out = {}
    for key, rs in groups.items():
        med = lambda field: statistics.median(r[field] for r in rs if r.get(field) is not None)
        out[key] = {
            "n": len(rs),
            "rps": med("requests_per_second"),
            "eps": med("events_per_second"),
            "seconds": med("seconds"),
            "peak_mib": med("peak_rss_kib") / 1024,
            "kib_per": med("kib_per_in_flight") if all("kib_per_in_flight" in r for r in rs) else None,
            "load": max(r["load"] for r in rs),
            "fds_after": med("open_files_after") if all("open_files_after" in r for r in rs) else None,
        }
    return out


def find(g, figure, agent, client_prefix, workload, in_flight, requests=None):
    for (f, a, c, w, i, n), v in sorted(g.items()):
        if (f, a, w, i) == (figure, agent, workload, in_flight) and c.startswith(client_prefix):
            if requests is None or n == requests:
                return c, v
    return None, None


def fig2(rows):
    print("### Figure 2: SDK overhead against a hand-written reqwest + serde_json client (interleaved)\n")
    print("| agent | workload | in flight | hand-written | a2a-client | ratio (per-round range) | a2a-client engine (run_task) | ratio (per-round range) | SDK cost over the floor | load |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        if r.get("figure") != "fig2" or "clients" not in r:
            continue
        stream = r["workload"] == "stream"
        key, unit = ("events_per_second", "events/s") if stream else ("requests_per_second", "calls/s")
        floor, sdk, ver = r["clients"]
        cell = lambda c: f"{c['ratio']:.2f} ({c['ratio_range'][0]:.2f}-{c['ratio_range'][1]:.2f})"
        print(
            f"| {r['agent']} | {r['workload']} | {r['in_flight']} | {floor[key]:,.0f} {unit} | {sdk[key]:,.0f} | "
            f"{cell(sdk)} | {ver[key]:,.0f} | {cell(ver)} | "
            f"{(1 / sdk[key] - 1 / floor[key]) * 1e6:+.1f} µs per {'event' if stream else 'call'} | {r['load']:.1f} |"
        )
    print()


def fig3(g):
    print("### Figure 3: against the official clients, same bench agent\n")
    print("| workload | in flight | a2a-client (Rust) | a2a-sdk 1.3.0 (Python) | ratio | @a2a-js/sdk 1.3.0 | ratio | peak RSS Rust / Python / JS | load |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for workload, in_flight in [("send", 1), ("send", 64), ("stream", 1)]:
        _, rust = find(g, "fig3", "bench", "a2a-client", workload, in_flight)
        _, py = find(g, "fig3", "bench", "a2a-sdk", workload, in_flight)
        _, js = find(g, "fig3", "bench", "@a2a-js", workload, in_flight)
        if not (rust and py and js):
            continue
        unit, key = ("events/s", "eps") if workload == "stream" else ("msgs/s", "rps")
        print(
            f"| {workload} | {in_flight} | {rust[key]:,.0f} {unit} | {py[key]:,.0f} | {rust[key] / py[key]:.1f}x | "
            f"{js[key]:,.0f} | {rust[key] / js[key]:.1f}x | "
            f"{rust['peak_mib']:.0f} / {py['peak_mib']:.0f} / {js['peak_mib']:.0f} MiB | "
            f"{max(rust['load'], py['load'], js['load']):.1f} |"
        )
    print()


def fig4(g):
    print("### Figure 4: scale, 100 testkit agents, 1,000 streaming tasks in flight\n")
    print("| client | tasks | total time | tasks/s | peak RSS | KiB per in-flight task | open sockets after | load |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = [(k, v) for k, v in g.items() if k[0] == "fig4"]
    for (f, a, c, w, i, n), v in sorted(rows, key=lambda kv: (kv[0][2], kv[0][5])):
        print(
            f"| {c} | {n:,} | {v['seconds']:.2f} s | {v['rps']:,.0f} | {v['peak_mib']:.1f} MiB | "
            f"{v['kib_per']:.1f} | {v['fds_after'] if v['fds_after'] is not None else '-'} | {v['load']:.1f} |"
        )
    print()


def main():
    rows = load(sys.argv[1])
    g = group(rows)
    fig2(rows)
    fig3(g)
    fig4(g)


if __name__ == "__main__":
    main()
