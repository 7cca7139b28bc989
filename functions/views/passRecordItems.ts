import type { PassRecordItem } from '#contract/passRecords';
import { findDevice } from '#data/devices';
import { findGroup } from '#data/groups';
import { recordKeyOf, type PassRecord } from '#data/passRecords';
import { objectExists, presignedGet } from '#lib/storage';

/** Pass records as the lists, the exports and the dashboard's capture feed show them. */

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
        violation: r.violation === true,
        capture,
        avatar: r.avatarKey ? await presignedGet('photos', tenantId, r.avatarKey) : null,
      };
    }),
  );
}

