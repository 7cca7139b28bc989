import { BatchWriteCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@passcloud/functions/lib/aws';
import { TABLES, tableName, type TableDef } from '@passcloud/functions/data/tables';

/**
 * DynamoDB's Time to Live, on one machine. On AWS every table has TTL on its `ttl` attribute
 * (infra/aws/storage.ts) and DynamoDB itself deletes items whose `ttl` (epoch seconds) has passed:
 * pass records and their copies, markers and counters, questionnaire answers, call records and
 * everything else written under a retention period. DynamoDB Local accepts the setting but
 * deletes nothing, so the local host runs this reaper every hour instead: it scans each table and
 * deletes the items whose `ttl` is before `now`. `tenantIds` limits it to the items of those
 * companies (keys start with the tenant id), which is how a test moves one company's time forward.
 */
export async function reapExpired(now = Date.now(), tenantIds?: readonly string[], tables: readonly TableDef[] = TABLES): Promise<number> {
  const client = dynamo();
  let reaped = 0;
  for (const def of tables) {
    const TableName = tableName(def);
    const names: Record<string, string> = { '#ttl': def.ttlAttribute, '#pk': def.partitionKey, '#sk': def.sortKey };
    const values: Record<string, unknown> = { ':now': Math.floor(now / 1000) };
    let filter = '#ttl < :now';
    if (tenantIds) {
      filter += ` AND (${tenantIds.map((_, i) => `begins_with(#pk, :t${i})`).join(' OR ')})`;
      tenantIds.forEach((t, i) => (values[`:t${i}`] = t));
    }
    let start: Record<string, unknown> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName,
          FilterExpression: filter,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ProjectionExpression: '#pk, #sk',
          ExclusiveStartKey: start,
        }),
      );
      const keys = page.Items ?? [];
      for (let i = 0; i < keys.length; i += 25) {
        let requests = keys.slice(i, i + 25).map((Key) => ({ DeleteRequest: { Key } }));
        while (requests.length) {
          const out = await client.send(new BatchWriteCommand({ RequestItems: { [TableName]: requests } }));
          requests = (out.UnprocessedItems?.[TableName] ?? []) as typeof requests;
        }
      }
      reaped += keys.length;
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return reaped;
}
