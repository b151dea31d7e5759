// Honest @a2a-js/sdk 1.3.0 peer over gRPC: claims streaming and push notifications, does both, and
// serves A2AService (the SDK's grpcService on @grpc/grpc-js) beside its card.
// The card is served over HTTP on --port, with a GRPC interface first (at a second loopback port
// the gRPC server picks), then JSON-RPC and HTTP+JSON on the same handler.
// Usage: node grpc.mjs --port PORT [--step-ms MS] [--exit-on-stdin-eof]

import { baseUrl, buildApp, buildCard, buildHandler, load, parseCommandLine, serve } from './echo_peer.mjs';

const grpc = load('@grpc/grpc-js');
const { A2AService, UserBuilder, grpcService } = load('@a2a-js/sdk/server/grpc');

const args = parseCommandLine();
const server = new grpc.Server();
server.bindAsync(`${args.host}:0`, grpc.ServerCredentials.createInsecure(), (err, grpcPort) => {
  if (err) {
    console.error(`cannot bind gRPC on ${args.host}: ${err.message}`);
    process.exit(1);
  }
  const card = buildCard('js-grpc', baseUrl(args), { streaming: true, pushNotifications: true });
  card.supportedInterfaces.unshift({
    url: `http://${args.host}:${grpcPort}`,
    protocolBinding: 'GRPC',
    tenant: '',
    protocolVersion: '1.0',
  });
  const handler = buildHandler(card, args, { push: true });
  server.addService(A2AService, grpcService({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  console.log(`a2a peer gRPC on ${args.host}:${grpcPort}`);
  serve(buildApp(card, handler), args);
});
