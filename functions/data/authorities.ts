import { Entity, type EntityItem } from 'electrodb';
import type { SetType, SyncFailure, SyncState } from '#contract/authorities';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';

/**
 * Authorizations: one person on one device, in the pass list (setType 0) or the blacklist
 * (setType 1). The item is also the device's face change: every change takes the next number of
 * the device's sequence (`seq`) and is indexed by it, so a terminal pulls exactly the changes
 * after its cursor, each in its latest state. A revoked authorization stays as a `remove` change
 * (`revoked`) until its device confirms it, then goes.
 *
 * Keys: `authority#<personKey>#<setType>#<deviceKey>` (a person's authorizations in one range);
 * gsi1 `<tenantId>#faces#<deviceKey>` / `<seq, 15 digits>` (a device's changes in order).
 */
export const SEQ_DIGITS = 15;
export const seqKey = (seq: number): string => String(seq).padStart(SEQ_DIGITS, '0');

export const authorities = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'authority', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          personKey: { type: 'string', required: true },
          setType: { type: 'number', required: true },
          deviceKey: { type: 'string', required: true },
          personKind: { type: ['employee', 'visitor'] as const, required: true },
          /** Copied from the person, so a terminal's pull needs no other read; a change of the person is a change here. */
          personName: { type: 'string', required: true },
          personId: { type: 'string', required: true },
          avatar: { type: 'string' },
          /** False while the employee has resigned: the face is removed from the device, the authorization kept. */
          personActive: { type: 'boolean', required: true, default: true },
          /** Days (`YYYY-MM-DD`, company time zone), absent for a permanent authorization. */
          startDay: { type: 'string' },
          endDay: { type: 'string' },
          /** The same bounds as moments (ISO), as the device receives them. */
          validFrom: { type: 'string' },
          validTo: { type: 'string' },
          revoked: { type: 'boolean', required: true, default: false },
          seq: { type: 'number', required: true },
          /** `seq` zero-padded, the index's sort key. */
          seqKey: { type: 'string', required: true },
          action: { type: ['upsert', 'remove'] as const, required: true },
          syncState: { type: ['pending', 'synced', 'failed'] as const, required: true },
          syncReason: { type: 'string' },
          syncAt: { type: 'string', required: true },
          createdAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: {
            pk: tenantPartition,
            sk: { field: 'sk', composite: ['personKey', 'setType', 'deviceKey'], template: 'authority#${personKey}#${setType}#${deviceKey}', casing: 'none' },
          },
          byDevice: {
            index: 'gsi1',
            pk: { field: 'gsi1pk', composite: ['tenantId', 'deviceKey'], template: '${tenantId}#faces#${deviceKey}', casing: 'none' },
            sk: { field: 'gsi1sk', composite: ['seqKey'], template: '${seqKey}', casing: 'none' },
          },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export type Authority = EntityItem<ReturnType<typeof authorities>> & { setType: SetType; syncState: SyncState; syncReason?: SyncFailure };

export async function findAuthority(tenantId: string, setType: SetType, personKey: string, deviceKey: string): Promise<Authority | undefined> {
  return ((await authorities().get({ tenantId, personKey, setType, deviceKey }).go()).data as Authority | null) ?? undefined;
}

/** True when the person is on the device's blacklist now (not revoked, within its validity). */
export async function isWatched(tenantId: string, personKey: string, deviceKey: string, at = new Date()): Promise<boolean> {
  const item = await findAuthority(tenantId, 1, personKey, deviceKey);
  if (!item || item.revoked) return false;
  const t = at.toISOString();
  return (!item.validFrom || item.validFrom <= t) && (!item.validTo || item.validTo >= t);
}
