import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type SetType } from '#contract/authorities';
import { dynamo } from '#lib/aws';
import { pool } from '#lib/pool';
import { finishBatch, isConditionFailure, nowIso, transactPut, type TransactItem } from './entity.ts';
import { countDelta, countUpdate } from './syncCounts.ts';
import { type Authority, type Bounds, type FacePerson, authorities, definedBounds, notifyDevices, searchText, seqKey, takeSeqs } from './authorities.ts';

/**
 * Grants: people given on devices with one validity, each device's share written in transactions
 * with its counts and sequence numbers, so that every pair becomes a change the device pulls.
 */

/**
 * Grants `people` on each of `devices` with one validity: every pair becomes a change of its
 * device. A pair that exists gets the new validity (and its version goes up). Writes go in
 * batches, each finished to the end (`finishBatch`); a grant that is retried after a failure
 * writes the same items again. `refresh`, when given, answers the people as they are just before
 * each device's share is written (those gone are left out); `onDevice` hears each share written.
 */
export async function grantPairs(
  tenantId: string,
  setType: SetType,
  persons: FacePerson[],
  deviceKeys: string[],
  bounds: Bounds,
  options: { refresh?: (persons: FacePerson[]) => Promise<FacePerson[]>; onDevice?: (pairs: number) => Promise<void> } = {},
): Promise<{ count: number; written: Map<string, FacePerson> }> {
  const now = nowIso();
  let count = 0;
  const written = new Map<string, FacePerson>();
  await pool(deviceKeys, 4, async (deviceKey) => {
    const share = options.refresh ? await options.refresh(persons) : persons;
    if (share.length > 0) {
      await writeShare(tenantId, setType, share, deviceKey, bounds, now);
      count += share.length;
      for (const person of share) written.set(person.personKey, person);
    }
    await options.onDevice?.(share.length);
  });
  return { count, written };
}

/** Authorizations written in one transaction with their device's counts (a transaction holds 100 writes). */
const SHARE_CHUNK = 99;

/**
 * One device's share of a grant: take the sequence numbers, then write in transactions of
 * SHARE_CHUNK, each conditioned on the version read and carrying the change of the device's
 * counts; a part that someone changed meanwhile is read again and written again. Tell the device.
 */
async function writeShare(tenantId: string, setType: SetType, persons: FacePerson[], deviceKey: string, bounds: Bounds, now: string): Promise<void> {
  const first = await takeSeqs(tenantId, deviceKey, persons.length);
  const chunks: { persons: FacePerson[]; first: number }[] = [];
  for (let i = 0; i < persons.length; i += SHARE_CHUNK) chunks.push({ persons: persons.slice(i, i + SHARE_CHUNK), first: first + i });
  await pool(chunks, 4, (chunk) => writeShareChunk(tenantId, setType, chunk.persons, deviceKey, bounds, now, chunk.first));
  // The device may start on its share at once.
  await notifyDevices(tenantId, new Map([[deviceKey, first + persons.length - 1]]));
}

async function writeShareChunk(
  tenantId: string,
  setType: SetType,
  persons: FacePerson[],
  deviceKey: string,
  bounds: Bounds,
  now: string,
  first: number,
): Promise<void> {
  const keys = persons.map((p) => ({ tenantId, personKey: p.personKey, setType, deviceKey }));
  for (let attempt = 0; ; attempt++) {
    const existing = new Map<string, Authority>();
    const found = await finishBatch('authorities read', keys, (part) =>
      authorities()
        .get(part)
        .go({ concurrency: 2, consistent: attempt > 0 }),
    );
    for (const item of found as Authority[]) existing.set(item.personKey, item);
    const delta = countDelta(undefined, undefined);
    const writes: TransactItem[] = persons.map((person, i) => {
      const before = existing.get(person.personKey);
      const seq = first + i;
      const item = {
        tenantId,
        personKey: person.personKey,
        setType,
        deviceKey,
        personKind: person.kind,
        personName: person.name,
        personId: person.personId,
        search: searchText(person),
        ...(person.avatar ? { avatar: person.avatar } : {}),
        personActive: person.active,
        ...definedBounds(bounds),
        revoked: false,
        seq,
        seqKey: seqKey(seq),
        action: person.active ? ('upsert' as const) : ('remove' as const),
        syncState: 'pending' as const,
        syncAt: now,
        createdAt: before && !before.revoked ? before.createdAt : now,
        version: (before?.version ?? 0) + 1,
      };
      countDelta(before, item, delta);
      const put = authorities().put(item);
      return transactPut(
        (before ? put.where((attr, op) => op.eq(attr.version, before.version)) : put.where((attr, op) => op.notExists(attr.personKey))).params(),
      );
    });
    const counts = countUpdate(tenantId, deviceKey, delta);
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: counts ? [...writes, counts] : writes }));
      return;
    } catch (error) {
      if (!isConditionFailure(error) || attempt >= 4) throw error;
    }
  }
}
