import { DOOR_EXEMPT_SHADOW_KEY, DOOR_MODES, DOOR_MODE_SHADOW_KEY, type DeviceExemptions, type DoorMode } from '@passcloud/functions/contract/doorModes';
import type { DeviceDocument } from '@passcloud/functions/contract/shadow';
import type { PassRecordUp } from '@passcloud/functions/contract/protocol';
import type { DeviceAgent } from './agent.ts';

/**
 * The door mode of the terminal (functions/contract/doorModes.ts), from its shadow's desired
 * state: `lockdown` refuses everyone but the people of the company's exemption list, with the
 * reason `lockdown`; `open` holds the relay open, and faces are still recognised and recorded.
 * The mode is applied and reported at once; the exemption list is read over HTTPS whenever the
 * shadow names a new revision of it (until it arrives, a lockdown lets pass the people of the
 * list read before, or nobody), and its revision is reported once read.
 */
export class DoorModeControl {
  mode: DoorMode = 'normal';
  /** The people a lockdown lets pass. */
  exempt = new Set<string>();
  /** The revision of the exemption list held (DOOR_EXEMPT_SHADOW_KEY); undefined before the first read. */
  private token: string | undefined;
  private reading: string | undefined;

  constructor(
    private readonly agent: DeviceAgent,
    private readonly report: (reported: DeviceDocument) => void,
  ) {}

  /**
   * Takes the door mode's keys out of a desired state and applies them; answers the rest. A
   * complete desired state without a mode (one never set) is normal.
   */
  onDesired(desired: DeviceDocument, complete: boolean): DeviceDocument {
    const { [DOOR_MODE_SHADOW_KEY]: mode, [DOOR_EXEMPT_SHADOW_KEY]: token, ...rest } = desired;
    if ((DOOR_MODES as readonly unknown[]).includes(mode)) this.apply(mode as DoorMode);
    else if (complete) this.apply('normal');
    if (typeof token === 'string' && token !== this.token) void this.readExemptions(token);
    return rest;
  }

  private apply(mode: DoorMode): void {
    const changed = mode !== this.mode;
    this.mode = mode;
    // Open holds the relay open; leaving it closes the door again.
    if (mode === 'open') this.agent.door = 'open';
    else if (changed) this.agent.door = 'closed';
    if (changed) this.agent.write('info', mode === 'open' ? 'doorOpened' : 'doorClosed', {}, `door mode ${mode}`);
    this.report({ [DOOR_MODE_SHADOW_KEY]: mode });
  }

  private async readExemptions(token: string): Promise<void> {
    if (this.reading === token) return;
    this.reading = token;
    try {
      const list = await this.agent.call<DeviceExemptions>('GET', '/v1/deviceSync/doorModeExemptions');
      this.exempt = new Set(list.personKeys);
      this.token = list.token;
      this.report({ [DOOR_EXEMPT_SHADOW_KEY]: list.token });
    } catch (error) {
      this.agent.write('warn', 'other', {}, `exemption list not read: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.reading = undefined;
    }
  }

  /** A record as the door mode makes it: under lockdown, refused for `lockdown` unless the person is exempt; its trace names the mode. */
  judge(record: PassRecordUp): PassRecordUp {
    // The trace names the mode in force, normal too.
    const decision = record.decision ? { decision: { ...record.decision, doorMode: this.mode } } : {};
    if (this.mode === 'normal') return { ...record, ...decision };
    if (this.mode === 'lockdown' && !(record.personKey && this.exempt.has(record.personKey))) {
      return { ...record, ...decision, passState: 'refused', refusedFor: 'lockdown' };
    }
    return { ...record, ...decision };
  }
}
