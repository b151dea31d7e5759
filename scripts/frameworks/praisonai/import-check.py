import praisonaiagents.ui.a2a, fastapi, uvicorn  # noqa
