"""BeeAI Framework 0.1.85: the A2A server of its docs (examples/serve/a2a_server.py), as they show it.

    agent = RequirementAgent(llm=ChatModel.from_name(...), tools=[...], memory=UnconstrainedMemory())
    A2AServer(config=A2AServerConfig(port=9999), memory_manager=LRUMemoryManager(maxsize=100)).register(agent).serve()

with the LLM swapped for a canned ChatModel (fixed text; no network) and no tools. The card's
capabilities are the registration's `capabilities=` (the framework's default is streaming only); here
push notifications are declared too, as the a2a-sdk `AgentCapabilities` the docs pass:
`AgentCapabilities(streaming=True, push_notifications=True)`. Nothing else is configured: no push
config store and no push sender, which is what the docs' example leaves out as well.

    python agent.py --port N [--protocol jsonrpc|http_json]     (127.0.0.1 only)
"""

import argparse
import os
import sys

from a2a.types import AgentCapabilities
from beeai_framework.adapters.a2a import A2AServer, A2AServerConfig
from beeai_framework.agents.requirement import RequirementAgent
from beeai_framework.backend import AssistantMessage, ChatModel, ChatModelOutput
from beeai_framework.memory import UnconstrainedMemory
from beeai_framework.serve.utils import LRUMemoryManager

ANSWER = "Paris is the capital of France."


class CannedChatModel(ChatModel):
    """A chat model that always answers ANSWER (streamed as three chunks)."""

    @property
    def model_id(self) -> str:
        return "canned"

    @property
    def provider_id(self) -> str:
        return "ollama"  # a ProviderName the framework knows; nothing is ever sent to it

    async def _create(self, input, run) -> ChatModelOutput:  # noqa: A002
        return ChatModelOutput(output=[AssistantMessage(ANSWER)], finish_reason="stop")

    async def _create_stream(self, input, run):  # noqa: A002
        words = ANSWER.split(" ")
        for chunk in (" ".join(words[:2]) + " ", " ".join(words[2:4]) + " ", " ".join(words[4:])):
            yield ChatModelOutput(output=[AssistantMessage(chunk)])
        yield ChatModelOutput(output=[], finish_reason="stop")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--protocol", choices=["jsonrpc", "http_json"],
                        default=os.environ.get("BEEAI_A2A_PROTOCOL", "jsonrpc"))
    args = parser.parse_args()

    agent = RequirementAgent(llm=CannedChatModel(), tools=[], memory=UnconstrainedMemory(),
                             name="BeeAI canned agent", description="Answers every question with a fixed sentence.")
    server = A2AServer(config=A2AServerConfig(host="127.0.0.1", port=args.port, protocol=args.protocol),
                       memory_manager=LRUMemoryManager(maxsize=100))
    server.register(agent, url=f"http://127.0.0.1:{args.port}",
                    capabilities=AgentCapabilities(streaming=True, push_notifications=True))
    print(f"BeeAI A2A server ({args.protocol}) on 127.0.0.1:{args.port}", file=sys.stderr)
    server.serve()


if __name__ == "__main__":
    main()
