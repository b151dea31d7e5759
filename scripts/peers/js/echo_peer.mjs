// Shared parts of the @a2a-js/sdk 1.3.0 test peers: the echo agent, its card and the express app.
//
// Each peer script (honest.mjs, over_declaring.mjs) picks what its card claims and what the
// request handler really implements; everything else lives here.
//
// The agent: a new task emits Task(SUBMITTED), WORKING, then an artifact "echo: <text>" and
// COMPLETED with the message "done". A first message containing "clarify" stops at
// INPUT_REQUIRED instead; the follow-up on the same task completes it. Every step is paced
// (--step-ms) so that SubscribeToTask and CancelTask can be exercised while a task is running.
//
// The SDK is not installed next to this file but under target/peers/js (scripts/peers/install.sh),
// so it is loaded with a require rooted there (A2A_PEERS_JS_DIR overrides the location).

import { createRequire } from 'node:module';
import http from 'node:http';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const installDir = process.env.A2A_PEERS_JS_DIR ?? path.resolve(here, '../../../target/peers/js');
const require = createRequire(path.join(installDir, 'package.json'));

export function load(name) {
  try {
    return require(name);
  } catch (err) {
    console.error(`cannot load ${name} from ${installDir}: run scripts/peers/install.sh first (${err.message})`);
    process.exit(3);
  }
}

const express = load('express');
const { TaskState, Role, AgentCard } = load('@a2a-js/sdk');
const {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  InMemoryPushNotificationStore,
  DefaultPushNotificationSender,
} = load('@a2a-js/sdk/server');
const { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } = load('@a2a-js/sdk/server/express');

export const JSONRPC_PATH = '/a2a/jsonrpc';
export const REST_PATH = '/a2a/rest';
export const CARD_PATH = '/.well-known/agent-card.json';
const CLARIFY_QUESTION = 'Please clarify: what exactly do you need?';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => new Date().toISOString();

function textPart(text) {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(taskId, contextId, text) {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: {},
    extensions: [],
    referenceTaskIds: [],
  };
}

function userText(message) {
  return (message?.parts ?? [])
    .filter((part) => part.content?.$case === 'text')
    .map((part) => part.content.value)
    .join('\n');
}

/** Echoes the user's text back as an artifact, one paced step at a time. */
class EchoExecutor {
  constructor(stepMs) {
    this.stepMs = stepMs;
    this.cancelRequested = new Set();
  }

  cancelTask = async (taskId, _eventBus) => {
    this.cancelRequested.add(taskId);
  };

  async execute(requestContext, eventBus) {
    const { taskId, contextId } = requestContext;
    const message = requestContext.userMessage;
    const existing = requestContext.task;
    const status = (state, text) =>
      eventBus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: {
            state,
            message: text === undefined ? undefined : agentMessage(taskId, contextId, text),
            timestamp: now(),
          },
          metadata: {},
        }),
      );
    // Whether a cancel arrived during the last pause; if so the task ends CANCELED here.
    const canceled = () => {
      if (!this.cancelRequested.has(taskId)) return false;
      status(TaskState.TASK_STATE_CANCELED, 'canceled');
      return true;
    };

    try {
      // The JS server requires every turn to start with a Task (or Message), follow-ups included.
      eventBus.publish(
        AgentEvent.task(
          existing ?? {
            id: taskId,
            contextId,
            status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: now() },
            artifacts: [],
            history: [message],
            metadata: {},
          },
        ),
      );
      const resumed = existing?.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED;
      const text = userText(message);

      status(TaskState.TASK_STATE_WORKING);
      await sleep(this.stepMs);
      if (canceled()) return;
      if (!resumed && text.toLowerCase().includes('clarify')) {
        status(TaskState.TASK_STATE_INPUT_REQUIRED, CLARIFY_QUESTION);
        return;
      }
      eventBus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: randomUUID(),
            name: 'answer',
            description: '',
            parts: [textPart(`echo: ${text}`)],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        }),
      );
      await sleep(this.stepMs);
      if (canceled()) return;
      status(TaskState.TASK_STATE_COMPLETED, 'done');
    } finally {
      this.cancelRequested.delete(taskId);
    }
  }
}

/** The command line every JS peer shares. */
export function parseCommandLine() {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      'step-ms': { type: 'string', default: '200' },
      'exit-on-stdin-eof': { type: 'boolean', default: false },
    },
  });
  const port = Number(values.port);
  const stepMs = Number(values['step-ms']);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a TCP port number, got ${JSON.stringify(values.port)}`);
    process.exit(2);
  }
  if (!Number.isFinite(stepMs) || stepMs < 0) {
    console.error(`--step-ms must be a non-negative number, got ${JSON.stringify(values['step-ms'])}`);
    process.exit(2);
  }
  if (!isLoopback(values.host)) {
    console.error(`--host must be a loopback address (test peers never listen outside), got ${JSON.stringify(values.host)}`);
    process.exit(2);
  }
  return { port, host: values.host, stepMs, exitOnStdinEof: values['exit-on-stdin-eof'] };
}

/** True for localhost, 127.0.0.0/8 and ::1. */
function isLoopback(host) {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Where clients reach this peer; the card's interface URLs start with it. */
export function baseUrl(args) {
  return `http://${args.host}:${args.port}`;
}

/**
 * A card in the SDK's own representation, from its wire JSON. The SDK writes the cards its request
 * handler returns (GetExtendedAgentCard) through that representation, where a security scheme is a
 * `{$case, value}` oneof: a wire-shaped scheme given to it directly comes out empty.
 */
export function cardFromJson(json) {
  return AgentCard.fromJSON(json);
}

/** The card of the echo agent at `base`, with the given capabilities. */
export function buildCard(name, base, { streaming, pushNotifications }) {
  const iface = (suffix, binding) => ({
    url: base + suffix,
    protocolBinding: binding,
    tenant: '',
    protocolVersion: '1.0',
  });
  return {
    name,
    description: '@a2a-js/sdk 1.3.0 loopback test peer',
    version: '1.0.0',
    supportedInterfaces: [iface(JSONRPC_PATH, 'JSONRPC'), iface(REST_PATH, 'HTTP+JSON')],
    provider: undefined,
    documentationUrl: '',
    capabilities: { streaming, pushNotifications, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'echo',
        name: 'echo',
        description: 'echoes text',
        tags: ['test'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/**
 * The SDK's request handler; it enforces the capabilities of `card`. With `push`, configs are
 * stored and every event is POSTed to them.
 */
export function buildHandler(card, args, { push, extendedCard }) {
  const store = push ? new InMemoryPushNotificationStore() : undefined;
  const sender = push ? new DefaultPushNotificationSender(store, { timeout: 10000 }) : undefined;
  return new DefaultRequestHandler(card, new InMemoryTaskStore(), new EchoExecutor(args.stepMs), undefined, store, sender, extendedCard);
}

/**
 * Card at the well-known path (`servedCard`), JSON-RPC at /a2a/jsonrpc, HTTP+JSON under /a2a/rest.
 * `userBuilder` (default: nobody is authenticated) and `guard` ({paths, middleware}, run before
 * the A2A routes) are for peers behind authentication.
 */
export function buildApp(servedCard, handler, { userBuilder = UserBuilder.noAuthentication, guard } = {}) {
  const app = express();
  app.use(CARD_PATH, agentCardHandler({ agentCardProvider: async () => servedCard }));
  if (guard) {
    for (const guarded of guard.paths) app.use(guarded, guard.middleware);
  }
  app.use(JSONRPC_PATH, jsonRpcHandler({ requestHandler: handler, userBuilder }));
  app.use(REST_PATH, restHandler({ requestHandler: handler, userBuilder }));
  return app;
}

/** Run until killed (or until stdin closes, with --exit-on-stdin-eof). */
export function serve(app, args) {
  if (args.exitOnStdinEof) {
    process.stdin.on('end', () => process.exit(0));
    process.stdin.on('error', () => process.exit(0));
    process.stdin.resume();
  }
  const server = http.createServer(app);
  server.on('error', (err) => {
    console.error(`cannot listen on ${args.host}:${args.port}: ${err.code ?? ''} ${err.message}`);
    process.exit(1);
  });
  server.listen(args.port, args.host, () => {
    console.log(`a2a peer listening on ${baseUrl(args)}`);
  });
  for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => process.exit(0));
  }
}
