import { Aedes, type AedesPublishPacket, type Client, type Subscription } from 'aedes';
import { createHash, createHmac, randomBytes, timingSafeEqual, type Hash, type Hmac } from 'node:crypto';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { WebSocketServer, createWebSocketStream } from 'ws';
import { SignatureV4 } from '@smithy/signature-v4';
import { deltaOf } from '@passcloud/functions/contract/shadow';
import { DUPLICATE_CLIENT_ID, RULE_FILTERS, presenceTopic, ruleEvent } from '@passcloud/functions/contract/protocol';
import { authorize, policyPrefix, type AuthorizerEvent } from '@passcloud/functions/iot/authorizer';
import { asFunction } from '@passcloud/functions/lib/localRole';
import { ingest } from '@passcloud/functions/iot/ingest';
import { isAllowed, type PolicyDocument } from '@passcloud/functions/iot/policy';
import { log } from '@passcloud/functions/lib/log';
import { countLocalWork } from '@passcloud/functions/lib/localWork';
import { MAX_CLIENT_ID_BYTES, MAX_PAYLOAD_BYTES, PublishRate, clientIdBreach, publishBreach, readAuthorizerAnswer, subscribeBreach, type Admission } from './iotLimits.ts';

/**
 * The IoT Core stand-in: an MQTT broker (aedes, over TCP and WebSocket) that authenticates
 * devices with the same custom authorizer handler AWS invokes, reads its answer as IoT Core does
 * and enforces the policy it returns, and holds clients to IoT Core's limits (./iotLimits.ts); a device shadow service with AWS's topics and semantics; the data-plane REST API
 * (`/things/{thing}/shadow`, `/topics/{topic}`) for `@aws-sdk/client-iot-data-plane`; presence
 * events; and a rules adapter that hands rule topics to the same ingest handler the AWS topic
 * rules invoke.
 *
 * The data plane can open any door (`POST /topics/pc/<thing>/commands`), so like IoT Core it
 * answers only requests signed (Signature V4) with the credentials the stand-in makes up at start,
 * and it listens on loopback whatever `host` says. Any web page the user opens can send a simple
 * POST to 127.0.0.1; it cannot sign one. Devices authenticate through the custom authorizer, so the
 * MQTT endpoints may follow `host`.
 */

type Json = Record<string, unknown>;

interface Shadow {
  state: { desired?: Json; reported?: Json };
  metadata: { desired?: Json; reported?: Json };
  version: number;
  timestamp: number;
}

class ShadowError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** aedes keeps its live clients by id but does not declare the field. */
const clientsOf = (broker: Aedes) => (broker as unknown as { clients: Record<string, Client> }).clients;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Merges `patch` into `target` as AWS does: `null` removes a key, objects merge, anything else replaces. */
function merge(target: Json | undefined, patch: Json, stamp: Json | undefined, now: number): { value: Json; meta: Json } {
  const value: Json = { ...(target ?? {}) };
  const meta: Json = { ...(stamp ?? {}) };
  for (const [key, v] of Object.entries(patch)) {
    if (v === null) {
      delete value[key];
      delete meta[key];
    } else if (isObject(v) && isObject(value[key])) {
      const inner = merge(value[key] as Json, v, meta[key] as Json | undefined, now);
      value[key] = inner.value;
      meta[key] = inner.meta;
    } else {
      value[key] = v;
      meta[key] = { timestamp: now };
    }
  }
  return { value, meta };
}

export class ShadowStore {
  private readonly shadows = new Map<string, Shadow>();
  private saveTimer: NodeJS.Timeout | undefined;

  constructor(private readonly file?: string) {
    if (!file) return;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Shadow>;
      for (const [thing, shadow] of Object.entries(saved)) this.shadows.set(thing, shadow);
    } catch {
      // no saved shadows yet
    }
  }

  get(thing: string): Shadow | undefined {
    return this.shadows.get(thing);
  }

  delete(thing: string): Shadow | undefined {
    const shadow = this.shadows.get(thing);
    this.shadows.delete(thing);
    this.save();
    return shadow;
  }

  /** One update request; answers the accepted document and the before/after pair, or throws a ShadowError. */
  update(thing: string, request: unknown): { accepted: Json; previous: Shadow | undefined; current: Shadow; desiredChanged: boolean } {
    if (!isObject(request) || !isObject(request.state)) throw new ShadowError(400, 'Missing required node: state');
    const { desired, reported } = request.state as { desired?: unknown; reported?: unknown };
    for (const part of [desired, reported]) {
      if (part !== undefined && part !== null && !isObject(part)) throw new ShadowError(400, 'State contains an invalid node');
    }
    const previous = this.shadows.get(thing);
    if (typeof request.version === 'number' && request.version !== (previous?.version ?? 0)) throw new ShadowError(409, 'Version conflict');
    const now = Math.floor(Date.now() / 1000);
    const next: Shadow = previous ? structuredClone(previous) : { state: {}, metadata: {}, version: 0, timestamp: now };
    const acceptedMeta: Json = {};
    for (const section of ['desired', 'reported'] as const) {
      const part = (request.state as Json)[section];
      if (part === undefined) continue;
      if (part === null) {
        delete next.state[section];
        delete next.metadata[section];
        continue;
      }
      const merged = merge(next.state[section], part as Json, next.metadata[section], now);
      next.state[section] = merged.value;
      next.metadata[section] = merged.meta;
      acceptedMeta[section] = Object.fromEntries(Object.keys(part as Json).map((k) => [k, { timestamp: now }]));
    }
    next.version += 1;
    next.timestamp = now;
    this.shadows.set(thing, next);
    this.save();
    const clientToken = typeof request.clientToken === 'string' ? { clientToken: request.clientToken } : {};
    return {
      accepted: { state: request.state, metadata: acceptedMeta, version: next.version, timestamp: now, ...clientToken },
      previous,
      current: next,
      desiredChanged: desired !== undefined,
    };
  }

  private save(): void {
    if (!this.file || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.flush(), 300);
    this.saveTimer.unref();
  }

  flush(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.tmp`, JSON.stringify(Object.fromEntries(this.shadows)));
    renameSync(`${this.file}.tmp`, this.file);
  }
}

const deltaDocument = (shadow: Shadow) => deltaOf(shadow.state.desired ?? {}, shadow.state.reported ?? {});

function getDocument(shadow: Shadow, clientToken?: unknown): Json {
  const delta = deltaDocument(shadow);
  return {
    state: { ...shadow.state, ...(Object.keys(delta).length ? { delta } : {}) },
    metadata: shadow.metadata,
    version: shadow.version,
    timestamp: shadow.timestamp,
    ...(typeof clientToken === 'string' ? { clientToken } : {}),
  };
}

const snapshot = (shadow: Shadow | undefined) => (shadow ? { state: shadow.state, metadata: shadow.metadata, version: shadow.version } : null);

/** IoT Core's limit on a message; the data plane refuses larger bodies before buffering them. */
const MAX_DATA_PLANE_BODY = MAX_PAYLOAD_BYTES;
/** How far a request's x-amz-date may be from the clock. */
const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** The service name `@aws-sdk/client-iot-data-plane` signs for. */
const SIGNING_SERVICE = 'iotdata';

export interface DataPlaneCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytesOf = (data: SourceData): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** SHA-256 and HMAC-SHA256 from node:crypto, in the shape SignatureV4 takes. */
class Sha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytesOf(this.secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytesOf(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([^/\s]+)\/([^/\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9-]+(?:;[a-z0-9-]+)*),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

interface Refusal {
  status: number;
  type: string;
  message: string;
}
const forbidden = (message: string): Refusal => ({ status: 403, type: 'ForbiddenException', message });

interface SignedRequest {
  accessKeyId: string;
  region: string;
  service: string;
  date: Date;
  signedHeaders: string[];
  signature: string;
}

/**
 * The parts of a request's signature that need no body, checked as IoT Core does: a known access
 * key, a scope for this service and date, and a date within five minutes of the clock.
 */
function readSignature(req: IncomingMessage, credentials: DataPlaneCredentials, now = Date.now()): SignedRequest | Refusal {
  const header = req.headers.authorization;
  if (!header) return forbidden('Missing Authentication Token');
  const match = AUTHORIZATION.exec(header);
  if (!match) return forbidden('Authorization header is not a valid AWS4-HMAC-SHA256 signature');
  const [, accessKeyId, scopeDate, region, service, signedList, signature] = match as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) {
    return { status: 403, type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
  }
  // Any region: the stand-in serves whichever one AWS_REGION names.
  if (service !== SIGNING_SERVICE) return forbidden(`Credential should be scoped to correct service: '${SIGNING_SERVICE}'.`);
  const stamp = req.headers['x-amz-date'];
  const parts = typeof stamp === 'string' ? AMZ_DATE.exec(stamp) : null;
  if (!parts) return forbidden('Missing or malformed X-Amz-Date header');
  const [, y, mo, d, h, mi, sec] = parts.map(Number) as number[];
  const date = new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!));
  if (Math.abs(now - date.getTime()) > MAX_CLOCK_SKEW_MS) return forbidden(`Signature expired: ${parts[0]} is not within 5 minutes of the server time.`);
  if (scopeDate !== parts[0].slice(0, 8)) return forbidden('Credential should be scoped to a valid date.');
  const signedHeaders = signedList!.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) return forbidden('Host and X-Amz-Date must be signed.');
  return { accessKeyId: accessKeyId!, region: region!, service: service!, date, signedHeaders, signature: signature! };
}

/** Signs the request again with the stand-in's secret and compares, in constant time. */
async function checkSignature(req: IncomingMessage, body: Buffer, signed: SignedRequest, signer: SignatureV4): Promise<Refusal | undefined> {
  const headers: Record<string, string> = {};
  for (const name of signed.signedHeaders) {
    const value = req.headers[name];
    if (value === undefined) return forbidden(`Signed header ${name} is missing.`);
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const bodyHash = createHash('sha256').update(body).digest('hex');
  const declared = headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== bodyHash) return forbidden('The provided x-amz-content-sha256 header does not match what was computed.');
  const [path = '/', search = ''] = (req.url ?? '/').split('?', 2) as [string, string?];
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(search)) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  const expected = await signer.sign(
    { method: req.method ?? 'GET', protocol: 'http:', hostname: '127.0.0.1', path, query, headers, body },
    { signingDate: signed.date, signingRegion: signed.region, signingService: signed.service, signableHeaders: new Set(signed.signedHeaders) },
  );
  const computed = /Signature=([0-9a-f]{64})$/.exec(String(expected.headers.authorization ?? ''))?.[1] ?? '';
  const given = Buffer.from(signed.signature);
  if (computed.length !== given.length || !timingSafeEqual(Buffer.from(computed), given)) {
    return forbidden('The request signature we calculated does not match the signature you provided.');
  }
  return undefined;
}

/** The request body, or undefined once it passes `limit` bytes (the rest is left unread). */
const readBody = (req: IncomingMessage, limit: number) =>
  new Promise<Buffer | undefined>((resolve, reject) => {
    if (Number(req.headers['content-length']) > limit) return resolve(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.pause();
      resolve(undefined);
    };
    const onEnd = () => resolve(Buffer.concat(chunks));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', reject);
  });

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
  authorizer?: (event: AuthorizerEvent) => Promise<unknown>;
}

export async function startIot(options: IotOptions = {}): Promise<IotStandIn> {
  const host = options.host ?? '127.0.0.1';
  // MQTT 3.1 clients are held to IoT Core's client id size too (aedes checks only those against this).
  const broker = await Aedes.createBroker({ maxClientsIdLength: MAX_CLIENT_ID_BYTES });
  // The authorizer and the rules' ingest run with their own roles, as their functions do on AWS (infra/local/roles.ts).
  const authorizer = options.authorizer ?? asFunction('iot/authorizer', authorize);
  const ingestAs = asFunction('iot/ingest', ingest);
  const shadows = new ShadowStore(options.shadowFile);
  const policies = new Map<Client, PolicyDocument[]>();
  const prefix = policyPrefix();
  let inFlight = 0;

  const publish = (topic: string, payload: unknown) =>
    new Promise<void>((resolve) =>
      broker.publish({ cmd: 'publish', topic, payload: Buffer.from(JSON.stringify(payload)), qos: 1, retain: false, dup: false }, () => resolve()),
    );

  // Authentication and authorization: the custom authorizer's answer, read from its
  // `policyDocuments` as IoT Core reads it, is the client's policy. An answer that breaks one of
  // IoT Core's rules refuses the connection like a "no". As IoT Core does, the client is asked
  // again after `refreshAfterInSeconds` (and let go when refused) and let go after
  // `disconnectAfterInSeconds`.
  const timers = new Map<Client, NodeJS.Timeout[]>();
  const clearTimers = (client: Client) => {
    for (const timer of timers.get(client) ?? []) clearTimeout(timer);
    timers.delete(client);
  };
  const ask = async (client: Client, username: string | undefined, password: Buffer | undefined): Promise<Admission | undefined> => {
    const answer = await authorizer({
      protocols: ['mqtt'],
      protocolData: { mqtt: { username: username ?? '', password: password?.toString('base64') ?? '', clientId: client.id } },
    });
    const read = readAuthorizerAnswer(answer);
    if ('rule' in read) {
      log('warn', 'MQTT connection refused: the authorizer answer breaks an IoT Core rule', { clientId: client.id, rule: read.rule, detail: read.detail });
      return undefined;
    }
    return read.authenticated ? read : undefined;
  };
  const holdFor = (client: Client, username: string | undefined, password: Buffer | undefined, admission: Admission) => {
    clearTimers(client);
    const refresh = setTimeout(() => {
      ask(client, username, password).then(
        (next) => {
          if (!clientsOf(broker)[client.id] || clientsOf(broker)[client.id] !== client) return;
          if (!next) return void client.close();
          policies.set(client, next.policies);
          holdFor(client, username, password, next);
        },
        () => undefined,
      );
    }, admission.refreshAfterInSeconds * 1000);
    const end = setTimeout(() => client.close(), admission.disconnectAfterInSeconds * 1000);
    refresh.unref();
    end.unref();
    timers.set(client, [refresh, end]);
  };
  broker.authenticate = (client, username, password, done) => {
    const tooLong = clientIdBreach(client.id);
    if (tooLong) {
      log('warn', 'MQTT connection refused: the client id breaks an IoT Core rule', { rule: tooLong.rule, detail: tooLong.detail });
      return done(Object.assign(new Error('Identifier rejected'), { returnCode: 2 }) as never, false);
    }
    ask(client, username, password).then(
      (admission) => {
        if (!admission) {
          const error = Object.assign(new Error('Not authorized'), { returnCode: 5 });
          return done(error as never, false);
        }
        policies.set(client, admission.policies);
        holdFor(client, username, password, admission);
        done(null, true);
      },
      (error: unknown) => {
        log('error', 'authorizer failed', { error: String(error) });
        done(Object.assign(new Error('Server unavailable'), { returnCode: 3 }) as never, false);
      },
    );
  };
  const allowed = (client: Client | null, action: string, resource: string) =>
    !client || isAllowed(policies.get(client) ?? [], action, `${prefix}:${resource}`);
  // IoT Core's limits on what a client sends (./iotLimits.ts). A message over 128 KB, a topic too
  // long or too deep, or a publish on a reserved topic not meant for clients ends the connection:
  // MQTT 3.1.1 has no other way to refuse a PUBLISH, and IoT Core does the same. Publishes past
  // 100 a second are discarded, the connection kept, and no PUBACK is sent for them.
  // https://docs.aws.amazon.com/general/latest/gr/iot-core.html#message-broker-limits
  const rates = new WeakMap<Client, PublishRate>();
  const quietUntil = new WeakMap<Client, number>();
  const discarded = new WeakSet<object>();
  // aedes routes a client's PUBLISH through `publish(packet, client, done)`; its types name only `(packet, done)`.
  const route = broker.publish.bind(broker) as (packet: AedesPublishPacket, ...rest: unknown[]) => void;
  broker.publish = ((packet: AedesPublishPacket, ...rest: unknown[]) => {
    if (!discarded.has(packet)) return route(packet, ...rest);
    const done = rest.at(-1);
    if (typeof done === 'function') (done as () => void)();
  }) as typeof broker.publish;
  broker.authorizePublish = (client, packet, done) => {
    if (!client) return done(null);
    const broken = publishBreach(packet.topic, packet.payload);
    if (broken) {
      log('warn', 'MQTT publish refused: it breaks an IoT Core rule, the connection is closed', { clientId: client.id, topic: packet.topic.slice(0, 300), rule: broken.rule, detail: broken.detail });
      return done(new Error(`${broken.rule}: ${broken.detail}`));
    }
    const rate = rates.get(client) ?? new PublishRate();
    rates.set(client, rate);
    if (!rate.take()) {
      const now = Date.now();
      if ((quietUntil.get(client) ?? 0) <= now) {
        quietUntil.set(client, now + 1000);
        log('warn', 'MQTT publishes discarded: over IoT Core\'s publishes per second per connection', { clientId: client.id, topic: packet.topic });
      }
      // Handled as QoS 0 so no PUBACK goes back, then discarded instead of routed.
      packet.qos = 0;
      discarded.add(packet);
      return done(null);
    }
    if (allowed(client, 'iot:Publish', `topic/${packet.topic}`)) return done(null);
    log('warn', 'MQTT publish refused', { clientId: client.id, topic: packet.topic });
    done(new Error('Publish not authorized'));
  };
  broker.authorizeSubscribe = (client, sub: Subscription, done) => {
    const broken = client ? subscribeBreach(sub.topic) : undefined;
    if (broken) {
      log('warn', 'MQTT subscribe refused: it breaks an IoT Core rule', { clientId: client?.id, topic: sub.topic.slice(0, 300), rule: broken.rule, detail: broken.detail });
      return done(null, null);
    }
    if (allowed(client, 'iot:Subscribe', `topicfilter/${sub.topic}`)) return done(null, sub);
    log('warn', 'MQTT subscribe refused', { clientId: client?.id, topic: sub.topic });
    done(null, null);
  };
  broker.authorizeForward = (client, packet) => (allowed(client, 'iot:Receive', `topic/${packet.topic}`) ? packet : null);

  // Presence, as IoT Core publishes it on its lifecycle topics. A connection under a client id
  // already connected closes the older one first [MQTT-3.1.4-2]: that one is marked as replaced.
  const replacedClients = new WeakSet<Client>();
  const withRegistry = broker as unknown as { registerClient(client: Client): void };
  const register = withRegistry.registerClient.bind(broker);
  withRegistry.registerClient = (client: Client) => {
    const older = clientsOf(broker)[client.id];
    if (older && older !== client) replacedClients.add(older);
    register(client);
  };
  broker.on('client', (client) => {
    void publish(presenceTopic('connected', client.id), { clientId: client.id, timestamp: Date.now(), eventType: 'connected', versionNumber: 0 });
  });
  broker.on('clientDisconnect', (client) => {
    policies.delete(client);
    clearTimers(client);
    // As IoT Core does, a client replaced by a newer connection with the same id is reported
    // disconnected, with the reason that says so (the cloud does not take it as a departure).
    const replaced = replacedClients.has(client);
    void publish(presenceTopic('disconnected', client.id), {
      clientId: client.id,
      timestamp: Date.now(),
      eventType: 'disconnected',
      clientInitiatedDisconnect: false,
      disconnectReason: replaced ? DUPLICATE_CLIENT_ID : 'CONNECTION_LOST',
      versionNumber: 0,
    });
  });

  // The shadow service.
  const shadowUpdate = (thing: string, request: unknown) => {
    const result = shadows.update(thing, request);
    const base = `$aws/things/${thing}/shadow`;
    void publish(`${base}/update/accepted`, result.accepted);
    void publish(`${base}/update/documents`, {
      previous: snapshot(result.previous),
      current: snapshot(result.current),
      timestamp: result.current.timestamp,
      ...(isObject(request) && typeof request.clientToken === 'string' ? { clientToken: request.clientToken } : {}),
    });
    const delta = deltaDocument(result.current);
    if (result.desiredChanged && Object.keys(delta).length > 0) {
      void publish(`${base}/update/delta`, { state: delta, version: result.current.version, timestamp: result.current.timestamp });
    }
    return result.accepted;
  };
  const rejection = (error: unknown, request: unknown) => {
    const code = error instanceof ShadowError ? error.code : 500;
    const message = error instanceof Error ? error.message : 'Internal error';
    return {
      code,
      message,
      timestamp: Math.floor(Date.now() / 1000),
      ...(isObject(request) && typeof request.clientToken === 'string' ? { clientToken: request.clientToken } : {}),
    };
  };
  const parsePayload = (payload: Buffer | string): unknown => {
    try {
      return JSON.parse(payload.toString());
    } catch {
      return undefined;
    }
  };
  const subscribe = (filter: string, deliver: (packet: AedesPublishPacket) => void) =>
    new Promise<void>((resolve) =>
      broker.subscribe(
        filter,
        (packet, cb) => {
          deliver(packet);
          cb();
        },
        () => resolve(),
      ),
    );

  await subscribe('$aws/things/+/shadow/update', (packet) => {
    const thing = packet.topic.split('/')[2]!;
    const request = parsePayload(packet.payload);
    try {
      shadowUpdate(thing, request);
    } catch (error) {
      void publish(`$aws/things/${thing}/shadow/update/rejected`, rejection(error, request));
    }
  });
  await subscribe('$aws/things/+/shadow/get', (packet) => {
    const thing = packet.topic.split('/')[2]!;
    const request = parsePayload(packet.payload);
    const shadow = shadows.get(thing);
    if (shadow) void publish(`$aws/things/${thing}/shadow/get/accepted`, getDocument(shadow, isObject(request) ? request.clientToken : undefined));
    else void publish(`$aws/things/${thing}/shadow/get/rejected`, rejection(new ShadowError(404, `No shadow exists with name: '${thing}'`), request));
  });

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
  const credentials: DataPlaneCredentials = {
    accessKeyId: `LOCAL${randomBytes(10).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64'),
  };
  const signer = new SignatureV4({ credentials, region: 'us-east-1', service: SIGNING_SERVICE, sha256: Sha256, applyChecksum: false });
  const http = createHttpServer((req, res) => void dataPlane(req, res));
  const httpPort = await listen(http, 0, '127.0.0.1');

  // The data-plane REST API.
  async function dataPlane(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, payload: unknown, errorType?: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
      res.end(JSON.stringify(payload));
    };
    const fail = (status: number, type: string, message: string) => reply(status, { message, __type: type }, type);
    const refuse = (refusal: Refusal) => {
      log('warn', 'IoT data plane request refused', { method: req.method, path: req.url?.split('?')[0], reason: refusal.type });
      fail(refusal.status, refusal.type, refusal.message);
    };
    const signed = readSignature(req, credentials);
    if ('status' in signed) return refuse(signed);
    let body: Buffer | undefined;
    try {
      body = await readBody(req, MAX_DATA_PLANE_BODY);
    } catch {
      return void res.destroy();
    }
    if (!body) {
      // The rest of the body is left unread, so the connection cannot be used again.
      res.setHeader('connection', 'close');
      return fail(413, 'RequestEntityTooLargeException', `Payload exceeds the ${MAX_DATA_PLANE_BODY / 1024} KB limit`);
    }
    const mismatch = await checkSignature(req, body, signed, signer);
    if (mismatch) return refuse(mismatch);
    const url = new URL(req.url ?? '/', 'http://local');
    const shadowPath = /^\/things\/([^/]+)\/shadow$/.exec(url.pathname);
    const topicPath = /^\/topics\/(.+)$/.exec(url.pathname);
    const connectionPath = /^\/connections\/([^/]+)$/.exec(url.pathname);
    try {
      if (shadowPath && !url.searchParams.get('name')) {
        const thing = decodeURIComponent(shadowPath[1]!);
        if (req.method === 'GET') {
          const shadow = shadows.get(thing);
          return shadow ? reply(200, getDocument(shadow)) : fail(404, 'ResourceNotFoundException', `No shadow exists with name: '${thing}'`);
        }
        if (req.method === 'POST') {
          const request = parsePayload(body);
          try {
            return reply(200, shadowUpdate(thing, request));
          } catch (error) {
            if (!(error instanceof ShadowError)) throw error;
            return error.code === 409 ? fail(409, 'ConflictException', error.message) : fail(400, 'InvalidRequestException', error.message);
          }
        }
        if (req.method === 'DELETE') {
          const shadow = shadows.delete(thing);
          return shadow
            ? reply(200, { version: shadow.version, timestamp: Math.floor(Date.now() / 1000) })
            : fail(404, 'ResourceNotFoundException', 'No shadow');
        }
      }
      if (connectionPath && req.method === 'DELETE') {
        // DeleteConnection: the client under this id is disconnected at once, as IoT Core does.
        const client = clientsOf(broker)[decodeURIComponent(connectionPath[1]!)];
        if (!client) return fail(404, 'ResourceNotFoundException', 'The client is not connected');
        client.close();
        return reply(200, {});
      }
      if (topicPath && req.method === 'POST') {
        const topic = decodeURIComponent(topicPath[1]!);
        await new Promise<void>((resolve) => broker.publish({ cmd: 'publish', topic, payload: body, qos: 1, retain: false, dup: false }, () => resolve()));
        return reply(200, {});
      }
      fail(404, 'ResourceNotFoundException', 'Unknown path');
    } catch (error) {
      log('error', 'IoT data plane failed', { error: String(error) });
      fail(500, 'InternalFailureException', 'Internal error');
    }
  }

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
