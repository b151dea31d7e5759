// Points the official JS client (@a2a-js/sdk 1.3.0) at every scenario of a conformance fleet.
//
// Used the way the SDK's README shows: `new ClientFactory().createFromUrl(url)`, then
// `client.sendMessageStream(...)` (which sends without streaming when the card says the agent does
// not stream), reading every event; a bearer token as a per-call `serviceParameters` header (the
// README's cli.ts sample), and the README's per-call `AbortSignal.timeout(...)` set to the fleet's
// patience as the client's bound. The harness gives up on a scenario after twice the patience (and
// 5 s); the fleet grades what the client did before that.
//
//     node drive_js.mjs FLEET_URL PATIENCE_SECONDS

import { createRequire } from 'node:module';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const installDir = process.env.A2A_PEERS_JS_DIR ?? path.resolve(here, '../../target/peers/js');
const require = createRequire(path.join(installDir, 'package.json'));
const { Role } = require('@a2a-js/sdk');
const { ClientFactory } = require('@a2a-js/sdk/client');

async function drive(scenario, patienceMs) {
  const client = await new ClientFactory().createFromUrl(scenario.url);
  const options = { signal: AbortSignal.timeout(patienceMs) };
  if (scenario.bearerToken) {
    options.serviceParameters = { Authorization: `Bearer ${scenario.bearerToken}` };
  }
  const message = {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: scenario.message } }],
  };
  let events = 0;
  for await (const _ of client.sendMessageStream({ message }, options)) {
    events += 1;
  }
  return `${events} event(s)`;
}

async function one(scenario, patienceMs) {
  let said;
  let timer;
  const cut = new Promise((resolve) => {
    timer = setTimeout(() => resolve('cut by the harness'), patienceMs * 2 + 5000);
  });
  try {
    said = await Promise.race([drive(scenario, patienceMs), cut]);
  } catch (error) {
    said = `${error?.name ?? 'Error'}: ${String(error?.message ?? error).slice(0, 200)}`;
  }
  clearTimeout(timer);
  console.error(`js ${scenario.id}: ${said}`);
}

const [fleet, patience] = process.argv.slice(2);
const patienceMs = Number(patience) * 1000;
const scenarios = await (await fetch(`${fleet.replace(/\/$/, '')}/scenarios`)).json();
await Promise.all(scenarios.map((s) => one(s, patienceMs)));
// A request the harness gave up on may still hold the event loop.
process.exit(0);
