import type { QuestionnaireResultItem } from '#contract/questionnaires';
import type { FaceResult } from '#contract/protocol';
import type { EventData } from '#contract/webhooks';
import { findDevice } from '#data/devices';
import { callKeyOf, type CallRecord } from '#data/intercomCalls';
import { recordKeyOf, type PassRecord } from '#data/passRecords';
import { emitEvent } from '#lib/webhookEvents';
import { callItems } from '#views/intercomItems';

/**
 * Where the modules' events become webhook events (lib/webhookEvents.ts): pass records and what
 * they raise, devices going on and off line, ended calls, abnormal questionnaire answers and
 * faces a terminal could not enrol. Each builds its data only when a subscription wants it.
 */

type DeviceRef = { deviceKey: string; name: string | null; serial: string | null };
/** Devices as events name them, kept DEVICE_TTL_MS: a terminal uploading records is read once, not per record. */
const DEVICE_TTL_MS = 30_000;
const devices = new Map<string, { at: number; ref: Promise<DeviceRef> }>();

/** A device as receivers see it; a deleted one keeps its key only. */
export async function deviceRef(tenantId: string, deviceKey: string, now = Date.now()): Promise<DeviceRef> {
  const key = `${tenantId}#${deviceKey}`;
  let cached = devices.get(key);
  if (!cached || now - cached.at > DEVICE_TTL_MS) {
    cached = { at: now, ref: findDevice(tenantId, deviceKey).then((device) => ({ deviceKey, name: device?.name ?? null, serial: device?.serial ?? null })) };
    devices.set(key, cached);
    if (devices.size > 5000) devices.delete(devices.keys().next().value!);
    cached.ref.catch(() => devices.delete(key));
  }
  return cached.ref;
}

async function recordData(record: PassRecord): Promise<EventData<'pass.record'>> {
  return {
    recordKey: recordKeyOf(record),
    verifyTime: record.verifyTime,
    time: record.time,
    type: record.type,
    device: await deviceRef(record.tenantId, record.deviceKey),
    person: record.type !== 'stranger' && record.personKey ? { personKey: record.personKey, kind: record.personKind ?? null, name: record.name ?? null } : null,
    temperature: record.temperature ?? null,
    fever: record.fever,
    mask: record.mask ?? null,
    passState: record.passState,
    source: record.source,
  };
}

/** Every new pass record, and what it raises: a blacklist hit, a fever, a stranger. */
export async function passEvents(record: PassRecord): Promise<void> {
  let data: Promise<EventData<'pass.record'>> | undefined;
  const once = () => (data ??= recordData(record));
  const source = recordKeyOf(record);
  const types = [
    'pass.record' as const,
    ...(record.type === 'blacklist' ? (['blacklist.hit'] as const) : []),
    ...(record.fever ? (['fever.detected'] as const) : []),
    ...(record.type === 'stranger' ? (['stranger.detected'] as const) : []),
  ];
  await Promise.all(types.map((type) => emitEvent(record.tenantId, type, source, record.verifyTime, once)));
}


/** A device the broker saw connect or disconnect (a change the device record took: not an older event arriving late). */
export async function deviceStateEvent(tenantId: string, deviceKey: string, online: boolean, at: number): Promise<void> {
  const time = new Date(at).toISOString();
  await emitEvent(tenantId, online ? 'device.online' : 'device.offline', `${deviceKey}#${at}`, time, async () => ({ device: await deviceRef(tenantId, deviceKey), online, time }));
}

/** A call that ended at every end that reported it: one event per call (its start is the event's time, the same whichever end ends last). */
export async function callEvent(call: CallRecord): Promise<void> {
  await emitEvent(call.tenantId, 'call.record', callKeyOf(call), call.startTime, async () => {
    const [item] = await callItems(call.tenantId, [call], { checkRecordings: false });
    const first = item!.ends.find((e) => e.deviceKey === call.firstKey) ?? item!.ends[0]!;
    return {
      callKey: item!.callKey,
      device: await deviceRef(call.tenantId, first.deviceKey),
      direction: first.direction,
      status: item!.status,
      callTime: item!.callTime,
      answerTime: item!.answerTime,
      endTime: item!.endTime,
      duration: item!.duration,
      calling: { deviceKey: item!.calling.deviceKey, name: item!.calling.name, number: item!.calling.number },
      called: { deviceKey: item!.called.deviceKey, name: item!.called.name, number: item!.called.number },
      doorOpened: !!item!.doorOpenedAt,
    };
  });
}

/** A questionnaire answer that raised an alarm. */
export async function questionnaireEvent(tenantId: string, item: QuestionnaireResultItem): Promise<void> {
  await emitEvent(tenantId, 'questionnaire.abnormal', item.resultKey, item.answerTime, async () => ({
    resultKey: item.resultKey,
    questionnaireKey: item.questionnaireKey,
    title: item.title,
    answerTime: item.answerTime,
    device: await deviceRef(tenantId, item.deviceKey),
    person: item.person ? { personKey: item.person.personKey, kind: item.person.kind, name: item.person.name } : null,
    answers: item.answers.map((a) => ({ question: a.question, choices: a.choices, alarm: a.alarm })),
  }));
}

/** Faces a terminal reported it could not enrol, each once per change (`seq`). */
export async function syncFailedEvents(tenantId: string, deviceKey: string, results: readonly FaceResult[], names: (personKey: string) => Promise<{ kind: 'employee' | 'visitor' | null; name: string | null }>): Promise<void> {
  const failed = results.filter((r) => r.state === 'failed');
  if (failed.length === 0) return;
  const time = new Date().toISOString();
  let device: Promise<Awaited<ReturnType<typeof deviceRef>>> | undefined;
  for (const result of failed) {
    await emitEvent(tenantId, 'authorization.syncFailed', `${deviceKey}#${result.list}#${result.personKey}#${result.seq}`, time, async () => ({
      device: await (device ??= deviceRef(tenantId, deviceKey)),
      person: { personKey: result.personKey, ...(await names(result.personKey)) },
      list: result.list,
      reason: result.reason ?? null,
      detail: result.detail ?? null,
      time,
    }));
  }
}
