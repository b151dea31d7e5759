"""a2a-sdk 1.3.0 peer that records the W3C trace context of every A2A request it receives, over
JSON-RPC, HTTP+JSON and gRPC, so a client's test can check that its caller's trace reaches the server.

The agent is the honest echo agent served as grpc_peer.py serves it (a GRPC interface first, at a
second loopback port, then JSON-RPC and HTTP+JSON on the same handler). Beside it:
  * an ASGI middleware notes the `traceparent` (and `tracestate`) header of each request under
    /a2a/ (JSON-RPC and HTTP+JSON);
  * a gRPC server interceptor notes the same metadata of each A2AService call;
  * GET /test/traceparents lists what was noted, oldest first, as JSON:
    [{"binding": "JSONRPC" | "HTTP+JSON" | "GRPC", "target": path or gRPC method,
      "traceparent": str | null, "tracestate": str | null}, ...]
Usage: traced.py --port PORT [--step-ms MS] [--exit-on-stdin-eof]
"""

import asyncio

import grpc
import uvicorn

from starlette.responses import JSONResponse

from a2a.server.request_handlers.grpc_handler import GrpcHandler
from a2a.types import a2a_pb2_grpc

from echo_peer import (
    JSONRPC_PATH,
    REST_PATH,
    Capabilities,
    base_url,
    build_app,
    build_card,
    build_handler,
    parse_args,
    watch_stdin,
)

SEEN_PATH = '/test/traceparents'
# Everything noted since the peer started; the test reads it back through SEEN_PATH.
SEEN: list[dict[str, str | None]] = []


class NoteTraceContext:
    """ASGI middleware: notes the trace context headers of each HTTP request to an A2A route, and
    answers GET SEEN_PATH with everything noted."""

    def __init__(self, app) -> None:
        self._app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope['type'] == 'http':
            path = scope.get('path', '')
            if path == SEEN_PATH:
                await JSONResponse(SEEN)(scope, receive, send)
                return
            binding = 'JSONRPC' if path.startswith(JSONRPC_PATH) else 'HTTP+JSON' if path.startswith(REST_PATH) else None
            if binding is not None:
                headers = {name.decode('latin-1').lower(): value.decode('latin-1') for name, value in scope['headers']}
                SEEN.append({
                    'binding': binding,
                    'target': path,
                    'traceparent': headers.get('traceparent'),
                    'tracestate': headers.get('tracestate'),
                })
        await self._app(scope, receive, send)


class NoteGrpcTraceContext(grpc.aio.ServerInterceptor):
    """gRPC interceptor: notes the trace context metadata of each call."""

    async def intercept_service(self, continuation, handler_call_details):
        metadata = dict(handler_call_details.invocation_metadata or ())
        SEEN.append({
            'binding': 'GRPC',
            'target': handler_call_details.method,
            'traceparent': metadata.get('traceparent'),
            'tracestate': metadata.get('tracestate'),
        })
        return await continuation(handler_call_details)


async def run() -> None:
    args = parse_args(__doc__)
    watch_stdin(args)
    server = grpc.aio.server(interceptors=[NoteGrpcTraceContext()])
    grpc_port = server.add_insecure_port(f'{args.host}:0')
    both = Capabilities(streaming=True, push_notifications=True)
    card = build_card('python-traced', base_url(args), both, grpc_url=f'http://{args.host}:{grpc_port}')
    handler = build_handler(card, args, push_store=True, push_sender=True)
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
    await server.start()
    app = build_app(card, handler)
    print(f'a2a peer starting on {base_url(args)}, gRPC on {args.host}:{grpc_port}', flush=True)
    config = uvicorn.Config(NoteTraceContext(app), host=args.host, port=args.port,
                            log_level='warning', access_log=False)
    try:
        await uvicorn.Server(config).serve()
    finally:
        await server.stop(grace=1)


if __name__ == '__main__':
    asyncio.run(run())
