import strands.multiagent.a2a, a2a.types, uvicorn  # noqa
