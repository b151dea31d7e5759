"""a2a-sdk 1.3.0 peer whose card declares two A2A extensions, one of them required.

The card is the honest peer's (streaming, push) with `capabilities.extensions`:
  OPTIONAL  (required: false): activated when a request asks for it;
  REQUIRED  (required: true):  a message that does not ask for it is answered -32008
            (ExtensionSupportRequiredError, raised by the agent executor).
Requests name extensions in the `A2A-Extensions` header, which the SDK reads into
RequestContext.requested_extensions. The executor activates each declared one asked for; a2a-sdk
1.3.0 has no way to echo them, so an ASGI middleware names them in the answer's `A2A-Extensions`
header, from a list the context builder hands the executor through ServerCallContext.state.
Usage: extensions.py --port PORT [--step-ms MS] [--exit-on-stdin-eof]
"""

from a2a.server.agent_execution import RequestContext
from a2a.server.events.event_queue_v2 import EventQueue
from a2a.server.routes.common import DefaultServerCallContextBuilder
from a2a.types.a2a_pb2 import AgentExtension
from a2a.utils.errors import ExtensionSupportRequiredError
from starlette.requests import Request

from echo_peer import (
    Capabilities,
    EchoExecutor,
    base_url,
    build_app,
    build_card,
    build_handler,
    parse_args,
    serve,
)

OPTIONAL = 'https://a2a-typestate.example/ext/echo-note/v1'
REQUIRED = 'https://a2a-typestate.example/ext/audit-trail/v1'
DECLARED = (OPTIONAL, REQUIRED)
# Where the middleware leaves the list of activated extensions for this request.
SCOPE_KEY = 'a2a_peer_activated_extensions'
HEADER = b'a2a-extensions'


class ActivatingExecutor(EchoExecutor):
    """The echo agent, refusing messages without REQUIRED and activating what it declares."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        requested = context.requested_extensions
        if REQUIRED not in requested:
            raise ExtensionSupportRequiredError(message=f'this agent requires extension {REQUIRED}')
        activated = context.call_context.state.get(SCOPE_KEY)
        if activated is not None:
            for uri in DECLARED:
                if uri in requested and uri not in activated:
                    activated.append(uri)
        await super().execute(context, event_queue)


class ActivationContextBuilder(DefaultServerCallContextBuilder):
    """The SDK's call context, carrying the request's list of activated extensions."""

    def build(self, request: Request):
        context = super().build(request)
        context.state[SCOPE_KEY] = request.scope.get(SCOPE_KEY)
        return context


class EchoActivatedExtensions:
    """ASGI middleware: names the extensions the executor activated in the response header."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope['type'] != 'http':
            await self.app(scope, receive, send)
            return
        activated: list[str] = []
        scope[SCOPE_KEY] = activated

        async def send_with_header(message):
            if message['type'] == 'http.response.start' and activated:
                headers = [*message.get('headers', []), (HEADER, ','.join(activated).encode())]
                message = {**message, 'headers': headers}
            await send(message)

        await self.app(scope, receive, send_with_header)


def main() -> None:
    args = parse_args(__doc__)
    card = build_card('python-extensions', base_url(args), Capabilities(streaming=True, push_notifications=True))
    card.capabilities.extensions.extend(
        [
            AgentExtension(uri=OPTIONAL, description='adds a note to the echo', required=False),
            AgentExtension(uri=REQUIRED, description='keeps an audit trail of each task', required=True),
        ]
    )
    executor = ActivatingExecutor(args.step_ms / 1000.0)
    handler = build_handler(card, args, push_store=True, push_sender=True, executor=executor)
    app = build_app(card, handler, context_builder=ActivationContextBuilder())
    app.add_middleware(EchoActivatedExtensions)
    serve(app, args)


if __name__ == '__main__':
    main()
