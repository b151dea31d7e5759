// Honest @a2a-js/sdk 1.3.0 peer whose Agent Card is signed with the SDK's own signer
// (generateAgentCardSignature, JWS over the JCS form of the card, backed by `jose`).
//
// Two fresh keys are made at start and the card gets one signature from each:
//   signatures[0]  ES256, kid "js-ec-1"  (P-256)
//   signatures[1]  EdDSA, kid "js-ed-1"  (Ed25519)
// Test-only route (keys are made per run, so a client learns them here, out of band):
//   GET /test/jwks.json   the two public keys as a JWKS
// Usage: node signed.mjs --port PORT [--step-ms MS] [--exit-on-stdin-eof]

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { baseUrl, buildApp, buildCard, buildHandler, parseCommandLine, serve } from './echo_peer.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const installDir = process.env.A2A_PEERS_JS_DIR ?? path.resolve(here, '../../../target/peers/js');
const require = createRequire(path.join(installDir, 'package.json'));
const jose = require('jose');
const { generateAgentCardSignature } = require('@a2a-js/sdk');

const args = parseCommandLine();
const unsigned = buildCard('js-signed', baseUrl(args), { streaming: true, pushNotifications: true });

const ec = await jose.generateKeyPair('ES256', { extractable: true });
const ed = await jose.generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
const publicJwk = async (key, kid, alg) => ({ ...(await jose.exportJWK(key)), kid, alg, use: 'sig' });
const jwks = { keys: [await publicJwk(ec.publicKey, 'js-ec-1', 'ES256'), await publicJwk(ed.publicKey, 'js-ed-1', 'EdDSA')] };

let card = await generateAgentCardSignature(ec.privateKey, { alg: 'ES256', kid: 'js-ec-1', typ: 'JOSE' })(unsigned);
card = await generateAgentCardSignature(ed.privateKey, { alg: 'EdDSA', kid: 'js-ed-1', typ: 'JOSE' })(card);

const handler = buildHandler(card, args, { push: true });
const app = buildApp(card, handler);
app.get('/test/jwks.json', (_req, res) => res.json(jwks));
serve(app, args);
