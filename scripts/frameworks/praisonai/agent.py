"""PraisonAI Agents 1.7.17 (`praisonaiagents.ui.a2a.A2A`): a PraisonAI agent served over A2A, as its docs show.

    agent = Agent(name=..., role=..., goal=..., llm="gpt-4o-mini")
    a2a = A2A(agent=agent, url="http://127.0.0.1:PORT/a2a")
    app = FastAPI(); app.include_router(a2a.get_router())      # served by uvicorn

PraisonAI has its own A2A server (its own types, not a2a-sdk). Its model is reached through the
OpenAI client; here that client is pointed at a canned OpenAI-compatible endpoint this script serves on
another loopback port (every completion answers ANSWER, streamed in two chunks when asked to stream):
no network, no key.

    python agent.py --port N     (127.0.0.1 only; the canned model listens on an ephemeral port)
"""

import argparse
import http.server
import json
import os
import threading
import time

ANSWER = "Sunny, 21 degrees in Lisbon."


class CannedModel(http.server.BaseHTTPRequestHandler):
    """`POST /v1/chat/completions`: ANSWER, as one completion or as two streamed chunks."""

    def do_POST(self) -> None:  # noqa: N802 (the handler's name)
        length = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        model, now = body.get("model", "canned"), int(time.time())
        if body.get("stream"):
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.end_headers()
            half = len(ANSWER) // 2
            for delta, finish in (({"role": "assistant", "content": ANSWER[:half]}, None),
                                  ({"content": ANSWER[half:]}, None), ({}, "stop")):
                chunk = {"id": "canned", "object": "chat.completion.chunk", "created": now, "model": model,
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            return
        answer = {"id": "canned", "object": "chat.completion", "created": now, "model": model,
                  "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER},
                               "finish_reason": "stop"}],
                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()

    model = http.server.ThreadingHTTPServer(("127.0.0.1", 0), CannedModel)
    threading.Thread(target=model.serve_forever, daemon=True).start()
    os.environ["OPENAI_BASE_URL"] = f"http://127.0.0.1:{model.server_address[1]}/v1"
    os.environ["OPENAI_API_BASE"] = os.environ["OPENAI_BASE_URL"]
    os.environ["OPENAI_API_KEY"] = "canned"

    # Imported once the model's address is set: the OpenAI client reads it when it is made.
    import uvicorn
    from fastapi import FastAPI
    from praisonaiagents import Agent
    from praisonaiagents.ui.a2a import A2A

    agent = Agent(name="Weather", role="Weather helper", goal="Answer weather questions", llm="gpt-4o-mini")
    a2a = A2A(agent=agent, url=f"http://127.0.0.1:{args.port}/a2a")
    app = FastAPI()
    app.include_router(a2a.get_router())
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="info")


if __name__ == "__main__":
    main()
