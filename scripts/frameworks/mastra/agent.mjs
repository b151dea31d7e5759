// Mastra (@mastra/core 1.71.0, served by @mastra/deployer 1.69.0's Node server, the server `mastra dev`
// and `mastra build` run): an agent registered on a Mastra instance, which Mastra exposes over A2A as
// its docs describe (card at /api/.well-known/{agentId}/agent-card.json, JSON-RPC at /api/a2a/{agentId}).
//
//   export const mastra = new Mastra({ agents: { weatherAgent } })      // then: mastra dev
//
// The model is a canned AI SDK LanguageModelV2 object (fixed text, streamed as three deltas; no network).
// Mastra writes the card itself: streaming and pushNotifications both true, nothing to declare.
//
//   node agent.mjs --port N     (127.0.0.1 only)
import { Agent } from '@mastra/core/agent';
import { Mastra } from '@mastra/core/mastra';
import { createNodeServer } from '@mastra/deployer/server';

const ANSWER = 'Paris is the capital of France.';
const CHUNKS = ['Paris is ', 'the capital ', 'of France.'];

const portIndex = process.argv.indexOf('--port');
const port = portIndex > 0 ? Number(process.argv[portIndex + 1]) : NaN;
if (!Number.isInteger(port)) {
  console.error('usage: node agent.mjs --port N');
  process.exit(2);
}

const usage = { inputTokens: 1, outputTokens: 7, totalTokens: 8 };
const cannedModel = {
  specificationVersion: 'v2',
  provider: 'canned',
  modelId: 'canned',
  supportedUrls: {},
  async doGenerate() {
    return { content: [{ type: 'text', text: ANSWER }], finishReason: 'stop', usage, warnings: [] };
  },
  async doStream() {
    const parts = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't1' },
      ...CHUNKS.map((delta) => ({ type: 'text-delta', id: 't1', delta })),
      { type: 'text-end', id: 't1' },
      { type: 'finish', finishReason: 'stop', usage },
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
};

const cannedAgent = new Agent({
  id: 'canned-agent',
  name: 'Mastra canned agent',
  instructions: 'Answer every question with a fixed sentence.',
  model: cannedModel,
});

const mastra = new Mastra({
  agents: { 'canned-agent': cannedAgent },
  server: { host: '127.0.0.1', port },
});

await createNodeServer(mastra, { tools: {} });
console.error(`Mastra A2A on http://127.0.0.1:${port}/api/a2a/canned-agent`);
