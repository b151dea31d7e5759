"""Honest a2a-sdk 1.3.0 peer over gRPC: claims streaming and push notifications, does both, and
serves A2AService (the SDK's GrpcHandler on grpc.aio) beside its card.

The card is served over HTTP on --port, with a GRPC interface first (at a second loopback port the
gRPC server picks) and the JSON-RPC and HTTP+JSON interfaces after it, all on the same handler.
Usage: grpc_peer.py --port PORT [--step-ms MS] [--exit-on-stdin-eof]
"""

import asyncio

import grpc
import uvicorn

from a2a.server.request_handlers.grpc_handler import GrpcHandler
from a2a.types import a2a_pb2_grpc

from echo_peer import Capabilities, base_url, build_app, build_card, build_handler, parse_args, watch_stdin


async def run() -> None:
    args = parse_args(__doc__)
    watch_stdin(args)
    server = grpc.aio.server()
    grpc_port = server.add_insecure_port(f'{args.host}:0')
    both = Capabilities(streaming=True, push_notifications=True)
    card = build_card('python-grpc', base_url(args), both, grpc_url=f'http://{args.host}:{grpc_port}')
    handler = build_handler(card, args, push_store=True, push_sender=True)
    a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
    await server.start()
    print(f'a2a peer starting on {base_url(args)}, gRPC on {args.host}:{grpc_port}', flush=True)
    config = uvicorn.Config(build_app(card, handler), host=args.host, port=args.port,
                            log_level='warning', access_log=False)
    try:
        await uvicorn.Server(config).serve()
    finally:
        await server.stop(grace=1)


if __name__ == '__main__':
    asyncio.run(run())
