"""The table of scripts/bench/rust_clients.sh: medians and per-run figures of its JSON lines."""
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
med = statistics.median
for tag, what in [("send-1", "calls/s"), ("send-64", "calls/s"), ("stream", "events/s")]:
    runs = [r for r in rows if r["tag"] == tag]
    if not runs:
        continue
    print(f"\n{tag} ({len(runs)} runs, load {min(r['load'] for r in runs)}-{max(r['load'] for r in runs)})")
    print(f"| client | {what} (median of runs) | ratio to reqwest floor (runs) | CPU µs per {'event' if tag == 'stream' else 'call'} (runs) |")
    print("| --- | ---: | --- | --- |")
    for i, c in enumerate(runs[0]["clients"]):
        rate = [r["clients"][i]["events_per_second" if tag == "stream" else "requests_per_second"] for r in runs]
        ratio = [r["clients"][i]["ratio"] for r in runs]
        cpu = [r["clients"][i]["cpu_us_per_event" if tag == "stream" else "cpu_us_per_call"] for r in runs]
        print(f"| {c['client']} | {med(rate):,.0f} | {med(ratio):.2f} ({', '.join(f'{x:.2f}' for x in ratio)}) | {med(cpu):.2f} ({', '.join(f'{x:.2f}' for x in cpu)}) |")
rss = [r for r in rows if r["tag"] == "rss"]
if rss:
    print("\npeak RSS, 20,000 sends at 64 in flight (separate drive process per client)")
    print("| client | peak RSS MiB (runs) | open fds after (runs) |")
    print("| --- | --- | --- |")
    for client in dict.fromkeys(r["client"] for r in rss):
        mine = [r for r in rss if r["client"] == client]
        peaks = [r["peak_rss_kib"] / 1024 for r in mine]
        fds = ", ".join(str(r["open_files_after"]) for r in mine)
        print(f"| {client} | {med(peaks):.1f} ({', '.join(f'{p:.1f}' for p in peaks)}) | {fds} |")
