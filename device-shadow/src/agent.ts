import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { dirname } from 'node:path';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import jpeg from 'jpeg-js';
import {
  DEFAULT_SETTINGS,
  type DeviceCommandType,
  type DeviceInfo,
  type DeviceKind,
  type DeviceLogCode,
  type DeviceLogEntry,
  type DeviceSettings,
} from '@passcloud/functions/contract/devices';
import { fromDocument, settingNameOf, toDocument, type DeviceDocument } from '@passcloud/functions/contract/shadow';
import {
  QUESTIONNAIRES_SHADOW_KEY,
  deviceAuthorization,
  deviceTopics,
  shadowTopics,
  type AppUpdate,
  type BindResult,
  type CallsAckMessage,
  type DeviceReason,
  type CommandMessage,
  type CommandResultMessage,
  type FaceNotifyMessage,
  type LogMessage,
  type PassRecordUp,
  type RecordsAckMessage,
} from '@passcloud/functions/contract/protocol';
import { CallOutbox } from './calls.ts';
import { FaceLibrary } from './faces.ts';
import { QuestionnaireBoard, splitDesired, type SurveyOutcome, type SurveyRequest } from './questionnaires.ts';
import { RecordOutbox } from './records.ts';
import { decide, type Sighting } from './traffic.ts';

/**
 * The software of one face terminal, as far as the cloud sees it: it binds with the tenant's
 * device binding code, connects over MQTT, keeps a heartbeat, applies the desired settings of
 * its shadow and reports them, obeys commands, decides passes and writes a log. Real terminals
 * run the same protocol; the simulated fleet runs many of these in one process.
 *
 * With `kind` a door station or an indoor monitor, it is an intercom instead: it binds with its
 * kind, keeps no face library, reports its signal and client name with every heartbeat, and
 * reports calls (`calls`, driven by intercom.ts).
 *
 * A face terminal also shows the questionnaires (surveys) its shadow names to the people who pass,
 * and sends their answers (`questionnaires`, questionnaires.ts).
 */
export interface AgentOptions {
  /** What the device is; a face terminal when absent (and then nothing about it names a kind). */
  kind?: DeviceKind;
  /** Base URL of the API, e.g. http://127.0.0.1:3000 */
  apiUrl: string;
  userCode: string;
  info: DeviceInfo;
  heartbeatMs?: number;
  /** How long a reboot keeps the device away. */
  rebootMs?: number;
  /** Overrides the broker URL the binding answer gives (e.g. a WebSocket URL). */
  brokerUrl?: string;
  /** How long one connection attempt may take before it counts as failed. */
  connectTimeoutMs?: number;
  /**
   * Where the terminal keeps its binding (its flash): a restart reuses it instead of binding
   * again, as a real terminal does. Without it the binding lives in memory only.
   */
  credentialsFile?: string;
  /** While a replacement waits for an administrator's approval, how often the terminal tries to connect. */
  approvalRetryMs?: number;
  /** How many faces the terminal can hold (default 10,000). */
  faceCapacity?: number;
  /** First wait before an HTTPS call that met a throttle or a server failure is tried again (default 1 s, doubling, with jitter). */
  retryBaseMs?: number;
}

/** How often an HTTPS device call is tried in all when the answer is a throttle, a server failure or no answer at all. */
export const CALL_ATTEMPTS = 4;

/**
 * An HTTPS device call that did not succeed. `retryable` when trying later may succeed: no answer,
 * HTTP 429 or 5xx (API Gateway's own throttle and errors come without the envelope).
 */
/**
 * Why a terminal stopped for good, until an installer binds it again: an approved replacement took
 * its device over, an administrator deleted its device, or rejected its request while it waited.
 */
export type StopReason = 'replaced' | 'deleted' | 'rejected';

const STOPPED_TEXT: Record<StopReason, string> = {
  replaced: 'an approved replacement took this device over',
  deleted: 'an administrator deleted this device',
  rejected: 'an administrator rejected this terminal while it waited for approval',
};

/** The terminal stopped for good (`reason`): it neither connects nor binds again by itself. */
export class DeviceStoppedError extends Error {
  constructor(readonly reason: StopReason) {
    super(`${STOPPED_TEXT[reason]}; this unit stops`);
    this.name = 'DeviceStoppedError';
  }
}

export class DeviceCallError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly retryable: boolean,
    /** The answer's machine-readable reason (`data.reason`), when it gave one. */
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'DeviceCallError';
  }
}

interface Envelope<T> {
  code: number;
  message: string;
  data: T;
}

/** The answer's envelope, or undefined when the body is not `{ code, message, data }` (an error page, API Gateway's `{"message":...}`). */
function envelopeOf<T>(text: string): Envelope<T> | undefined {
  try {
    const body = JSON.parse(text) as Partial<Envelope<T>> | null;
    if (body && typeof body === 'object' && typeof body.code === 'number' && typeof body.message === 'string' && 'data' in body) return body as Envelope<T>;
  } catch {
    // not JSON
  }
  return undefined;
}

/** Raw MQTT over TLS, as mqtt.js names it; `wss:` is HTTP underneath and must not offer ALPN `mqtt`. */
const TLS_PROTOCOLS = new Set(['mqtts:', 'ssl:', 'tls:']);

/**
 * The mqtt.js options for one broker URL. IoT Core takes username/password (custom authorizer)
 * on port 443 only when the TLS handshake offers ALPN `mqtt` and names the endpoint (SNI);
 * without ALPN it expects a client certificate there and drops the connection.
 */
export function connectOptions(url: string, credentials: Omit<BindResult['mqtt'], 'url'>, connectTimeoutMs = 10_000): IClientOptions {
  const { protocol, hostname } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, '');
  return {
    clientId: credentials.clientId,
    username: credentials.username,
    password: credentials.password,
    keepalive: 30,
    reconnectPeriod: 1000,
    connectTimeout: connectTimeoutMs,
    clean: true,
    // SNI may not carry an IP address (RFC 6066).
    ...(TLS_PROTOCOLS.has(protocol) ? { ALPNProtocols: ['mqtt'], ...(isIP(host) === 0 ? { servername: host } : {}) } : {}),
  };
}

export type ConnectFailure = 'refused' | 'unauthorized' | 'tls' | 'timeout' | 'closed' | 'unreachable' | 'error';

/** The first connection to the broker could not be made; `reason` says why. */
export class ConnectError extends Error {
  constructor(
    readonly url: string,
    readonly reason: ConnectFailure,
    detail: string,
  ) {
    super(`cannot connect to the broker at ${url}: ${detail}`);
    this.name = 'ConnectError';
  }
}

const TLS_ERROR = /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH)/;

/** Names the reason a first connection attempt failed, from what mqtt.js reported. */
function failure(url: string, error: (Error & { code?: string | number }) | undefined, timeoutMs: number): ConnectError {
  if (!error) return new ConnectError(url, 'closed', 'the broker closed the connection before accepting it');
  const { code } = error;
  const message = error.message.trim();
  // CONNACK return codes 4/5 (MQTT 3.1.1) and reason codes 134/135 (MQTT 5).
  if (code === 4 || code === 5 || code === 134 || code === 135) return new ConnectError(url, 'unauthorized', `not authorized (${message})`);
  if (typeof code === 'number') return new ConnectError(url, 'refused', message);
  if (code === 'ECONNREFUSED') return new ConnectError(url, 'refused', `connection refused (${message})`);
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return new ConnectError(url, 'unreachable', `host unreachable (${message})`);
  }
  if (message === 'connack timeout' || code === 'ETIMEDOUT') return new ConnectError(url, 'timeout', `no answer within ${timeoutMs / 1000} s`);
  if ((code && TLS_ERROR.test(code)) || /TLS|SSL|certificate/i.test(message)) return new ConnectError(url, 'tls', `TLS failure (${message})`);
  return new ConnectError(url, 'error', message);
}

/** The URL without user info, for messages. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url;
  }
}

export type LogEntry = DeviceLogEntry;

type Listener = (event: AgentEvent) => void;
export type AgentEvent =
  | { type: 'connected' }
  | { type: 'disconnected' }
  | { type: 'applied'; settings: Partial<DeviceSettings>; at: number }
  | { type: 'command'; command: DeviceCommandType; ok: boolean }
  /** The door opened on an `openDoor` command; `callId` when it was asked for during that call. */
  | { type: 'doorOpened'; at: number; callId?: string }
  | { type: 'stopped'; reason: StopReason };

export class DeviceAgent {
  binding?: BindResult;
  client?: MqttClient;
  /** The settings in force on the device. */
  settings: DeviceSettings = { ...DEFAULT_SETTINGS };
  door: 'open' | 'closed' = 'closed';
  readonly log: LogEntry[] = [];
  /** The faces the terminal recognises, kept in step with the cloud (faces.ts). */
  readonly faces: FaceLibrary;
  /** Pass records waiting for the cloud's acknowledgement (records.ts). */
  readonly records: RecordOutbox;
  /** Intercoms: calls waiting for the cloud's acknowledgement (calls.ts). */
  readonly calls: CallOutbox;
  /** Face terminals: the questionnaires shown to the people who pass, and their answers (questionnaires.ts). */
  readonly questionnaires: QuestionnaireBoard;
  private heartbeat?: NodeJS.Timeout;
  private readonly listeners = new Set<Listener>();
  private stopped = false;

  constructor(readonly options: AgentOptions) {
    this.faces = new FaceLibrary(this);
    this.records = new RecordOutbox(this);
    this.calls = new CallOutbox(this);
    this.questionnaires = new QuestionnaireBoard(this, (value) => this.report({ [QUESTIONNAIRES_SHADOW_KEY]: value }));
  }

  get kind(): DeviceKind {
    return this.options.kind ?? 'faceTerminal';
  }

  /** A door station or an indoor monitor. */
  get isIntercom(): boolean {
    return this.kind !== 'faceTerminal';
  }

  /** True while the MQTT connection is up. */
  get connected(): boolean {
    return !!this.client?.connected;
  }

  get deviceKey(): string | undefined {
    return this.binding?.deviceKey;
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: AgentEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  /**
   * Binds with the device binding code; the answer names the thing and the broker credentials.
   * A serial the company already has answers `pendingApproval`: the credentials work once an
   * administrator approves this terminal as the device's replacement.
   */
  async bind(): Promise<BindResult> {
    const { serial, ...info } = this.options.info;
    const response = await fetch(new URL('/v1/devices/bind', this.options.apiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...(this.options.kind ? { kind: this.options.kind } : {}), userCode: this.options.userCode, serial, info }),
    });
    const envelope = (await response.json()) as { code: number; message: string; data: BindResult };
    if (envelope.code !== 201 && envelope.code !== 202) throw new Error(`binding refused (${envelope.code}): ${envelope.message}`);
    // A binding starts face sync over (resetCursor): faces and cursor of an earlier binding go.
    this.faces.wipe();
    this.questionnaires.clear();
    this.keep(envelope.data);
    return envelope.data;
  }

  /** Keeps the binding in memory and, with `credentialsFile`, on disk. */
  private keep(binding: BindResult): void {
    this.binding = binding;
    const file = this.options.credentialsFile;
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(binding), { mode: 0o600 });
  }

  private stored(): BindResult | undefined {
    const file = this.options.credentialsFile;
    if (!file || !existsSync(file)) return undefined;
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as BindResult;
    } catch {
      return undefined;
    }
  }

  /** True while the terminal waits for an administrator to approve it as a replacement. */
  get awaitingApproval(): boolean {
    return this.binding?.state === 'pendingApproval';
  }

  /**
   * Binds if needed (a stored binding is reused), connects and waits for the broker to accept the
   * connection. Rejects with a ConnectError when that first attempt fails (refused, not
   * authorized, TLS, timeout); once connected, mqtt.js reconnects after every drop on its own.
   * Stored credentials the broker refuses are asked about over HTTPS (`settleRefusal`). A binding
   * that waits for approval resolves at once and keeps trying in the background.
   */
  async start(): Promise<void> {
    this.stopped = false;
    this.run += 1;
    this.binding ??= this.stored() ?? (await this.bind());
    if (this.awaitingApproval) return this.waitForApproval();
    try {
      await this.connect();
    } catch (error) {
      if (!(error instanceof ConnectError && error.reason === 'unauthorized' && this.options.credentialsFile)) throw error;
      await this.settleRefusal();
    }
  }

  /**
   * Acts on why the cloud refuses the credentials (the terminal's states in the protocol
   * document): a replacement still waiting for approval waits; a unit an approved replacement
   * superseded, and a deleted device, stop (rejects with DeviceStoppedError) until an installer
   * binds them again; credentials the cloud does not know bind again.
   */
  private async settleRefusal(): Promise<void> {
    const reason = await this.refusal();
    if (reason === 'pendingApproval') {
      this.keep({ ...this.binding!, state: 'pendingApproval' });
      return this.waitForApproval();
    }
    if (reason === 'replaced' || reason === 'deleted') this.halt(reason);
    this.write('warn', 'rebinding');
    await this.bind();
    if (this.awaitingApproval) return this.waitForApproval();
    await this.connect();
  }

  /** Stops for good (its log cannot reach the cloud any more): tells listeners, and throws. */
  private halt(reason: StopReason): never {
    this.stopped = true;
    this.stoppedFor = reason;
    clearInterval(this.heartbeat);
    clearTimeout(this.approvalTimer);
    this.emit({ type: 'stopped', reason });
    throw new DeviceStoppedError(reason);
  }

  /** Why this terminal stopped for good, once it has. */
  stoppedFor?: StopReason;

  /**
   * Why the cloud refuses the stored credentials: a face pull answers 403 with `data.reason`
   * (`pendingApproval`, `replaced`, `deleted`, `unauthorized`). Undefined when it does not say.
   */
  async refusal(): Promise<DeviceReason | undefined> {
    try {
      await this.call('GET', '/v1/deviceSync/faces?limit=1');
      return undefined;
    } catch (error) {
      return error instanceof DeviceCallError ? (error.reason as DeviceReason | undefined) : undefined;
    }
  }

  private approvalTimer?: NodeJS.Timeout;

  /** Counts starts, so that an attempt begun before a stop and a restart does not go on beside the new one. */
  private run = 0;

  /**
   * Tries to connect now and then until the request is approved (or the agent is stopped). A
   * refusal that no longer says `pendingApproval` means an administrator rejected the request (or
   * deleted the device): the terminal stops instead of asking again.
   */
  private waitForApproval(): void {
    this.write('info', 'awaitingApproval');
    const run = this.run;
    const over = () => this.stopped || run !== this.run;
    const attempt = () => {
      if (over()) return;
      this.connect().then(
        () => {
          if (over()) return;
          this.keep({ ...this.binding!, state: 'bound' });
        },
        async () => {
          if (over()) return;
          const reason = await this.refusal();
          if (over()) return;
          if (reason !== undefined && reason !== 'pendingApproval') {
            try {
              this.halt('rejected');
            } catch {
              return;
            }
          }
          this.approvalTimer = setTimeout(attempt, this.options.approvalRetryMs ?? 10_000);
        },
      );
    };
    attempt();
  }

  private refusing = false;

  /**
   * A running terminal whose connection the broker refuses on a reconnect (deleted, replaced,
   * credentials changed) stops mqtt.js's retries and asks why, as at start.
   */
  private onRefusedReconnect(client: MqttClient): void {
    if (this.refusing || this.stopped || this.client !== client) return;
    this.refusing = true;
    client.end(true);
    this.client = undefined;
    clearInterval(this.heartbeat);
    this.settleRefusal()
      .catch((error: unknown) => {
        if (!(error instanceof DeviceStoppedError)) this.write('error', 'other', undefined, error instanceof Error ? error.message : String(error));
      })
      .finally(() => (this.refusing = false));
  }

  private async connect(): Promise<void> {
    const binding = this.binding!;
    const thing = binding.thingName;
    const shadow = shadowTopics(thing);
    const own = deviceTopics(thing);
    const url = this.options.brokerUrl ?? binding.mqtt.url;
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    const run = this.run;
    const client = mqtt.connect(url, connectOptions(url, binding.mqtt, timeoutMs));
    this.client = client;
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    client.on('connect', () => {
      if (this.stopped || run !== this.run) return;
      const topics = [
        shadow.updateDelta,
        shadow.getAccepted,
        shadow.getRejected,
        own.commands,
        ...(this.isIntercom ? [own.callsAck] : [own.facesNotify, own.recordsAck]),
      ];
      client.subscribe(topics, { qos: 1 }, () => {
        client.publish(shadow.get, JSON.stringify({ clientToken: 'boot' }), { qos: 1 });
        this.sendHeartbeat();
        if (this.isIntercom) {
          this.calls.onConnect();
        } else {
          this.faces.onConnect();
          this.records.onConnect();
          this.questionnaires.onConnect();
        }
      });
      this.write('info', 'connected');
      this.emit({ type: 'connected' });
    });
    client.on('close', () => this.emit({ type: 'disconnected' }));
    await new Promise<void>((resolve, reject) => {
      // mqtt.js's own connack timer covers a silent broker; this one covers anything it misses.
      const timer = setTimeout(() => fail(new Error('connack timeout')), timeoutMs + 2000);
      const settle = () => {
        clearTimeout(timer);
        client.removeListener('connect', onConnect);
        client.removeListener('error', fail);
        client.removeListener('close', onClose);
      };
      const fail = (error?: Error) => {
        settle();
        client.end(true);
        if (this.client === client) this.client = undefined;
        reject(failure(shown(url), error, timeoutMs));
      };
      // A close with no error before it: the far end dropped the connection without a CONNACK.
      // mqtt.js would retry forever; a first connection that cannot be made is reported instead.
      const onClose = () => fail();
      const onConnect = () => {
        // Stopped (and perhaps started again) while this attempt was on its way: it is let go.
        if (this.stopped || run !== this.run) return fail(new Error('stopped while connecting'));
        settle();
        client.on('error', (error: Error & { code?: string | number }) => {
          if (failure(url, error, timeoutMs).reason === 'unauthorized') this.onRefusedReconnect(client);
        });
        resolve();
      };
      client.once('connect', onConnect);
      client.on('error', fail);
      client.on('close', onClose);
    });
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => this.sendHeartbeat(), this.options.heartbeatMs ?? 30_000);
    this.heartbeat.unref();
  }

  /** Disconnects cleanly (the broker reports the device offline at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.faces.stop();
    this.records.stop();
    this.calls.stop();
    this.questionnaires.stop();
    clearInterval(this.heartbeat);
    clearTimeout(this.approvalTimer);
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    // A clean DISCONNECT waits for the broker to acknowledge what is on its way; a client that is
    // not connected (refused, reconnecting), or a broker that does not answer within 5 s, is let go at once.
    if (!client.connected) return void (await client.endAsync(true));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), 5000)));
    const ended = await Promise.race([client.endAsync().then(() => 'ended' as const), late]);
    clearTimeout(timer);
    if (ended === 'late') await client.endAsync(true);
  }

  /** Publishes a JSON message at QoS 1 (nothing while disconnected). */
  publish(topic: string, message: unknown): void {
    this.client?.publish(topic, JSON.stringify(message), { qos: 1 });
  }

  /** Calls one of the HTTPS device routes with the terminal's credentials and answers the envelope's `data`. */
  /**
   * An answer counts only when it is the envelope with a success code. No answer, a throttle (429)
   * or a server failure (5xx), with or without the envelope, is tried again after a wait that
   * doubles from `retryBaseMs` with jitter (or the answer's Retry-After), CALL_ATTEMPTS times in
   * all; anything else, and the last failure, throws a DeviceCallError.
   */
  async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const binding = this.binding;
    if (!binding) throw new Error('not bound');
    for (let attempt = 1; ; attempt++) {
      let failure: DeviceCallError;
      let retryAfterMs: number | undefined;
      try {
        const response = await fetch(new URL(path, this.options.apiUrl), {
          method,
          headers: {
            authorization: deviceAuthorization(binding.thingName, binding.mqtt.password),
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const envelope = envelopeOf<T>(await response.text());
        if (envelope && response.ok && envelope.code < 300) return envelope.data;
        const status = envelope && envelope.code >= 400 ? envelope.code : response.status;
        const retryable = response.status === 429 || response.status >= 500 || status === 429;
        const reason = (envelope?.data as { reason?: unknown } | null | undefined)?.reason;
        failure = new DeviceCallError(
          `${method} ${path} answered ${status}${envelope ? `: ${envelope.message}` : ' without the envelope'}`,
          status,
          retryable,
          typeof reason === 'string' ? reason : undefined,
        );
        const after = Number(response.headers.get('retry-after'));
        if (Number.isFinite(after) && after > 0) retryAfterMs = Math.min(after, 60) * 1000;
      } catch (error) {
        failure = new DeviceCallError(`${method} ${path}: no answer (${error instanceof Error ? error.message : String(error)})`, 0, true);
      }
      if (!failure.retryable || attempt >= CALL_ATTEMPTS) throw failure;
      const base = this.options.retryBaseMs ?? 1000;
      await new Promise((resolve) => setTimeout(resolve, retryAfterMs ?? base * 2 ** (attempt - 1) * (0.5 + Math.random())));
    }
  }

  /**
   * Someone in front of the camera: the terminal decides from its face library and settings
   * (`decide`: the blacklist wins over pass authority), keeps the record with a capture and sends
   * it up. Answers the record.
   */
  see(sighting: Sighting, photo: Buffer = capture()): PassRecordUp {
    const record = decide(this, sighting);
    this.records.add(record, photo);
    return record;
  }

  /**
   * The facts the terminal reports with every heartbeat, its face library's size included. An
   * intercom holds no faces; it reports the signal as it measures it now (within a few dBm of
   * `info.signal`) and its client name.
   */
  get info(): DeviceInfo {
    if (!this.isIntercom) return { ...this.options.info, faces: { count: this.faces.size, capacity: this.faces.capacity } };
    const { signal } = this.options.info;
    return { ...this.options.info, ...(signal !== undefined ? { signal: Math.max(-120, Math.min(0, signal + Math.round((Math.random() - 0.5) * 6))) } : {}) };
  }

  sendHeartbeat(): void {
    if (!this.binding) return;
    this.publish(deviceTopics(this.binding.thingName).heartbeat, { time: Date.now(), info: this.info });
  }

  /** Writes a device log entry (a code with its parameters, DEVICE_LOG_CODES) and sends it up. */
  write(level: LogEntry['level'], code: DeviceLogCode, params: DeviceLogEntry['params'] = {}, message?: string): void {
    const entry: LogEntry = {
      time: Date.now(),
      level,
      code,
      ...(Object.keys(params ?? {}).length ? { params } : {}),
      ...(message ? { message: message.slice(0, 1000) } : {}),
    };
    this.log.push(entry);
    if (this.log.length > 500) this.log.shift();
    if (this.binding && this.client?.connected) this.publish(deviceTopics(this.binding.thingName).logs, { entries: [entry] } satisfies LogMessage);
  }

  private onMessage(topic: string, payload: Buffer): void {
    if (!this.binding) return;
    const shadow = shadowTopics(this.binding.thingName);
    let message: unknown;
    try {
      message = JSON.parse(payload.toString());
    } catch {
      return this.write('warn', 'unreadableMessage', { topic });
    }
    if (topic === shadow.updateDelta) {
      this.apply(((message as { state?: DeviceDocument }).state ?? {}) as DeviceDocument);
    } else if (topic === shadow.getAccepted) {
      const state = (message as { state?: { desired?: DeviceDocument } }).state;
      this.apply(state?.desired ?? {}, true);
    } else if (topic === shadow.getRejected) {
      // No shadow yet: report what the device holds.
      this.report(toDocument(this.settings));
    } else if (topic === deviceTopics(this.binding.thingName).commands) {
      void this.obey(message as CommandMessage);
    } else if (topic === deviceTopics(this.binding.thingName).facesNotify) {
      this.faces.onNotify(message as FaceNotifyMessage);
    } else if (topic === deviceTopics(this.binding.thingName).recordsAck) {
      this.records.onAck(message as RecordsAckMessage);
    } else if (topic === deviceTopics(this.binding.thingName).callsAck) {
      this.calls.onAck(message as CallsAckMessage);
    }
  }

  /**
   * Applies desired values it understands and reports the settings now in force. A face terminal
   * takes the questionnaires key out first: it is no setting, and its value is read over HTTPS.
   */
  private apply(desired: DeviceDocument, complete = false): void {
    const split = this.isIntercom ? { settings: desired, questionnaires: undefined } : splitDesired(desired);
    const { settings, invalid } = fromDocument(split.settings);
    // The log names settings as the console does; a key the device does not know stays as it came.
    if (invalid.length > 0) this.write('warn', 'settingsIgnored', { settings: invalid.map((key) => settingNameOf(key) ?? key) });
    const changed = Object.keys(settings);
    this.settings = { ...this.settings, ...settings };
    if (changed.length > 0) this.write('info', 'settingsApplied', { settings: changed });
    this.report(complete ? toDocument(this.settings) : toDocument(settings));
    this.emit({ type: 'applied', settings, at: Date.now() });
    if (split.questionnaires !== undefined) this.questionnaires.onDesired(split.questionnaires);
    // A complete desired state without the key (written before the cloud knew questionnaires) names none.
    else if (complete && !this.isIntercom) this.questionnaires.showNone();
  }

  /**
   * One person in front of the terminal answers every questionnaire it shows now (a face terminal
   * shows them to each person who passes): on the screen, or on their phone through the QR code's
   * link. Answers what was sent and what the cloud answered, for each.
   */
  answerSurveys(request: SurveyRequest): Promise<SurveyOutcome[]> {
    return this.questionnaires.answerAll(request);
  }

  private report(reported: DeviceDocument): void {
    if (!this.binding || Object.keys(reported).length === 0) return;
    this.publish(shadowTopics(this.binding.thingName).update, { state: { reported } });
  }

  private async obey(command: CommandMessage): Promise<void> {
    if (!this.binding) return;
    const result: CommandResultMessage = { commandKey: command.commandKey, ok: true };
    try {
      switch (command.type) {
        case 'openDoor':
          this.door = 'open';
          this.write('info', 'doorOpened');
          this.emit({ type: 'doorOpened', at: Date.now(), ...(command.callId ? { callId: command.callId } : {}) });
          break;
        case 'closeDoor':
          this.door = 'closed';
          this.write('info', 'doorClosed');
          break;
        case 'capturePhoto': {
          if (!command.upload) throw new Error('no upload address');
          const response = await fetch(command.upload.url, {
            method: 'PUT',
            headers: { 'content-type': command.upload.contentType },
            body: new Uint8Array(capture()),
          });
          if (!response.ok) throw new Error(`upload failed with HTTP ${response.status}`);
          this.write('info', 'photoCaptured');
          break;
        }
        case 'reboot':
          this.write('info', 'rebooting');
          break;
        case 'updateApp':
          await this.updateApp(command.app);
          break;
      }
    } catch (error) {
      result.ok = false;
      result.error = error instanceof Error ? error.message : String(error);
      if (command.type === 'updateApp') this.write('error', 'appUpdateFailed', { version: command.app?.version ?? '', error: result.error });
      else this.write('error', 'commandFailed', { command: command.type, error: result.error });
    }
    this.publish(deviceTopics(this.binding.thingName).commandResult, result);
    this.emit({ type: 'command', command: command.type, ok: result.ok });
    if (command.type === 'reboot' && result.ok) await this.reboot();
  }

  /**
   * Downloads a new client package, checks its size and SHA-256 while it streams in (a real
   * terminal would install it then), runs the new version and says so at once in a heartbeat.
   */
  private async updateApp(app: AppUpdate | undefined): Promise<void> {
    if (!app) throw new Error('no package address');
    const response = await fetch(app.url);
    if (!response.ok || !response.body) throw new Error(`download failed with HTTP ${response.status}`);
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      size += chunk.length;
      if (size > app.size) break;
      hash.update(chunk);
    }
    if (size !== app.size) throw new Error(`package size ${size} bytes, expected ${app.size}`);
    if (hash.digest('hex') !== app.sha256.toLowerCase()) throw new Error('package SHA-256 does not match');
    this.options.info = { ...this.options.info, appVersion: app.version };
    this.write('info', 'appUpdated', { version: app.version });
    this.sendHeartbeat();
  }

  private async reboot(): Promise<void> {
    const client = this.client;
    if (!client) return;
    clearInterval(this.heartbeat);
    await client.endAsync();
    // Back from a reboot, a terminal keeps trying until the broker takes it again.
    while (!this.stopped) {
      await new Promise((resolve) => setTimeout(resolve, this.options.rebootMs ?? 1500));
      if (this.stopped) return;
      try {
        return await this.start();
      } catch (error) {
        this.write('warn', 'other', {}, error instanceof Error ? error.message : String(error));
      }
    }
  }
}

/** A 640x480 camera frame: a gradient with a moving band, so every capture differs. */
export function capture(width = 640, height = 480): Buffer {
  const data = Buffer.alloc(width * height * 4);
  const band = Date.now() % width;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      const lit = Math.abs(x - band) < 20 ? 80 : 0;
      data[i] = Math.min(255, (x * 255) / width + lit);
      data[i + 1] = Math.min(255, (y * 255) / height + lit);
      data[i + 2] = 160;
      data[i + 3] = 255;
    }
  }
  return jpeg.encode({ data, width, height }, 70).data;
}
