import { Entity, type EntityItem } from 'electrodb';
import type { DoorMode, DoorModeScope } from '#contract/doorModes';
import { ConflictError } from '#lib/errors';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, isConditionFailure, lazy, nowIso, tenantPartition } from './entity.ts';
import { DOOR_EXEMPTIONS_SK, DOOR_MODE, DOOR_MODE_REVISION_SK } from './keys/doorModes.ts';

/**
 * A terminal's door mode: what an administrator set for it (`desired`, with the scope, reason,
 * account and time of that setting) and what the terminal last reported it applies (`applied`,
 * from its shadow version `shadowVersion`). A terminal without an item is normal. `revision`
 * orders the settings: a setting older than the one stored never replaces it.
 */
export const deviceDoorModes = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'deviceDoorMode', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          deviceKey: { type: 'string', required: true },
          desired: { type: ['normal', 'lockdown', 'open'] as const, required: true },
          /** The setting this terminal's desired mode came from: scope, reason, account and time. */
          scope: { type: 'any' },
          reason: { type: 'string' },
          setBy: { type: 'string' },
          since: { type: 'string' },
          /** The company's door mode revision (nextDoorModeRevision) of the setting. */
          revision: { type: 'number' },
          applied: { type: ['normal', 'lockdown', 'open'] as const },
          shadowVersion: { type: 'number', required: true, default: 0 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['deviceKey'], template: DOOR_MODE.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
export type DeviceDoorModeItem = EntityItem<ReturnType<typeof deviceDoorModes>> & { scope?: DoorModeScope };

/** The people a lockdown lets pass: one item per company, at most EXEMPTIONS_MAX keys. */
export const doorExemptions = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'doorExemptions', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          personKeys: { type: 'list', items: { type: 'string' }, required: true },
          updatedAt: { type: 'string', required: true },
          version: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: [], template: DOOR_EXEMPTIONS_SK, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

/** Every terminal of the company that has a door mode item, in key order. */
export async function allDoorModes(tenantId: string): Promise<DeviceDoorModeItem[]> {
  return (await deviceDoorModes().query.primary({ tenantId }).go({ pages: 'all' })).data as DeviceDoorModeItem[];
}

export async function findDoorMode(tenantId: string, deviceKey: string): Promise<DeviceDoorModeItem | undefined> {
  return ((await deviceDoorModes().get({ tenantId, deviceKey }).go()).data as DeviceDoorModeItem | null) ?? undefined;
}

export interface DoorModeSetting {
  mode: DoorMode;
  scope: DoorModeScope;
  reason: string;
  setBy: string;
  since: string;
}

/** The counter of the company's door mode settings (nextDoorModeRevision). */
const doorModeRevisions = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'doorModeRevision', version: '1', service: SERVICE },
        attributes: { tenantId: { type: 'string', required: true }, revision: { type: 'number', required: true, default: 0 } },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: [], template: DOOR_MODE_REVISION_SK, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

/** The next number of the company's door mode settings, one atomic count, so two settings made at the same moment are still ordered. */
export async function nextDoorModeRevision(tenantId: string): Promise<number> {
  const out = await doorModeRevisions().update({ tenantId }).add({ revision: 1 }).go({ response: 'all_new' });
  return out.data.revision!;
}

/** The number the company's latest door mode setting took (0: none yet), read consistently. */
export async function currentDoorModeRevision(tenantId: string): Promise<number> {
  return (await doorModeRevisions().get({ tenantId }).go({ consistent: true })).data?.revision ?? 0;
}

/**
 * Gives a terminal a desired mode, unless a setting of a later revision is stored already;
 * answers whether it did. What it applied stays until it reports again.
 */
export async function setDesiredMode(tenantId: string, deviceKey: string, setting: DoorModeSetting, revision: number): Promise<boolean> {
  const fields = { desired: setting.mode, scope: setting.scope, reason: setting.reason, setBy: setting.setBy, since: setting.since, revision };
  try {
    await deviceDoorModes()
      .patch({ tenantId, deviceKey })
      .set(fields)
      .where((attr, op) => `(${op.notExists(attr.revision)} OR ${op.lt(attr.revision, revision)})`)
      .go();
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // A later setting is stored, or no item yet: the terminal was normal and never reported.
    if (await findDoorMode(tenantId, deviceKey)) return false;
    try {
      await deviceDoorModes().create({ tenantId, deviceKey, ...fields }).go();
      return true;
    } catch (again) {
      if (!isConditionFailure(again)) throw again;
      return setDesiredMode(tenantId, deviceKey, setting, revision);
    }
  }
}

/** Stores the mode the terminal reported from a shadow version, unless a newer one is stored. */
export async function recordAppliedMode(tenantId: string, deviceKey: string, applied: DoorMode, shadowVersion: number): Promise<void> {
  try {
    await deviceDoorModes()
      .patch({ tenantId, deviceKey })
      .set({ applied, shadowVersion })
      .where((attr, op) => op.lt(attr.shadowVersion, shadowVersion))
      .go();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (await findDoorMode(tenantId, deviceKey)) return;
    await deviceDoorModes()
      .create({ tenantId, deviceKey, desired: 'normal', applied, shadowVersion })
      .go()
      .catch((again: unknown) => {
        if (!isConditionFailure(again)) throw again;
      });
  }
}

/** A deleted terminal's door mode goes with it. */
export async function dropDoorMode(tenantId: string, deviceKey: string): Promise<void> {
  await deviceDoorModes().delete({ tenantId, deviceKey }).go();
}

export interface Exemptions {
  personKeys: string[];
  version: number;
}

export async function readExemptions(tenantId: string): Promise<Exemptions> {
  const item = (await doorExemptions().get({ tenantId }).go()).data;
  return { personKeys: item?.personKeys ?? [], version: item?.version ?? 0 };
}

/** Replaces the list when `version` is the one stored (0: none stored yet); a stale one is a conflict. */
export async function saveExemptions(tenantId: string, personKeys: string[], version: number): Promise<Exemptions> {
  try {
    if (version === 0) {
      await doorExemptions().create({ tenantId, personKeys, updatedAt: nowIso(), version: 1 }).go();
      return { personKeys, version: 1 };
    }
    await doorExemptions()
      .patch({ tenantId })
      .set({ personKeys, updatedAt: nowIso(), version: version + 1 })
      .where((attr, op) => op.eq(attr.version, version))
      .go();
    return { personKeys, version: version + 1 };
  } catch (error) {
    if (isConditionFailure(error)) throw new ConflictError();
    throw error;
  }
}
