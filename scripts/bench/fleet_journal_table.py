"""The journal's cost in the fleet, from the JSON lines of `JOURNALS="none embedded redis"
scripts/bench/fleet.sh`: per size, batch and journal, the client's CPU and wall time per agent
(medians over the rounds, every round beside them) and the CPU against the same batch without a
journal; then what the journal wrote per task."""
import json, statistics, sys
from collections import defaultdict

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
med = statistics.median
by = defaultdict(list)
for r in rows:
    for b in r["batches"]:
        by[(r["size"], b["batch"], r.get("journalStore", "none"))].append((b, r))

print("| agents | batch | journal | client CPU per agent (rounds) | CPU against no journal | wall per agent (rounds) | honest not completed |")
print("| ---: | ---: | --- | --- | ---: | --- | ---: |")
for (size, batch, journal) in sorted(by, key=lambda k: (k[0], k[1], ["none", "embedded", "redis"].index(k[2]))):
    runs = by[(size, batch, journal)]
    cpu = [b["cpuSeconds"] / size * 1e3 for b, _ in runs]
    wall = [b["seconds"] / size * 1e3 for b, _ in runs]
    none = by.get((size, batch, "none"))
    against = f"{med(cpu) / med([b['cpuSeconds'] / size * 1e3 for b, _ in none]):.2f}" if none else "-"
    fmt = lambda xs: f"{med(xs):.3f} ms ({', '.join(f'{x:.3f}' for x in xs)})"
    honest = sum(b["honestNotCompleted"] for b, _ in runs)
    print(f"| {size:,} | {batch} | {journal} | {fmt(cpu)} | {against} | {fmt(wall)} | {honest} |")

print("\n| agents | journal | records per task | bytes per task | commits per task | failed | dropped | journaled tasks | not durable |")
print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    j = r.get("journal")
    if not j:
        continue
    tasks = sum(b["tasks"] for b in r["batches"])
    print(f"| {r['size']:,} | {j['store']} | {j['writes'] / tasks:.2f} | {j['bytes'] / tasks:,.0f} | "
          f"{j['commits'] / tasks:.2f} | {j['failed']} | {j['dropped']} | {j['journaledTasks']:,} | {j['notDurableTasks']} |")
