"""Drives the official a2a-sdk 1.3.0 Python client against an agent, for BENCHMARKS.md.

The client is built the way its README shows (`create_client` on the agent's base URL: card
discovery, transport selection), then `send_message` is called `--requests` times with at most
`--in-flight` calls outstanding. Prints one JSON line with the figures, the same shape as the Rust
driver (`a2a-bench drive`), so scripts/bench/run.sh can put them in one table.

Usage: target/peers/py/bin/python scripts/bench/python_client.py --url http://127.0.0.1:PORT \
           --workload send|stream --requests N --in-flight K [--expect-events E]
"""

import argparse
import asyncio
import json
import resource
import sys
import time
import uuid

import httpx
from a2a.client import ClientConfig, create_client
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest


def request() -> SendMessageRequest:
    return SendMessageRequest(
        message=Message(
            message_id=str(uuid.uuid4()),
            role=Role.ROLE_USER,
            parts=[Part(text="bench")],
        )
    )


async def one(client, workload: str, expect_events: int) -> int:
    """One call, read to its end; returns the events received (1 for a send)."""
    events = 0
    async for _event in client.send_message(request()):
        events += 1
    if workload == "stream" and expect_events and events != expect_events:
        raise RuntimeError(f"stream ended after {events} events, expected {expect_events}")
    return events


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--workload", choices=["send", "stream"], required=True)
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--in-flight", type=int, default=1)
    parser.add_argument("--expect-events", type=int, default=0)
    args = parser.parse_args()

    # Enough connections for every call in flight (httpx's default pool is 100, keep-alive 20).
    limits = httpx.Limits(max_connections=args.in_flight, max_keepalive_connections=args.in_flight)
    http = httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(60.0))
    config = ClientConfig(streaming=args.workload == "stream", httpx_client=http)
    client = await create_client(args.url, client_config=config)

    await one(client, args.workload, args.expect_events)  # warm up: connection, card, imports

    queue = list(range(args.requests))
    total_events = 0

    async def worker() -> None:
        nonlocal total_events
        while queue:
            queue.pop()
            # Not `total += await ...`: that reads the total before awaiting and loses updates.
            events = await one(client, args.workload, args.expect_events)
            total_events += events

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(args.in_flight)))
    seconds = time.perf_counter() - started
    await client.close()
    await http.aclose()

    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(
        json.dumps(
            {
                "client": "a2a-sdk 1.3.0 (Python)",
                "workload": args.workload,
                "requests": args.requests,
                "in_flight": args.in_flight,
                "events": total_events,
                "seconds": seconds,
                "requests_per_second": args.requests / seconds,
                "events_per_second": total_events / seconds,
                "peak_rss_kib": peak_kib,
            }
        )
    )


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # one clear line for run.sh, not a traceback
        print(f"python_client.py: {type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
