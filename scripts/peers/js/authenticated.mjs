// @a2a-js/sdk 1.3.0 peer behind bearer authentication, with an extended card for its callers.
//
// The public card names one scheme, `bearer` (HTTP Bearer), requires it, claims neither streaming
// nor push notifications, and declares `extendedAgentCard`; the extended card claims both, and
// the handler does both. The SDK's userBuilder marks a caller with
// `Authorization: Bearer $A2A_PEER_BEARER_TOKEN` authenticated (the SDK then serves it the
// extended card); a thin express middleware answers 401 to everyone else on the A2A routes. The
// card at the well-known path stays public. The token comes from the environment only.
// Usage: node authenticated.mjs --port PORT [--step-ms MS] [--exit-on-stdin-eof]

import { timingSafeEqual } from 'node:crypto';

import {
  baseUrl,
  buildApp,
  buildCard,
  buildHandler,
  cardFromJson,
  JSONRPC_PATH,
  parseCommandLine,
  REST_PATH,
  serve,
} from './echo_peer.mjs';

const TOKEN_VARIABLE = 'A2A_PEER_BEARER_TOKEN';
const token = process.env[TOKEN_VARIABLE] ?? '';
if (!token) {
  console.error(`authenticated.mjs: set ${TOKEN_VARIABLE} to the bearer token to accept`);
  process.exit(2);
}

function presentsToken(req) {
  const [scheme, presented] = (req.headers.authorization ?? '').split(' ', 2);
  if (scheme?.toLowerCase() !== 'bearer' || presented === undefined) return false;
  const a = Buffer.from(presented.trim());
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

class InteropUser {
  get isAuthenticated() {
    return true;
  }
  get userName() {
    return 'interop-client';
  }
}

class Anonymous {
  get isAuthenticated() {
    return false;
  }
  get userName() {
    return '';
  }
}

function withBearerScheme(card) {
  return {
    ...card,
    capabilities: { ...card.capabilities, extendedAgentCard: true },
    securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', description: '', bearerFormat: '' } } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  };
}

const args = parseCommandLine();
const url = baseUrl(args);
const publicCard = withBearerScheme(buildCard('js-authenticated', url, { streaming: false, pushNotifications: false }));
// The handler returns the extended card through the SDK's representation (see cardFromJson).
const extendedCard = cardFromJson({
  ...withBearerScheme(buildCard('js-authenticated', url, { streaming: true, pushNotifications: true })),
  description: '@a2a-js/sdk 1.3.0 loopback test peer (extended card)',
});
// The handler enforces the capabilities of the card it is given: the extended one.
const handler = buildHandler(extendedCard, args, { push: true, extendedCard });
const userBuilder = async (req) => (presentsToken(req) ? new InteropUser() : new Anonymous());
const guard = (req, res, next) => {
  if (presentsToken(req)) return next();
  res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: 'a bearer token is required' });
};
serve(buildApp(publicCard, handler, { userBuilder, guard: { paths: [JSONRPC_PATH, REST_PATH], middleware: guard } }), args);
