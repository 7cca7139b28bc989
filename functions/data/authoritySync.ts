import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { SET_TYPE_OF_LIST, type SetType } from '#contract/authorities';
import { type FaceResult } from '#contract/protocol';
import { dynamo } from '#lib/aws';
import { pool } from '#lib/pool';
import { MAIN_TABLE, tableName } from './tables.ts';
import { finishBatch, isConditionFailure, nowIso, transactUpdate } from './entity.ts';
import { countDelta, countUpdate } from './syncCounts.ts';
import { facesPartition } from './keys/main.ts';
import { type Authority, authorities, seqKey } from './authorities.ts';

/**
 * The device's side of authorizations: the changes a terminal pulls after its cursor (with those
 * still pending just behind it) and the results it reports for each.
 */

/**
 * How far behind its cursor a device is shown changes that are still pending. A change takes its
 * number before it is written, so a write can land after a device has already read past its
 * number; looking back this far hands such a change over on the next pull.
 */
export const LOOKBACK = 500;

/** The device's changes after `cursor`, in order, and the pending ones within LOOKBACK before it. */
export async function changesAfter(tenantId: string, deviceKey: string, cursor: number, limit: number): Promise<{ items: Authority[]; more: boolean }> {
  const items: Authority[] = [];
  let start: Record<string, unknown> | undefined;
  let more = false;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(MAIN_TABLE),
        IndexName: 'gsi1',
        KeyConditionExpression: '#pk = :pk AND #sk > :after',
        FilterExpression: '#seq > :cursor OR #state = :pending',
        ExpressionAttributeNames: { '#pk': 'gsi1pk', '#sk': 'gsi1sk', '#seq': 'seq', '#state': 'syncState' },
        ExpressionAttributeValues: {
          ':pk': facesPartition(tenantId, deviceKey),
          ':after': seqKey(Math.max(0, cursor - LOOKBACK)),
          ':cursor': cursor,
          ':pending': 'pending',
        },
        ExclusiveStartKey: start,
        Limit: limit + LOOKBACK,
      }),
    );
    for (const item of (page.Items ?? []) as Authority[]) {
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(item);
    }
    start = page.LastEvaluatedKey;
    if (items.length === limit && start) more = true;
  } while (start && !more);
  return { items, more };
}

/**
 * What the device reports: a result counts only for the change it was given (`seq`); a newer
 * change meanwhile keeps its pending state. A confirmed removal of a revoked authorization deletes it.
 * A page of results is read with one batch read and written in transactions of up to RESULT_CHUNK
 * changes with the device's counts summed; a transaction cancelled because an authorization
 * changed since it was read writes each of its results on its own. Answers the results that
 * changed an authorization's state (a result sent again changes nothing).
 */
export async function recordResults(tenantId: string, deviceKey: string, results: FaceResult[]): Promise<FaceResult[]> {
  const now = nowIso();
  const keyOf = (r: Pick<FaceResult, 'personKey' | 'list'>) => ({ tenantId, personKey: r.personKey, setType: SET_TYPE_OF_LIST[r.list], deviceKey });
  const id = (personKey: string, setType: SetType) => `${personKey}#${setType}`;
  // One result per authorization (a page names each once; a repeated one is the same answer).
  const unique = [...new Map(results.map((r) => [id(r.personKey, SET_TYPE_OF_LIST[r.list]), r])).values()];
  const found = (await finishBatch('authorities read', unique.map(keyOf), (part) => authorities().get(part).go({ concurrency: 2 }))) as Authority[];
  const current = new Map(found.map((a) => [id(a.personKey, a.setType), a]));
  const changes: { result: FaceResult; item: Authority }[] = [];
  for (const result of unique) {
    const item = current.get(id(result.personKey, SET_TYPE_OF_LIST[result.list]));
    if (item && item.seq === result.seq) changes.push({ result, item });
  }
  const single = changes.filter((c) => c.item.revoked && c.result.state === 'synced');
  const batched = changes.filter((c) => !single.includes(c));
  // A removal the terminal confirmed: the revoked authorization goes, if still that change.
  await pool(single, 8, (c) => recordResult(tenantId, deviceKey, c.result, now));
  for (let i = 0; i < batched.length; i += RESULT_CHUNK) {
    const chunk = batched.slice(i, i + RESULT_CHUNK);
    const delta = countDelta(undefined, undefined);
    const updates = chunk.map(({ result, item }) => {
      countDelta(item, { ...item, syncState: result.state }, delta);
      return transactUpdate(resultUpdate(keyOf(result), result, now).params());
    });
    const counts = countUpdate(tenantId, deviceKey, delta);
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: counts ? [...updates, counts] : updates }));
    } catch (error) {
      // An authorization changed since it was read (granted again, revoked) or a conflict: each result on its own.
      if (!isConditionFailure(error)) throw error;
      await pool(chunk, 8, (c) => recordResult(tenantId, deviceKey, c.result, now));
    }
  }
  return changes.filter((c) => c.item.syncState !== c.result.state).map((c) => c.result);
}

/** Results written in one transaction with the device's counts (a transaction holds 100 writes). */
const RESULT_CHUNK = 99;

/** The change a result makes to its authorization, conditioned on it still being the change the terminal answered (`seq`). */
function resultUpdate(key: { tenantId: string; personKey: string; setType: SetType; deviceKey: string }, result: FaceResult, now: string) {
  const failed = result.state === 'failed';
  const update = authorities().patch(key).set({ syncState: result.state, syncAt: now });
  const withReason = failed && result.reason ? update.set({ syncReason: result.reason }) : update.remove(['syncReason']);
  return (failed && result.detail ? withReason.set({ syncDetail: result.detail }) : withReason.remove(['syncDetail'])).where((attr, op) =>
    op.eq(attr.seq, result.seq),
  );
}

/** One result on its own: read, then its change and the device's counts together (or the revoked authorization deleted). A conflict with another transaction is tried again. */
async function recordResult(tenantId: string, deviceKey: string, result: FaceResult, now: string, attempt = 1): Promise<void> {
  const key = { tenantId, personKey: result.personKey, setType: SET_TYPE_OF_LIST[result.list], deviceKey };
  try {
    const item = (await authorities().get(key).go({ consistent: true })).data as Authority | null;
    if (!item || item.seq !== result.seq) return;
    if (item.revoked && result.state === 'synced') {
      await authorities()
        .delete(key)
        .where((attr, op) => op.eq(attr.seq, result.seq))
        .go();
      return;
    }
    // The state and the device's counts change together, or neither does.
    const counts = countUpdate(tenantId, deviceKey, countDelta(item, { ...item, syncState: result.state }));
    const update = resultUpdate(key, result, now);
    if (counts) await dynamo().send(new TransactWriteCommand({ TransactItems: [transactUpdate(update.params()), counts] }));
    else await update.go();
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    if (attempt < 5 && reasons.some((r) => r.Code === 'TransactionConflict' || r.Code === 'ThrottlingError')) {
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * (0.5 + Math.random())));
      return recordResult(tenantId, deviceKey, result, now, attempt + 1);
    }
    if (!isConditionFailure(error)) throw error;
  }
}
