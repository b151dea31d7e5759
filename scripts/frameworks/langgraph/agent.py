"""LangGraph (langgraph 1.2 served by langgraph-api 0.16.7, the `langgraph dev` in-memory server): the A2A
endpoint LangGraph's docs describe for any graph whose state has `messages`.

    # langgraph.json: {"graphs": {"agent": "./agent.py:graph"}}   then: langgraph dev
    # A2A at /a2a/{assistant_id}, card at /.well-known/agent-card.json?assistant_id=...

The graph is one node calling langchain's `FakeListChatModel` (fixed text; no network). The server is
started the way `langgraph dev` starts it (`langgraph_api.cli.run_server` with this file's graph, in
memory, no browser, no reload). LangGraph writes the card itself (streaming true, push false: "Not
implemented yet"); there is nothing to declare. The assistant id is the graph's default assistant,
whose id LangGraph derives from the graph name; `--print-assistant-id` prints it.

    python agent.py --port N     (127.0.0.1 only)
"""

import argparse
import os
import sys
import uuid

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langgraph.graph import END, START, MessagesState, StateGraph

ANSWER = "Paris is the capital of France."
GRAPH_ID = "agent"

model = FakeListChatModel(responses=[ANSWER])


def answer(state: MessagesState) -> dict:
    return {"messages": [model.invoke(state["messages"])]}


builder = StateGraph(MessagesState)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
builder.add_edge("answer", END)
graph = builder.compile()
graph.name = "LangGraph canned agent"


def default_assistant_id() -> str:
    # langgraph-api creates one assistant per graph with id uuid5(NAMESPACE_GRAPH, graph_id); its
    # NAMESPACE_GRAPH (langgraph_api/graph.py, which cannot be imported outside the server's environment)
    namespace_graph = uuid.UUID("6ba7b821-9dad-11d1-80b4-00c04fd430c8")
    return str(uuid.uuid5(namespace_graph, GRAPH_ID))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    parser.add_argument("--print-assistant-id", action="store_true")
    args = parser.parse_args()
    if args.print_assistant_id:
        print(default_assistant_id())
        return
    if args.port is None:
        parser.error("--port is required")
    os.environ.setdefault("LANGSMITH_TRACING", "false")
    os.environ.setdefault("LANGGRAPH_CLI_NO_ANALYTICS", "1")
    from langgraph_api.cli import run_server

    print(f"assistant id {default_assistant_id()}", file=sys.stderr)
    run_server(host="127.0.0.1", port=args.port, reload=False,
               graphs={GRAPH_ID: f"{os.path.abspath(__file__)}:graph"}, open_browser=False)


if __name__ == "__main__":
    main()
