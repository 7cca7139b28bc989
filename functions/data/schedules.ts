import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { SCHEDULE_LIMIT, type ScheduleBody, type SchedulePatch, type ScheduleView } from '#contract/schedules';
import { dynamo } from '#lib/aws';
import { newId } from '#lib/crypto';
import { ConflictError, NotFoundError } from '#lib/errors';
import { MAIN_TABLE, tableName } from './tables.ts';
import { deleteCounted, fewItems, isConditionFailure, putCounted } from './entity.ts';
import { scheduleUsage } from './syncCounts.ts';
import { SCHEDULE, SCHEDULE_COUNT_SK } from './keys/main.ts';

/**
 * Access schedules (main table, `schedule#<key>`, with the company's count of them in
 * `scheduleCount`, held to SCHEDULE_LIMIT by one conditional write). How many authorizations use
 * each is kept beside the devices' sync counts, in the same transaction as every authorization
 * write (data/syncCounts.ts `scheduleUsage`), and read in one range of one item per device.
 */

export interface ScheduleItem extends ScheduleBody {
  pk: string;
  sk: string;
  scheduleKey: string;
  createdAt: string;
  updatedAt: string;
  version: number;
  /** How many grants are writing authorizations with it, and until when at the latest (holdSchedule). */
  holds?: number;
  heldUntil?: string;
}

const main = () => tableName(MAIN_TABLE);
const scheduleSk = (scheduleKey: string) => SCHEDULE.of(scheduleKey);

export function scheduleViewOf(item: ScheduleItem, usedBy: number): ScheduleView {
  return {
    scheduleKey: item.scheduleKey,
    name: item.name,
    weekly: item.weekly,
    exceptions: item.exceptions,
    holidaysClosed: item.holidaysClosed,
    version: item.version,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    usedBy,
  };
}

export async function findSchedule(tenantId: string, scheduleKey: string, consistent = false): Promise<ScheduleItem | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: main(), Key: { pk: tenantId, sk: scheduleSk(scheduleKey) }, ConsistentRead: consistent }));
  return out.Item as ScheduleItem | undefined;
}

/** A schedule of the company with its usage; undefined when it has none by that key. */
export async function getSchedule(tenantId: string, scheduleKey: string): Promise<ScheduleView | undefined> {
  const [item, usage] = await Promise.all([findSchedule(tenantId, scheduleKey, true), scheduleUsage(tenantId)]);
  return item ? scheduleViewOf(item, usage.get(scheduleKey) ?? 0) : undefined;
}

/** Every schedule of the company (at most SCHEDULE_LIMIT), oldest first. */
export async function allSchedules(tenantId: string): Promise<ScheduleItem[]> {
  return fewItems<ScheduleItem>(main(), tenantId, SCHEDULE.prefix(), SCHEDULE_LIMIT * 2);
}

/** The company's schedules of these keys, with their usage; keys it has none of are left out. */
export async function schedulesByKeys(tenantId: string, keys: string[]): Promise<Map<string, ScheduleView>> {
  const out = new Map<string, ScheduleView>();
  if (keys.length === 0) return out;
  const wanted = new Set(keys);
  const [items, usage] = await Promise.all([allSchedules(tenantId), scheduleUsage(tenantId)]);
  for (const item of items) if (wanted.has(item.scheduleKey)) out.set(item.scheduleKey, scheduleViewOf(item, usage.get(item.scheduleKey) ?? 0));
  return out;
}

/** The company's schedules as views, oldest first, with their usage read once. */
export async function scheduleViews(tenantId: string): Promise<ScheduleView[]> {
  const [items, usage] = await Promise.all([allSchedules(tenantId), scheduleUsage(tenantId)]);
  return items.map((item) => scheduleViewOf(item, usage.get(item.scheduleKey) ?? 0));
}

/** Creates a schedule within the company's SCHEDULE_LIMIT: the count and the item in one transaction, the count conditioned on the limit. */
export async function createSchedule(tenantId: string, body: ScheduleBody): Promise<ScheduleItem> {
  const now = new Date().toISOString();
  const scheduleKey = newId(16);
  const item: ScheduleItem = { pk: tenantId, sk: scheduleSk(scheduleKey), scheduleKey, ...body, createdAt: now, updatedAt: now, version: 1 };
  if (!(await putCounted(main(), SCHEDULE_COUNT_SK, SCHEDULE_LIMIT, item))) {
    throw new ConflictError('schedules.limitReached', 'name', { limit: SCHEDULE_LIMIT });
  }
  return item;
}

/** Changes a schedule at `version`: a stale version answers 409, a missing one 404. */
export async function updateSchedule(tenantId: string, scheduleKey: string, patch: SchedulePatch): Promise<ScheduleItem> {
  const { version, ...changes } = patch;
  const sets: string[] = ['#updatedAt = :now', '#version = :next'];
  const names: Record<string, string> = { '#updatedAt': 'updatedAt', '#version': 'version' };
  const values: Record<string, unknown> = { ':now': new Date().toISOString(), ':next': version + 1, ':version': version };
  for (const field of ['name', 'weekly', 'exceptions', 'holidaysClosed'] as const) {
    if (changes[field] === undefined) continue;
    sets.push(`#${field} = :${field}`);
    names[`#${field}`] = field;
    values[`:${field}`] = changes[field];
  }
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: { pk: tenantId, sk: scheduleSk(scheduleKey) },
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(sk) AND #version = :version',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return out.Attributes as ScheduleItem;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await findSchedule(tenantId, scheduleKey, true)) ? new ConflictError() : new NotFoundError();
  }
}

/**
 * Holds a schedule for the authorizations a grant is about to write with it: deleting it is
 * refused while a grant holds it, so it cannot go between the grant's check and its writes (the
 * writes count in its usage once made). Each grant adds one to `holds` and lets go when written
 * (letGoSchedule); `heldUntil`, the latest end a grant gave, frees it from a grant that died
 * without letting go. False when the schedule is gone: the grant names none.
 */
export async function holdSchedule(tenantId: string, scheduleKey: string, ms: number): Promise<boolean> {
  const until = new Date(Date.now() + ms).toISOString();
  const key = { pk: tenantId, sk: scheduleSk(scheduleKey) };
  const names = { '#holds': 'holds', '#held': 'heldUntil' };
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: key,
        UpdateExpression: 'SET #holds = if_not_exists(#holds, :zero) + :one, #held = :until',
        ConditionExpression: 'attribute_exists(sk) AND (attribute_not_exists(#held) OR #held < :until)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':until': until, ':zero': 0, ':one': 1 },
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  // A later end is there already: it stays, and this grant is counted.
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: key,
        UpdateExpression: 'SET #holds = if_not_exists(#holds, :zero) + :one',
        ConditionExpression: 'attribute_exists(sk)',
        ExpressionAttributeNames: { '#holds': 'holds' },
        ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return false;
  }
}

/** A grant has written its authorizations (or ended without): its hold on the schedule goes. */
export async function letGoSchedule(tenantId: string, scheduleKey: string): Promise<void> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: { pk: tenantId, sk: scheduleSk(scheduleKey) },
        UpdateExpression: 'SET #holds = #holds - :one',
        ConditionExpression: 'attribute_exists(sk) AND #holds > :zero',
        ExpressionAttributeNames: { '#holds': 'holds' },
        ExpressionAttributeValues: { ':zero': 0, ':one': 1 },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Removes a schedule at `version` and gives its place back; one that authorizations use answers
 * 409 with their number, and one a grant holds (holdSchedule) 409 until the hold ends.
 */
export async function deleteSchedule(tenantId: string, scheduleKey: string, version: number): Promise<void> {
  const usedBy = (await scheduleUsage(tenantId)).get(scheduleKey) ?? 0;
  if (usedBy > 0) {
    if (!(await findSchedule(tenantId, scheduleKey, true))) throw new NotFoundError();
    throw new ConflictError('schedules.inUse', undefined, { count: usedBy });
  }
  const now = new Date().toISOString();
  const unheld = {
    expression: 'attribute_not_exists(#holds) OR #holds = :zero OR #held < :now',
    names: { '#holds': 'holds', '#held': 'heldUntil' },
    values: { ':now': now, ':zero': 0 },
  };
  if (!(await deleteCounted(main(), SCHEDULE_COUNT_SK, { pk: tenantId, sk: scheduleSk(scheduleKey) }, version, unheld))) {
    const item = await findSchedule(tenantId, scheduleKey, true);
    if (!item) throw new NotFoundError();
    if (item.version === version && (item.holds ?? 0) > 0 && (item.heldUntil ?? '') >= now) throw new ConflictError('schedules.beingGranted');
    throw new ConflictError();
  }
}
