import type { RecordsAckMessage } from '@passcloud/functions/contract/protocol';
import type { DeviceAgent } from './agent.ts';

/** Pass records the terminal has made, kept until the cloud acknowledges them. */
export class RecordOutbox {
  constructor(private readonly agent: DeviceAgent) {}

  onConnect(): void {
    void this.agent;
  }

  onAck(_message: RecordsAckMessage): void {}

  stop(): void {}
}
