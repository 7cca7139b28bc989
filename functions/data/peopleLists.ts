import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import type { PersonKind } from '#contract/people';
import { TERM_MAX, normalizeKeyword, termText } from '#domain/people';
import { dynamo } from '#lib/aws';
import { env } from '#lib/env';

import { fieldError } from '#lib/errors';

import { MAIN_TABLE, tableName } from './tables.ts';
import { skPrefix } from './entity.ts';

import { peopleByKeys, peopleCounters, type Person } from './people.ts';
import { PERSON, PERSON_TERM } from './keys/main.ts';

/**
 * The lists of employees and visitors: a page by filters and keyword (through the keyword index,
 * personTerm), the counts the first page shows, and whether any person is in a group or a
 * department. data/people.ts writes the people and their index.
 */

export interface PeopleFilter {
  keyword?: string | undefined;
  groupKey?: string | undefined;
  departmentKey?: string | undefined;
  state?: 'active' | 'resigned' | undefined;
}

export interface PeoplePage {
  items: Person[];
  nextCursor: string | null;
  /** Exact total of the filtered list, when it is known cheaply. */
  total?: number;
  /** When counting a filtered list would read too much: at least this many match. */
  totalAtLeast?: number;
}

/** A filtered count reads at most this many items; past it the answer is `totalAtLeast`. */
export const COUNT_READ_LIMIT = 20_000;

/**
 * A page link: the key of the last person on the page, and whether the list reads the people
 * themselves (`read`), so the next page of a very common keyword goes straight there.
 */
function encodeCursor(key: Record<string, unknown>, read = false): string {
  return Buffer.from(JSON.stringify({ pk: key.pk, sk: key.sk, ...(read ? { read: 1 } : {}) })).toString('base64url');
}

function decodeCursor(tenantId: string, prefix: string, cursor: string): { key: Record<string, string>; read: boolean } {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { pk?: unknown; sk?: unknown; read?: unknown };
    if (key.pk === tenantId && typeof key.sk === 'string' && key.sk.startsWith(prefix)) return { key: { pk: key.pk, sk: key.sk }, read: key.read === 1 };
  } catch {
    // fall through to the field error
  }
  throw fieldError('cursor', 'error.badCursor');
}

function queryInput(tenantId: string, kind: PersonKind, filter: PeopleFilter): QueryCommandInput {
  const conditions: string[] = [];
  const range = skPrefix(PERSON.prefix(kind));
  const values: Record<string, unknown> = { ':pk': tenantId, ...range.values };
  const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk' };
  const add = (attr: string, op: (name: string, value: string) => string, value: unknown) => {
    names[`#${attr}`] = attr;
    values[`:${attr}`] = value;
    conditions.push(op(`#${attr}`, `:${attr}`));
  };
  if (filter.state) add('state', (n, v) => `${n} = ${v}`, filter.state);
  if (filter.groupKey) add('groupKey', (n, v) => `${n} = ${v}`, filter.groupKey);
  if (filter.departmentKey) add('departmentKey', (n, v) => `${n} = ${v}`, filter.departmentKey);
  if (filter.keyword) add('terms', (n, v) => `contains(${n}, ${v})`, termText([keywordOf(filter.keyword)]));
  return {
    TableName: tableName(MAIN_TABLE),
    KeyConditionExpression: `#pk = :pk AND ${range.condition}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
  };
}

const keywordOf = (keyword: string): string => normalizeKeyword(keyword).slice(0, TERM_MAX);

/**
 * A keyword list counts at most this many people on its first page (PEOPLE_COUNT_LIMIT, else
 * 1,000): reading their index items fits in the time a first page may take. A keyword that matches
 * more answers `totalAtLeast` instead of its total.
 */
export const keywordCountLimit = (): number => Number(env('PEOPLE_COUNT_LIMIT') ?? 1000);

/** The keyword index is read at most this many items further per person counted (a person may have several terms that start with a keyword, and filters leave some out). */
const TERMS_PER_PERSON = 4;

type KeywordMatches = { complete: true; keys: string[] } | { complete: false; atLeast: number };

/**
 * The keys of the people with a term that starts with the keyword and who pass the other filters,
 * newest first: a read of the keyword index alone. When more than keywordCountLimit people match
 * (a keyword of a letter or two, a word most names share), or the index holds too many terms to
 * tell, the read stops and answers how many match at least: such a keyword matches so often
 * that reading the people in order fills a page sooner.
 */
async function keywordMatches(tenantId: string, kind: PersonKind, filter: PeopleFilter): Promise<KeywordMatches> {
  const limit = keywordCountLimit();
  const readLimit = limit * TERMS_PER_PERSON;
  const keyword = keywordOf(filter.keyword!);
  const range = skPrefix(PERSON_TERM.head(kind, keyword));
  const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk', '#personKey': 'personKey', '#term': 'term' };
  const values: Record<string, unknown> = { ':pk': tenantId, ...range.values };
  const conditions: string[] = [];
  for (const attr of ['state', 'groupKey', 'departmentKey'] as const) {
    if (!filter[attr]) continue;
    names[`#${attr}`] = attr;
    values[`:${attr}`] = filter[attr];
    conditions.push(`#${attr} = :${attr}`);
  }
  const keys = new Set<string>();
  let read = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(MAIN_TABLE),
        KeyConditionExpression: `#pk = :pk AND ${range.condition}`,
        ProjectionExpression: '#personKey, #term',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ...(conditions.length ? { FilterExpression: conditions.join(' AND ') } : {}),
        ExclusiveStartKey: start,
        // Enough to pass the limit when each item is another person, and never past the read limit.
        Limit: Math.min(readLimit - read, Math.max(100, limit + 1 - keys.size)),
      }),
    );
    // The key prefix also takes a keyword that runs on past the term into the key; the term decides.
    for (const item of page.Items ?? []) if ((item.term as string).startsWith(keyword)) keys.add(item.personKey as string);
    read += page.ScannedCount ?? 0;
    start = page.LastEvaluatedKey;
  } while (start && keys.size <= limit && read < readLimit);
  if (start) return { complete: false, atLeast: Math.min(keys.size, limit) };
  return { complete: true, keys: [...keys].sort().reverse() };
}

/**
 * One page of people, newest first, with the filters applied; `total` comes with the first page.
 * A keyword is looked up in the keyword index; the other filters (and a keyword too common for
 * the index) read the people in order and keep those that match.
 */
export async function listPeople(tenantId: string, kind: PersonKind, filter: PeopleFilter, pageSize: number, cursor?: string): Promise<PeoplePage> {
  const prefix = PERSON.prefix(kind);
  const link = cursor ? decodeCursor(tenantId, prefix, cursor) : undefined;
  let start: Record<string, unknown> | undefined = link?.key;
  let atLeast: number | undefined;
  if (filter.keyword && !link?.read) {
    const matches = await keywordMatches(tenantId, kind, filter);
    if (matches.complete) {
      const after = start ? (start.sk as string).slice(prefix.length) : undefined;
      const from = after === undefined ? 0 : matches.keys.findIndex((k) => k < after);
      const keys = from < 0 ? [] : matches.keys.slice(from, from + pageSize);
      const more = from >= 0 && from + pageSize < matches.keys.length;
      return {
        items: await peopleByKeys(tenantId, kind, keys),
        nextCursor: more ? encodeCursor({ pk: tenantId, sk: `${prefix}${keys.at(-1)}` }) : null,
        ...(cursor ? {} : { total: matches.keys.length }),
      };
    }
    atLeast = matches.atLeast;
  }
  const input = queryInput(tenantId, kind, filter);
  const items: Person[] = [];
  let nextCursor: string | null = null;
  // Read a little first (most filters match often), then more each round for rare matches.
  for (let round = 0; items.length < pageSize; round++) {
    const limit = Math.min(1000, pageSize * 2 * 4 ** round);
    const page = await dynamo().send(new QueryCommand({ ...input, ScanIndexForward: false, ExclusiveStartKey: start, Limit: limit }));
    for (const item of page.Items ?? []) {
      items.push(item as Person);
      if (items.length === pageSize) {
        const more = item !== page.Items!.at(-1) || page.LastEvaluatedKey;
        nextCursor = more ? encodeCursor(item, !!filter.keyword) : null;
        break;
      }
    }
    if (items.length === pageSize || !page.LastEvaluatedKey) break;
    start = page.LastEvaluatedKey;
  }
  const result: PeoplePage = { items, nextCursor };
  // A keyword too common for the index was counted as far as its read went: not counted again.
  if (!cursor && atLeast !== undefined) Object.assign(result, nextCursor ? { totalAtLeast: Math.max(atLeast, items.length) } : { total: items.length });
  else if (!cursor) Object.assign(result, await countPeople(tenantId, kind, filter, input));
  return result;
}

/** How many people of a kind are active, from their counter. */
export async function activeCount(tenantId: string, kind: PersonKind): Promise<number> {
  const counter = (await peopleCounters().get({ tenantId, kind, state: 'active' }).go()).data;
  return Math.max(0, counter?.count ?? 0);
}

/**
 * The first page's count: from the counters when only the state is filtered, else by a COUNT
 * query that stops after reading COUNT_READ_LIMIT items.
 */
async function countPeople(
  tenantId: string,
  kind: PersonKind,
  filter: PeopleFilter,
  input: QueryCommandInput,
): Promise<Pick<PeoplePage, 'total' | 'totalAtLeast'>> {
  if (!filter.keyword && !filter.groupKey && !filter.departmentKey) {
    const counter = (
      await peopleCounters()
        .get({ tenantId, kind, state: filter.state ?? 'active' })
        .go()
    ).data;
    return { total: Math.max(0, counter?.count ?? 0) };
  }
  let total = 0;
  let read = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new QueryCommand({ ...input, Select: 'COUNT', ExclusiveStartKey: start, Limit: COUNT_READ_LIMIT - read }));
    total += page.Count ?? 0;
    read += page.ScannedCount ?? 0;
    start = page.LastEvaluatedKey;
  } while (start && read < COUNT_READ_LIMIT);
  return start ? { totalAtLeast: total } : { total };
}

/** True when some person of the tenant matches: a group or department in use cannot go. */
export async function anyPerson(tenantId: string, filter: { groupKey?: string; departmentKey?: string }): Promise<boolean> {
  for (const kind of ['employee', 'visitor'] as const) {
    let start: Record<string, unknown> | undefined;
    do {
      const page = await dynamo().send(new QueryCommand({ ...queryInput(tenantId, kind, filter), ExclusiveStartKey: start, Limit: 500 }));
      if ((page.Items ?? []).length > 0) return true;
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return false;
}
