import type { z } from 'zod';
import {
  RECORDING_MAX_BYTES,
  RECORDING_TYPES,
  callUp,
  callsMessage,
  deviceTopics,
  openDoorRequest,
  thingName,
  type CallsAckMessage,
  type RecordingType,
} from '#contract/protocol';
import { findDevice, isIntercom, kindOf, type Device } from '#data/devices';
import { callStatus, endsOf, findCall, storeCallEnd, type CallEnd } from '#data/intercomCalls';
import { callEvent } from './webhookProducers.ts';
import { openDoorDuringCall } from './openDoor.ts';
import { intercomByNumber } from '#data/intercoms';
import { privacySettings, retentionTtl } from '#data/settings';
import { publish } from '#lib/iot';
import { log } from '#lib/log';
import { pool } from '#lib/pool';
import { objectExists, presignedPut } from '#lib/storage';
import { issuesLine } from './records.ts';

/**
 * `pc/<thing>/calls`: calls an intercom reports, each checked on its own (a malformed one is
 * answered in `refused`, the rest go on), stored as this end's report of the call, one item per
 * call id whichever end reports first (data/intercomCalls.ts), ended once, and answered with one
 * ack on `pc/<thing>/calls/ack`.
 *
 * Decisions:
 * - The other end is named by its number; the company's intercom with that number when the call
 *   is stored is kept with it (a number given to another intercom later does not rewrite history).
 * - A recording is wanted for an ended, connected call, of a type of RECORDING_TYPES and at most
 *   RECORDING_MAX_BYTES; any other announcement is answered `recordingRefused` and gets no link.
 *   The link is signed over the announced size and type, so S3 refuses any other body.
 * - A recording is kept for the privacy settings' recording retention from when the call is
 *   stored (`recordingUntil`; the retention sweep deletes the object), the call itself for the
 *   longer of that and the pass-record retention.
 * - A message from a device that is gone, or from a face terminal, is dropped with a log line.
 * - A report of a call whose end of that direction another intercom already reported is refused
 *   (`callId: another intercom already reported…`): a call has one calling and one called end.
 * - The `call.record` webhook goes once the call has ended at every end that reported it.
 */

const FUTURE_SLACK_MS = 24 * 3600_000;
/** How long an upload link lasts: an intercom uploads right after the ack, or after its next resend. */
const UPLOAD_SECONDS = 900;
const STORE_WIDTH = 8;

const extensionOf = (type: RecordingType): string => (type === 'audio/ogg' ? 'ogg' : 'wav');

/** Why an announced recording is not wanted, else undefined. */
function recordingRefusal(call: z.output<typeof callUp>): string | undefined {
  const recording = call.recording;
  if (!recording) return undefined;
  if (call.endTime === undefined) return 'recording: announce it once the call has ended';
  if (call.status === 3) return 'recording: a call that was not connected has no recording';
  if (!(RECORDING_TYPES as readonly string[]).includes(recording.contentType)) return `recording.contentType: must be one of ${RECORDING_TYPES.join(', ')}`;
  if (recording.size > RECORDING_MAX_BYTES) return `recording.size: at most ${RECORDING_MAX_BYTES} bytes`;
  return undefined;
}

async function uploadOf(tenantId: string, end: CallEnd): Promise<{ url: string; headers: Record<string, string> } | undefined> {
  if (!end.recordingKey || !end.recordingType || !end.recordingSize) return undefined;
  const url = await presignedPut('recordings', tenantId, end.recordingKey, end.recordingType, UPLOAD_SECONDS, { contentLength: end.recordingSize });
  return { url, headers: { 'content-type': end.recordingType, 'content-length': String(end.recordingSize) } };
}

export async function ingestCalls(tenantId: string, deviceKey: string, message: unknown): Promise<void> {
  const parsed = callsMessage.safeParse(message);
  if (!parsed.success) {
    const entries = Array.isArray((message as { calls?: unknown }).calls) ? ((message as { calls: unknown[] }).calls as unknown[]) : [];
    const ids = entries
      .map((e) => (e as { callId?: unknown } | null)?.callId)
      .filter((id): id is string => typeof id === 'string' && id.length > 0)
      .map((id) => id.slice(0, 64));
    if (ids.length > 0)
      await publish(deviceTopics(thingName(tenantId, deviceKey)).callsAck, {
        stored: [],
        refused: ids.map((callId) => ({ callId, reason: issuesLine(parsed.error) })),
      } satisfies CallsAckMessage);
    throw parsed.error;
  }
  const device = await findDevice(tenantId, deviceKey);
  if (!device || !isIntercom(device)) {
    log('warn', 'calls from a device that is not an intercom of the company', { tenantId, deviceKey, known: !!device });
    return;
  }
  const privacy = await privacySettings(tenantId);
  const now = new Date();
  const ack: CallsAckMessage = { stored: [], refused: [] };
  const checked: z.output<typeof callUp>[] = [];
  for (const entry of parsed.data.calls) {
    const result = callUp.safeParse(entry);
    const callId = typeof (entry as { callId?: unknown })?.callId === 'string' ? String((entry as { callId: string }).callId).slice(0, 64) : '';
    let reason: string | undefined;
    if (!result.success) reason = issuesLine(result.error);
    else if (result.data.startTime > now.getTime() + FUTURE_SLACK_MS) reason = 'startTime: in the future';
    if (reason !== undefined || !result.success) {
      log('warn', 'call refused', { tenantId, deviceKey, callId, reason });
      ack.refused.push({ callId, reason: reason ?? 'invalid' });
      continue;
    }
    checked.push(result.data);
  }

  // The other ends, once per number of the message.
  const peers = new Map<string, Device | undefined>();
  await pool([...new Set(checked.map((c) => c.peer.number))], STORE_WIDTH, async (number) => void peers.set(number, await intercomByNumber(tenantId, number)));

  const recordingDays = privacy.retentionDays.recordings;
  const ttl = Math.max(retentionTtl(privacy, 'passRecords', now), retentionTtl(privacy, 'recordings', now));
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const reporterIsMonitor = kindOf(device) === 'indoorMonitor';
  const answers = await pool(checked, STORE_WIDTH, async (up) => {
    const refusal = recordingRefusal(up);
    if (refusal) log('info', 'recording not wanted', { tenantId, deviceKey, callId: up.callId, refusal });
    const recording = up.recording && !refusal ? { contentType: up.recording.contentType as RecordingType, size: up.recording.size } : undefined;
    const peer = peers.get(up.peer.number);
    const callerIsMonitor = up.direction === 'outgoing' ? reporterIsMonitor : !!peer && kindOf(peer) === 'indoorMonitor';
    const end: CallEnd = {
      deviceKey,
      direction: up.direction,
      status: up.status,
      startTime: iso(up.startTime)!,
      ...(up.answerTime !== undefined ? { answerTime: iso(up.answerTime)! } : {}),
      ...(up.endTime !== undefined ? { endTime: iso(up.endTime)! } : {}),
      ...(up.endTime !== undefined && up.status !== 3 ? { duration: up.duration ?? 0 } : {}),
      live: up.endTime === undefined,
      peerNumber: up.peer.number,
      ...(peer && peer.deviceKey !== deviceKey ? { peerKey: peer.deviceKey } : {}),
      ...(up.doorOpenedAt !== undefined ? { doorOpenedAt: iso(up.doorOpenedAt)! } : {}),
      ...(recording
        ? {
            recordingKey: `recording/${new Date().toISOString().slice(0, 10)}/${deviceKey}/${up.callId}.${extensionOf(recording.contentType)}`,
            recordingType: recording.contentType,
            recordingSize: recording.size,
            recordingUntil: new Date(now.getTime() + recordingDays * 86_400_000).toISOString(),
          }
        : {}),
      time: now.toISOString(),
    };
    try {
      const outcome = await storeCallEnd({ tenantId, callId: up.callId, end, answeredStatus: callStatus(callerIsMonitor), ttl });
      if (outcome.stored === 'taken') {
        const reason = `callId: another intercom already reported this call as its ${outcome.end.direction} end`;
        log('warn', 'call refused', { tenantId, deviceKey, callId: up.callId, reason });
        return { refused: { callId: up.callId, reason } };
      }
      const stored = outcome.end;
      const endedNow = outcome.stored === 'ended' || ((outcome.stored === 'new' || outcome.stored === 'joined') && !stored.live);
      if (endedNow && !endsOf(outcome.call).some((e) => e.live && e.deviceKey !== deviceKey)) await callEvent(outcome.call);
      const answer: CallsAckMessage['stored'][number] = { callId: up.callId };
      if (refusal) answer.recordingRefused = refusal;
      if (stored.recordingKey && !stored.live) {
        if (stored.recordingAt || (outcome.stored === 'duplicate' && (await objectExists('recordings', tenantId, stored.recordingKey))))
          answer.recordingStored = true;
        else {
          const link = await uploadOf(tenantId, stored);
          if (link) answer.upload = link;
        }
      }
      return { stored: answer };
    } catch (error) {
      // Neither stored nor refused: the intercom sends it again.
      log('error', 'call not stored', { tenantId, deviceKey, callId: up.callId, error: String(error) });
      return undefined;
    }
  });
  for (const answer of answers) {
    if (answer?.refused) ack.refused.push(answer.refused);
    else if (answer?.stored) ack.stored.push(answer.stored);
  }
  if (ack.stored.length > 0 || ack.refused.length > 0) await publish(deviceTopics(thingName(tenantId, deviceKey)).callsAck, ack);
}

/**
 * `pc/<thing>/calls/open`: an indoor monitor in a live, answered call with a door station of
 * the company asks for its door. The monitor's word is not enough: the door station's own record
 * of that call must be live and answered, with this monitor at its other end, so a monitor cannot
 * open a station that never rang it. Anything else is refused into the monitor's log, and no door opens.
 */
export async function ingestOpenDoor(tenantId: string, deviceKey: string, message: unknown): Promise<string | undefined> {
  const { callId } = openDoorRequest.parse(message);
  const monitor = await findDevice(tenantId, deviceKey);
  if (!monitor || kindOf(monitor) !== 'indoorMonitor') return 'only an indoor monitor may ask for a door';
  const call = await findCall(tenantId, callId);
  const mine = call && [call.calling, call.called].find((e) => e?.deviceKey === deviceKey);
  if (!call || !mine) return `callId: no call ${callId} of this monitor is stored; report the call first`;
  if (!mine.live || !mine.answerTime) return 'callId: the call is not live and answered';
  const station = mine.peerKey ? await findDevice(tenantId, mine.peerKey) : undefined;
  if (!station || kindOf(station) !== 'doorStation') return 'callId: the other end of the call is not a door station';
  const own = [call.calling, call.called].find((e) => e?.deviceKey === station.deviceKey);
  if (!own || !own.live || !own.answerTime || own.peerKey !== deviceKey)
    return 'callId: the door station reports no live call with this monitor that was answered';
  if (!station.online) return 'the door station is offline';
  await openDoorDuringCall(station, callId, deviceKey);
  return undefined;
}
