import fasta2a.pydantic_ai, pydantic_ai.models.test, uvicorn  # noqa: F401,E401
