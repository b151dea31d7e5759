// Over-declaring @a2a-js/sdk 1.3.0 peer: the served card claims streaming and push notifications,
// the agent implements neither. The SDK enforces the handler's own (honest) card, so
// SendStreamingMessage answers -32004 UnsupportedOperation and the push-config methods -32003
// PushNotificationNotSupported, while SendMessage works.
// Usage: node over_declaring.mjs --port PORT [--step-ms MS] [--exit-on-stdin-eof]

import { baseUrl, buildApp, buildCard, buildHandler, parseCommandLine, serve } from './echo_peer.mjs';

const args = parseCommandLine();
const claimed = buildCard('js-over-declaring', baseUrl(args), { streaming: true, pushNotifications: true });
const implemented = buildCard('js-over-declaring', baseUrl(args), { streaming: false, pushNotifications: false });
const handler = buildHandler(implemented, args, { push: false });
serve(buildApp(claimed, handler), args);
