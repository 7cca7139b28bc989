import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { Aedes } from 'aedes';
import { WebSocketServer, createWebSocketStream } from 'ws';
import { RULE_FILTERS, ruleEvent } from '@passcloud/functions/contract/protocol';
import { authorize } from '@passcloud/functions/iot/authorizer';
import { asFunction } from '@passcloud/functions/lib/localRole';
import { ingest } from '@passcloud/functions/iot/ingest';
import { log } from '@passcloud/functions/lib/log';
import { countLocalWork } from '@passcloud/functions/lib/localWork';
import { clientsOf, publisherOf, startBroker, subscriberOf, type Authorizer } from './iotBroker.ts';
import { dataPlaneHandler } from './iotDataPlane.ts';
import { ShadowStore, serveShadows } from './iotShadows.ts';
import { newCredentials, signerFor, type DataPlaneCredentials } from './iotSigV4.ts';

/**
 * The IoT Core stand-in: an MQTT broker (aedes, over TCP and WebSocket) that authenticates
 * devices with the same custom authorizer handler AWS invokes, reads its answer as IoT Core does
 * and enforces the policy it returns, and holds clients to IoT Core's limits (./iotBroker.ts,
 * ./iotLimits.ts); a device shadow service with AWS's topics and semantics (./iotShadows.ts); the
 * data-plane REST API (`/things/{thing}/shadow`, `/topics/{topic}`) for
 * `@aws-sdk/client-iot-data-plane` (./iotDataPlane.ts, signed as ./iotSigV4.ts checks); presence
 * events; and a rules adapter that hands rule topics to the same ingest handler the AWS topic
 * rules invoke. This module puts them together and starts their servers.
 *
 * The data plane can open any door (`POST /topics/pc/<thing>/commands`), so like IoT Core it
 * answers only requests signed (Signature V4) with the credentials the stand-in makes up at start,
 * and it listens on loopback whatever `host` says. Any web page the user opens can send a simple
 * POST to 127.0.0.1; it cannot sign one. Devices authenticate through the custom authorizer, so the
 * MQTT endpoints may follow `host`.
 */

export type { DataPlaneCredentials } from './iotSigV4.ts';
export { ShadowStore } from './iotShadows.ts';

export interface IotStandIn {
  /** mqtt://127.0.0.1:port */
  mqttUrl: string;
  /** ws://<host>:port/mqtt, a server of its own that follows `host` */
  wsUrl: string;
  /** http://127.0.0.1:port, the data-plane REST API: always loopback, always signed */
  dataEndpoint: string;
  /** Made up at start; the data plane answers only requests signed with them. */
  credentials: DataPlaneCredentials;
  broker: Aedes;
  shadows: ShadowStore;
  /** Rule invocations not yet finished (tests and benchmarks wait on them). */
  pendingRules(): number;
  stop(): Promise<void>;
}

const listen = (server: NetServer | HttpServer, port: number, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });

export interface IotOptions {
  /** Interface of the MQTT endpoints (TCP and WebSocket); the data plane stays on 127.0.0.1. */
  host?: string;
  mqttPort?: number;
  /** Port of MQTT over WebSocket; any free port when unset. */
  wsPort?: number;
  /** Where shadows are kept between runs; in memory when undefined. */
  shadowFile?: string;
  /** The custom authorizer the broker calls; functions/iot/authorizer.ts unless a test brings its own. */
  authorizer?: Authorizer;
}

export async function startIot(options: IotOptions = {}): Promise<IotStandIn> {
  const host = options.host ?? '127.0.0.1';
  // The authorizer and the rules' ingest run with their own roles, as their functions do on AWS (infra/local/roles.ts).
  const authorizer = options.authorizer ?? asFunction('iot/authorizer', authorize);
  const ingestAs = asFunction('iot/ingest', ingest);
  const broker = await startBroker(authorizer);
  const shadows = new ShadowStore(options.shadowFile);
  let inFlight = 0;

  const publish = publisherOf(broker);
  const subscribe = subscriberOf(broker);

  // The shadow service.
  const shadowUpdate = await serveShadows(shadows, publish, subscribe);

  // The rules adapter: the topics the AWS topic rules select go to the same ingest handler.
  for (const filter of Object.values(RULE_FILTERS)) {
    await subscribe(filter, (packet) => {
      inFlight++;
      void countLocalWork(ingestAs(ruleEvent(packet.topic, packet.payload)))
        .catch((error: unknown) => log('error', 'rule action failed', { topic: packet.topic, error: String(error) }))
        .finally(() => inFlight--);
    });
  }

  // MQTT over TCP and over WebSocket, on `host`.
  const tcp = createNetServer(broker.handle);
  const mqttPort = await listen(tcp, options.mqttPort ?? 0, host);
  const ws = createHttpServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('MQTT over WebSocket only, at /mqtt');
  });
  const wss = new WebSocketServer({ noServer: true });
  ws.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/mqtt')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (client) => broker.handle(createWebSocketStream(client) as never));
  });
  const wsPort = await listen(ws, options.wsPort ?? 0, host);

  // The data plane, on loopback only and for signed requests only.
  const credentials = newCredentials();
  const dataPlane = dataPlaneHandler({ broker, shadows, shadowUpdate, credentials, signer: signerFor(credentials) });
  const http = createHttpServer((req, res) => void dataPlane(req, res));
  const httpPort = await listen(http, 0, '127.0.0.1');

  return {
    mqttUrl: `mqtt://${host}:${mqttPort}`,
    wsUrl: `ws://${host}:${wsPort}/mqtt`,
    dataEndpoint: `http://127.0.0.1:${httpPort}`,
    credentials,
    broker,
    shadows,
    pendingRules: () => inFlight,
    async stop() {
      shadows.flush();
      for (const client of Object.values(clientsOf(broker))) client.close();
      await Promise.all([
        new Promise((r) => tcp.close(r)),
        new Promise((r) => http.close(r)),
        new Promise((r) => ws.close(r)),
        new Promise((r) => wss.close(r)),
      ]);
      http.closeAllConnections();
      ws.closeAllConnections();
      await new Promise<void>((r) => broker.close(() => r()));
    },
  };
}
