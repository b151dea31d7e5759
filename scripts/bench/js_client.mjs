// Drives the official @a2a-js/sdk 1.3.0 client against an agent, for BENCHMARKS.md.
//
// The client is built the way the SDK's README shows (ClientFactory.createFromUrl: card discovery,
// transport selection), then sendMessage / sendMessageStream is called --requests times with at
// most --in-flight calls outstanding. Prints one JSON line with the figures, the same shape as the
// Rust driver (`a2a-bench drive`), so scripts/bench/run.sh can put them in one table.
//
// Usage: node scripts/bench/js_client.mjs --url http://127.0.0.1:PORT --workload send|stream \
//            --requests N --in-flight K [--expect-events E]
//
// The SDK is loaded from target/peers/js (installed by scripts/peers/install.sh), as the peers do.

import { createRequire } from 'node:module';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const installDir = process.env.A2A_PEERS_JS_DIR ?? path.resolve(here, '../../target/peers/js');
const require = createRequire(path.join(installDir, 'package.json'));

function fail(message) {
  console.error(`js_client.mjs: ${message}`);
  process.exit(1);
}

let sdk;
try {
  sdk = require('@a2a-js/sdk/client');
} catch (err) {
  fail(`cannot load @a2a-js/sdk/client from ${installDir}: run scripts/bench/install.sh (${err.message})`);
}

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    workload: { type: 'string' },
    requests: { type: 'string' },
    'in-flight': { type: 'string', default: '1' },
    'expect-events': { type: 'string', default: '0' },
  },
});
const url = values.url ?? fail('--url is required');
const workload = values.workload;
if (workload !== 'send' && workload !== 'stream') fail(`--workload must be send or stream, got ${workload}`);
const requests = Number(values.requests);
const inFlight = Number(values['in-flight']);
const expectEvents = Number(values['expect-events']);
if (!(requests > 0) || !(inFlight > 0)) fail('--requests and --in-flight must be positive numbers');

const ROLE_USER = 1; // Role.ROLE_USER in the SDK's generated types

function request() {
  return {
    tenant: '',
    message: {
      messageId: randomUUID(),
      contextId: '',
      taskId: '',
      role: ROLE_USER,
      parts: [{ content: { $case: 'text', value: 'bench' } }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

async function one(client) {
  if (workload === 'send') {
    const result = await client.sendMessage(request());
    if (!result) throw new Error('sendMessage returned nothing');
    return 1;
  }
  let events = 0;
  for await (const _event of client.sendMessageStream(request())) events += 1;
  if (expectEvents && events !== expectEvents) {
    throw new Error(`stream ended after ${events} events, expected ${expectEvents}`);
  }
  return events;
}

async function main() {
  const client = await new sdk.ClientFactory().createFromUrl(url);
  await one(client); // warm up: connection, card, JIT

  let remaining = requests;
  let totalEvents = 0;
  async function worker() {
    while (remaining > 0) {
      remaining -= 1;
      // Not `total += await ...`: that reads the total before awaiting and loses updates.
      const events = await one(client);
      totalEvents += events;
    }
  }
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;

  console.log(
    JSON.stringify({
      client: '@a2a-js/sdk 1.3.0 (Node ' + process.versions.node + ')',
      workload,
      requests,
      in_flight: inFlight,
      events: totalEvents,
      seconds,
      requests_per_second: requests / seconds,
      events_per_second: totalEvents / seconds,
      peak_rss_kib: process.resourceUsage().maxRSS, // KiB
    }),
  );
}

main().catch((err) => fail(`${err?.name ?? 'Error'}: ${err?.message ?? err}`));
