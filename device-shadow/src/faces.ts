import { rmSync } from 'node:fs';
import { imageSize } from 'image-size';
import { faceChangesPage, type FaceChange, type FaceChangesPage, type FaceList, type FaceNotifyMessage, type FaceResult, type SyncFailure } from '@passcloud/functions/contract/protocol';
import { FACE_SYNC_START_AGAIN } from '@passcloud/functions/contract/protocol';
import { DeviceCallError, type DeviceAgent } from './agent.ts';
import { flashFile, readFlash, saveFlash } from './flash.ts';

/** One face the terminal recognises. */
export interface Face {
  list: FaceList;
  personKey: string;
  name: string;
  kind: 'employee' | 'visitor';
  validFrom: string | null;
  validTo: string | null;
  /** The access schedule of a pass face (schedules.ts); null or absent: at any time within the validity. */
  scheduleId?: string | null;
  /** Size of the photo the face was enrolled from, in bytes. */
  photoBytes: number;
}

interface Flash {
  cursor: number;
  faces: Face[];
}

/**
 * The simulated model enrols faces from photos of at least 800×600, and says so when it binds and
 * with every heartbeat (`info.enrolment`): the cloud then takes no smaller photo for its company.
 * A photo stored before (or one of an older terminal that says nothing) is still refused here.
 */
export const ENROL_MIN = { width: 800, height: 600 } as const;
export const DEFAULT_FACE_CAPACITY = 10_000;
/** A terminal looks for changes this often even without a notification, in case one was lost. */
const POLL_MS = 5 * 60_000;

/** A face is identified by (list, personKey): one person's pass face and blacklist face are two faces, held and saved apart. */
const faceId = (list: FaceList, personKey: string) => `${list}:${personKey}`;

/**
 * The terminal's face library, kept in step with the cloud: a notification on MQTT says changes
 * wait; the terminal pulls them after its cursor over HTTPS, downloads each photo, enrols or
 * removes the face and reports every change `synced` or `failed` with a reason. The library and
 * the cursor live in flash next to the binding, so a terminal that was off catches up from where
 * it stopped and one wiped by a factory reset pulls everything again.
 */
export class FaceLibrary {
  private faces = new Map<string, Face>();
  private cursor = 0;
  private running?: Promise<void>;
  private again = false;
  private poll?: NodeJS.Timeout;
  /** Set while a sync fails; the next notification, connection or poll tries again. */
  lastError?: string;

  constructor(private readonly agent: DeviceAgent) {
    const flash = this.read();
    if (flash) {
      this.cursor = flash.cursor;
      for (const face of flash.faces) this.faces.set(faceId(face.list, face.personKey), face);
    }
  }

  get capacity(): number {
    return this.agent.options.faceCapacity ?? DEFAULT_FACE_CAPACITY;
  }

  get size(): number {
    return this.faces.size;
  }

  get position(): number {
    return this.cursor;
  }

  /** The faces held, in no particular order. */
  all(): Face[] {
    return [...this.faces.values()];
  }

  find(list: FaceList, personKey: string): Face | undefined {
    return this.faces.get(faceId(list, personKey));
  }

  /** True when the person is on the blacklist now: a blacklist face held and within its validity. */
  watches(personKey: string, at = new Date()): boolean {
    const face = this.find('blacklist', personKey);
    return !!face && within(face, at);
  }

  /**
   * True when the face may pass now: held on the pass list, within its validity, and not on the
   * blacklist, which wins over pass authority.
   */
  admits(personKey: string, at = new Date()): boolean {
    const face = this.find('pass', personKey);
    return !!face && within(face, at) && !this.watches(personKey, at);
  }

  onConnect(): void {
    clearInterval(this.poll);
    this.poll = setInterval(() => {
      this.prune();
      void this.sync();
    }, POLL_MS);
    this.poll.unref();
    void this.sync();
  }

  /** A notification always leads to a pull: a change numbered below the cursor may still be waiting (the cloud hands those over too). */
  onNotify(_message: FaceNotifyMessage): void {
    void this.sync();
  }

  stop(): void {
    clearInterval(this.poll);
  }

  /** Drops faces whose validity has ended, so they free the library; answers how many went. */
  prune(at = new Date()): number {
    let gone = 0;
    for (const [id, face] of this.faces) {
      if (face.validTo && Date.parse(face.validTo) < at.getTime()) {
        this.faces.delete(id);
        gone++;
      }
    }
    if (gone) this.save();
    return gone;
  }

  /** Forgets every face and the cursor, as a factory reset does; the next sync pulls everything. */
  wipe(): void {
    this.faces.clear();
    this.cursor = 0;
    const file = this.file();
    if (file) rmSync(file, { force: true });
  }

  /**
   * Pulls and applies every change after the cursor, page by page. One run at a time; a
   * notification during a run makes it go round once more.
   */
  sync(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.pull();
        } while (this.again);
        this.lastError = undefined;
      } catch (error) {
        this.lastError = error instanceof Error ? error.message : String(error);
        this.agent.write('warn', 'faceSyncFailed', { error: this.lastError.slice(0, 500) });
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async pull(): Promise<void> {
    for (;;) {
      if (!this.agent.binding || !this.agent.connected) return;
      let answer: unknown;
      try {
        answer = await this.agent.call<unknown>('GET', `/v1/deviceSync/faces?cursor=${this.cursor}&limit=100`);
      } catch (error) {
        // The cursor is from an earlier binding: start again from nothing (once per pull).
        if (!(error instanceof DeviceCallError && error.reason === FACE_SYNC_START_AGAIN && this.cursor > 0)) throw error;
        this.agent.write('warn', 'faceCursorReset');
        this.wipe();
        continue;
      }
      // Checked against the contract: an answer that is not a page of changes moves nothing.
      const page = faceChangesPage.parse(answer) as FaceChangesPage;
      if (page.changes.length > 0) {
        const results: FaceResult[] = [];
        for (const change of page.changes) results.push(await this.apply(change));
        await this.agent.call('POST', '/v1/deviceSync/results', { results });
        const failed = results.filter((r) => r.state === 'failed').length;
        this.agent.write(failed ? 'warn' : 'info', 'facesSynced', { count: results.length, failed });
      }
      this.cursor = Number(page.cursor);
      this.save();
      if (!page.more) break;
    }
    // The schedules the pass faces name, read at every sync: an edited schedule arrives so.
    await this.agent.schedules.refresh(this.all().flatMap((f) => (f.list === 'pass' && f.scheduleId ? [f.scheduleId] : [])));
    this.agent.sendHeartbeat();
  }

  private async apply(change: FaceChange): Promise<FaceResult> {
    const id = faceId(change.list, change.personKey);
    const result = (state: 'synced' | 'failed', reason?: SyncFailure, detail?: string): FaceResult => ({
      list: change.list,
      personKey: change.personKey,
      seq: change.seq,
      state,
      ...(reason ? { reason } : {}),
      ...(detail ? { detail } : {}),
    });
    if (change.action === 'remove') {
      this.faces.delete(id);
      return result('synced');
    }
    if (change.validTo && Date.parse(change.validTo) < Date.now()) {
      this.faces.delete(id);
      return result('failed', 'expired');
    }
    if (!change.photo) {
      this.faces.delete(id);
      return result('failed', 'noPhoto');
    }
    if (!this.faces.has(id) && this.faces.size >= this.capacity) return result('failed', 'capacityFull');
    let bytes: Buffer;
    try {
      const response = await fetch(change.photo.url);
      if (!response.ok) return result('failed', 'downloadFailed');
      bytes = Buffer.from(await response.arrayBuffer());
    } catch {
      return result('failed', 'downloadFailed');
    }
    const refusal = enrolRefusal(bytes);
    if (refusal) {
      this.faces.delete(id);
      return result('failed', 'photoRejected', refusal);
    }
    this.faces.set(id, {
      list: change.list,
      personKey: change.personKey,
      name: change.name,
      kind: change.kind,
      validFrom: change.validFrom,
      validTo: change.validTo,
      scheduleId: change.scheduleId ?? null,
      photoBytes: bytes.length,
    });
    return result('synced');
  }

  private file(): string | undefined {
    return flashFile(this.agent.options.credentialsFile, 'faces');
  }

  private read(): Flash | undefined {
    return readFlash<Flash>(this.file());
  }

  private save(): void {
    saveFlash(this.file(), { cursor: this.cursor, faces: this.all() } satisfies Flash);
  }
}

export function within(face: Pick<Face, 'validFrom' | 'validTo'>, at = new Date()): boolean {
  const t = at.getTime();
  return (!face.validFrom || Date.parse(face.validFrom) <= t) && (!face.validTo || Date.parse(face.validTo) >= t);
}

/**
 * Why the simulated model cannot enrol a face from these bytes (it needs a JPEG or PNG of at
 * least ENROL_MIN), in the words it reports with `photoRejected`; undefined when it can.
 */
export function enrolRefusal(bytes: Buffer): string | undefined {
  let size: { width?: number; height?: number };
  try {
    size = imageSize(bytes);
  } catch {
    size = {};
  }
  const { width, height } = size;
  if (!width || !height) return 'photo is not an image this terminal can read';
  if (Math.max(width, height) >= ENROL_MIN.width && Math.min(width, height) >= ENROL_MIN.height) return undefined;
  return `photo is ${width}×${height}; this terminal needs at least ${ENROL_MIN.width}×${ENROL_MIN.height}`;
}
