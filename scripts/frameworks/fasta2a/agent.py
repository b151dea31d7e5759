"""FastA2A (fasta2a 2.1.1, the pydantic-ai bridge): the smallest agent its README shows.

    agent = Agent('openai:gpt-5.5'); app = agent_to_a2a(agent)   # then `uvicorn main:app`

with the model swapped for pydantic-ai's TestModel (fixed text, no network) and the card URL set to
where this process listens. FastA2A decides the card itself: streaming true, pushNotifications false,
one JSONRPC 1.0 interface at `url`, default modes application/json unless given. Nothing else is
declared here: the defaults are what ship.

    python agent.py --port N     (127.0.0.1 only)
"""

import argparse

import uvicorn
from fasta2a.pydantic_ai import agent_to_a2a
from pydantic_ai import Agent
from pydantic_ai.models.test import TestModel

ANSWER = "Paris is the capital of France."


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    port = parser.parse_args().port

    agent = Agent(TestModel(custom_output_text=ANSWER), name="fasta2a-canned")
    app = agent_to_a2a(agent, url=f"http://127.0.0.1:{port}")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")


if __name__ == "__main__":
    main()
