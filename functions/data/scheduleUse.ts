import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/aws';
import { addDays } from '#domain/time';
import { MAIN_TABLE, tableName } from './tables.ts';
import { skPrefix } from './entity.ts';
import { AUTHORITY } from './keys/main.ts';
import { listHolidays } from './attendanceRules.ts';

/**
 * What terminals need around the schedules their faces use: which devices hold a face of a
 * schedule (to make them pull it again after an edit), and the company's holiday dates that close
 * schedules.
 */

/**
 * The devices with an authorization (not revoked) that uses the schedule. Reads the company's
 * authorizations with only their device and schedule: an edit of a schedule is an administrator's
 * rare act, and no index names an authorization by its schedule.
 */
export async function devicesUsingSchedule(tenantId: string, scheduleKey: string): Promise<Set<string>> {
  const range = skPrefix(AUTHORITY.prefix());
  const devices = new Set<string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(MAIN_TABLE),
        KeyConditionExpression: `#pk = :pk AND ${range.condition}`,
        FilterExpression: '#schedule = :schedule AND #revoked = :false',
        ProjectionExpression: '#deviceKey',
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk', '#schedule': 'scheduleKey', '#revoked': 'revoked', '#deviceKey': 'deviceKey' },
        ExpressionAttributeValues: { ':pk': tenantId, ...range.values, ':schedule': scheduleKey, ':false': false },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) devices.add(String(item.deviceKey));
    start = page.LastEvaluatedKey;
  } while (start);
  return devices;
}

/** The dates from `from` to `to` (inclusive) that a holiday of the company (a day off, not a working day) covers, in order. */
export async function closingHolidays(tenantId: string, from: string, to: string): Promise<string[]> {
  const dates = new Set<string>();
  for (const holiday of await listHolidays(tenantId)) {
    if (holiday.workday || holiday.end < from || holiday.start > to) continue;
    for (let day = holiday.start < from ? from : holiday.start; day <= holiday.end && day <= to; day = addDays(day, 1)) dates.add(day);
  }
  return [...dates].sort();
}
