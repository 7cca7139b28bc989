import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CALLS_PER_MESSAGE,
  deviceTopics,
  type CallUp,
  type CallsAckMessage,
  type CallsMessage,
  type RecordingType,
} from '@passcloud/functions/contract/protocol';
import type { DeviceAgent } from './agent.ts';

/**
 * The calls an intercom reports, kept until the cloud acknowledges them (as RecordOutbox keeps
 * pass records). Each call is reported in views: live when it rings, ended when it is over. One
 * view of a call is on its way at a time: a newer view waits until the cloud has answered the one
 * sent, so the cloud sees them in order and an answer is never taken for the wrong view; a view
 * left unanswered for `resendMs` is sent again, replaced by the newer one if there is one. With
 * the agent's `credentialsFile` the calls (and their recordings) are kept in a file beside it
 * (`<credentials>.calls.json`), so a restart loses none.
 *
 * The ack of an ended call that announced a recording brings a presigned PUT for it (uploaded
 * with exactly the headers given), says it has arrived already, or says why it is not wanted.
 */
interface View {
  call: CallUp;
  recording?: Buffer;
  /** How many times this recording was announced again after its upload failed. */
  retries?: number;
}

interface Entry extends View {
  /** When the view was last sent (ms); absent while it waits for its first sending. */
  sentAt?: number;
  /** A newer view of the call, held back until the cloud has answered the one on its way. */
  next?: View;
  /** Answers to this view that said nothing of its recording (see onAck). */
  silentAcks: number;
}

export interface CallOutboxOptions {
  /** How long a view waits for its ack before it is sent again. */
  resendMs?: number;
  /** At most this many calls are on their way (sent, not yet acknowledged) at once. */
  window?: number;
}

const DEFAULT_RESEND_MS = 5000;
const DEFAULT_WINDOW = 10 * CALLS_PER_MESSAGE;
/** A recording whose upload failed is announced again (for a fresh link) at most this often. */
const UPLOAD_RETRIES = 2;

/** The type of a recording from its first bytes: Ogg or else WAV. */
export const recordingTypeOf = (recording: Buffer): RecordingType => (recording.toString('ascii', 0, 4) === 'OggS' ? 'audio/ogg' : 'audio/wav');

/** A new call id, as an intercom would make one (a SIP Call-ID of the allowed characters). */
export const newCallId = (): string => `c${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;

export class CallOutbox {
  private readonly entries = new Map<string, Entry>();
  private timer?: NodeJS.Timeout;
  /** How long a view waits for its ack before it is sent again (ms). */
  resendMs: number;
  /** At most this many calls are on their way at once. */
  window: number;
  /** Recordings being uploaded, so that stop() and tests can wait for them. */
  private readonly uploads = new Set<Promise<void>>();
  /** Who waits for a call to be acknowledged (delivered()). */
  private readonly waiters = new Map<string, Set<(delivered: boolean) => void>>();
  /** Calls the cloud refused, with why (most recent last, the last 100). */
  readonly refused: { callId: string; reason: string }[] = [];
  /** Recordings the cloud did not want, with why (most recent last, the last 100). */
  readonly recordingsRefused: { callId: string; reason: string }[] = [];
  /** How many recordings were uploaded and how many uploads failed for good. */
  readonly uploadCounts = { ok: 0, failed: 0 };
  /** How many views of calls the cloud has acknowledged. */
  acknowledged = 0;

  constructor(
    private readonly agent: DeviceAgent,
    options: CallOutboxOptions = {},
  ) {
    this.resendMs = options.resendMs ?? DEFAULT_RESEND_MS;
    this.window = options.window ?? DEFAULT_WINDOW;
    this.load();
  }

  /** Calls with a view not yet acknowledged. */
  get pending(): number {
    return this.entries.size;
  }

  /** The ids of the calls with a view not yet acknowledged. */
  pendingIds(): Set<string> {
    return new Set(this.entries.keys());
  }

  /**
   * Reports a view of a call (live or ended) and sends it when it can. With `recording`, an
   * ended call announces it (type from its first bytes, size its length) unless it already does;
   * the recording is kept until the ack says where to put it.
   */
  report(call: CallUp, recording?: Buffer): void {
    this.keep({
      call: recording && !call.recording ? { ...call, recording: { contentType: recordingTypeOf(recording), size: recording.length } } : call,
      ...(recording ? { recording } : {}),
    });
  }

  private keep(view: View): void {
    const entry = this.entries.get(view.call.callId);
    if (!entry) this.entries.set(view.call.callId, { ...view, silentAcks: 0 });
    else if (entry.sentAt === undefined) this.entries.set(view.call.callId, { ...view, silentAcks: 0 });
    else entry.next = view;
    this.save();
    this.flush();
  }

  /** The view of a call waiting to be acknowledged (the newest, when two wait). */
  find(callId: string): CallUp | undefined {
    const entry = this.entries.get(callId);
    return entry?.next?.call ?? entry?.call;
  }

  /** Resolves true once nothing of the call waits for an ack any more, false after `timeoutMs` or on stop(). */
  delivered(callId: string, timeoutMs = 30_000): Promise<boolean> {
    if (!this.entries.has(callId)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiting = this.waiters.get(callId) ?? new Set();
      this.waiters.set(callId, waiting);
      const done = (delivered: boolean) => {
        clearTimeout(timer);
        waiting.delete(done);
        if (waiting.size === 0 && this.waiters.get(callId) === waiting) this.waiters.delete(callId);
        resolve(delivered);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      timer.unref();
      waiting.add(done);
    });
  }

  onConnect(): void {
    // Whatever was on its way when the connection dropped goes again now.
    for (const entry of this.entries.values()) this.promote(entry);
    clearInterval(this.timer);
    this.timer = setInterval(() => this.flush(), Math.max(100, Math.min(1000, this.resendMs / 2)));
    this.timer.unref();
    this.flush();
  }

  /**
   * An answer counts for the view on its way. An ended call that announced a recording is always
   * answered about it (a link, `recordingStored` or `recordingRefused`): an answer that says
   * nothing of it is a late answer to an earlier view of the call, sent again; it is passed over
   * once, and a second one is taken as it comes.
   */
  onAck(message: CallsAckMessage): void {
    let changed = false;
    for (const answer of message.stored ?? []) {
      const entry = this.entries.get(answer.callId);
      if (!entry || entry.sentAt === undefined) continue;
      const aboutRecording = !!answer.upload || !!answer.recordingStored || answer.recordingRefused !== undefined;
      if (entry.call.recording && entry.call.endTime !== undefined && !aboutRecording && entry.silentAcks++ === 0) continue;
      this.acknowledged++;
      changed = true;
      if (answer.upload && entry.recording) this.upload(entry, answer.upload, entry.recording);
      if (answer.recordingRefused !== undefined && entry.call.recording) {
        this.recordingsRefused.push({ callId: answer.callId, reason: answer.recordingRefused });
        if (this.recordingsRefused.length > 100) this.recordingsRefused.shift();
        this.agent.write('warn', 'recordingFailed', { error: `call ${answer.callId}: refused: ${answer.recordingRefused}`.slice(0, 500) });
      }
      this.settle(answer.callId, entry);
    }
    for (const { callId, reason } of message.refused ?? []) {
      const entry = this.entries.get(callId);
      if (entry) {
        this.settle(callId, entry);
        changed = true;
      }
      this.refused.push({ callId, reason });
      if (this.refused.length > 100) this.refused.shift();
      this.agent.write('warn', 'callRefused', { id: callId, error: reason.slice(0, 500) });
    }
    if (changed) this.save();
    this.flush();
  }

  /** The view on its way is answered: the next one goes, or the call is let go. */
  private settle(callId: string, entry: Entry): void {
    if (entry.next) {
      this.entries.set(callId, { ...entry.next, silentAcks: 0 });
      return;
    }
    this.entries.delete(callId);
    for (const done of [...(this.waiters.get(callId) ?? [])]) done(true);
  }

  /** A view on its way that went unanswered gives way to the newer one, which goes instead. */
  private promote(entry: Entry): void {
    delete entry.sentAt;
    const next = entry.next;
    if (!next) return;
    delete entry.next;
    delete entry.recording;
    delete entry.retries;
    Object.assign(entry, next, { silentAcks: 0 });
  }

  /** Resolves when the recordings being uploaded are done. */
  async settled(): Promise<void> {
    while (this.uploads.size > 0) await Promise.allSettled([...this.uploads]);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    for (const waiting of [...this.waiters.values()]) for (const done of [...waiting]) done(false);
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
    const batch = due.slice(0, Math.max(0, this.window - onTheWay));
    const topic = deviceTopics(binding.thingName).calls;
    for (let i = 0; i < batch.length; i += CALLS_PER_MESSAGE) {
      const part = batch.slice(i, i + CALLS_PER_MESSAGE);
      for (const entry of part) {
        if (entry.sentAt !== undefined) this.promote(entry);
        entry.sentAt = now;
      }
      this.agent.publish(topic, { calls: part.map((e) => e.call) } satisfies CallsMessage);
    }
  }

  /**
   * PUTs the recording with exactly the headers given. Network failures and 5xx are tried again
   * a few times; a recording that still did not arrive (or whose link expired) is announced again
   * with its call, whose ack brings a fresh link, up to UPLOAD_RETRIES times.
   */
  private upload(view: View, upload: { url: string; headers: Record<string, string> }, body: Buffer): void {
    const { call } = view;
    const run = (async () => {
      let failure = '';
      for (let attempt = 1; attempt <= 3; attempt++) {
        try {
          const answer = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: new Uint8Array(body) });
          if (answer.ok) {
            this.uploadCounts.ok++;
            this.agent.write('info', 'recordingUploaded');
            return;
          }
          failure = `recording upload answered ${answer.status}`;
          if (answer.status < 500) break;
        } catch (error) {
          failure = error instanceof Error ? error.message : String(error);
          if (!(error instanceof TypeError)) break;
        }
        if (attempt < 3) await new Promise((r) => setTimeout(r, 500 * attempt));
      }
      const retries = view.retries ?? 0;
      if (retries < UPLOAD_RETRIES && !this.entries.has(call.callId)) {
        this.keep({ call, recording: body, retries: retries + 1 });
        return;
      }
      this.uploadCounts.failed++;
      this.agent.write('warn', 'recordingFailed', { error: `call ${call.callId}: ${failure}`.slice(0, 500) });
    })();
    this.uploads.add(run);
    void run.finally(() => this.uploads.delete(run));
  }

  private file(): string | undefined {
    const credentials = this.agent.options.credentialsFile;
    return credentials ? `${credentials}.calls.json` : undefined;
  }

  private load(): void {
    const file = this.file();
    if (!file || !existsSync(file)) return;
    try {
      const kept = JSON.parse(readFileSync(file, 'utf8')) as { call: CallUp; recording?: string; retries?: number }[];
      for (const { call, recording, retries } of kept) {
        this.entries.set(call.callId, {
          call,
          ...(recording ? { recording: Buffer.from(recording, 'base64') } : {}),
          ...(retries ? { retries } : {}),
          silentAcks: 0,
        });
      }
    } catch {
      // An unreadable file is left for inspection; it is replaced whole, so a power loss cannot cut it off.
    }
  }

  /** Replaces the file whole (write, then rename). Of two views of a call, the newer is kept: it goes next after a restart. */
  private save(): void {
    const file = this.file();
    if (!file) return;
    mkdirSync(dirname(file), { recursive: true });
    const kept = [...this.entries.values()].map((entry) => {
      const view = entry.next ?? entry;
      return {
        call: view.call,
        ...(view.recording ? { recording: view.recording.toString('base64') } : {}),
        ...(view.retries ? { retries: view.retries } : {}),
      };
    });
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(kept), { mode: 0o600 });
    renameSync(temp, file);
  }
}
