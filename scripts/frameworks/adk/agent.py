"""Google ADK 2.13.0: `to_a2a`, as ADK's A2A quickstart shows it.

    root_agent = Agent(model="gemini-2.0-flash", name=..., instruction=...)
    a2a_app = to_a2a(root_agent, port=8001)      # then: uvicorn agent:a2a_app --host localhost --port 8001

with the model swapped for a canned `BaseLlm` subclass (fixed text; no network) and host/port set to where
this process listens. ADK builds the card itself (`AgentCapabilities(streaming=True)`, text/plain modes);
push cannot be declared through `to_a2a` without hand-writing the whole card, so none is (ADK does create
an in-memory push config store by default).

    python agent.py --port N     (127.0.0.1 only)
"""

import argparse
from typing import AsyncGenerator

import uvicorn
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import Agent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types

ANSWER = "Paris is the capital of France."


class CannedLlm(BaseLlm):
    """Answers ANSWER to every request (three partial chunks, then the whole text, when streamed)."""

    model: str = "canned"

    @classmethod
    def supported_models(cls) -> list[str]:
        return ["canned"]

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                     ) -> AsyncGenerator[LlmResponse, None]:
        if stream:
            words = ANSWER.split(" ")
            for chunk in (" ".join(words[:2]) + " ", " ".join(words[2:4]) + " ", " ".join(words[4:])):
                yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=chunk)]), partial=True)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=ANSWER)]),
                          partial=False, turn_complete=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port

    root_agent = Agent(model=CannedLlm(), name="adk_canned_agent",
                       description="Answers every question with a fixed sentence.",
                       instruction="Answer every question.")
    a2a_app = to_a2a(root_agent, host="127.0.0.1", port=port)
    uvicorn.run(a2a_app, host="127.0.0.1", port=port, log_level="info")


if __name__ == "__main__":
    main()
