"""Strands Agents 1.62.0: the A2A server of its docs, as they show it.

    strands_agent = Agent(name=..., description=..., model=...)
    a2a_server = A2AServer(agent=strands_agent)
    a2a_server.serve()

with the model swapped for a canned `Model` subclass (fixed text streamed as three deltas; no network).
Strands writes the card's capabilities itself (`AgentCapabilities(streaming=True)`): push cannot be
declared through its API, so none is. `--compliant-streaming` turns on the constructor's
`enable_a2a_compliant_streaming=True` (artifact updates); the default is what ships (legacy status-update streaming).

    python agent.py --port N [--compliant-streaming]     (127.0.0.1 only)
"""

import argparse
from typing import Any, AsyncIterable

from strands import Agent
from strands.models.model import Model
from strands.multiagent.a2a import A2AServer

ANSWER = "Paris is the capital of France."


class CannedModel(Model):
    """Streams ANSWER in three text deltas, whatever it is asked."""

    def __init__(self) -> None:
        self.config = {"model_id": "canned"}

    def update_config(self, **model_config: Any) -> None:
        self.config.update(model_config)

    def get_config(self) -> Any:
        return self.config

    def structured_output(self, output_model, prompt, system_prompt=None, **kwargs):  # noqa: ANN001
        raise NotImplementedError("the canned model has no structured output")

    async def stream(self, messages, tool_specs=None, system_prompt=None, **kwargs: Any) -> AsyncIterable[Any]:
        words = ANSWER.split(" ")
        yield {"messageStart": {"role": "assistant"}}
        yield {"contentBlockStart": {"start": {}}}
        for chunk in (" ".join(words[:2]) + " ", " ".join(words[2:4]) + " ", " ".join(words[4:])):
            yield {"contentBlockDelta": {"delta": {"text": chunk}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}
        yield {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 7, "totalTokens": 8},
                            "metrics": {"latencyMs": 1}}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--compliant-streaming", action="store_true")
    args = parser.parse_args()

    strands_agent = Agent(name="Strands canned agent", description="Answers every question with a fixed sentence.",
                          model=CannedModel(), callback_handler=None)
    a2a_server = A2AServer(agent=strands_agent, host="127.0.0.1", port=args.port,
                           enable_a2a_compliant_streaming=args.compliant_streaming)
    a2a_server.serve()


if __name__ == "__main__":
    main()
