import type { PassRecordItem, RefusalReason } from '#contract/passRecords';
import { findDevice } from '#data/devices';
import { findGroup } from '#data/groups';
import { recordKeyOf, type PassRecord } from '#data/passRecords';
import type { PassDecision } from '#contract/protocol';
import type { MessageId, MessageParams } from '#lib/i18n';
import { objectExists, presignedGet } from '#lib/storage';

/** Pass records as the lists, the exports and the dashboard's capture feed show them. */

/** Why a record was refused: the terminal's reason, `unknown` when it named none; null for a pass that passed. */
export const refusalOf = (r: Pick<PassRecord, 'passState' | 'refusedFor'>): RefusalReason | null => (r.passState === 'refused' ? (r.refusedFor ?? 'unknown') : null);

/** Names of devices and groups, each read once per page. */
export async function namesFor(tenantId: string, records: PassRecord[]): Promise<{ devices: Map<string, string>; groups: Map<string, string> }> {
  const deviceKeys = [...new Set(records.map((r) => r.deviceKey))];
  const groupKeys = [...new Set(records.map((r) => r.groupKey).filter((k): k is string => !!k))];
  const [devices, groups] = await Promise.all([
    Promise.all(deviceKeys.map(async (k) => [k, (await findDevice(tenantId, k))?.name ?? ''] as const)),
    Promise.all(groupKeys.map(async (k) => [k, (await findGroup(tenantId, k))?.name ?? ''] as const)),
  ]);
  return { devices: new Map(devices), groups: new Map(groups) };
}

/**
 * `uploading`: the records were stored a moment ago and their terminals are uploading the
 * captures now, so each announced capture is linked without asking whether it has arrived.
 */
export async function recordItems(tenantId: string, records: PassRecord[], uploading = false): Promise<PassRecordItem[]> {
  const names = await namesFor(tenantId, records);
  return Promise.all(
    records.map(async (r): Promise<PassRecordItem> => {
      // A capture is linked once the terminal has uploaded it (and until the retention sweep removes it).
      const capture = r.captureKey && (uploading || (await objectExists('captures', tenantId, r.captureKey))) ? await presignedGet('captures', tenantId, r.captureKey) : null;
      return {
        recordKey: recordKeyOf(r),
        time: r.time,
        verifyTime: r.verifyTime,
        deviceKey: r.deviceKey,
        deviceName: names.devices.get(r.deviceKey) ?? '',
        personKey: r.personKey ?? null,
        name: r.name ?? null,
        groupName: r.groupKey ? names.groups.get(r.groupKey) || null : null,
        type: r.type,
        temperature: r.temperature ?? null,
        fever: r.fever,
        mask: r.mask ?? null,
        passState: r.passState,
        source: r.source,
        refusedFor: refusalOf(r),
        decision: r.decision ?? null,
        violation: r.violation === true,
        capture,
        avatar: r.avatarKey ? await presignedGet('photos', tenantId, r.avatarKey) : null,
      };
    }),
  );
}

const DOOR_MODE_TEXT: Record<string, MessageId> = { normal: 'decision.doorMode.normal', lockdown: 'decision.doorMode.lockdown', open: 'decision.doorMode.open' };

/**
 * How the terminal decided, as one line in the reader's language (the exports): the list that
 * matched and its validity, the schedule in force, the door mode, the temperature and mask rules.
 * Times of the validity are shown in `timeZone` (the company's); the schedule's in the terminal's own.
 */
export function decisionLine(decision: PassDecision | undefined, t: (id: MessageId, params?: MessageParams) => string, when: (iso: string) => string): string {
  if (!decision) return '';
  const parts = [t(decision.list ? `decision.list.${decision.list}` : 'decision.list.none')];
  if (decision.list && (decision.validFrom || decision.validTo)) {
    parts.push(t('decision.validity', { from: decision.validFrom ? when(decision.validFrom) : '…', to: decision.validTo ? when(decision.validTo) : '…' }));
  }
  const schedule = decision.schedule;
  if (schedule) {
    const params = { time: schedule.localTime.replace('T', ' '), zone: schedule.timezone, because: t(`decision.because.${schedule.because}`) };
    parts.push(
      schedule.open && schedule.period
        ? t('decision.scheduleOpen', { ...params, from: schedule.period.from, to: schedule.period.to })
        : t('decision.scheduleClosed', params),
    );
  } else if (decision.list === 'pass') parts.push(t('decision.noSchedule'));
  const mode = decision.doorMode ? DOOR_MODE_TEXT[decision.doorMode] : undefined;
  if (mode) parts.push(t(mode));
  parts.push(decision.temperature.alarm ? t('decision.feverAlarm', { threshold: decision.temperature.threshold.toFixed(1) }) : t('decision.noFeverAlarm'));
  parts.push(t(decision.maskRequired ? 'decision.maskRequired' : 'decision.maskNotRequired'));
  return parts.join('; ');
}
