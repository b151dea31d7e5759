import agno.os, agno.os.interfaces.a2a, a2a.types, uvicorn  # noqa
