import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '#lib/aws';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { type PassRecord, flagPartition, flagsOf, markerKey, punchSk, recordPartition, sparseSk, utcDay, recordSk } from './passRecords.ts';
import { PUNCH, punchPartition } from './keys/events.ts';

const table = () => tableName(EVENTS_TABLE);

/**
 * A person's passes found through their punch partition and stored again without them, as an
 * erasure (flows/erasure.ts) does: the record, its copies and its punch.
 */

/** One pass of a person, as their partition names it. */
export interface PersonPass {
  verifyTime: string;
  deviceKey: string;
  recordId: string;
  /** The person's kind as the pass was stored; passes stored before it was kept are employees' (only they had a partition then). */
  personKind: 'employee' | 'visitor';
}

/** One page of a person's passes (oldest first) after `cursor`, and the cursor of the next page (null at the end). */
export async function passesOf(
  tenantId: string,
  personKey: string,
  cursor: Record<string, unknown> | undefined,
  limit: number,
): Promise<{ passes: PersonPass[]; next: Record<string, unknown> | null }> {
  const out = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :punch)',
      ExpressionAttributeValues: { ':pk': punchPartition(tenantId, personKey), ':punch': PUNCH.prefix() },
      ProjectionExpression: 'sk, personKind',
      Limit: limit,
      ConsistentRead: true,
      ...(cursor ? { ExclusiveStartKey: cursor } : {}),
    }),
  );
  const passes = (out.Items ?? []).flatMap((item) => {
    // punch#<verifyTime ISO>#<deviceKey>#<recordId>: none of the three holds a '#'.
    const [, verifyTime, deviceKey, recordId] = String(item.sk).split('#');
    const personKind = item.personKind === 'visitor' ? ('visitor' as const) : ('employee' as const);
    return verifyTime && deviceKey && recordId ? [{ verifyTime, deviceKey, recordId, personKind }] : [];
  });
  return { passes, next: out.LastEvaluatedKey ?? null };
}

/** What a record keeps of a person, removed when the person is erased. */
const PERSONAL_FIELDS = ['personKey', 'name', 'nameLower', 'temperature', 'captureKey', 'captureType', 'captureSize', 'avatarKey'] as const;

/** What erasing one pass found: the objects it referred to (to be removed by the caller), and whether the record was changed. */
export interface ErasedPass {
  captureKey?: string;
  avatarKey?: string;
  changed: boolean;
}

/**
 * Erases a person from one of their passes: the record and its rare-filter copies keep when,
 * where, the kind of pass and its outcome (the day's counters stay true) and lose who it was,
 * the temperature, the capture and the photo links, and are marked `erased`; the marker forgets
 * the capture; the person's copy of the pass goes. Idempotent: a pass erased before answers
 * `changed: false`.
 */
export async function erasePass(tenantId: string, personKey: string, pass: PersonPass): Promise<ErasedPass> {
  const key = { pk: recordPartition(tenantId, pass), sk: recordSk(pass) };
  const record = (await dynamo().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }))).Item as PassRecord | undefined;
  const result: ErasedPass = { changed: false };
  if (record && record.personKey === personKey) {
    if (record.captureKey) result.captureKey = record.captureKey;
    if (record.avatarKey) result.avatarKey = record.avatarKey;
    const keys = [key, ...flagsOf(record).map((flag) => ({ pk: flagPartition(tenantId, flag, utcDay(record.verifyTime)), sk: sparseSk(flag, record) }))];
    for (const Key of keys) {
      await dynamo()
        .send(
          new UpdateCommand({
            TableName: table(),
            Key,
            UpdateExpression: `SET #erased = :true REMOVE ${PERSONAL_FIELDS.map((_, i) => `#p${i}`).join(', ')}`,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#erased': 'erased', ...Object.fromEntries(PERSONAL_FIELDS.map((f, i) => [`#p${i}`, f])) },
            ExpressionAttributeValues: { ':true': true },
          }),
        )
        .catch((error: unknown) => {
          // A copy already gone (its TTL) needs nothing.
          if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
        });
    }
    await dynamo()
      .send(
        new UpdateCommand({
          TableName: table(),
          Key: markerKey(tenantId, pass.deviceKey, pass.recordId),
          UpdateExpression: 'REMOVE captureKey, captureType, captureSize',
          ConditionExpression: 'attribute_exists(pk)',
        }),
      )
      .catch((error: unknown) => {
        if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
      });
    result.changed = true;
  }
  await dynamo().send(new DeleteCommand({ TableName: table(), Key: { pk: punchPartition(tenantId, personKey), sk: punchSk(pass) } }));
  return result;
}
