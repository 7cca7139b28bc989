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

/** Removes a schedule at `version` and gives its place back; one that authorizations use answers 409 with their number. */
export async function deleteSchedule(tenantId: string, scheduleKey: string, version: number): Promise<void> {
  const usedBy = (await scheduleUsage(tenantId)).get(scheduleKey) ?? 0;
  if (usedBy > 0) {
    if (!(await findSchedule(tenantId, scheduleKey, true))) throw new NotFoundError();
    throw new ConflictError('schedules.inUse', undefined, { count: usedBy });
  }
  if (!(await deleteCounted(main(), SCHEDULE_COUNT_SK, { pk: tenantId, sk: scheduleSk(scheduleKey) }, version))) {
    throw (await findSchedule(tenantId, scheduleKey, true)) ? new ConflictError() : new NotFoundError();
  }
}
