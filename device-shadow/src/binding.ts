import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MqttClient } from 'mqtt';
import type { BindResult, DeviceReason } from '@passcloud/functions/contract/protocol';
import type { AgentEvent, DeviceAgent } from './agent.ts';
import { ConnectError } from './connection.ts';
import { DeviceCallError } from './deviceCalls.ts';

/**
 * The binding lifecycle of a terminal (./agent.ts): binding over HTTPS with the device binding
 * code, the binding kept in flash (`credentialsFile`) and reused, the wait for an administrator's
 * approval of a replacement, why the cloud refuses stored credentials (and what the terminal does
 * about it), and stopping for good. The MQTT side of the agent connects; this decides when.
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

/** What the lifecycle asks of the agent's protocol side, which keeps these to itself. */
export interface ProtocolSide {
  /** Connects with the binding's credentials and waits for the broker to accept the connection. */
  connect(): Promise<void>;
  emit(event: AgentEvent): void;
  stopHeartbeat(): void;
}

/** The binding lifecycle of one agent, which delegates its `bind`, `start`, `refusal` and `awaitingApproval` here. */
export class TerminalBinding {
  /** Set by a stop, and by stopping for good; a start clears it. */
  stopped = false;

  private approvalTimer?: NodeJS.Timeout;

  /** Counts starts, so that an attempt begun before a stop and a restart does not go on beside the new one. */
  run = 0;

  private refusing = false;

  constructor(
    private readonly agent: DeviceAgent,
    private readonly protocol: ProtocolSide,
  ) {}

  /** True when the attempt begun in start number `run` is to be let go: stopped since, or started again. */
  over(run: number): boolean {
    return this.stopped || run !== this.run;
  }

  /**
   * Binds with the device binding code; the answer names the thing and the broker credentials.
   * A serial the company already has answers `pendingApproval`: the credentials work once an
   * administrator approves this terminal as the device's replacement.
   */
  async bind(): Promise<BindResult> {
    const { options } = this.agent;
    const { serial, ...facts } = options.info;
    const info = { ...facts, ...this.agent.enrolment };
    const response = await fetch(new URL('/v1/devices/bind', options.apiUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...(options.kind ? { kind: options.kind } : {}), userCode: options.userCode, serial, info }),
    });
    const envelope = (await response.json()) as { code: number; message: string; data: BindResult };
    if (envelope.code !== 201 && envelope.code !== 202) throw new Error(`binding refused (${envelope.code}): ${envelope.message}`);
    // A binding starts face sync over (resetCursor): faces and cursor of an earlier binding go.
    this.agent.faces.wipe();
    this.agent.questionnaires.clear();
    this.keep(envelope.data);
    return envelope.data;
  }

  /** Keeps the binding in memory and, with `credentialsFile`, on disk. */
  private keep(binding: BindResult): void {
    this.agent.binding = binding;
    const file = this.agent.options.credentialsFile;
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(binding), { mode: 0o600 });
  }

  private stored(): BindResult | undefined {
    const file = this.agent.options.credentialsFile;
    if (!file || !existsSync(file)) return undefined;
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as BindResult;
    } catch {
      return undefined;
    }
  }

  /** True while the terminal waits for an administrator to approve it as a replacement. */
  get awaitingApproval(): boolean {
    return this.agent.binding?.state === 'pendingApproval';
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
    this.agent.binding ??= this.stored() ?? (await this.bind());
    if (this.awaitingApproval) return this.waitForApproval();
    try {
      await this.protocol.connect();
    } catch (error) {
      if (!(error instanceof ConnectError && error.reason === 'unauthorized' && this.agent.options.credentialsFile)) throw error;
      await this.settleRefusal();
    }
  }

  /** Stops: no attempt goes on, and the approval wait ends. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.approvalTimer);
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
      this.keep({ ...this.agent.binding!, state: 'pendingApproval' });
      return this.waitForApproval();
    }
    if (reason === 'replaced' || reason === 'deleted') this.halt(reason);
    this.agent.write('warn', 'rebinding');
    await this.bind();
    if (this.awaitingApproval) return this.waitForApproval();
    await this.protocol.connect();
  }

  /** Stops for good (its log cannot reach the cloud any more): tells listeners, and throws. */
  private halt(reason: StopReason): never {
    this.stopped = true;
    this.agent.stoppedFor = reason;
    this.protocol.stopHeartbeat();
    clearTimeout(this.approvalTimer);
    this.protocol.emit({ type: 'stopped', reason });
    throw new DeviceStoppedError(reason);
  }

  /**
   * Why the cloud refuses the stored credentials: a face pull answers 403 with `data.reason`
   * (`pendingApproval`, `replaced`, `deleted`, `unauthorized`). Undefined when it does not say.
   */
  async refusal(): Promise<DeviceReason | undefined> {
    try {
      await this.agent.call('GET', '/v1/deviceSync/faces?limit=1');
      return undefined;
    } catch (error) {
      return error instanceof DeviceCallError ? (error.reason as DeviceReason | undefined) : undefined;
    }
  }

  /**
   * Tries to connect now and then until the request is approved (or the agent is stopped). A
   * refusal that no longer says `pendingApproval` means an administrator rejected the request (or
   * deleted the device): the terminal stops instead of asking again.
   */
  private waitForApproval(): void {
    this.agent.write('info', 'awaitingApproval');
    const run = this.run;
    const over = () => this.over(run);
    const attempt = () => {
      if (over()) return;
      this.protocol.connect().then(
        () => {
          if (over()) return;
          this.keep({ ...this.agent.binding!, state: 'bound' });
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
          this.approvalTimer = setTimeout(attempt, this.agent.options.approvalRetryMs ?? 10_000);
        },
      );
    };
    attempt();
  }

  /**
   * A running terminal whose connection the broker refuses on a reconnect (deleted, replaced,
   * credentials changed) stops mqtt.js's retries and asks why, as at start.
   */
  onRefusedReconnect(client: MqttClient): void {
    if (this.refusing || this.stopped || this.agent.client !== client) return;
    this.refusing = true;
    client.end(true);
    this.agent.client = undefined;
    this.protocol.stopHeartbeat();
    this.settleRefusal()
      .catch((error: unknown) => {
        if (!(error instanceof DeviceStoppedError)) this.agent.write('error', 'other', undefined, error instanceof Error ? error.message : String(error));
      })
      .finally(() => (this.refusing = false));
  }
}
