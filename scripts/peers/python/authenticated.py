"""a2a-sdk 1.3.0 peer behind bearer authentication, with an extended card for its callers.

The public card names one scheme, `bearer` (HTTP Bearer), requires it, claims neither streaming
nor push notifications, and declares `extendedAgentCard`. The extended card (GetExtendedAgentCard,
behind the token like every A2A request) claims streaming and push notifications, and the request
handler does both. The card at the well-known path stays public.

Authentication is Starlette's AuthenticationMiddleware with a bearer backend: a request to the
JSON-RPC or HTTP+JSON routes without `Authorization: Bearer $A2A_PEER_BEARER_TOKEN` gets 401 with
`WWW-Authenticate: Bearer`. The token comes from the environment only, never the command line.
Usage: authenticated.py --port PORT [--step-ms MS] [--exit-on-stdin-eof]
"""

import hmac
import os
import sys

from starlette.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    SimpleUser,
)
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.responses import JSONResponse

from a2a.types.a2a_pb2 import AgentCard, HTTPAuthSecurityScheme, SecurityScheme, StringList
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH

from echo_peer import Capabilities, base_url, build_app, build_card, build_handler, parse_args, serve

TOKEN_VARIABLE = 'A2A_PEER_BEARER_TOKEN'


class BearerBackend(AuthenticationBackend):
    """Admits the one configured token; the public card needs none."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def authenticate(self, conn):
        if conn.url.path == AGENT_CARD_WELL_KNOWN_PATH:
            return None
        header = conn.headers.get('authorization', '')
        scheme, _, presented = header.partition(' ')
        if scheme.lower() != 'bearer' or not hmac.compare_digest(presented.strip().encode(), self._token):
            raise AuthenticationError('a bearer token is required')
        return AuthCredentials(['authenticated']), SimpleUser('interop-client')


def unauthorized(_conn, error: Exception) -> JSONResponse:
    return JSONResponse({'error': str(error)}, status_code=401, headers={'WWW-Authenticate': 'Bearer'})


def with_bearer_scheme(card: AgentCard) -> AgentCard:
    card.security_schemes['bearer'].CopyFrom(
        SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme='Bearer'))
    )
    card.security_requirements.add().schemes['bearer'].CopyFrom(StringList())
    card.capabilities.extended_agent_card = True
    return card


def main() -> None:
    args = parse_args(__doc__)
    token = os.environ.get(TOKEN_VARIABLE, '')
    if not token:
        print(f'authenticated.py: set {TOKEN_VARIABLE} to the bearer token to accept', file=sys.stderr)
        sys.exit(2)
    url = base_url(args)
    public = with_bearer_scheme(
        build_card('python-authenticated', url, Capabilities(streaming=False, push_notifications=False))
    )
    extended = with_bearer_scheme(
        build_card('python-authenticated', url, Capabilities(streaming=True, push_notifications=True))
    )
    extended.description = 'a2a-sdk 1.3.0 loopback test peer (extended card)'
    # The handler enforces the capabilities of the card it is given: the extended one.
    handler = build_handler(extended, args, push_store=True, push_sender=True)
    handler.extended_agent_card = extended
    app = build_app(public, handler)
    app.add_middleware(AuthenticationMiddleware, backend=BearerBackend(token), on_error=unauthorized)
    serve(app, args)


if __name__ == '__main__':
    main()
