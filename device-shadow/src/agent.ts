import mqtt, { type MqttClient } from 'mqtt';
import jpeg from 'jpeg-js';
import { DEFAULT_SETTINGS, type CommandType, type DeviceInfo, type DeviceSettings } from '@passcloud/functions/contract/devices';
import { fromDocument, toDocument, type DeviceDocument } from './mapping.ts';
import { deviceTopics, shadowTopics, type BindResult, type CommandMessage, type CommandResultMessage, type LogMessage } from './topics.ts';

/**
 * The software of one face terminal, as far as the cloud sees it: it binds with the tenant's
 * device binding code, connects over MQTT, keeps a heartbeat, applies the desired settings of
 * its shadow and reports them, obeys commands and writes a log. Real terminals run the same
 * protocol; the simulated fleet runs many of these in one process.
 */
export interface AgentOptions {
  /** Base URL of the API, e.g. http://127.0.0.1:3000 */
  apiUrl: string;
  userCode: string;
  info: DeviceInfo;
  heartbeatMs?: number;
  /** How long a reboot keeps the device away. */
  rebootMs?: number;
  /** Overrides the broker URL the binding answer gives (e.g. a WebSocket URL). */
  brokerUrl?: string;
}

export interface LogEntry {
  time: number;
  level: 'info' | 'warn' | 'error';
  message: string;
}

type Listener = (event: AgentEvent) => void;
export type AgentEvent =
  | { type: 'connected' }
  | { type: 'disconnected' }
  | { type: 'applied'; settings: Partial<DeviceSettings>; at: number }
  | { type: 'command'; command: CommandType; ok: boolean };

export class DeviceAgent {
  binding?: BindResult;
  client?: MqttClient;
  /** The settings in force on the device. */
  settings: DeviceSettings = { ...DEFAULT_SETTINGS };
  door: 'open' | 'closed' = 'closed';
  readonly log: LogEntry[] = [];
  private heartbeat?: NodeJS.Timeout;
  private readonly listeners = new Set<Listener>();
  private stopped = false;

  constructor(readonly options: AgentOptions) {}

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

  /** Binds with the device binding code; the answer names the thing and the broker credentials. */
  async bind(): Promise<BindResult> {
    const { serial, ...info } = this.options.info;
    const response = await fetch(new URL('/v1/devices/bind', this.options.apiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userCode: this.options.userCode, serial, info }),
    });
    const envelope = (await response.json()) as { code: number; message: string; data: BindResult };
    if (envelope.code !== 201) throw new Error(`binding refused (${envelope.code}): ${envelope.message}`);
    this.binding = envelope.data;
    return envelope.data;
  }

  /** Binds if needed, connects and waits for the broker to accept the connection. */
  async start(): Promise<void> {
    this.stopped = false;
    const binding = this.binding ?? (await this.bind());
    const thing = binding.thingName;
    const shadow = shadowTopics(thing);
    const own = deviceTopics(thing);
    const client = mqtt.connect(this.options.brokerUrl ?? binding.mqtt.url, {
      clientId: binding.mqtt.clientId,
      username: binding.mqtt.username,
      password: binding.mqtt.password,
      keepalive: 30,
      reconnectPeriod: 1000,
      connectTimeout: 10_000,
      clean: true,
    });
    this.client = client;
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    client.on('connect', () => {
      client.subscribe([shadow.updateDelta, shadow.getAccepted, shadow.getRejected, own.commands], { qos: 1 }, () => {
        client.publish(shadow.get, JSON.stringify({ clientToken: 'boot' }), { qos: 1 });
        this.sendHeartbeat();
      });
      this.write('info', 'connected to the cloud');
      this.emit({ type: 'connected' });
    });
    client.on('close', () => this.emit({ type: 'disconnected' }));
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error) => {
        client.removeListener('connect', onConnect);
        client.end(true);
        reject(error);
      };
      const onConnect = () => {
        client.removeListener('error', onError);
        resolve();
      };
      client.once('connect', onConnect);
      client.once('error', onError);
    });
    clearInterval(this.heartbeat);
    this.heartbeat = setInterval(() => this.sendHeartbeat(), this.options.heartbeatMs ?? 30_000);
    this.heartbeat.unref();
  }

  /** Disconnects cleanly (the broker reports the device offline at once). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    if (client) await client.endAsync();
  }

  private publish(topic: string, message: unknown): void {
    this.client?.publish(topic, JSON.stringify(message), { qos: 1 });
  }

  private sendHeartbeat(): void {
    if (!this.binding) return;
    this.publish(deviceTopics(this.binding.thingName).heartbeat, { time: Date.now(), info: this.options.info });
  }

  /** Writes a device log line and sends it up. */
  write(level: LogEntry['level'], message: string): void {
    const entry = { time: Date.now(), level, message };
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
      return this.write('warn', `unreadable message on ${topic}`);
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
    }
  }

  /** Applies desired values it understands and reports the settings now in force. */
  private apply(desired: DeviceDocument, complete = false): void {
    const { settings, invalid } = fromDocument(desired);
    if (invalid.length > 0) this.write('warn', `ignored settings: ${invalid.join(', ')}`);
    const changed = Object.keys(settings);
    this.settings = { ...this.settings, ...settings };
    if (changed.length > 0) this.write('info', `applied settings: ${changed.join(', ')}`);
    this.report(complete ? toDocument(this.settings) : toDocument(settings));
    this.emit({ type: 'applied', settings, at: Date.now() });
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
          this.write('info', 'door opened by remote command');
          break;
        case 'closeDoor':
          this.door = 'closed';
          this.write('info', 'door closed by remote command');
          break;
        case 'capturePhoto': {
          if (!command.upload) throw new Error('no upload address');
          const response = await fetch(command.upload.url, {
            method: 'PUT',
            headers: { 'content-type': command.upload.contentType },
            body: new Uint8Array(capture()),
          });
          if (!response.ok) throw new Error(`upload failed with HTTP ${response.status}`);
          this.write('info', 'photo captured and uploaded');
          break;
        }
        case 'reboot':
          this.write('info', 'rebooting by remote command');
          break;
      }
    } catch (error) {
      result.ok = false;
      result.error = error instanceof Error ? error.message : String(error);
      this.write('error', `${command.type} failed: ${result.error}`);
    }
    this.publish(deviceTopics(this.binding.thingName).commandResult, result);
    this.emit({ type: 'command', command: command.type, ok: result.ok });
    if (command.type === 'reboot' && result.ok) await this.reboot();
  }

  private async reboot(): Promise<void> {
    const client = this.client;
    if (!client) return;
    clearInterval(this.heartbeat);
    await client.endAsync();
    await new Promise((resolve) => setTimeout(resolve, this.options.rebootMs ?? 1500));
    if (!this.stopped) await this.start();
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
