import { createHash } from 'node:crypto';
import { deviceTopics, type AppUpdate, type CommandMessage, type CommandResultMessage } from '@passcloud/functions/contract/protocol';
import type { AgentEvent, DeviceAgent } from './agent.ts';
import { capture } from './camera.ts';

/**
 * What the terminal (./agent.ts) does on a command from the cloud: opens or closes the door,
 * captures and uploads a photo, installs a new client package or reboots, writes what it did to
 * its log and answers each command with its result.
 */

/** What obeying asks of the agent, which keeps these to itself. */
export interface CommandSide {
  emit(event: AgentEvent): void;
  /** Goes away for `rebootMs` and comes back (agent.ts). */
  reboot(): Promise<void>;
}

/** The terminal's commands; the agent hands each one that arrives on its commands topic to `obey`. */
export class CommandRunner {
  constructor(
    private readonly agent: DeviceAgent,
    private readonly side: CommandSide,
  ) {}

  async obey(command: CommandMessage): Promise<void> {
    if (!this.agent.binding) return;
    const result: CommandResultMessage = { commandKey: command.commandKey, ok: true };
    try {
      switch (command.type) {
        case 'openDoor':
          this.agent.door = 'open';
          this.agent.write('info', 'doorOpened');
          this.side.emit({ type: 'doorOpened', at: Date.now(), ...(command.callId ? { callId: command.callId } : {}) });
          break;
        case 'closeDoor':
          this.agent.door = 'closed';
          this.agent.write('info', 'doorClosed');
          break;
        case 'capturePhoto': {
          if (!command.upload) throw new Error('no upload address');
          const response = await fetch(command.upload.url, {
            method: 'PUT',
            headers: { 'content-type': command.upload.contentType },
            body: new Uint8Array(capture()),
          });
          if (!response.ok) throw new Error(`upload failed with HTTP ${response.status}`);
          this.agent.write('info', 'photoCaptured');
          break;
        }
        case 'reboot':
          this.agent.write('info', 'rebooting');
          break;
        case 'updateApp':
          await this.updateApp(command.app);
          break;
      }
    } catch (error) {
      result.ok = false;
      result.error = error instanceof Error ? error.message : String(error);
      if (command.type === 'updateApp') this.agent.write('error', 'appUpdateFailed', { version: command.app?.version ?? '', error: result.error });
      else this.agent.write('error', 'commandFailed', { command: command.type, error: result.error });
    }
    this.agent.publish(deviceTopics(this.agent.binding.thingName).commandResult, result);
    this.side.emit({ type: 'command', command: command.type, ok: result.ok });
    if (command.type === 'reboot' && result.ok) await this.side.reboot();
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
    this.agent.options.info = { ...this.agent.options.info, appVersion: app.version };
    this.agent.write('info', 'appUpdated', { version: app.version });
    this.agent.sendHeartbeat();
  }
}
