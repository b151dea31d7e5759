import ag2.a2a, ag2.testing, a2a.server.tasks, uvicorn  # noqa
