import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CallStatus, RecordingType } from '#contract/protocol';
import { dynamo } from '#lib/aws';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { isConditionFailure } from './entity.ts';
import { HIGH, decodeCursor, readNewestFirst } from './newestFirst.ts';
import { CALL, CALL_MARKER, byDeviceSk, callDevicePartition } from './keys/events.ts';

/**
 * Intercom calls in the events table, under the tenant's partition, one record per (reporting
 * intercom, call id):
 *
 * - the call:    `call#<start ISO>#<deviceKey>#<callId>` (a range of days is one key range, read
 *                newest first); gsi1 `<tenantId>#call#<deviceKey>` / `<start ISO>#<callId>` for one
 *                intercom's calls;
 * - its marker:  `callid#<deviceKey>#<callId>`, written only if absent, together with the call:
 *                what makes a call reported twice (or twice at once) stored once, and what finds
 *                the call by its key.
 *
 * A call reported while it rings is stored `live`; the report that it was answered updates it
 * once, and the report of its end once (conditional writes on `live` and `answerTime`), so a
 * report sent again, or late, changes nothing.
 */
export interface CallRecord {
  tenantId: string;
  deviceKey: string;
  callId: string;
  direction: 'incoming' | 'outgoing';
  status: CallStatus;
  /** ISO times. */
  startTime: string;
  answerTime?: string;
  endTime?: string;
  duration?: number;
  live: boolean;
  peerNumber: string;
  /** The company's intercom with that number when the call was stored. */
  peerKey?: string;
  doorOpenedAt?: string;
  /** Where the recording goes (recordings bucket, under the tenant's prefix), when one is wanted. */
  recordingKey?: string;
  recordingType?: RecordingType;
  recordingSize?: number;
  /** Set once the recording was seen in the bucket. */
  recordingAt?: string;
  /** After this the recording is gone (privacy settings' recording retention at the time it was stored). */
  recordingUntil?: string;
  /** When the cloud stored it. */
  time: string;
  ttl: number;
}

const table = () => tableName(EVENTS_TABLE);
const GSI = EVENTS_TABLE.indexes[0]!.name;

export const callSk = (c: Pick<CallRecord, 'startTime' | 'deviceKey' | 'callId'>): string => CALL.of(c.startTime, c.deviceKey, c.callId);
const markerSk = (deviceKey: string, callId: string): string => CALL_MARKER.of(deviceKey, callId);
const devicePartition = callDevicePartition;

export const callKeyOf = (c: Pick<CallRecord, 'deviceKey' | 'callId'>): string => `${c.deviceKey}.${c.callId}`;

export type CallOutcome = { stored: 'new' | 'answered' | 'ended' | 'duplicate'; call: CallRecord };

const ENDING_FIELDS = [
  'status',
  'answerTime',
  'endTime',
  'duration',
  'doorOpenedAt',
  'recordingKey',
  'recordingType',
  'recordingSize',
  'recordingUntil',
] as const;

/**
 * Stores a call as reported. A new call is written with its marker in one transaction; a call
 * stored live and now reported ended takes the ending's fields once; anything else (the same
 * report again, a live report after the end) changes nothing. Answers the call as stored.
 */
export async function storeCall(call: CallRecord): Promise<CallOutcome> {
  const sk = callSk(call);
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: table(),
              Item: { pk: call.tenantId, sk: markerSk(call.deviceKey, call.callId), kind: 'callMarker', callSk: sk, ttl: call.ttl },
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          {
            Put: {
              TableName: table(),
              Item: {
                ...call,
                pk: call.tenantId,
                sk,
                kind: 'call',
                gsi1pk: devicePartition(call.tenantId, call.deviceKey),
                gsi1sk: byDeviceSk(call.startTime, call.callId),
              },
            },
          },
        ],
      }),
    );
    return { stored: 'new', call };
  } catch (error) {
    if (!isTransactionConditionFailure(error)) throw error;
  }
  const existing = await findCall(call.tenantId, call.deviceKey, call.callId);
  if (!existing) throw new Error('call marker without its call');
  if (!existing.live) return { stored: 'duplicate', call: existing };
  if (call.live) return call.answerTime && !existing.answerTime ? answered(existing, call) : { stored: 'duplicate', call: existing };
  const set: string[] = ['#live = :false', '#time = :time'];
  const remove: string[] = [];
  const names: Record<string, string> = { '#live': 'live', '#time': 'time' };
  const values: Record<string, unknown> = { ':false': false, ':true': true, ':time': call.time };
  for (const field of ENDING_FIELDS) {
    names[`#${field}`] = field;
    const value = call[field];
    if (value === undefined) {
      // A door opened during the call (noted from the station's command result) stays noted.
      if (field !== 'doorOpenedAt') remove.push(`#${field}`);
      else delete names[`#${field}`];
    } else if (field === 'doorOpenedAt') {
      // The time noted from the station's command result, when there is one, stays.
      set.push(`#${field} = if_not_exists(#${field}, :${field})`);
      values[`:${field}`] = value;
    } else {
      set.push(`#${field} = :${field}`);
      values[`:${field}`] = value;
    }
  }
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: call.tenantId, sk: existing.sk },
        UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: '#live = :true',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { stored: 'ended', call: out.Attributes as CallRecord };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { stored: 'duplicate', call: (await findCall(call.tenantId, call.deviceKey, call.callId)) ?? existing };
  }
}

/** A live call reported answered: it takes the answer once (a ringing report sent again later changes nothing). */
async function answered(existing: CallRecord & { sk: string }, call: CallRecord): Promise<CallOutcome> {
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: call.tenantId, sk: existing.sk },
        UpdateExpression: 'SET #st = :st, #at = :at',
        ConditionExpression: '#live = :true AND attribute_not_exists(#at)',
        ExpressionAttributeNames: { '#st': 'status', '#at': 'answerTime', '#live': 'live' },
        ExpressionAttributeValues: { ':st': call.status, ':at': call.answerTime, ':true': true },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { stored: 'answered', call: out.Attributes as CallRecord };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return { stored: 'duplicate', call: (await findCall(call.tenantId, call.deviceKey, call.callId)) ?? existing };
  }
}

function isTransactionConditionFailure(error: unknown): boolean {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return !!reasons && reasons[0]?.Code === 'ConditionalCheckFailed';
}

/** One call by its reporting intercom and call id, through its marker. */
export async function findCall(tenantId: string, deviceKey: string, callId: string): Promise<(CallRecord & { sk: string }) | undefined> {
  const marker = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: markerSk(deviceKey, callId) }, ConsistentRead: true }));
  if (!marker.Item) return undefined;
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: String(marker.Item.callSk) }, ConsistentRead: true }));
  return out.Item as (CallRecord & { sk: string }) | undefined;
}

/** One call by its key (`<deviceKey>.<callId>`). */
export async function findCallByKey(tenantId: string, callKey: string): Promise<(CallRecord & { sk: string }) | undefined> {
  const dot = callKey.indexOf('.');
  if (dot < 0) return undefined;
  return findCall(tenantId, callKey.slice(0, dot), callKey.slice(dot + 1));
}

/** Notes when the door opened during the call (the earliest time wins); false when the call is not stored. */
export async function noteDoorOpened(tenantId: string, deviceKey: string, callId: string, at: string): Promise<boolean> {
  const call = await findCall(tenantId, deviceKey, callId);
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

/** Notes that the call's recording arrived in the bucket. */
export async function noteRecordingArrived(call: CallRecord & { sk: string }, at = new Date()): Promise<void> {
  await dynamo()
    .send(
      new UpdateCommand({
        TableName: table(),
        Key: { pk: call.tenantId, sk: call.sk },
        UpdateExpression: 'SET #r = :r',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#r': 'recordingAt' },
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
  deviceKey?: string;
  status?: CallStatus;
}

/** One list request reads at most this many items when a filter skips most of them; the cursor goes on from there. */
export const CALL_READ_BUDGET = 500;

/**
 * Newest first within the range of start times: all the company's calls, or one intercom's
 * through its index. A status filter reads at most `budget` items per request; the page may then
 * be short, with a cursor that goes on where reading stopped.
 */
export async function listCalls(
  tenantId: string,
  filter: CallFilter,
  pageSize: number,
  cursor?: string,
  budget = CALL_READ_BUDGET,
): Promise<{ items: (CallRecord & { sk: string })[]; nextCursor: string | null }> {
  const byDevice = !!filter.deviceKey;
  const prefix = byDevice ? '' : CALL.prefix();
  return readNewestFirst<CallRecord & { sk: string }>({
    table: table(),
    ...(byDevice ? { index: GSI } : {}),
    partition: byDevice ? { name: 'gsi1pk', value: devicePartition(tenantId, filter.deviceKey!) } : { name: 'pk', value: tenantId },
    sortKey: byDevice ? 'gsi1sk' : 'sk',
    lower: `${prefix}${filter.fromIso}`,
    upper: `${prefix}${filter.toIso}#${HIGH}`,
    after: cursor ? decodeCursor(cursor, prefix) : undefined,
    ...(filter.status !== undefined ? { filter: { conditions: ['#st = :st'], names: { '#st': 'status' }, values: { ':st': filter.status } } } : {}),
    pageSize,
    budget,
    keyOf: (last) => (byDevice ? `${last.startTime}#${last.callId}` : last.sk),
  });
}
