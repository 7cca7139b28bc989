import type { CallItem, CallParty, IntercomItem, RecordingState } from '#contract/intercom';
import type { IntercomKind } from '#contract/devices';
import { findDevice, kindOf, type Device } from '#data/devices';
import { callKeyOf, endsOf, noteRecordingArrived, type CallEnd, type CallRecord } from '#data/intercomCalls';
import { pool } from '#lib/pool';
import { objectExists } from '#lib/storage';

/** A call reported live and never ended is shown live for at most this long after it started. */
export const CALL_LIVE_MAX_MS = 2 * 3600_000;

export function intercomJson(device: Device): IntercomItem {
  return {
    deviceKey: device.deviceKey,
    kind: kindOf(device) as IntercomKind,
    name: device.name,
    number: device.number ?? null,
    serial: device.serial,
    model: device.model ?? '',
    online: device.online,
    signal: device.signal ?? null,
    networkTime: device.connectedAt ?? null,
    clientName: device.clientName ?? '',
    lastSeenAt: device.lastSeenAt ?? null,
    appVersion: device.appVersion,
    ip: device.ip,
    mac: device.mac,
    firmware: device.firmware,
    createTime: device.createdAt,
    version: device.version,
  };
}

/** Ringing or talking now: an end reported it live, not so long ago that its end must have been lost. */
export const isLive = (call: CallRecord, now = Date.now()): boolean => endsOf(call).some((e) => e.live) && now - Date.parse(call.startTime) < CALL_LIVE_MAX_MS;

/** When the call was answered: the first answer either end reported. */
export const answerTimeOf = (call: CallRecord): string | undefined =>
  endsOf(call)
    .map((e) => e.answerTime)
    .filter((t): t is string => !!t)
    .sort()[0];

/** The intercoms at the two ends: the calling end's and the called end's, each reported or named by the other end. */
export function endKeysOf(call: CallRecord): { calling?: string; called?: string } {
  const calling = call.calling?.deviceKey ?? call.called?.peerKey;
  const called = call.called?.deviceKey ?? call.calling?.peerKey;
  return { ...(calling ? { calling } : {}), ...(called ? { called } : {}) };
}

/** The door station of a call, if one of its ends is a door station. */
export function doorStationOf(...devices: (Device | undefined)[]): Device | undefined {
  return devices.find((d) => d && kindOf(d) === 'doorStation');
}

function recordingState(end: CallEnd, now: number): RecordingState {
  if (!end.recordingKey || end.status === 3) return 'none';
  if (end.recordingUntil && Date.parse(end.recordingUntil) <= now) return 'expired';
  return end.recordingAt ? 'ready' : 'pending';
}

/** The end whose recording is the call's: one that is ready, else one still to come, the called end's first. */
export function recordingEndOf(call: CallRecord, now = Date.now()): CallEnd | undefined {
  const ends = [call.called, call.calling].filter((e): e is CallEnd => !!e && recordingState(e, now) !== 'none');
  return ends.find((e) => recordingState(e, now) === 'ready') ?? ends.find((e) => recordingState(e, now) === 'pending') ?? ends[0];
}

/**
 * Calls as the console shows them, one row per call with both ends and each end's own report.
 * `checkRecordings` looks in the bucket for recordings not yet seen there (and notes the ones
 * that have arrived).
 */
export async function callItems(tenantId: string, calls: CallRecord[], options: { checkRecordings: boolean }): Promise<CallItem[]> {
  const keys = [...new Set(calls.flatMap((c) => [...endsOf(c).map((e) => e.deviceKey), ...Object.values(endKeysOf(c))]))];
  const devices = new Map<string, Device | undefined>();
  await pool(keys, 8, async (key) => void devices.set(key, await findDevice(tenantId, key)));
  const now = Date.now();
  if (options.checkRecordings) {
    const waiting = calls.flatMap((call) =>
      endsOf(call)
        .filter((e) => recordingState(e, now) === 'pending')
        .map((end) => ({ call, end })),
    );
    await pool(waiting, 8, async ({ call, end }) => {
      if (!(await objectExists('recordings', tenantId, end.recordingKey!))) return;
      end.recordingAt = new Date().toISOString();
      await noteRecordingArrived(call, end);
    });
  }
  const party = (deviceKey: string | undefined, number: string | undefined): CallParty => {
    const device = deviceKey ? devices.get(deviceKey) : undefined;
    return {
      deviceKey: device ? (deviceKey ?? null) : null,
      name: device?.name ?? null,
      kind: device ? (kindOf(device) as IntercomKind) : null,
      number: device?.number ?? number ?? null,
    };
  };
  const recordingOf = (end: CallEnd | undefined) => {
    const state = end ? recordingState(end, now) : 'none';
    return { state, contentType: state === 'none' ? null : (end!.recordingType ?? null), size: state === 'none' ? null : (end!.recordingSize ?? null) };
  };
  return calls.map((call) => {
    const ends = endsOf(call);
    const keys = endKeysOf(call);
    const live = isLive(call, now);
    const answerTime = answerTimeOf(call);
    const endTimes = ends.map((e) => e.endTime).filter((t): t is string => !!t);
    const durations = ends.filter((e) => !e.live && e.duration !== undefined).map((e) => e.duration!);
    const doorTimes = [call.doorOpenedAt, ...ends.map((e) => e.doorOpenedAt)].filter((t): t is string => !!t).sort();
    const stations = doorStationOf(keys.calling ? devices.get(keys.calling) : undefined, keys.called ? devices.get(keys.called) : undefined);
    return {
      callKey: callKeyOf(call),
      callId: call.callId,
      status: call.status,
      callTime: ends.map((e) => e.startTime).sort()[0] ?? call.startTime,
      answerTime: answerTime ?? null,
      endTime: ends.some((e) => e.live) || endTimes.length === 0 ? null : endTimes.sort().at(-1)!,
      duration: ends.some((e) => e.live) || durations.length === 0 ? null : Math.max(...durations),
      live,
      calling: party(keys.calling, call.called?.peerNumber),
      called: party(keys.called, call.calling?.peerNumber),
      doorOpenedAt: doorTimes[0] ?? null,
      canOpenDoor: live && !!answerTime && !!stations,
      recording: recordingOf(recordingEndOf(call, now)),
      ends: ends.map((end) => {
        const device = devices.get(end.deviceKey);
        return {
          deviceKey: end.deviceKey,
          deviceName: device?.name ?? '',
          kind: device ? (kindOf(device) as IntercomKind) : null,
          direction: end.direction,
          status: end.status,
          startTime: end.startTime,
          answerTime: end.answerTime ?? null,
          endTime: end.endTime ?? null,
          duration: end.live ? null : (end.duration ?? null),
          live: end.live && live,
          peerNumber: end.peerNumber,
          doorOpenedAt: end.doorOpenedAt ?? null,
          recording: recordingOf(end),
          reportedAt: end.time,
        };
      }),
    };
  });
}
