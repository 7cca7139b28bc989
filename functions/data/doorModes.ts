import { Entity, type EntityItem } from 'electrodb';
import type { DoorMode, DoorModeScope } from '#contract/doorModes';
import { ConflictError } from '#lib/errors';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, isConditionFailure, lazy, nowIso, tenantPartition } from './entity.ts';
import { DOOR_EXEMPTIONS_SK, DOOR_MODE } from './keys/doorModes.ts';

/**
 * A terminal's door mode: what an administrator set for it (`desired`, with the scope, reason,
 * account and time of that setting) and what the terminal last reported it applies (`applied`,
 * from its shadow version `shadowVersion`). A terminal without an item is normal.
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

/** Gives a terminal a desired mode; what it applied stays until it reports again. */
export async function setDesiredMode(tenantId: string, deviceKey: string, setting: DoorModeSetting): Promise<void> {
  await deviceDoorModes()
    .patch({ tenantId, deviceKey })
    .set({ desired: setting.mode, scope: setting.scope, reason: setting.reason, setBy: setting.setBy, since: setting.since })
    .go()
    .catch(async (error: unknown) => {
      if (!isConditionFailure(error)) throw error;
      // No item yet: the terminal was normal and never reported.
      await deviceDoorModes()
        .create({ tenantId, deviceKey, desired: setting.mode, scope: setting.scope, reason: setting.reason, setBy: setting.setBy, since: setting.since })
        .go()
        .catch((again: unknown) => {
          if (!isConditionFailure(again)) throw again;
          return setDesiredMode(tenantId, deviceKey, setting);
        });
    });
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
