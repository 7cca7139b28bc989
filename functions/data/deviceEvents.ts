import { Entity, type EntityItem } from 'electrodb';
import { DEVICE_COMMAND_TYPES, type CommandState, type DeviceCommandType } from '#contract/devices';
import type { DeviceLogEntry } from '#contract/deviceLogs';
import { newId, newTimeId } from '#lib/crypto';
import { privacySettings, retentionTtl } from './settings.ts';
import { EVENTS_TABLE } from './tables.ts';
import { SERVICE, entityConfig, epochSeconds, isConditionFailure, lazy, nowIso, tenantPartition } from './entity.ts';

import { devices } from './devices.ts';
import { DEVICE_COMMAND, DEVICE_LOG } from './keys/events.ts';

/**
 * What passes between the cloud and a device besides its settings: the commands sent to it and
 * how each went, and the entries of its log (events table, each kept 30 days). data/devices.ts
 * holds the devices themselves.
 */

const RETENTION_SECONDS = 30 * 24 * 3600;
const ttlFromNow = () => epochSeconds(new Date()) + RETENTION_SECONDS;

/** Commands sent to devices and their outcome; kept 30 days. */
export const deviceCommands = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'deviceCommand', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          deviceKey: { type: 'string', required: true },
          commandKey: { type: 'string', required: true },
          type: { type: DEVICE_COMMAND_TYPES, required: true },
          state: { type: ['queued', 'succeeded', 'failed'] as const, required: true },
          error: { type: 'string' },
          /** capturePhoto: where the device uploads the picture. */
          objectKey: { type: 'string' },
          /** openDoor at a door station during a call: the call, and the intercom at its other end, whose record notes the door too. */
          callId: { type: 'string' },
          askedBy: { type: 'string' },
          createdAt: { type: 'string', required: true },
          finishedAt: { type: 'string' },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: {
            pk: tenantPartition,
            sk: { field: 'sk', composite: ['deviceKey', 'commandKey'], template: DEVICE_COMMAND.template, casing: 'none' },
          },
        },
      },
      entityConfig(EVENTS_TABLE),
    ),
);
export type DeviceCommand = EntityItem<ReturnType<typeof deviceCommands>>;

/** What devices write in their log; kept 30 days. */
export const deviceLogs = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'deviceLog', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          deviceKey: { type: 'string', required: true },
          logKey: { type: 'string', required: true },
          time: { type: 'string', required: true },
          level: { type: ['info', 'warn', 'error'] as const, required: true },
          /** Shown translated by the console; `params` fill it in. A code newer than DEVICE_LOG_CODES is kept as it came. */
          code: { type: 'string', required: true },
          params: { type: 'any' },
          /** A vendor's own text (code `other`, or a code newer than this cloud). */
          message: { type: 'string' },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['deviceKey', 'logKey'], template: DEVICE_LOG.template, casing: 'none' } },
        },
      },
      entityConfig(EVENTS_TABLE),
    ),
);
export type DeviceLog = EntityItem<ReturnType<typeof deviceLogs>>;

// Commands

/**
 * A capturePhoto command names where the device uploads the picture: `device/<deviceKey>/<commandKey>.jpg`.
 * Its record, through which the console shows the picture, is kept no longer than the company's
 * capture retention (privacy settings) at the time it is written; the retention sweep removes
 * the picture itself (jobs/retention.ts).
 */
export async function createCommand(
  tenantId: string,
  deviceKey: string,
  type: DeviceCommandType,
  call?: { callId: string; askedBy?: string },
): Promise<DeviceCommand> {
  const commandKey = newTimeId();
  const objectKey = type === 'capturePhoto' ? `device/${deviceKey}/${commandKey}.jpg` : undefined;
  const ttl = type === 'capturePhoto' ? Math.min(ttlFromNow(), retentionTtl(await privacySettings(tenantId), 'captures')) : ttlFromNow();
  const command = {
    tenantId,
    deviceKey,
    commandKey,
    type,
    state: 'queued' as const,
    createdAt: nowIso(),
    ttl,
    ...(objectKey ? { objectKey } : {}),
    ...(call ? { callId: call.callId, ...(call.askedBy ? { askedBy: call.askedBy } : {}) } : {}),
  };
  await deviceCommands().create(command).go();
  if (type === 'capturePhoto') await devices().patch({ tenantId, deviceKey }).set({ photoCommandKey: command.commandKey }).go();
  return command;
}

export async function findCommand(tenantId: string, deviceKey: string, commandKey: string): Promise<DeviceCommand | undefined> {
  return (await deviceCommands().get({ tenantId, deviceKey, commandKey }).go()).data ?? undefined;
}

export async function finishCommand(
  tenantId: string,
  deviceKey: string,
  commandKey: string,
  state: Exclude<CommandState, 'queued' | 'timedOut'>,
  error?: string,
): Promise<boolean> {
  try {
    await deviceCommands()
      .patch({ tenantId, deviceKey, commandKey })
      .set({ state, finishedAt: nowIso(), ...(error ? { error: error.slice(0, 500) } : {}) })
      .where((attr, op) => op.eq(attr.state, 'queued'))
      .go();
    return true;
  } catch (e) {
    if (isConditionFailure(e)) return false;
    throw e;
  }
}

export async function recentCommands(tenantId: string, deviceKey: string, limit = 20): Promise<DeviceCommand[]> {
  return (await deviceCommands().query.primary({ tenantId, deviceKey }).go({ order: 'desc', limit })).data;
}

// Logs

export async function appendLogs(tenantId: string, deviceKey: string, entries: DeviceLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const ttl = ttlFromNow();
  await deviceLogs()
    .put(
      entries.map((e) => ({
        tenantId,
        deviceKey,
        logKey: `${newTimeId(e.time)}${newId(4)}`,
        time: new Date(e.time).toISOString(),
        level: e.level,
        code: e.code,
        ...(e.params ? { params: e.params } : {}),
        ...(e.message ? { message: e.message } : {}),
        ttl,
      })),
    )
    .go();
}

/** A log entry as the console reads it. */
export const logItem = (l: DeviceLog) => ({ logKey: l.logKey, time: l.time, level: l.level, code: l.code, params: l.params ?? {}, message: l.message ?? null });

/** The lowest log key: keys are Crockford base32 (lib/crypto newTimeId), so none sorts before it. */
const FIRST_LOG_KEY = '0';

/**
 * Newest first; the cursor is the last log key of the previous page. The range is bounded on
 * both sides by the device's own keys, so no cursor reaches another device's log.
 */
export async function listLogs(tenantId: string, deviceKey: string, pageSize: number, cursor?: string) {
  const query = deviceLogs().query.primary({ tenantId, deviceKey });
  const page = await (cursor ? query.between({ logKey: FIRST_LOG_KEY }, { logKey: cursor }) : query).go({ order: 'desc', limit: pageSize + 2 });
  const items = page.data.filter((log) => log.logKey !== cursor).slice(0, pageSize + 1);
  const more = items.length > pageSize;
  items.length = Math.min(items.length, pageSize);
  return { items, nextCursor: more ? items[items.length - 1]!.logKey : null };
}

export async function dropDeviceEvents(tenantId: string, deviceKey: string): Promise<void> {
  for (const entity of [deviceLogs(), deviceCommands()] as const) {
    let cursor: string | null = null;
    do {
      const page: { data: Record<string, unknown>[]; cursor: string | null } = await (
        entity.query.primary as (k: object) => { go(o: object): Promise<{ data: Record<string, unknown>[]; cursor: string | null }> }
      )({ tenantId, deviceKey }).go({
        limit: 100,
        ...(cursor ? { cursor } : {}),
      });
      if (page.data.length) await (entity.delete as (k: object[]) => { go(): Promise<unknown> })(page.data).go();
      cursor = page.cursor;
    } while (cursor);
  }
}
