import mqtt, { type MqttClient } from 'mqtt';
import {
  DEFAULT_SETTINGS,
  type DeviceCommandType,
  type DeviceInfo,
  type DeviceKind,
  type DeviceSettings,
} from '@passcloud/functions/contract/devices';
import type { DeviceLogCode, DeviceLogEntry } from '@passcloud/functions/contract/deviceLogs';
import { fromDocument, settingNameOf, toDocument, type DeviceDocument } from '@passcloud/functions/contract/shadow';
import {
  QUESTIONNAIRES_SHADOW_KEY,
  deviceTopics,
  shadowTopics,
  type BindResult,
  type CallsAckMessage,
  type DeviceReason,
  type CommandMessage,
  type FaceNotifyMessage,
  type LogMessage,
  type PassRecordUp,
  type RecordsAckMessage,
} from '@passcloud/functions/contract/protocol';
import { TerminalBinding, type StopReason } from './binding.ts';
import { CallOutbox } from './calls.ts';
import { capture } from './camera.ts';
import { CommandRunner } from './commands.ts';
import { connectOptions, firstConnack } from './connection.ts';
import { deviceCall } from './deviceCalls.ts';
import { DoorModeControl } from './doorMode.ts';
import { ENROL_MIN, FaceLibrary } from './faces.ts';
import { QuestionnaireBoard, splitDesired, type SurveyOutcome, type SurveyRequest } from './questionnaires.ts';
import { RecordOutbox } from './records.ts';
import { ScheduleBook } from './schedules.ts';
import { decide, type Sighting } from './traffic.ts';

export { DeviceStoppedError, type StopReason } from './binding.ts';
export { capture } from './camera.ts';
export { ConnectError, connectOptions, type ConnectFailure } from './connection.ts';
export { CALL_ATTEMPTS, DeviceCallError } from './deviceCalls.ts';

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
 *
 * This module holds the protocol side: the MQTT connection and its subscriptions, the messages
 * handed to the helpers, the shadow, the heartbeat and the log. The binding lifecycle is in
 * binding.ts, commands in commands.ts, HTTPS device calls in deviceCalls.ts, and the broker
 * connection's options and failures in connection.ts.
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
  /**
   * Whether the terminal reports what it needs of a photo (`info.enrolment`, ENROL_MIN) when it
   * binds and with every heartbeat, as current firmware does; false plays an older one that says nothing.
   */
  reportsEnrolment?: boolean;
  /** First wait before an HTTPS call that met a throttle or a server failure is tried again (default 1 s, doubling, with jitter). */
  retryBaseMs?: number;
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
  /** The access schedules its faces name, and the holidays that close them (schedules.ts). */
  readonly schedules: ScheduleBook;
  /** Pass records waiting for the cloud's acknowledgement (records.ts). */
  readonly records: RecordOutbox;
  /** Intercoms: calls waiting for the cloud's acknowledgement (calls.ts). */
  readonly calls: CallOutbox;
  /** Face terminals: the questionnaires shown to the people who pass, and their answers (questionnaires.ts). */
  readonly questionnaires: QuestionnaireBoard;
  /** Face terminals: the door mode the cloud set (lockdown, open) and who a lockdown lets pass (doorMode.ts). */
  readonly doorMode: DoorModeControl;
  private heartbeat?: NodeJS.Timeout;
  private readonly listeners = new Set<Listener>();
  /** Binding, approval and refusals (binding.ts). */
  private readonly lifecycle: TerminalBinding;
  /** What the terminal does on a command (commands.ts). */
  private readonly commands: CommandRunner;

  constructor(readonly options: AgentOptions) {
    this.faces = new FaceLibrary(this);
    this.schedules = new ScheduleBook(this);
    this.records = new RecordOutbox(this);
    this.calls = new CallOutbox(this);
    this.questionnaires = new QuestionnaireBoard(this, (value) => this.report({ [QUESTIONNAIRES_SHADOW_KEY]: value }));
    this.doorMode = new DoorModeControl(this, (reported) => this.report(reported));
    this.lifecycle = new TerminalBinding(this, {
      connect: () => this.connect(),
      emit: (event) => this.emit(event),
      stopHeartbeat: () => clearInterval(this.heartbeat),
    });
    this.commands = new CommandRunner(this, { emit: (event) => this.emit(event), reboot: () => this.reboot() });
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

  /** Binds with the device binding code and keeps the binding (binding.ts). */
  bind(): Promise<BindResult> {
    return this.lifecycle.bind();
  }

  /** True while the terminal waits for an administrator to approve it as a replacement. */
  get awaitingApproval(): boolean {
    return this.lifecycle.awaitingApproval;
  }

  /**
   * Binds if needed, connects and waits for the broker to accept the connection; a refusal of
   * stored credentials, and the wait for approval, are handled as binding.ts says.
   */
  start(): Promise<void> {
    return this.lifecycle.start();
  }

  /** Why this terminal stopped for good, once it has. */
  stoppedFor?: StopReason;

  /** Why the cloud refuses the stored credentials, as a face pull says (binding.ts); undefined when it does not say. */
  refusal(): Promise<DeviceReason | undefined> {
    return this.lifecycle.refusal();
  }

  private async connect(): Promise<void> {
    const binding = this.binding!;
    const thing = binding.thingName;
    const shadow = shadowTopics(thing);
    const own = deviceTopics(thing);
    const url = this.options.brokerUrl ?? binding.mqtt.url;
    const timeoutMs = this.options.connectTimeoutMs ?? 10_000;
    const run = this.lifecycle.run;
    const client = mqtt.connect(url, connectOptions(url, binding.mqtt, timeoutMs));
    this.client = client;
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    client.on('connect', () => {
      if (this.lifecycle.over(run)) return;
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
    await firstConnack(client, url, timeoutMs, {
      over: () => this.lifecycle.over(run),
      dropped: () => {
        if (this.client === client) this.client = undefined;
      },
      refused: () => this.lifecycle.onRefusedReconnect(client),
    });
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => this.sendHeartbeat(), this.options.heartbeatMs ?? 30_000);
    this.heartbeat.unref();
  }

  /** Disconnects cleanly (the broker reports the device offline at once). */
  async stop(): Promise<void> {
    this.lifecycle.stop();
    this.faces.stop();
    this.records.stop();
    this.calls.stop();
    this.questionnaires.stop();
    clearInterval(this.heartbeat);
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

  /**
   * Calls one of the HTTPS device routes with the terminal's credentials and answers the
   * envelope's `data`, trying again after a throttle, a server failure or no answer (deviceCalls.ts).
   */
  call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const binding = this.binding;
    if (!binding) return Promise.reject(new Error('not bound'));
    return deviceCall<T>(this.options, binding, method, path, body);
  }

  /**
   * Someone in front of the camera: the terminal decides from its face library and settings
   * (`decide`: the blacklist wins over pass authority), keeps the record with a capture and sends
   * it up. Answers the record.
   */
  see(sighting: Sighting, photo: Buffer = capture()): PassRecordUp {
    const record = this.doorMode.judge(decide(this, sighting));
    this.records.add(record, photo);
    return record;
  }

  /**
   * The facts the terminal reports with every heartbeat, its face library's size included. An
   * intercom holds no faces; it reports the signal as it measures it now (within a few dBm of
   * `info.signal`) and its client name.
   */
  get info(): DeviceInfo {
    if (!this.isIntercom) return { ...this.options.info, ...this.enrolment, faces: { count: this.faces.size, capacity: this.faces.capacity } };
    const { signal } = this.options.info;
    return { ...this.options.info, ...(signal !== undefined ? { signal: Math.max(-120, Math.min(0, signal + Math.round((Math.random() - 0.5) * 6))) } : {}) };
  }

  /** What a face terminal says it needs of a photo to enrol a face (nothing from an intercom, or from older firmware). */
  get enrolment(): Pick<DeviceInfo, 'enrolment'> {
    if (this.isIntercom || this.options.reportsEnrolment === false) return {};
    return { enrolment: { minWidth: ENROL_MIN.width, minHeight: ENROL_MIN.height } };
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
      void this.commands.obey(message as CommandMessage);
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
    const split = this.isIntercom ? { settings: desired, questionnaires: undefined } : splitDesired(this.doorMode.onDesired(desired, complete));
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

  private async reboot(): Promise<void> {
    const client = this.client;
    if (!client) return;
    clearInterval(this.heartbeat);
    await client.endAsync();
    // Back from a reboot, a terminal keeps trying until the broker takes it again.
    while (!this.lifecycle.stopped) {
      await new Promise((resolve) => setTimeout(resolve, this.options.rebootMs ?? 1500));
      if (this.lifecycle.stopped) return;
      try {
        return await this.start();
      } catch (error) {
        this.write('warn', 'other', {}, error instanceof Error ? error.message : String(error));
      }
    }
  }
}
