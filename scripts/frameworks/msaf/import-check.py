import agent_framework.a2a, a2a.server.routes, uvicorn  # noqa
