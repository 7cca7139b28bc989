import { inject } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { partitionsOf } from '@passcloud/infra/local/writeJournal';
import { dynamo } from '@passcloud/functions/lib/aws';
import { AUDIT_TABLE, EVENTS_TABLE, MAIN_TABLE, tableName, type TableDef } from '@passcloud/functions/data/tables';

export type Item = Record<string, unknown>;

const byKey = (a: Item, b: Item): number => (`${String(a.pk)}/${String(a.sk)}` < `${String(b.pk)}/${String(b.sk)}` ? -1 : 1);

/** Every item of one partition of a table, in key order. */
export async function partition(table: TableDef, pk: string): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({ TableName: tableName(table), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey: start }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.map((item) => ({ ...item }));
}

/**
 * Every item of a table whose partition key is the tenant's or starts with it (the events table
 * spreads records, markers and counters over `<tenantId>#…` partitions; the audit log is
 * `<tenantId>#audit`), in key order. The partitions are those the local host and this process
 * wrote (infra/local/writeJournal.ts): each is read by its key, never by a scan of the shared table.
 */
export async function owned(table: TableDef, tenantId: string): Promise<Item[]> {
  const name = tableName(table);
  const answer = await fetch(`${inject('baseUrl')}/_local/partitions?tenant=${encodeURIComponent(tenantId)}`);
  if (!answer.ok) throw new Error(`the host's partitions of ${tenantId} answered ${answer.status}`);
  const host = ((await answer.json()) as { data: Record<string, string[]> }).data;
  const pks = new Set([tenantId, ...(host[name] ?? []), ...(partitionsOf(tenantId)[name] ?? [])]);
  const items = (await Promise.all([...pks].map((pk) => partition(table, pk)))).flat();
  return items.sort(byKey);
}

/**
 * Everything a tenant has in the tables: its partition of the main table (every entity there
 * is keyed by the tenant id alone, functions/data/entity.ts), and its partitions of the events
 * table and the audit log.
 */
export async function tenantItems(tenantId: string): Promise<{ main: Item[]; events: Item[]; audit: Item[] }> {
  const [main, events, audit] = await Promise.all([
    partition(MAIN_TABLE, tenantId),
    owned(EVENTS_TABLE, tenantId),
    partition(AUDIT_TABLE, `${tenantId}#audit`),
  ]);
  return { main, events, audit };
}
