import type { CallItem, CallParty, IntercomItem, RecordingState } from '#contract/intercom';
import type { IntercomKind } from '#contract/devices';
import { findDevice, kindOf, type Device } from '#data/devices';
import { noteRecordingArrived, callKeyOf, type CallRecord } from '#data/intercomCalls';
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

/** Ringing or talking now: reported live, and not so long ago that its end must have been lost. */
export const isLive = (call: CallRecord, now = Date.now()): boolean => call.live && now - Date.parse(call.startTime) < CALL_LIVE_MAX_MS;

/** The door station of a call, if one of its ends is a door station. */
export function doorStationOf(call: CallRecord, reporter: Device | undefined, peer: Device | undefined): Device | undefined {
  if (reporter && kindOf(reporter) === 'doorStation') return reporter;
  if (peer && kindOf(peer) === 'doorStation') return peer;
  return undefined;
}

function recordingState(call: CallRecord, now: number): RecordingState {
  if (!call.recordingKey || call.status === 3) return 'none';
  if (call.recordingUntil && Date.parse(call.recordingUntil) <= now) return 'expired';
  return call.recordingAt ? 'ready' : 'pending';
}

/**
 * Calls as the console shows them, with the names of both ends. `checkRecordings` looks in the
 * bucket for recordings not yet seen there (and notes the ones that have arrived).
 */
export async function callItems(tenantId: string, calls: (CallRecord & { sk: string })[], options: { checkRecordings: boolean }): Promise<CallItem[]> {
  const keys = [...new Set(calls.flatMap((c) => [c.deviceKey, ...(c.peerKey ? [c.peerKey] : [])]))];
  const devices = new Map<string, Device | undefined>();
  await pool(keys, 8, async (key) => void devices.set(key, await findDevice(tenantId, key)));
  const now = Date.now();
  const arrived = new Set<string>();
  if (options.checkRecordings) {
    const waiting = calls.filter((c) => recordingState(c, now) === 'pending');
    await pool(waiting, 8, async (call) => {
      if (!(await objectExists('recordings', tenantId, call.recordingKey!))) return;
      arrived.add(call.sk);
      await noteRecordingArrived(call);
    });
  }
  const party = (device: Device | undefined, deviceKey: string | undefined, number: string | undefined): CallParty => ({
    deviceKey: device ? (deviceKey ?? null) : null,
    name: device?.name ?? null,
    kind: device ? (kindOf(device) as IntercomKind) : null,
    number: device?.number ?? number ?? null,
  });
  return calls.map((call) => {
    const reporter = devices.get(call.deviceKey);
    const peer = call.peerKey ? devices.get(call.peerKey) : undefined;
    const self = party(reporter, call.deviceKey, undefined);
    const other = party(peer, call.peerKey, call.peerNumber);
    const live = isLive(call, now);
    const state = arrived.has(call.sk) ? 'ready' : recordingState(call, now);
    return {
      callKey: callKeyOf(call),
      callId: call.callId,
      deviceKey: call.deviceKey,
      deviceName: reporter?.name ?? '',
      direction: call.direction,
      status: call.status,
      callTime: call.startTime,
      answerTime: call.answerTime ?? null,
      endTime: call.endTime ?? null,
      duration: call.live ? null : (call.duration ?? null),
      live,
      calling: call.direction === 'outgoing' ? self : other,
      called: call.direction === 'outgoing' ? other : self,
      doorOpenedAt: call.doorOpenedAt ?? null,
      canOpenDoor: live && !!call.answerTime && !!doorStationOf(call, reporter, peer),
      recording: { state, contentType: state === 'none' ? null : (call.recordingType ?? null), size: state === 'none' ? null : (call.recordingSize ?? null) },
    };
  });
}
