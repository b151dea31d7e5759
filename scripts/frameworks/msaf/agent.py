"""Microsoft Agent Framework (agent-framework-a2a 1.0.0b261022, a2a-sdk 1.3.0): the A2A hosting sample of
`A2AExecutor`'s documentation, as written there:

    public_agent_card = AgentCard(name=..., default_input_modes=["text"], default_output_modes=["text"],
        capabilities=AgentCapabilities(streaming=True),
        supported_interfaces=[AgentInterface(url="http://localhost:9999/", protocol_binding="JSONRPC")], skills=[])
    agent = OpenAIResponsesClient().as_agent(name=..., instructions=...)
    request_handler = DefaultRequestHandler(agent_executor=A2AExecutor(agent, stream=True), task_store=InMemoryTaskStore(),
                                            agent_card=public_agent_card)
    app = Starlette(routes=[*create_agent_card_routes(public_agent_card), *create_jsonrpc_routes(request_handler, "/")])

with the chat client swapped for a canned `BaseChatClient` (fixed text; no network), the interface URL
set to where this process listens, and push notifications declared as well (the sample declares
streaming only; `AgentCapabilities(streaming=True, push_notifications=True)`), with no push store or
sender given to the handler, as in the sample. The interface keeps the sample's missing protocol_version.

    python agent.py --port N     (127.0.0.1 only)
"""

import argparse

import uvicorn
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types import AgentCapabilities, AgentCard, AgentInterface
from agent_framework import BaseChatClient, ChatResponse, ChatResponseUpdate, Message, ResponseStream
from agent_framework.a2a import A2AExecutor
from starlette.applications import Starlette

ANSWER = "Paris is the capital of France."


class CannedChatClient(BaseChatClient):
    """Answers every request with ANSWER (streamed as three chunks)."""

    def _inner_get_response(self, *, messages, stream, options, **kwargs):
        if stream:
            async def _stream():
                words = ANSWER.split(" ")
                for chunk in (" ".join(words[:2]) + " ", " ".join(words[2:4]) + " ", " ".join(words[4:])):
                    yield ChatResponseUpdate(role="assistant", contents=[{"type": "text", "text": chunk}])

            return ResponseStream(_stream(), finalizer=ChatResponse.from_updates)

        async def _response():
            return ChatResponse(messages=[Message(role="assistant", contents=[ANSWER])], response_id="canned")

        return _response()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port

    public_agent_card = AgentCard(
        name="MSAF canned agent",
        description="Answers every question with a fixed sentence.",
        version="1.0.0",
        default_input_modes=["text"],
        default_output_modes=["text"],
        capabilities=AgentCapabilities(streaming=True, push_notifications=True),
        supported_interfaces=[
            AgentInterface(url=f"http://127.0.0.1:{port}/", protocol_binding="JSONRPC"),
        ],
        skills=[],
    )
    agent = CannedChatClient().as_agent(
        name="MSAF canned agent",
        instructions="Answer every question with a fixed sentence.",
    )
    request_handler = DefaultRequestHandler(
        agent_executor=A2AExecutor(agent, stream=True),
        task_store=InMemoryTaskStore(),
        agent_card=public_agent_card,
    )
    app = Starlette(
        routes=[
            *create_agent_card_routes(public_agent_card),
            *create_jsonrpc_routes(request_handler, "/"),
        ],
    )
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")


if __name__ == "__main__":
    main()
