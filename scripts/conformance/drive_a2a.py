"""Points this SDK's client, as the `a2a send` command, at every scenario of a conformance fleet.

Each scenario runs `a2a send URL MESSAGE` the way the README shows, with `--task-deadline` and
`--request-timeout` set to the fleet's patience (the bounds a user sets) and, where the scenario has
a bearer token, `--bearer-env`. The harness gives up on a scenario after twice the patience (and 5 s).

    python3 drive_a2a.py A2A_BINARY FLEET_URL PATIENCE_SECONDS
"""

import concurrent.futures
import json
import os
import subprocess
import sys
import urllib.request


def one(binary: str, scenario: dict, patience: float) -> None:
    bound = f"{int(patience * 1000)}ms"
    command = [binary, "send", scenario["url"], scenario["message"], "--task-deadline", bound, "--request-timeout", bound]
    env = dict(os.environ)
    if scenario.get("bearerToken"):
        env["CONFORMANCE_TOKEN"] = scenario["bearerToken"]
        command += ["--bearer-env", "CONFORMANCE_TOKEN"]
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=patience * 2 + 5)
        said = f"exit {done.returncode}"
    except subprocess.TimeoutExpired:
        said = "cut by the harness"
    print(f"a2a {scenario['id']}: {said}", file=sys.stderr)


def main() -> None:
    binary, fleet, patience = sys.argv[1], sys.argv[2].rstrip("/"), float(sys.argv[3])
    with urllib.request.urlopen(f"{fleet}/scenarios") as response:
        scenarios = json.load(response)
    with concurrent.futures.ThreadPoolExecutor(len(scenarios)) as pool:
        list(pool.map(lambda s: one(binary, s, patience), scenarios))


main()
