"""python-a2a 0.5.10: the agent of its README (the `@agent`/`@skill` decorators on an `A2AServer` subclass
with `handle_task`, served by `run_server`), answering fixed text (python-a2a needs no model for this:
the handler is the agent, so it is canned by construction).

    @agent(name="Weather Agent", description=..., version="1.0.0")
    class WeatherAgent(A2AServer):
        @skill(name="Get Weather", ...)
        def get_weather(self, location): ...
        def handle_task(self, task): ... task.artifacts = [...]; task.status = TaskStatus(state=TaskState.COMPLETED)
    run_server(WeatherAgent(google_a2a_compatible=True), port=5000)

Streaming is the README's `async def stream_response(self, message)`. With the decorators the card
declares nothing (the `@agent` decorator rebuilds the card with streaming, push and history all false,
after `A2AServer` turned streaming on), so the capabilities are declared the other documented way: an
explicit `AgentCard(capabilities={...})` passed to the server, here with streaming, push notifications and
state transition history all true (`--decorator-card` keeps the decorator's card instead).

    python agent.py --port N     (127.0.0.1 only; Flask's development server)
"""

import argparse

from python_a2a import A2AServer, AgentCard, AgentSkill, TaskState, TaskStatus, agent, run_server, skill

ANSWER = "Paris is the capital of France."


@agent(name="python-a2a canned agent", description="Answers every question with a fixed sentence.", version="1.0.0")
class CannedAgent(A2AServer):
    @skill(name="Answer", description="Answers any question with a fixed sentence.", tags=["canned"])
    def answer(self, question: str) -> str:
        return ANSWER

    def handle_task(self, task):
        task.artifacts = [{"parts": [{"type": "text", "text": ANSWER}]}]
        task.status = TaskStatus(state=TaskState.COMPLETED)
        return task

    async def stream_response(self, message):
        words = ANSWER.split(" ")
        for chunk in (" ".join(words[:2]) + " ", " ".join(words[2:4]) + " ", " ".join(words[4:])):
            yield chunk


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--decorator-card", action="store_true")
    args = parser.parse_args()
    port = args.port
    url = f"http://127.0.0.1:{port}"
    if args.decorator_card:
        server = CannedAgent(google_a2a_compatible=True, url=url)
    else:
        server = CannedAgent(google_a2a_compatible=True, url=url)
        server.agent_card = AgentCard(
            name="python-a2a canned agent", description="Answers every question with a fixed sentence.", url=url,
            version="1.0.0",
            capabilities={"streaming": True, "pushNotifications": True, "stateTransitionHistory": True},
            skills=[AgentSkill(name="Answer", description="Answers any question with a fixed sentence.",
                               tags=["canned"])])
    run_server(server, host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
