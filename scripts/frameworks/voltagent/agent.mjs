// VoltAgent (@voltagent/core 2.10.0 with @voltagent/a2a-server 2.0.3, served by @voltagent/server-hono):
// an agent registered on a VoltAgent instance with an A2A server, as VoltAgent's A2A docs show it (card at
// /.well-known/{serverId}/agent-card.json, JSON-RPC at /a2a/{serverId}):
//
//   new VoltAgent({ agents: { assistant }, a2aServers: { a2aServer }, server: honoServer({ port }) })
//
// The model is the AI SDK's own test model (`MockLanguageModelV3` from `ai/test`): fixed text, streamed as
// three deltas; no network. VoltAgent writes the card itself (0.3, JSON-RPC, streaming true).
//
//   node agent.mjs --port N     (127.0.0.1 only)
// Outside production, @voltagent/core starts refreshing its model registry from models.dev as it is
// imported; the agent needs no registry (its model is given) and nothing may leave the machine, so
// it runs as in production, set before the (dynamic) imports.
process.env.NODE_ENV ??= 'production';
const { Agent, VoltAgent } = await import('@voltagent/core');
const { A2AServer } = await import('@voltagent/a2a-server');
const { honoServer } = await import('@voltagent/server-hono');
const { MockLanguageModelV3 } = await import('ai/test');

const ANSWER = 'Paris is the capital of France.';
const CHUNKS = ['Paris is ', 'the capital ', 'of France.'];

const portIndex = process.argv.indexOf('--port');
const port = portIndex > 0 ? Number(process.argv[portIndex + 1]) : NaN;
if (!Number.isInteger(port)) {
  console.error('usage: node agent.mjs --port N');
  process.exit(2);
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 7, text: 7, reasoning: undefined },
};
const finishReason = { unified: 'stop', raw: 'stop' };

const model = new MockLanguageModelV3({
  provider: 'canned',
  modelId: 'canned',
  doGenerate: async () => ({
    content: [{ type: 'text', text: ANSWER }],
    finishReason,
    usage,
    warnings: [],
  }),
  doStream: async () => {
    const parts = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't1' },
      ...CHUNKS.map((delta) => ({ type: 'text-delta', id: 't1', delta })),
      { type: 'text-end', id: 't1' },
      { type: 'finish', finishReason, usage },
    ];
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      }),
    };
  },
});

const assistant = new Agent({
  id: 'support-agent',
  name: 'support-agent',
  purpose: 'Handle support questions from partner agents.',
  instructions: 'Answer every question with a fixed sentence.',
  model,
});

const a2aServer = new A2AServer({ name: 'support-agent', version: '0.1.0' });

new VoltAgent({
  agents: { assistant },
  a2aServers: { a2aServer },
  server: honoServer({ port, hostname: '127.0.0.1' }),
});
console.error(`VoltAgent A2A on http://127.0.0.1:${port}/a2a/support-agent`);
