import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { deltaOf } from '@passcloud/functions/contract/shadow';
import type { Publish, Subscribe } from './iotBroker.ts';

/**
 * The device shadows of the IoT Core stand-in (./iot.ts): the store, which merges updates with
 * AWS's semantics and keeps the shadows in a file between runs when asked; the documents AWS
 * answers and publishes; and the shadow service on the `$aws/things/<thing>/shadow/...` topics. The
 * data plane (./iotDataPlane.ts) reads and updates the same shadows.
 */

export type Json = Record<string, unknown>;

export interface Shadow {
  state: { desired?: Json; reported?: Json };
  metadata: { desired?: Json; reported?: Json };
  version: number;
  timestamp: number;
}

export class ShadowError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Merges `patch` into `target` as AWS does: `null` removes a key, objects merge, anything else replaces. */
function merge(target: Json | undefined, patch: Json, stamp: Json | undefined, now: number): { value: Json; meta: Json } {
  const value: Json = { ...(target ?? {}) };
  const meta: Json = { ...(stamp ?? {}) };
  for (const [key, v] of Object.entries(patch)) {
    if (v === null) {
      delete value[key];
      delete meta[key];
    } else if (isObject(v) && isObject(value[key])) {
      const inner = merge(value[key] as Json, v, meta[key] as Json | undefined, now);
      value[key] = inner.value;
      meta[key] = inner.meta;
    } else {
      value[key] = v;
      meta[key] = { timestamp: now };
    }
  }
  return { value, meta };
}

export class ShadowStore {
  private readonly shadows = new Map<string, Shadow>();
  private saveTimer: NodeJS.Timeout | undefined;

  constructor(private readonly file?: string) {
    if (!file) return;
    try {
      const saved = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Shadow>;
      for (const [thing, shadow] of Object.entries(saved)) this.shadows.set(thing, shadow);
    } catch {
      // no saved shadows yet
    }
  }

  get(thing: string): Shadow | undefined {
    return this.shadows.get(thing);
  }

  delete(thing: string): Shadow | undefined {
    const shadow = this.shadows.get(thing);
    this.shadows.delete(thing);
    this.save();
    return shadow;
  }

  /** One update request; answers the accepted document and the before/after pair, or throws a ShadowError. */
  update(thing: string, request: unknown): { accepted: Json; previous: Shadow | undefined; current: Shadow; desiredChanged: boolean } {
    if (!isObject(request) || !isObject(request.state)) throw new ShadowError(400, 'Missing required node: state');
    const { desired, reported } = request.state as { desired?: unknown; reported?: unknown };
    for (const part of [desired, reported]) {
      if (part !== undefined && part !== null && !isObject(part)) throw new ShadowError(400, 'State contains an invalid node');
    }
    const previous = this.shadows.get(thing);
    if (typeof request.version === 'number' && request.version !== (previous?.version ?? 0)) throw new ShadowError(409, 'Version conflict');
    const now = Math.floor(Date.now() / 1000);
    const next: Shadow = previous ? structuredClone(previous) : { state: {}, metadata: {}, version: 0, timestamp: now };
    const acceptedMeta: Json = {};
    for (const section of ['desired', 'reported'] as const) {
      const part = (request.state as Json)[section];
      if (part === undefined) continue;
      if (part === null) {
        delete next.state[section];
        delete next.metadata[section];
        continue;
      }
      const merged = merge(next.state[section], part as Json, next.metadata[section], now);
      next.state[section] = merged.value;
      next.metadata[section] = merged.meta;
      acceptedMeta[section] = Object.fromEntries(Object.keys(part as Json).map((k) => [k, { timestamp: now }]));
    }
    next.version += 1;
    next.timestamp = now;
    this.shadows.set(thing, next);
    this.save();
    const clientToken = typeof request.clientToken === 'string' ? { clientToken: request.clientToken } : {};
    return {
      accepted: { state: request.state, metadata: acceptedMeta, version: next.version, timestamp: now, ...clientToken },
      previous,
      current: next,
      desiredChanged: desired !== undefined,
    };
  }

  private save(): void {
    if (!this.file || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.flush(), 300);
    this.saveTimer.unref();
  }

  flush(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.tmp`, JSON.stringify(Object.fromEntries(this.shadows)));
    renameSync(`${this.file}.tmp`, this.file);
  }
}

const deltaDocument = (shadow: Shadow) => deltaOf(shadow.state.desired ?? {}, shadow.state.reported ?? {});

export function getDocument(shadow: Shadow, clientToken?: unknown): Json {
  const delta = deltaDocument(shadow);
  return {
    state: { ...shadow.state, ...(Object.keys(delta).length ? { delta } : {}) },
    metadata: shadow.metadata,
    version: shadow.version,
    timestamp: shadow.timestamp,
    ...(typeof clientToken === 'string' ? { clientToken } : {}),
  };
}

const snapshot = (shadow: Shadow | undefined) => (shadow ? { state: shadow.state, metadata: shadow.metadata, version: shadow.version } : null);

export const parsePayload = (payload: Buffer | string): unknown => {
  try {
    return JSON.parse(payload.toString());
  } catch {
    return undefined;
  }
};

/** One update request, from MQTT or the data plane: answers the accepted document, or throws a ShadowError. */
export type ShadowUpdate = (thing: string, request: unknown) => Json;

/**
 * The shadow service: subscribes to the update and get topics of every thing and answers on their
 * accepted and rejected topics as IoT Core does (an update also publishes its documents and, when
 * the desired state changed, the delta). Answers the update for the data plane, which publishes
 * the same messages.
 */
export async function serveShadows(shadows: ShadowStore, publish: Publish, subscribe: Subscribe): Promise<ShadowUpdate> {
  const shadowUpdate = (thing: string, request: unknown) => {
    const result = shadows.update(thing, request);
    const base = `$aws/things/${thing}/shadow`;
    void publish(`${base}/update/accepted`, result.accepted);
    void publish(`${base}/update/documents`, {
      previous: snapshot(result.previous),
      current: snapshot(result.current),
      timestamp: result.current.timestamp,
      ...(isObject(request) && typeof request.clientToken === 'string' ? { clientToken: request.clientToken } : {}),
    });
    const delta = deltaDocument(result.current);
    if (result.desiredChanged && Object.keys(delta).length > 0) {
      void publish(`${base}/update/delta`, { state: delta, version: result.current.version, timestamp: result.current.timestamp });
    }
    return result.accepted;
  };
  const rejection = (error: unknown, request: unknown) => {
    const code = error instanceof ShadowError ? error.code : 500;
    const message = error instanceof Error ? error.message : 'Internal error';
    return {
      code,
      message,
      timestamp: Math.floor(Date.now() / 1000),
      ...(isObject(request) && typeof request.clientToken === 'string' ? { clientToken: request.clientToken } : {}),
    };
  };

  await subscribe('$aws/things/+/shadow/update', (packet) => {
    const thing = packet.topic.split('/')[2]!;
    const request = parsePayload(packet.payload);
    try {
      shadowUpdate(thing, request);
    } catch (error) {
      void publish(`$aws/things/${thing}/shadow/update/rejected`, rejection(error, request));
    }
  });
  await subscribe('$aws/things/+/shadow/get', (packet) => {
    const thing = packet.topic.split('/')[2]!;
    const request = parsePayload(packet.payload);
    const shadow = shadows.get(thing);
    if (shadow) void publish(`$aws/things/${thing}/shadow/get/accepted`, getDocument(shadow, isObject(request) ? request.clientToken : undefined));
    else void publish(`$aws/things/${thing}/shadow/get/rejected`, rejection(new ShadowError(404, `No shadow exists with name: '${thing}'`), request));
  });
  return shadowUpdate;
}
