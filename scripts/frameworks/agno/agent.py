"""Agno 3.1.10: the A2A interface of AgentOS, as Agno's docs show it.

    agent = Agent(name=..., model=OpenAIChat(id=...), id="my_agent")
    agent_os = AgentOS(agents=[agent], a2a_interface=True)
    app = agent_os.get_app(); agent_os.serve(app=...)

with the model swapped for a canned one (a `Model` subclass answering fixed text, in one piece or in
chunks when streamed: no network). Agno writes the card itself (streaming true, push false); there is
nothing more to declare. Card at /a2a/agents/canned-agent/.well-known/agent-card.json, so the agent's
base URL is http://127.0.0.1:PORT/a2a/agents/canned-agent.

    python agent.py --port N     (127.0.0.1 only)
"""

import argparse
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterator

from agno.agent import Agent
from agno.models.base import Model
from agno.models.response import ModelResponse
from agno.os import AgentOS

ANSWER = "Paris is the capital of France."


@dataclass
class CannedModel(Model):
    """Answers every request with ANSWER; streamed as three chunks."""

    id: str = "canned"
    name: str = "Canned"
    provider: str = "Canned"

    def _answer(self) -> ModelResponse:
        return ModelResponse(role="assistant", content=ANSWER)

    def _chunks(self) -> list:
        words = ANSWER.split(" ")
        return [" ".join(words[:2]) + " ", " ".join(words[2:4]) + " ", " ".join(words[4:])]

    def invoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._answer()

    async def ainvoke(self, *args: Any, **kwargs: Any) -> ModelResponse:
        return self._answer()

    def invoke_stream(self, *args: Any, **kwargs: Any) -> Iterator[ModelResponse]:
        for chunk in self._chunks():
            yield ModelResponse(role="assistant", content=chunk)

    async def ainvoke_stream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ModelResponse]:
        for chunk in self._chunks():
            yield ModelResponse(role="assistant", content=chunk)

    def _parse_provider_response(self, response: Any, **kwargs: Any) -> ModelResponse:
        return response

    def _parse_provider_response_delta(self, response: Any) -> ModelResponse:
        return response


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port

    agent = Agent(name="Agno canned agent", model=CannedModel(), id="canned-agent",
                  description="Answers every question with a fixed sentence.")
    agent_os = AgentOS(agents=[agent], a2a_interface=True, telemetry=False)
    app = agent_os.get_app()
    agent_os.serve(app=app, host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
