import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { RECORDS_PER_MESSAGE, deviceTopics, type PassRecordUp, type RecordsAckMessage, type RecordsMessage } from '@passcloud/functions/contract/protocol';
import { capture, type DeviceAgent } from './agent.ts';

/**
 * Pass records the terminal has made, kept until the cloud acknowledges them. With the agent's
 * `credentialsFile` they are also kept in a file beside it (`<credentials>.records.json`, the
 * terminal's flash), so a restart loses none. While connected they go up in messages of at most
 * RECORDS_PER_MESSAGE; a record not acknowledged within `resendMs` goes up again, for as long as
 * it takes. The ack names each record stored (with where to put its capture) or refused; either
 * way the terminal lets it go.
 */
interface Entry {
  record: PassRecordUp;
  capture?: Buffer;
  /** When it was last sent (ms); absent while it waits for its first sending. */
  sentAt?: number;
}

export interface OutboxOptions {
  /** How long a record waits for its ack before it is sent again. */
  resendMs?: number;
  /** At most this many records are on their way (sent, not yet acknowledged) at once. */
  window?: number;
}

const DEFAULT_RESEND_MS = 5000;
const DEFAULT_WINDOW = 20 * RECORDS_PER_MESSAGE;

export class RecordOutbox {
  private readonly entries = new Map<string, Entry>();
  private timer?: NodeJS.Timeout;
  /** How long a record waits for its ack before it is sent again (ms). */
  resendMs: number;
  /** At most this many records are on their way at once. */
  window: number;
  /** Captures being uploaded, so that stop() and tests can wait for them. */
  private readonly uploads = new Set<Promise<void>>();
  /** Records the cloud refused, with why (most recent last, the last 100). */
  readonly refused: { recordId: string; reason: string }[] = [];
  /** How many captures were uploaded and how many uploads failed. */
  readonly uploadCounts = { ok: 0, failed: 0 };

  constructor(
    private readonly agent: DeviceAgent,
    options: OutboxOptions = {},
  ) {
    this.resendMs = options.resendMs ?? DEFAULT_RESEND_MS;
    this.window = options.window ?? DEFAULT_WINDOW;
    this.load();
  }

  /** Records not yet acknowledged. */
  get pending(): number {
    return this.entries.size;
  }

  /** The ids of the records not yet acknowledged. */
  pendingIds(): Set<string> {
    return new Set(this.entries.keys());
  }

  /** Keeps a record (and its capture, which is announced in it) and sends it when it can. */
  add(record: PassRecordUp, photo?: Buffer): void {
    const announced: PassRecordUp = photo && !record.capture ? { ...record, capture: { contentType: 'image/jpeg', size: photo.length } } : record;
    this.entries.set(record.recordId, { record: announced, ...(photo ? { capture: photo } : {}) });
    this.save();
    this.flush();
  }

  onConnect(): void {
    // Whatever was on its way when the connection dropped goes again now.
    for (const entry of this.entries.values()) delete entry.sentAt;
    clearInterval(this.timer);
    this.timer = setInterval(() => this.flush(), Math.max(100, Math.min(1000, this.resendMs / 2)));
    this.timer.unref();
    this.flush();
  }

  onAck(message: RecordsAckMessage): void {
    let changed = false;
    for (const { recordId, upload } of message.stored ?? []) {
      const entry = this.entries.get(recordId);
      if (!entry) continue;
      this.entries.delete(recordId);
      changed = true;
      if (upload && entry.capture) this.upload(recordId, upload, entry.capture);
    }
    for (const { recordId, reason } of message.refused ?? []) {
      if (this.entries.delete(recordId)) changed = true;
      this.refused.push({ recordId, reason });
      if (this.refused.length > 100) this.refused.shift();
      this.agent.write('warn', 'recordRefused', { id: recordId, error: reason.slice(0, 500) });
    }
    if (changed) this.save();
    this.flush();
  }

  /** Resolves when the captures being uploaded are done. */
  async settled(): Promise<void> {
    while (this.uploads.size > 0) await Promise.allSettled([...this.uploads]);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Sends what waits (and what waited too long for its ack), within the window. */
  flush(): void {
    const binding = this.agent.binding;
    if (!binding || !this.agent.connected) return;
    const now = Date.now();
    let onTheWay = 0;
    const due: Entry[] = [];
    for (const entry of this.entries.values()) {
      if (entry.sentAt !== undefined && now - entry.sentAt < this.resendMs) onTheWay++;
      else due.push(entry);
    }
    const room = Math.max(0, this.window - onTheWay);
    const batch = due.slice(0, room);
    const topic = deviceTopics(binding.thingName).records;
    for (let i = 0; i < batch.length; i += RECORDS_PER_MESSAGE) {
      const part = batch.slice(i, i + RECORDS_PER_MESSAGE);
      for (const entry of part) entry.sentAt = now;
      this.agent.publish(topic, { records: part.map((e) => e.record) } satisfies RecordsMessage);
    }
  }

  private upload(recordId: string, upload: { url: string; headers: Record<string, string> }, body: Buffer): void {
    const run = (async () => {
      for (let attempt = 1; attempt <= 3; attempt++) {
        try {
          const answer = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: new Uint8Array(body) });
          if (answer.ok) {
            this.uploadCounts.ok++;
            return;
          }
          // The capture is no longer wanted: it arrived before, or the person was erased.
          if (answer.status === 412) return;
          if (answer.status < 500) throw new Error(`capture upload answered ${answer.status}`);
        } catch (error) {
          if (attempt === 3 || !(error instanceof TypeError)) {
            this.uploadCounts.failed++;
            this.agent.write('warn', 'captureFailed', { id: recordId, error: (error instanceof Error ? error.message : String(error)).slice(0, 500) });
            return;
          }
        }
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
      this.uploadCounts.failed++;
    })();
    this.uploads.add(run);
    void run.finally(() => this.uploads.delete(run));
  }

  private file(): string | undefined {
    const credentials = this.agent.options.credentialsFile;
    return credentials ? `${credentials}.records.json` : undefined;
  }

  private load(): void {
    const file = this.file();
    if (!file || !existsSync(file)) return;
    try {
      const kept = JSON.parse(readFileSync(file, 'utf8')) as { record: PassRecordUp; capture?: string }[];
      for (const { record, capture: photo } of kept) this.entries.set(record.recordId, { record, ...(photo ? { capture: Buffer.from(photo, 'base64') } : {}) });
    } catch {
      // An unreadable file (cut off by a power loss mid-write cannot happen: it is replaced whole) is left for inspection.
    }
  }

  /** Replaces the file whole (write, then rename), so a power loss leaves the old or the new list. */
  private save(): void {
    const file = this.file();
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    const kept = [...this.entries.values()].map((e) => ({ record: e.record, ...(e.capture ? { capture: e.capture.toString('base64') } : {}) }));
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(kept), { mode: 0o600 });
    renameSync(temp, file);
  }
}

/** A capture as the terminal's camera takes it: a JPEG frame (320x240 unless told). */
export function captureJpeg(width = 320, height = 240): Buffer {
  return capture(width, height);
}

/** A new pass record with a fresh id, verified now unless told otherwise. */
export function newPassRecord(fields: Partial<PassRecordUp> = {}): PassRecordUp {
  return { recordId: `r${Date.now().toString(36)}${randomBytes(6).toString('hex')}`, passState: 'passed', source: 'face', verifyTime: Date.now(), ...fields };
}
