"""AG2 1.2.1 (`ag2.a2a.A2AServer`, a2a-sdk 1.3.0): an AG2 agent served over A2A JSON-RPC.

    agent = Agent("assistant", "...", config=...)
    app = A2AServer(agent, push_config_store=...).build_jsonrpc(url="http://127.0.0.1:PORT")   # served by uvicorn

The model is AG2's own scripted test double (`ag2.testing.TestConfig`: two streamed chunks, then the
whole answer; no network). AG2 derives the card itself: streaming, and `pushNotifications` exactly when
a push config store is given (`A2AServer(push_config_store=...)`: "push notifications are disabled until a
store is provided"). Only the store is given here, which is all that declaring push takes; with
`--push-sender` an a2a-sdk `BasePushNotificationSender` is passed as well.

    python agent.py --port N [--push-sender]     (127.0.0.1 only)
"""

import argparse

import httpx
import uvicorn
from a2a.server.tasks import BasePushNotificationSender, InMemoryPushNotificationConfigStore
from ag2 import Agent
from ag2.a2a import A2AServer
from ag2.events import ModelMessageChunk
from ag2.testing import TestConfig

ANSWER = "Paris is the capital of France."


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--push-sender", action="store_true")
    args = parser.parse_args()

    agent = Agent("ag2_canned_agent", "Answer every question with a fixed sentence.",
                  config=TestConfig(ModelMessageChunk("Paris is "), ModelMessageChunk("the capital of France."), ANSWER))
    store = InMemoryPushNotificationConfigStore()
    sender = BasePushNotificationSender(httpx.AsyncClient(), store) if args.push_sender else None
    server = A2AServer(agent, push_config_store=store, push_sender=sender)
    app = server.build_jsonrpc(url=f"http://127.0.0.1:{args.port}")
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="info")


if __name__ == "__main__":
    main()
