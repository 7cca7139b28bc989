import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type SetType, type SyncState, type ValidityState } from '#contract/authorities';
import { dynamo } from '#lib/aws';
import { fieldError } from '#lib/errors';
import { MAIN_TABLE, tableName } from './tables.ts';
import { nowIso, skPrefix } from './entity.ts';
import { AUTHORITY, facesPartition } from './keys/main.ts';
import type { Authority } from './authorities.ts';

/**
 * The console's lists of authorizations: by person (their range), by device (its index) or all,
 * filtered, read within a budget and answered with a cursor; and how many faces a device holds.
 */

export interface AuthorityFilter {
  setType?: SetType | undefined;
  personKey?: string | undefined;
  deviceKey?: string | undefined;
  keyword?: string | undefined;
  validity?: ValidityState | undefined;
  state?: SyncState | undefined;
  scheduleKey?: string | undefined;
}

function encodeCursor(item: Record<string, unknown>, index: boolean): string {
  const key = index ? { pk: item.pk, sk: item.sk, gsi1pk: item.gsi1pk, gsi1sk: item.gsi1sk } : { pk: item.pk, sk: item.sk };
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeCursor(tenantId: string, cursor: string, index: boolean): Record<string, string> {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const strings = Object.values(key).every((v) => typeof v === 'string');
    const own = key.pk === tenantId && typeof key.sk === 'string' && AUTHORITY.owns(key.sk);
    const ownIndex = !index || (typeof key.gsi1pk === 'string' && key.gsi1pk.startsWith(facesPartition(tenantId, '')));
    if (strings && own && ownIndex && Object.keys(key).length === (index ? 4 : 2)) return key as Record<string, string>;
  } catch {
    // fall through to the field error
  }
  throw fieldError('cursor', 'error.badCursor');
}

/** How many authorizations one list request reads at most before it answers with a cursor. */
export const LIST_READ_BUDGET = 2000;

/**
 * One page of authorizations that are not revoked, with the filters applied: by person (their
 * range), by device (the device's index) or all (newest people first).
 */
export async function listAuthorities(
  tenantId: string,
  filter: AuthorityFilter,
  pageSize: number,
  cursor?: string,
  budget = LIST_READ_BUDGET,
): Promise<{ items: Authority[]; nextCursor: string | null }> {
  const names: Record<string, string> = { '#pk': 'pk', '#revoked': 'revoked' };
  const values: Record<string, unknown> = { ':pk': tenantId, ':false': false };
  const conditions = ['#revoked = :false'];
  let keyCondition: string;
  const index = !filter.personKey && !!filter.deviceKey;
  if (filter.personKey) {
    const range = skPrefix(AUTHORITY.head(filter.personKey, String(filter.setType ?? '')));
    names['#sk'] = 'sk';
    Object.assign(values, range.values);
    keyCondition = `#pk = :pk AND ${range.condition}`;
  } else if (index) {
    names['#pk'] = 'gsi1pk';
    values[':pk'] = facesPartition(tenantId, filter.deviceKey!);
    keyCondition = '#pk = :pk';
  } else {
    const range = skPrefix(AUTHORITY.prefix());
    names['#sk'] = 'sk';
    Object.assign(values, range.values);
    keyCondition = `#pk = :pk AND ${range.condition}`;
  }
  const add = (attr: string, condition: (name: string) => string, value?: unknown) => {
    names[`#${attr}`] = attr;
    if (value !== undefined) values[`:${attr}`] = value;
    conditions.push(condition(`#${attr}`));
  };
  if (filter.setType !== undefined) add('setType', (n) => `${n} = :setType`, filter.setType);
  if (filter.personKey && filter.deviceKey) add('deviceKey', (n) => `${n} = :deviceKey`, filter.deviceKey);
  if (filter.state) add('syncState', (n) => `${n} = :syncState`, filter.state);
  if (filter.scheduleKey) add('scheduleKey', (n) => `${n} = :scheduleKey`, filter.scheduleKey);
  if (filter.keyword) add('search', (n) => `contains(${n}, :search)`, filter.keyword.toLowerCase());
  if (filter.validity) {
    if (filter.validity !== 'expired') names['#from'] = 'validFrom';
    if (filter.validity !== 'upcoming') names['#to'] = 'validTo';
    values[':now'] = nowIso();
    conditions.push(
      filter.validity === 'active'
        ? '(attribute_not_exists(#from) OR #from <= :now) AND (attribute_not_exists(#to) OR #to >= :now)'
        : filter.validity === 'upcoming'
          ? '#from > :now'
          : '#to < :now',
    );
  }
  const input: QueryCommandInput = {
    TableName: tableName(MAIN_TABLE),
    ...(index ? { IndexName: 'gsi1' } : {}),
    KeyConditionExpression: keyCondition,
    FilterExpression: conditions.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  };
  let start: Record<string, unknown> | undefined = cursor ? decodeCursor(tenantId, cursor, index) : undefined;
  const items: Authority[] = [];
  let nextCursor: string | null = null;
  let read = 0;
  for (let round = 0; items.length < pageSize; round++) {
    const limit = Math.min(1000, pageSize * 2 * 4 ** round, budget - read);
    const page = await dynamo().send(new QueryCommand({ ...input, ExclusiveStartKey: start, Limit: limit }));
    read += page.ScannedCount ?? 0;
    for (const item of page.Items ?? []) {
      items.push(item as Authority);
      if (items.length === pageSize) {
        const more = item !== page.Items!.at(-1) || page.LastEvaluatedKey;
        nextCursor = more ? encodeCursor(item, index) : null;
        break;
      }
    }
    if (items.length === pageSize || !page.LastEvaluatedKey) break;
    start = page.LastEvaluatedKey;
    // A rare keyword or state would read on through the whole list: the page answers what the
    // budget found, with a cursor to go on from where the reading stopped.
    if (read >= budget) {
      nextCursor = encodeCursor(start, index);
      break;
    }
  }
  return { items, nextCursor };
}

/** How many faces each device holds or will hold (not revoked, person active), counted from its index. */
export async function deviceFaceCount(tenantId: string, deviceKey: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(MAIN_TABLE),
        IndexName: 'gsi1',
        KeyConditionExpression: '#pk = :pk',
        FilterExpression: '#action = :upsert',
        ExpressionAttributeNames: { '#pk': 'gsi1pk', '#action': 'action' },
        ExpressionAttributeValues: { ':pk': facesPartition(tenantId, deviceKey), ':upsert': 'upsert' },
        Select: 'COUNT',
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}
