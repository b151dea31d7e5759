import google.adk.a2a.utils.agent_to_a2a, uvicorn  # noqa
