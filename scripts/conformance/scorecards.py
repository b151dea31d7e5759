"""The scorecards of scripts/conformance/run.sh side by side, as a Markdown table.

    python3 scorecards.py DIR CLIENT...     reads DIR/<client>.json for each client
"""

import json
import sys

NAMES = {"a2a": "a2a-rs (`a2a send`)", "python": "a2a-sdk 1.3.0 (Python)", "js": "@a2a-js/sdk 1.3.0"}


def main() -> None:
    folder, clients = sys.argv[1], sys.argv[2:]
    cards = {c: json.load(open(f"{folder}/{c}.json")) for c in clients}
    first = cards[clients[0]]
    print("| scenario | " + " | ".join(NAMES.get(c, c) for c in clients) + " |")
    print("| --- |" + " --- |" * len(clients))
    for at, grade in enumerate(first["grades"]):
        cells = []
        for c in clients:
            g = cards[c]["grades"][at]
            mark = {"pass": "pass", "fail": "**fail**", "not-run": "not run", "pending": "pending"}[g["outcome"]]
            reason = g["verdict"] if g["outcome"] != "pass" else ""
            cells.append(f"{mark}: {reason}" if reason else mark)
        print(f"| `{grade['scenario']}` | " + " | ".join(cells) + " |")
    totals = [f"{sum(g['outcome'] == 'pass' for g in cards[c]['grades'])} of {len(cards[c]['grades'])}" for c in clients]
    print("| **passed** | " + " | ".join(totals) + " |")


main()
