// Honest @a2a-js/sdk 1.3.0 peer: claims streaming and push notifications, and does both
// (push callbacks are really POSTed, one per event).
// Usage: node honest.mjs --port PORT [--step-ms MS] [--exit-on-stdin-eof]

import { baseUrl, buildApp, buildCard, buildHandler, parseCommandLine, serve } from './echo_peer.mjs';

const args = parseCommandLine();
const card = buildCard('js-honest', baseUrl(args), { streaming: true, pushNotifications: true });
const handler = buildHandler(card, args, { push: true });
serve(buildApp(card, handler), args);
