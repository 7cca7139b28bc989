import { findApiKey } from './apiKeys.ts';
import { findAttendanceGroup, findHoliday, findShift } from './attendanceRules.ts';
import { findDepartment } from './departments.ts';
import { findDevice, findRequest } from './devices.ts';
import { findGroup } from './groups.ts';
import { requireAccount } from './identity.ts';
import { findPerson } from './people.ts';
import { findQuestionnaire } from './questionnaires.ts';
import { findSchedule } from './schedules.ts';
import { findWebhook } from './webhooks.ts';

/** What an audited request acted on: the path parameter that names it, its key, and its name then. */
export interface AuditItem {
  param: string;
  key: string;
  name: string;
}

/**
 * The items the audit log names, by the path parameter that carries their key: how to read an
 * item's name (undefined once it is gone), and for those made by a `POST` to their collection,
 * that collection's path, whose answer carries the new key under the parameter's name.
 */
const ITEMS: Record<string, { collection?: string; name: (tenantId: string, key: string) => Promise<string | undefined> }> = {
  accountKey: { collection: '/v1/accounts', name: async (t, k) => (await requireAccount(t, k).catch(() => undefined))?.username },
  employeeKey: { collection: '/v1/employees', name: async (t, k) => (await findPerson(t, 'employee', k))?.name },
  visitorKey: { collection: '/v1/visitors', name: async (t, k) => (await findPerson(t, 'visitor', k))?.name },
  groupKey: { collection: '/v1/groups', name: async (t, k) => (await findGroup(t, k))?.name },
  departmentKey: { collection: '/v1/departments', name: async (t, k) => (await findDepartment(t, k))?.name },
  shiftKey: { collection: '/v1/attendance/shifts', name: async (t, k) => (await findShift(t, k))?.name },
  attendanceGroupKey: { collection: '/v1/attendance/groups', name: async (t, k) => (await findAttendanceGroup(t, k))?.name },
  holidayKey: { collection: '/v1/attendance/holidays', name: async (t, k) => (await findHoliday(t, k))?.name },
  scheduleKey: { collection: '/v1/schedules', name: async (t, k) => (await findSchedule(t, k))?.name },
  deviceKey: { name: async (t, k) => (await findDevice(t, k))?.name },
  intercomKey: { name: async (t, k) => (await findDevice(t, k))?.name },
  requestKey: { name: async (t, k) => (await findRequest(t, k))?.serial },
  questionnaireKey: { collection: '/v1/questionnaires', name: async (t, k) => (await findQuestionnaire(t, k))?.title },
  webhookKey: { collection: '/v1/webhooks', name: async (t, k) => (await findWebhook(t, k))?.url },
  apiKeyKey: { collection: '/v1/apiKeys', name: async (t, k) => (await findApiKey(t, k))?.name },
};

/** The path parameters whose items the log names, for the console's links and the tests. */
export const NAMED_ITEM_PARAMS = Object.keys(ITEMS);

/** The item's name as it is now; undefined when it is gone (or its kind has no name). */
export async function currentItemName(tenantId: string, param: string, key: string): Promise<string | undefined> {
  const item = ITEMS[param];
  return item && key ? item.name(tenantId, key) : undefined;
}

/**
 * The item a request acts on, named as it is before the request: the first of the path's
 * parameters that names an item (`/v1/webhooks/{webhookKey}/deliveries/{deliveryKey}/replay`: the
 * webhook). A deleted item is so named still.
 */
export async function itemOfPath(tenantId: string, params: Record<string, string | undefined>): Promise<AuditItem | null> {
  for (const [param, key] of Object.entries(params)) {
    if (!ITEMS[param] || !key) continue;
    const name = await currentItemName(tenantId, param, key);
    return name === undefined ? null : { param, key, name };
  }
  return null;
}

/** The item a `POST` to a collection made, named as made: its key is in the answer under the parameter's name. */
export async function itemMade(tenantId: string, path: string, answer: unknown): Promise<AuditItem | null> {
  const param = Object.keys(ITEMS).find((name) => ITEMS[name]!.collection === path);
  const key = param && answer && typeof answer === 'object' ? (answer as Record<string, unknown>)[param] : undefined;
  if (!param || typeof key !== 'string') return null;
  const name = await currentItemName(tenantId, param, key);
  return name === undefined ? null : { param, key, name };
}
