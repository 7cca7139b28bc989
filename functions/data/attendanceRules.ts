import { Entity, type EntityItem } from 'electrodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ATTENDANCE_LIMITS, type AttendanceKind, type HolidayBody, type PeriodBody, type ShiftBody } from '#contract/attendance';
import type { Weekday } from '#domain/attendance/index';
import { dynamo } from '#lib/aws';
import { newTimeId } from '#lib/crypto';
import { ConflictError, NotFoundError } from '#lib/errors';
import { claims } from './claims.ts';
import { MAIN_TABLE, SYSTEM_SCOPE, tableName } from './tables.ts';
import {
  SERVICE,
  entityConfig,
  isConditionFailure,
  lazy,
  nowIso,
  tenantPartition,
  transactDelete,
  transactPut,
  transactUpdate,
  type TransactItem,
} from './entity.ts';
import { ATTENDANCE_COUNT, ATTENDANCE_GROUP, ATTENDANCE_HOLIDAY, ATTENDANCE_RULES_CHANGED_SK, ATTENDANCE_SHIFT } from './keys/main.ts';

/**
 * Attendance rules: shifts, attendance groups and holidays. A group's staff are the employees
 * whose `attendanceGroupKey` names it, so an employee belongs to at most one group by
 * construction. Each kind is capped per company (ATTENDANCE_LIMITS): a counter item per kind
 * (`attendanceCount#<kind>`) moves in the same transaction as the create or delete, conditioned on
 * staying under the cap, so parallel creates cannot pass it.
 */

export const shifts = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'attendanceShift', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          shiftKey: { type: 'string', required: true },
          name: { type: 'string', required: true },
          periods: { type: 'any', required: true },
          createdAt: { type: 'string', required: true },
          updatedAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: { primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['shiftKey'], template: ATTENDANCE_SHIFT.template, casing: 'none' } } },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export const attendanceGroups = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'attendanceGroup', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          attendanceGroupKey: { type: 'string', required: true },
          name: { type: 'string', required: true },
          deviceKeys: { type: 'list', items: { type: 'string' }, required: true },
          weekdays: { type: 'any', required: true },
          workdayOvertimeAfter: { type: 'string' },
          restDayMinHours: { type: 'number' },
          timezone: { type: 'string', required: true },
          /** The last day (in `timezone`) the day-close job computed for the group. */
          closedThrough: { type: 'string' },
          createdAt: { type: 'string', required: true },
          updatedAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['attendanceGroupKey'], template: ATTENDANCE_GROUP.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export const holidays = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'attendanceHoliday', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          holidayKey: { type: 'string', required: true },
          name: { type: 'string', required: true },
          start: { type: 'string', required: true },
          end: { type: 'string', required: true },
          remark: { type: 'string' },
          workday: { type: 'boolean', required: true },
          shiftKey: { type: 'string' },
          createdAt: { type: 'string', required: true },
          updatedAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: { primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['holidayKey'], template: ATTENDANCE_HOLIDAY.template, casing: 'none' } } },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export type Shift = Omit<EntityItem<ReturnType<typeof shifts>>, 'periods'> & { periods: PeriodBody[] };
export type AttendanceGroup = Omit<EntityItem<ReturnType<typeof attendanceGroups>>, 'weekdays'> & { weekdays: Record<Weekday, string | null> };
export type Holiday = EntityItem<ReturnType<typeof holidays>>;

/** One transaction item that counts a create (under the cap) or a delete of `kind`. */
function counting(tenantId: string, kind: AttendanceKind, delta: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: tableName(MAIN_TABLE),
      Key: { pk: tenantId, sk: ATTENDANCE_COUNT.of(kind) },
      UpdateExpression: 'ADD #n :delta',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: delta > 0 ? { ':delta': 1, ':max': ATTENDANCE_LIMITS[kind] } : { ':delta': -1 },
      ...(delta > 0 ? { ConditionExpression: 'attribute_not_exists(#n) OR #n < :max' } : {}),
    },
  };
}

/** Why a transaction was refused, by the position of its items: `counter` at index 1. */
const refusedAt = (error: unknown): number =>
  ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');

/**
 * When the company's attendance rules (shifts in use, groups, their staff, holidays) last changed
 * (`attendanceRulesChanged`): days computed before then may not follow them yet, and the daily
 * screen says so. Written after the change it follows, so a failure between leaves the rule
 * changed without the notice, never a notice without a change.
 */
export async function noteRulesChanged(tenantId: string): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(MAIN_TABLE),
      Key: { pk: tenantId, sk: ATTENDANCE_RULES_CHANGED_SK },
      UpdateExpression: 'SET #at = :at',
      ExpressionAttributeNames: { '#at': 'changedAt' },
      ExpressionAttributeValues: { ':at': nowIso() },
    }),
  );
}

export async function rulesChangedAt(tenantId: string): Promise<string | null> {
  const out = await dynamo().send(new GetCommand({ TableName: tableName(MAIN_TABLE), Key: { pk: tenantId, sk: ATTENDANCE_RULES_CHANGED_SK } }));
  return (out.Item?.changedAt as string | undefined) ?? null;
}

async function createCounted(
  tenantId: string,
  kind: AttendanceKind,
  put: Record<string, unknown>,
  checks: TransactItem[],
  checkedField: string,
): Promise<void> {
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: [transactPut(put), counting(tenantId, kind, 1), ...checks] }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const at = refusedAt(error);
    if (at === 1) throw new ConflictError('attendance.tooMany', undefined, { limit: ATTENDANCE_LIMITS[kind] });
    if (at >= 2) throw new ConflictError('attendance.shiftGone', checkedField);
    throw new ConflictError();
  }
}

async function deleteCounted(tenantId: string, kind: AttendanceKind, remove: Record<string, unknown>, exists: () => Promise<boolean>): Promise<void> {
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: [transactDelete(remove), counting(tenantId, kind, -1)] }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await exists()) ? new ConflictError() : new NotFoundError();
  }
}

/** A transaction item that holds only while the shift exists: a group or holiday cannot name a shift deleted meanwhile. */
const shiftExists = (tenantId: string, shiftKey: string): TransactItem => ({
  ConditionCheck: {
    TableName: tableName(MAIN_TABLE),
    Key: { pk: tenantId, sk: ATTENDANCE_SHIFT.of(shiftKey) },
    ConditionExpression: 'attribute_exists(pk)',
  },
});

// ---- Shifts

export async function findShift(tenantId: string, shiftKey: string): Promise<Shift | undefined> {
  return ((await shifts().get({ tenantId, shiftKey }).go()).data ?? undefined) as Shift | undefined;
}

export async function requireShift(tenantId: string, shiftKey: string): Promise<Shift> {
  const shift = await findShift(tenantId, shiftKey);
  if (!shift) throw new NotFoundError();
  return shift;
}

/** Every shift of the company (at most ATTENDANCE_LIMITS.shift), by name. */
export async function listShifts(tenantId: string): Promise<Shift[]> {
  const all = (await shifts().query.primary({ tenantId }).go({ pages: 'all' })).data as Shift[];
  return all.sort((a, b) => a.name.localeCompare(b.name) || a.shiftKey.localeCompare(b.shiftKey));
}

export async function createShift(tenantId: string, body: ShiftBody): Promise<Shift> {
  const now = nowIso();
  const record = { tenantId, shiftKey: newTimeId(), name: body.name, periods: body.periods, createdAt: now, updatedAt: now, version: 1 };
  await createCounted(tenantId, 'shift', shifts().create(record).params<Record<string, unknown>>(), [], 'name');
  return record;
}

export async function updateShift(tenantId: string, shiftKey: string, version: number, body: ShiftBody): Promise<Shift> {
  try {
    const result = await shifts()
      .patch({ tenantId, shiftKey })
      .set({ name: body.name, periods: body.periods, updatedAt: nowIso() })
      .add({ version: 1 })
      .where((attr, op) => op.eq(attr.version, version))
      .go({ response: 'all_new' });
    await noteRulesChanged(tenantId);
    return result.data as Shift;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await findShift(tenantId, shiftKey)) ? new ConflictError() : new NotFoundError();
  }
}

export async function deleteShift(tenantId: string, shiftKey: string, version: number): Promise<void> {
  const remove = shifts()
    .delete({ tenantId, shiftKey })
    .where((attr, op) => `${op.exists(attr.shiftKey)} AND ${op.eq(attr.version, version)}`)
    .params<Record<string, unknown>>();
  await deleteCounted(tenantId, 'shift', remove, async () => !!(await findShift(tenantId, shiftKey)));
  await noteRulesChanged(tenantId);
}

/** The groups and holidays that name the shift: it cannot go while they do. */
export async function shiftUsers(tenantId: string, shiftKey: string): Promise<{ groups: AttendanceGroup[]; holidays: Holiday[] }> {
  const [groups, days] = await Promise.all([listAttendanceGroups(tenantId), listHolidays(tenantId)]);
  return {
    groups: groups.filter((g) => Object.values(g.weekdays).includes(shiftKey)),
    holidays: days.filter((h) => h.shiftKey === shiftKey),
  };
}

// ---- Attendance groups

export interface GroupRecord {
  name: string;
  deviceKeys: string[];
  weekdays: Record<Weekday, string | null>;
  workdayOvertimeAfter: string | null;
  restDayMinHours: number | null;
  timezone: string;
}

export async function findAttendanceGroup(tenantId: string, attendanceGroupKey: string): Promise<AttendanceGroup | undefined> {
  return ((await attendanceGroups().get({ tenantId, attendanceGroupKey }).go()).data ?? undefined) as AttendanceGroup | undefined;
}

export async function requireAttendanceGroup(tenantId: string, attendanceGroupKey: string): Promise<AttendanceGroup> {
  const group = await findAttendanceGroup(tenantId, attendanceGroupKey);
  if (!group) throw new NotFoundError();
  return group;
}

export async function listAttendanceGroups(tenantId: string): Promise<AttendanceGroup[]> {
  const all = (await attendanceGroups().query.primary({ tenantId }).go({ pages: 'all' })).data as AttendanceGroup[];
  return all.sort((a, b) => a.name.localeCompare(b.name) || a.attendanceGroupKey.localeCompare(b.attendanceGroupKey));
}

const groupShiftKeys = (record: GroupRecord): string[] => [...new Set(Object.values(record.weekdays).filter((v): v is string => !!v))];

/** The stored attributes of a group: absent rules are not stored (ElectroDB keeps no nulls). */
function groupAttributes(record: GroupRecord) {
  return {
    name: record.name,
    deviceKeys: record.deviceKeys,
    weekdays: record.weekdays,
    timezone: record.timezone,
    ...(record.workdayOvertimeAfter !== null ? { workdayOvertimeAfter: record.workdayOvertimeAfter } : {}),
    ...(record.restDayMinHours !== null ? { restDayMinHours: record.restDayMinHours } : {}),
  };
}

export async function createAttendanceGroup(tenantId: string, record: GroupRecord): Promise<AttendanceGroup> {
  const now = nowIso();
  const item = { tenantId, attendanceGroupKey: newTimeId(), ...groupAttributes(record), createdAt: now, updatedAt: now, version: 1 };
  const checks = groupShiftKeys(record).map((key) => shiftExists(tenantId, key));
  await createCounted(tenantId, 'group', attendanceGroups().create(item).params<Record<string, unknown>>(), checks, 'weekdays');
  // The day-close job finds the companies that keep attendance through this claim.
  await claims().put({ tenantId: SYSTEM_SCOPE, kind: 'attendanceTenant', value: tenantId, ownerTenantId: tenantId }).go();
  await noteRulesChanged(tenantId);
  return item as AttendanceGroup;
}

export async function updateAttendanceGroup(tenantId: string, attendanceGroupKey: string, version: number, record: GroupRecord): Promise<AttendanceGroup> {
  const attributes = groupAttributes(record);
  const remove = (['workdayOvertimeAfter', 'restDayMinHours'] as const).filter((name) => !(name in attributes));
  let update = attendanceGroups()
    .patch({ tenantId, attendanceGroupKey })
    .set({ ...attributes, updatedAt: nowIso() })
    .add({ version: 1 });
  if (remove.length) update = update.remove(remove);
  const params = update.where((attr, op) => op.eq(attr.version, version)).params<Record<string, unknown>>();
  const checks = groupShiftKeys(record).map((key) => shiftExists(tenantId, key));
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: [transactUpdate(params), ...checks] }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (refusedAt(error) >= 1) throw new ConflictError('attendance.shiftGone', 'weekdays');
    throw (await findAttendanceGroup(tenantId, attendanceGroupKey)) ? new ConflictError() : new NotFoundError();
  }
  await noteRulesChanged(tenantId);
  return requireAttendanceGroup(tenantId, attendanceGroupKey);
}

export async function deleteAttendanceGroup(tenantId: string, attendanceGroupKey: string, version: number): Promise<void> {
  const remove = attendanceGroups()
    .delete({ tenantId, attendanceGroupKey })
    .where((attr, op) => `${op.exists(attr.attendanceGroupKey)} AND ${op.eq(attr.version, version)}`)
    .params<Record<string, unknown>>();
  await deleteCounted(tenantId, 'group', remove, async () => !!(await findAttendanceGroup(tenantId, attendanceGroupKey)));
  await noteRulesChanged(tenantId);
}

// ---- Holidays

export async function findHoliday(tenantId: string, holidayKey: string): Promise<Holiday | undefined> {
  return (await holidays().get({ tenantId, holidayKey }).go()).data ?? undefined;
}

export async function requireHoliday(tenantId: string, holidayKey: string): Promise<Holiday> {
  const holiday = await findHoliday(tenantId, holidayKey);
  if (!holiday) throw new NotFoundError();
  return holiday;
}

/** Every holiday of the company, latest first. */
export async function listHolidays(tenantId: string): Promise<Holiday[]> {
  const all = (await holidays().query.primary({ tenantId }).go({ pages: 'all' })).data;
  return all.sort((a, b) => b.start.localeCompare(a.start) || a.name.localeCompare(b.name));
}

function holidayAttributes(body: HolidayBody) {
  return {
    name: body.name,
    start: body.start,
    end: body.end,
    workday: body.workday,
    ...(body.remark ? { remark: body.remark } : {}),
    ...(body.workday && body.shiftKey ? { shiftKey: body.shiftKey } : {}),
  };
}

export async function createHoliday(tenantId: string, body: HolidayBody): Promise<Holiday> {
  const now = nowIso();
  const item = { tenantId, holidayKey: newTimeId(), ...holidayAttributes(body), createdAt: now, updatedAt: now, version: 1 };
  const checks = item.shiftKey ? [shiftExists(tenantId, item.shiftKey)] : [];
  await createCounted(tenantId, 'holiday', holidays().create(item).params<Record<string, unknown>>(), checks, 'shiftKey');
  await noteRulesChanged(tenantId);
  return item;
}

export async function updateHoliday(tenantId: string, holidayKey: string, version: number, body: HolidayBody): Promise<Holiday> {
  const attributes = holidayAttributes(body);
  const remove = (['remark', 'shiftKey'] as const).filter((name) => !(name in attributes));
  let update = holidays()
    .patch({ tenantId, holidayKey })
    .set({ ...attributes, updatedAt: nowIso() })
    .add({ version: 1 });
  if (remove.length) update = update.remove(remove);
  const params = update.where((attr, op) => op.eq(attr.version, version)).params<Record<string, unknown>>();
  const checks = attributes.shiftKey ? [shiftExists(tenantId, attributes.shiftKey)] : [];
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: [transactUpdate(params), ...checks] }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (refusedAt(error) >= 1) throw new ConflictError('attendance.shiftGone', 'shiftKey');
    throw (await findHoliday(tenantId, holidayKey)) ? new ConflictError() : new NotFoundError();
  }
  await noteRulesChanged(tenantId);
  return requireHoliday(tenantId, holidayKey);
}

export async function deleteHoliday(tenantId: string, holidayKey: string, version: number): Promise<void> {
  const remove = holidays()
    .delete({ tenantId, holidayKey })
    .where((attr, op) => `${op.exists(attr.holidayKey)} AND ${op.eq(attr.version, version)}`)
    .params<Record<string, unknown>>();
  await deleteCounted(tenantId, 'holiday', remove, async () => !!(await findHoliday(tenantId, holidayKey)));
  await noteRulesChanged(tenantId);
}

/** Companies that keep attendance (they made an attendance group once). */
export async function attendanceTenants(): Promise<string[]> {
  const found = await claims().query.primary({ tenantId: SYSTEM_SCOPE }).begins({ kind: 'attendanceTenant' }).go({ pages: 'all' });
  return found.data.map((c) => c.ownerTenantId);
}

/** Marks a group's days closed through `day`, unless a run got there first: false then. */
export async function markClosed(tenantId: string, attendanceGroupKey: string, day: string): Promise<boolean> {
  try {
    await attendanceGroups()
      .patch({ tenantId, attendanceGroupKey })
      .set({ closedThrough: day })
      .where((attr, op) => `${op.notExists(attr.closedThrough)} OR ${op.lt(attr.closedThrough, day)}`)
      .go();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
