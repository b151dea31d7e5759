"""Shared parts of the a2a-sdk 1.3.0 test peers: the echo agent, its card and the HTTP app.

Each peer script (honest.py, over_declaring.py, silent_push.py, v03.py, grpc_peer.py) picks what its card
claims and what the request handler really implements; everything else lives here so the peers
differ only where their behaviour is meant to differ.

The agent: a new task emits Task(SUBMITTED), WORKING, then an artifact "echo: <text>" and
COMPLETED with the message "done"; it counts the tasks each text started (GET /test/executions). A first message containing "clarify" stops at INPUT_REQUIRED
instead; the follow-up on the same task completes it. Every step is paced (--step-ms) so that
SubscribeToTask and CancelTask can be exercised while a task is running.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import sys
import threading

from dataclasses import dataclass

import httpx
import uvicorn

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from a2a.helpers.proto_helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events.event_queue_v2 import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import (
    BasePushNotificationSender,
    InMemoryPushNotificationConfigStore,
    InMemoryTaskStore,
    TaskUpdater,
)
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    Part,
    TaskState,
)
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH

JSONRPC_PATH = '/a2a/jsonrpc'
REST_PATH = '/a2a/rest'
CLARIFY_QUESTION = 'Please clarify: what exactly do you need?'


# How many tasks each message text started (the agent's executions), served at
# GET /test/executions so that a crash harness can count, from the agent's side, tasks run twice.
EXECUTIONS: dict[str, int] = {}
EXECUTIONS_PATH = '/test/executions'


class EchoExecutor(AgentExecutor):
    """Echoes the user's text back as an artifact, one paced step at a time."""

    def __init__(self, step_seconds: float) -> None:
        self._step = step_seconds

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            text = context.get_user_input()
            EXECUTIONS[text] = EXECUTIONS.get(text, 0) + 1
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        resumed = task.status.state == TaskState.TASK_STATE_INPUT_REQUIRED
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        text = context.get_user_input()

        await updater.start_work()
        await asyncio.sleep(self._step)
        if not resumed and 'clarify' in text.lower():
            await updater.requires_input(
                updater.new_agent_message([Part(text=CLARIFY_QUESTION)])
            )
            return
        await updater.add_artifact(
            [Part(text=f'echo: {text}')], name='answer', last_chunk=True
        )
        await asyncio.sleep(self._step)
        await updater.complete(updater.new_agent_message([Part(text='done')]))

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        if not context.task_id or not context.context_id:
            return
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel(updater.new_agent_message([Part(text='canceled')]))


@dataclass(frozen=True)
class Capabilities:
    """One side of a peer: what its card says, or what its handler does."""

    streaming: bool
    push_notifications: bool


def parse_args(description: str) -> argparse.Namespace:
    """The command line every Python peer shares."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument('--port', type=int, required=True, help='TCP port to listen on')
    parser.add_argument('--host', default='127.0.0.1', help='address to bind (loopback only)')
    parser.add_argument(
        '--step-ms',
        type=int,
        default=200,
        help='pause between the agent\'s events, in milliseconds',
    )
    parser.add_argument(
        '--exit-on-stdin-eof',
        action='store_true',
        help='exit when stdin closes, so a dead test harness never leaves this peer behind',
    )
    args = parser.parse_args()
    if not is_loopback(args.host):
        parser.error(f'--host must be a loopback address (test peers never listen outside), got {args.host!r}')
    return args


def is_loopback(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1."""
    if host == 'localhost':
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def build_card(
    name: str,
    base_url: str,
    capabilities: Capabilities,
    *,
    with_v03_interface: bool = False,
    grpc_url: str | None = None,
) -> AgentCard:
    """The card of the echo agent at base_url, with the given capabilities.

    With `grpc_url`, a GRPC interface comes first (the card's preferred one).
    """
    interfaces = [
        AgentInterface(url=base_url + JSONRPC_PATH, protocol_binding='JSONRPC', protocol_version='1.0'),
        AgentInterface(url=base_url + REST_PATH, protocol_binding='HTTP+JSON', protocol_version='1.0'),
    ]
    if grpc_url is not None:
        interfaces.insert(0, AgentInterface(url=grpc_url, protocol_binding='GRPC', protocol_version='1.0'))
    if with_v03_interface:
        interfaces.append(
            AgentInterface(url=base_url + JSONRPC_PATH, protocol_binding='JSONRPC', protocol_version='0.3')
        )
    return AgentCard(
        name=name,
        description='a2a-sdk 1.3.0 loopback test peer',
        version='1.0.0',
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(
            streaming=capabilities.streaming,
            push_notifications=capabilities.push_notifications,
        ),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[AgentSkill(id='echo', name='echo', description='echoes text', tags=['test'])],
    )


def build_handler(
    card: AgentCard,
    args: argparse.Namespace,
    *,
    push_store: bool,
    push_sender: bool,
    executor: AgentExecutor | None = None,
) -> DefaultRequestHandler:
    """The SDK's request handler; it enforces the capabilities of `card`. It runs `executor`, by
    default the echo agent paced by --step-ms.

    a2a-sdk needs a config store for the push-config methods and a separate sender to POST
    callbacks: a store without a sender accepts configs and never calls them.
    """
    store = InMemoryPushNotificationConfigStore() if push_store else None
    sender = None
    if push_sender and store is not None:
        sender = BasePushNotificationSender(
            # trust_env=False: a proxy from the environment must not swallow loopback callbacks.
            httpx.AsyncClient(timeout=10.0, trust_env=False),
            store,
        )
    return DefaultRequestHandler(
        agent_executor=executor or EchoExecutor(args.step_ms / 1000.0),
        task_store=InMemoryTaskStore(),
        agent_card=card,
        push_config_store=store,
        push_sender=sender,
    )


def build_app(
    served_card: AgentCard,
    handler: DefaultRequestHandler,
    *,
    enable_v0_3_compat: bool = False,
    extra_card_fields: dict[str, object] | None = None,
    context_builder=None,
) -> Starlette:
    """Card at the well-known path, JSON-RPC at /a2a/jsonrpc, HTTP+JSON under /a2a/rest.

    `extra_card_fields` are merged into the served card's `capabilities`: the only way to
    serve a field the 1.0 proto no longer has (stateTransitionHistory), as deployed 0.3-era
    agents still do. `context_builder` (a ServerCallContextBuilder) replaces the SDK's default
    for both bindings.
    """
    if extra_card_fields:
        card_json = agent_card_to_dict(served_card)
        card_json.setdefault('capabilities', {}).update(extra_card_fields)

        async def serve_card(_request: Request) -> JSONResponse:
            return JSONResponse(card_json)

        card_routes = [Route(AGENT_CARD_WELL_KNOWN_PATH, serve_card, methods=['GET'])]
    else:
        card_routes = create_agent_card_routes(served_card)
    async def serve_executions(_request: Request) -> JSONResponse:
        return JSONResponse(EXECUTIONS)

    routes = [
        *card_routes,
        Route(EXECUTIONS_PATH, serve_executions, methods=['GET']),
        *create_jsonrpc_routes(
            handler, JSONRPC_PATH, enable_v0_3_compat=enable_v0_3_compat, context_builder=context_builder
        ),
        *create_rest_routes(
            handler,
            enable_v0_3_compat=enable_v0_3_compat,
            path_prefix=REST_PATH,
            context_builder=context_builder,
        ),
    ]
    return Starlette(routes=routes)


def base_url(args: argparse.Namespace) -> str:
    """Where clients reach this peer; the card's interface URLs start with it."""
    return f'http://{args.host}:{args.port}'


def _exit_when_stdin_closes() -> None:
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        os._exit(0)


def watch_stdin(args: argparse.Namespace) -> None:
    """With --exit-on-stdin-eof, exit the process when stdin closes."""
    if args.exit_on_stdin_eof:
        threading.Thread(target=_exit_when_stdin_closes, daemon=True).start()


def serve(app: Starlette, args: argparse.Namespace) -> None:
    """Run until killed (or until stdin closes, with --exit-on-stdin-eof)."""
    watch_stdin(args)
    print(f'a2a peer starting on {base_url(args)}', flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level='warning', access_log=False)
