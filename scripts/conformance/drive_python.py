"""Points the official Python client (a2a-sdk 1.3.0) at every scenario of a conformance fleet.

Used the way the SDK's own README and samples use it: `create_client(url, ClientConfig(httpx_client=...))`,
then `send_message`, reading every event; a bearer token through the SDK's `AuthInterceptor` and
`InMemoryContextCredentialStore`, set for each security scheme the card names. The client's only bound
is its HTTP client's timeout, set to the fleet's patience. The harness cuts each scenario after twice
the patience (and 5 s), as a caller would give up; the fleet grades what the client did before that.

    python drive_python.py FLEET_URL PATIENCE_SECONDS
"""

import asyncio
import json
import sys
import urllib.request
import uuid

import httpx
from a2a.client import (
    A2ACardResolver,
    AuthInterceptor,
    ClientCallContext,
    ClientConfig,
    InMemoryContextCredentialStore,
    create_client,
)
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest


async def drive(scenario: dict, patience: float) -> str:
    interceptors, context = [], None
    async with httpx.AsyncClient(timeout=patience) as http:
        token = scenario.get("bearerToken")
        if token:
            card = await A2ACardResolver(http, scenario["url"]).get_agent_card()
            store = InMemoryContextCredentialStore()
            for scheme in card.security_schemes:
                await store.set_credentials("conformance", scheme, token)
            interceptors = [AuthInterceptor(store)]
            context = ClientCallContext(state={"sessionId": "conformance"})
        client = await create_client(
            scenario["url"], client_config=ClientConfig(httpx_client=http), interceptors=interceptors
        )
        message = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()), parts=[Part(text=scenario["message"])])
        events = 0
        async for _ in client.send_message(SendMessageRequest(message=message), context=context):
            events += 1
        return f"{events} event(s)"


async def one(scenario: dict, patience: float) -> None:
    try:
        said = await asyncio.wait_for(drive(scenario, patience), timeout=patience * 2 + 5)
    except asyncio.TimeoutError:
        said = "cut by the harness"
    except Exception as error:  # the client's own error is part of what it did
        said = f"{type(error).__name__}: {str(error)[:200]}"
    print(f"python {scenario['id']}: {said}", file=sys.stderr)


async def main() -> None:
    fleet, patience = sys.argv[1].rstrip("/"), float(sys.argv[2])
    with urllib.request.urlopen(f"{fleet}/scenarios") as response:
        scenarios = json.load(response)
    await asyncio.gather(*(one(s, patience) for s in scenarios))


asyncio.run(main())
