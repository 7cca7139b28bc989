import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CallStatus, RecordingType } from '#contract/protocol';
import { dynamo } from '#lib/aws';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { isConditionFailure } from './entity.ts';
import { HIGH, decodeCursor, readNewestFirst } from './newestFirst.ts';
import { CALL, CALL_MARKER, LEGACY_CALL_MARKER } from './keys/events.ts';

/**
 * Intercom calls in the events table, under the tenant's partition, one item per call: both ends
 * report a call under the same call id (docs/device-protocol.md), and both reports land in it.
 *
 * - the call:    `call#<start ISO>#<callId>` (a range of days is one key range, read newest first),
 *                with each end's report in its slot: `calling` (the end that reported `outgoing`)
 *                and `called` (`incoming`), `parties` (the intercoms at either end, for the
 *                filter by intercom) and `status`, the call's as a row shows it;
 * - its marker:  `callid#<callId>`, written only if absent, together with the call: what makes
 *                two ends reporting at once still one item, and what finds the call by its id.
 *
 * The first report of a call writes it; the other end's first report fills its empty slot (a
 * conditional update, so whichever comes second joins the call, and the two at once are one item
 * with both). A slot reported while it rings is stored `live`; the report that it was answered
 * updates it once, and the report of its end once (conditional on the slot's `live` and
 * `answerTime`), so a report sent again, or late, changes nothing. A slot held by another
 * intercom is not taken over.
 *
 * Calls stored before (one item per reporting intercom, `call#<start>#<deviceKey>#<callId>` with
 * the marker `callid#<deviceKey>#<callId>`) are read as calls with one end until retention ends them.
 */
export type CallSlot = 'calling' | 'called';

/** One end's report of a call, as that intercom saw it. */
export interface CallEnd {
  deviceKey: string;
  direction: 'incoming' | 'outgoing';
  status: CallStatus;
  /** ISO times. */
  startTime: string;
  answerTime?: string;
  endTime?: string;
  duration?: number;
  live: boolean;
  peerNumber: string;
  /** The company's intercom with that number when the report was stored. */
  peerKey?: string;
  doorOpenedAt?: string;
  /** Where this end's recording goes (recordings bucket, under the tenant's prefix), when one is wanted. */
  recordingKey?: string;
  recordingType?: RecordingType;
  recordingSize?: number;
  /** Set once the recording was seen in the bucket. */
  recordingAt?: string;
  /** After this the recording is gone (privacy settings' recording retention at the time it was stored). */
  recordingUntil?: string;
  /** When the cloud stored the report. */
  time: string;
}

export interface CallRecord {
  tenantId: string;
  callId: string;
  /** The start the first report gave (the call's place in the list). */
  startTime: string;
  /** Not connected (3) until an end reports it answered; then as the calling end's kind says (see callStatus). */
  status: CallStatus;
  /** The intercom that reported the call first: the call's key in the API is `<firstKey>.<callId>`. */
  firstKey: string;
  calling?: CallEnd;
  called?: CallEnd;
  /** The company's intercoms at either end. */
  parties: string[];
  /** When a door opened during the call, as the station's command result said (the earliest). */
  doorOpenedAt?: string;
  ttl: number;
  sk: string;
  /** Stored before ends were merged: the item is that one end's report. */
  legacy?: true;
}

/** One end's report to store, with what the call's row needs from it. */
export interface CallReport {
  tenantId: string;
  callId: string;
  end: CallEnd;
  /** The call's status once answered (callStatus). */
  answeredStatus: 1 | 2;
  ttl: number;
}

export type CallOutcome = {
  /** `new`: the call's first report; `joined`: the other end's first; `taken`: the slot is another intercom's (nothing stored). */
  stored: 'new' | 'joined' | 'answered' | 'ended' | 'duplicate' | 'taken';
  call: CallRecord;
  /** This end as stored. */
  end: CallEnd;
};

const table = () => tableName(EVENTS_TABLE);

export const slotOf = (direction: CallEnd['direction']): CallSlot => (direction === 'outgoing' ? 'calling' : 'called');
export const endsOf = (call: CallRecord): CallEnd[] => [call.calling, call.called].filter((e): e is CallEnd => !!e);
export const callKeyOf = (call: Pick<CallRecord, 'firstKey' | 'callId'>): string => `${call.firstKey}.${call.callId}`;

/**
 * A call's status as its row shows it: not connected until an end answered; then incoming (1)
 * when the call came from a door station or from outside the company, outgoing (2) when one of
 * the company's indoor monitors made it.
 */
export const callStatus = (callerIsIndoorMonitor: boolean): 1 | 2 => (callerIsIndoorMonitor ? 2 : 1);

const END_FIELDS = ['direction', 'status', 'startTime', 'answerTime', 'endTime', 'duration', 'live', 'peerNumber', 'peerKey', 'doorOpenedAt'] as const;
const RECORDING_FIELDS = ['recordingKey', 'recordingType', 'recordingSize', 'recordingAt', 'recordingUntil'] as const;

/** A stored item as a call: a call item as it is, a legacy one as a call with its one end. */
function callOf(item: Record<string, unknown>): CallRecord {
  const parties = item.parties instanceof Set ? [...(item.parties as Set<string>)] : ((item.parties as string[] | undefined) ?? []);
  if (item.calling || item.called) return { ...(item as unknown as CallRecord), parties };
  const legacy = item as Record<string, unknown> & { deviceKey: string; direction: CallEnd['direction'] };
  const end = { deviceKey: legacy.deviceKey, time: String(legacy.time) } as CallEnd;
  for (const field of [...END_FIELDS, ...RECORDING_FIELDS]) if (legacy[field] !== undefined) (end as unknown as Record<string, unknown>)[field] = legacy[field];
  return {
    tenantId: String(legacy.tenantId),
    callId: String(legacy.callId),
    startTime: String(legacy.startTime),
    status: legacy.status as CallStatus,
    firstKey: legacy.deviceKey,
    [slotOf(legacy.direction)]: end,
    parties: [legacy.deviceKey, ...(typeof legacy.peerKey === 'string' ? [legacy.peerKey] : [])],
    ...(typeof legacy.doorOpenedAt === 'string' ? { doorOpenedAt: legacy.doorOpenedAt } : {}),
    ttl: Number(legacy.ttl),
    sk: String(legacy.sk),
    legacy: true,
  };
}

const partiesOf = (end: CallEnd): Set<string> => new Set([end.deviceKey, ...(end.peerKey ? [end.peerKey] : [])]);

/**
 * Stores one end's report of a call (see the module's comment). Answers what happened, the call
 * as stored and this end as stored.
 */
export async function storeCallEnd(report: CallReport): Promise<CallOutcome> {
  const { tenantId, callId, end } = report;
  const slot = slotOf(end.direction);
  const status: CallStatus = end.answerTime ? report.answeredStatus : 3;
  const sk = CALL.of(end.startTime, callId);
  const call: CallRecord = {
    tenantId,
    callId,
    startTime: end.startTime,
    status,
    firstKey: end.deviceKey,
    [slot]: end,
    parties: [...partiesOf(end)],
    ttl: report.ttl,
    sk,
  };
  const write = () =>
    dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table(),
              Item: { pk: tenantId, sk: CALL_MARKER.of(callId), kind: 'callMarker', callSk: sk, ttl: report.ttl },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          { Put: { TableName: table(), Item: { ...call, pk: tenantId, kind: 'call', parties: partiesOf(end) } } },
        ],
      }),
    );
  for (let attempt = 0; ; attempt++) {
    try {
      await write();
      return { stored: 'new', call, end };
    } catch (error) {
      if (isTransactionConditionFailure(error)) break;
      // The other end's first report is being written at this moment: it is stored in a moment.
      if (!isTransactionConflict(error) || attempt >= 4) throw error;
      await pause(attempt);
    }
  }
  // The call is stored: this end joins it, or moves its own slot on. A write that lost a race reads again.
  for (let attempt = 0; attempt < 20; attempt++) {
    const existing = await findCall(tenantId, callId);
    if (!existing) throw new Error('call marker without its call');
    const held = existing[slot];
    const names: Record<string, string> = { '#slot': slot };
    const values: Record<string, unknown> = {};
    const set: string[] = [];
    let condition: string;
    let stored: CallOutcome['stored'];
    if (!held) {
      stored = 'joined';
      set.push('#slot = :end');
      values[':end'] = end;
      condition = 'attribute_not_exists(#slot)';
    } else if (held.deviceKey !== end.deviceKey) {
      return { stored: 'taken', call: existing, end: held };
    } else if (!held.live || (end.live && (!end.answerTime || held.answerTime))) {
      return { stored: 'duplicate', call: existing, end: held };
    } else if (end.live) {
      stored = 'answered';
      set.push('#slot.#st = :st', '#slot.#at = :at');
      Object.assign(names, { '#st': 'status', '#at': 'answerTime', '#live': 'live' });
      Object.assign(values, { ':st': end.status, ':at': end.answerTime, ':true': true });
      condition = '#slot.#live = :true AND attribute_not_exists(#slot.#at)';
    } else {
      stored = 'ended';
      set.push('#slot = :end');
      names['#live'] = 'live';
      Object.assign(values, { ':end': end, ':true': true });
      condition = '#slot.#live = :true';
    }
    if (end.answerTime) {
      set.push('#status = :status');
      names['#status'] = 'status';
      values[':status'] = report.answeredStatus;
    }
    names['#parties'] = 'parties';
    values[':parties'] = partiesOf(end);
    try {
      const out = await dynamo().send(
        new UpdateCommand({
          TableName: table(),
          Key: { pk: tenantId, sk: existing.sk },
          UpdateExpression: `SET ${set.join(', ')} ADD #parties :parties`,
          ConditionExpression: `attribute_exists(pk) AND ${condition}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      const now = callOf(out.Attributes!);
      return { stored, call: now, end: now[slot]! };
    } catch (error) {
      if (isTransactionConflict(error)) await pause(attempt);
      else if (!isConditionFailure(error)) throw error;
    }
  }
  // Neither stored nor refused: the intercom sends it again.
  throw new Error('call report not stored: other writes of the call kept winning');
}

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 20 * (attempt + 1) + Math.random() * 30));

/** A write that met a transaction under way on the same item (DynamoDB refuses rather than waits). */
function isTransactionConflict(error: unknown): boolean {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (error as { name?: string }).name === 'TransactionConflictException' || (!!reasons && reasons.some((r) => r.Code === 'TransactionConflict'));
}

function isTransactionConditionFailure(error: unknown): boolean {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return !!reasons && reasons[0]?.Code === 'ConditionalCheckFailed';
}

async function itemAt(tenantId: string, markerSk: string): Promise<CallRecord | undefined> {
  const marker = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: markerSk }, ConsistentRead: true }));
  if (!marker.Item) return undefined;
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: String(marker.Item.callSk) }, ConsistentRead: true }));
  return out.Item ? callOf(out.Item) : undefined;
}

/** One call by its id, through its marker. */
export async function findCall(tenantId: string, callId: string): Promise<CallRecord | undefined> {
  return itemAt(tenantId, CALL_MARKER.of(callId));
}

/** One call by its key (`<deviceKey>.<callId>`, the key of either end): a call stored before ends were merged by its own marker. */
export async function findCallByKey(tenantId: string, callKey: string): Promise<CallRecord | undefined> {
  const dot = callKey.indexOf('.');
  if (dot < 0) return undefined;
  const deviceKey = callKey.slice(0, dot);
  const callId = callKey.slice(dot + 1);
  const call = await findCall(tenantId, callId);
  if (call && (call.firstKey === deviceKey || endsOf(call).some((e) => e.deviceKey === deviceKey))) return call;
  return itemAt(tenantId, LEGACY_CALL_MARKER.of(deviceKey, callId));
}

/** Notes when the door opened during the call (the earliest time wins); false when the call is not stored. */
export async function noteDoorOpened(tenantId: string, callId: string, at: string): Promise<boolean> {
  const call = await findCall(tenantId, callId);
  if (!call) return false;
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: tenantId, sk: call.sk },
        UpdateExpression: 'SET #d = :d',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#d) OR #d > :d)',
        ExpressionAttributeNames: { '#d': 'doorOpenedAt' },
        ExpressionAttributeValues: { ':d': at },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  return true;
}

/** Notes that an end's recording arrived in the bucket. */
export async function noteRecordingArrived(call: CallRecord, end: CallEnd, at = new Date()): Promise<void> {
  const legacy = !!call.legacy;
  const slot = call.calling?.deviceKey === end.deviceKey ? 'calling' : 'called';
  await dynamo()
    .send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: call.tenantId, sk: call.sk },
        UpdateExpression: legacy ? 'SET #r = :r' : 'SET #slot.#r = :r',
        ConditionExpression: legacy ? 'attribute_exists(pk)' : 'attribute_exists(#slot)',
        ExpressionAttributeNames: { '#r': 'recordingAt', ...(legacy ? {} : { '#slot': slot }) },
        ExpressionAttributeValues: { ':r': at.toISOString() },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

// Lists

export interface CallFilter {
  /** The range of start times, inclusive (ISO). */
  fromIso: string;
  toIso: string;
  /** Calls with this intercom at either end. */
  deviceKey?: string;
  status?: CallStatus;
}

/** One list request reads at most this many items when a filter skips most of them; the cursor goes on from there. */
export const CALL_READ_BUDGET = 500;

/**
 * Newest first within the range of start times, one row per call. A filter (status, intercom)
 * reads at most `budget` items per request; the page may then be short, with a cursor that goes
 * on where reading stopped.
 */
export async function listCalls(
  tenantId: string,
  filter: CallFilter,
  pageSize: number,
  cursor?: string,
  budget = CALL_READ_BUDGET,
): Promise<{ items: CallRecord[]; nextCursor: string | null }> {
  const prefix = CALL.prefix();
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filter.status !== undefined) {
    conditions.push('#st = :st');
    names['#st'] = 'status';
    values[':st'] = filter.status;
  }
  if (filter.deviceKey) {
    // `deviceKey` and `peerKey`: the ends of a call stored before ends were merged.
    conditions.push('(contains(#parties, :dk) OR #dk = :dk OR #pk2 = :dk)');
    Object.assign(names, { '#parties': 'parties', '#dk': 'deviceKey', '#pk2': 'peerKey' });
    values[':dk'] = filter.deviceKey;
  }
  const page = await readNewestFirst<Record<string, unknown> & { sk: string }>({
    table: table(),
    partition: { name: 'pk', value: tenantId },
    sortKey: 'sk',
    lower: `${prefix}${filter.fromIso}`,
    upper: `${prefix}${filter.toIso}#${HIGH}`,
    after: cursor ? decodeCursor(cursor, prefix) : undefined,
    ...(conditions.length ? { filter: { conditions, names, values } } : {}),
    pageSize,
    budget,
    keyOf: (last) => last.sk,
  });
  return { items: page.items.map(callOf), nextCursor: page.nextCursor };
}
