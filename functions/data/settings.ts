import { Entity, type EntityItem } from 'electrodb';
import { DEFAULT_PRIVACY, type ClientRelease, type PrivacySettings, type RetentionKind } from '#contract/settings';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, epochSeconds, isConditionFailure, lazy, nowIso, tenantPartition, versionedWrite } from './entity.ts';
import { CLIENT_PACKAGE, CLIENT_RELEASE_SK, PRIVACY_SETTINGS_SK } from './keys/main.ts';

/** A company's privacy settings: what pass records keep, and how long records and files are kept. */
export const privacy = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'privacySettings', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          saveTemperature: { type: 'boolean', required: true },
          savePhotos: { type: 'boolean', required: true },
          saveVisitorName: { type: 'boolean', required: true },
          passRecordDays: { type: 'number', required: true },
          captureDays: { type: 'number', required: true },
          recordingDays: { type: 'number', required: true },
          updatedAt: { type: 'string', required: true },
          version: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: [], template: PRIVACY_SETTINGS_SK, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
type PrivacyItem = EntityItem<ReturnType<typeof privacy>>;

export interface StoredPrivacy extends PrivacySettings {
  /** 1 while the company has never saved them (the defaults are in force); each save adds one. */
  version: number;
}

function fromItem(item: PrivacyItem | null | undefined): StoredPrivacy {
  if (!item) return { ...DEFAULT_PRIVACY, retentionDays: { ...DEFAULT_PRIVACY.retentionDays }, version: 1 };
  return {
    saveTemperature: item.saveTemperature,
    savePhotos: item.savePhotos,
    saveVisitorName: item.saveVisitorName,
    retentionDays: { passRecords: item.passRecordDays, captures: item.captureDays, recordings: item.recordingDays },
    version: item.version,
  };
}

export async function readPrivacy(tenantId: string): Promise<StoredPrivacy> {
  return fromItem((await privacy().get({ tenantId }).go()).data);
}

/**
 * The privacy settings in force for a company (its saved ones, or the defaults). Whatever writes
 * pass records, captures, call recordings or mail records reads them here, at write time.
 */
export async function privacySettings(tenantId: string): Promise<PrivacySettings> {
  const { version: _version, ...settings } = await readPrivacy(tenantId);
  return settings;
}

/** The TTL (epoch seconds) of a record of `kind` written at `now` under `settings`. */
export function retentionTtl(settings: PrivacySettings, kind: RetentionKind, now = new Date()): number {
  return epochSeconds(now) + settings.retentionDays[kind] * 86_400;
}

/**
 * Saves the whole set when `version` is the one last read (1: never saved); a stale version
 * changes nothing and answers 409.
 */
export async function savePrivacy(tenantId: string, settings: PrivacySettings, version: number): Promise<StoredPrivacy> {
  const item = {
    tenantId,
    saveTemperature: settings.saveTemperature,
    savePhotos: settings.savePhotos,
    saveVisitorName: settings.saveVisitorName,
    passRecordDays: settings.retentionDays.passRecords,
    captureDays: settings.retentionDays.captures,
    recordingDays: settings.retentionDays.recordings,
    updatedAt: nowIso(),
    version: version + 1,
  };
  await versionedWrite(
    () =>
      version === 1
        ? privacy().create(item).go()
        : privacy()
            .put(item)
            .where((attr, op) => op.eq(attr.version, version))
            .go(),
    async () => true,
  );
  return fromItem(item);
}

/**
 * Client install packages. Presign records the announced package (`pending`, gone after a day
 * unless completed); complete records its hash and makes it the company's latest release.
 */
export const clientPackages = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'clientPackage', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          packageKey: { type: 'string', required: true },
          version: { type: 'string', required: true },
          filename: { type: 'string', required: true },
          size: { type: 'number', required: true },
          state: { type: ['pending', 'ready'] as const, required: true },
          sha256: { type: 'string' },
          createdAt: { type: 'string', required: true },
          uploadedAt: { type: 'string' },
          ttl: { type: 'number' },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['packageKey'], template: CLIENT_PACKAGE.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
export type ClientPackage = EntityItem<ReturnType<typeof clientPackages>>;

/** The company's latest client release: one item, replaced by each completed package. */
export const clientRelease = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'clientRelease', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          packageKey: { type: 'string', required: true },
          version: { type: 'string', required: true },
          size: { type: 'number', required: true },
          sha256: { type: 'string', required: true },
          uploadTime: { type: 'string', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: [], template: CLIENT_RELEASE_SK, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
export type ClientReleaseItem = EntityItem<ReturnType<typeof clientRelease>>;

const PENDING_SECONDS = 24 * 3600;

export async function announcePackage(tenantId: string, packageKey: string, version: string, filename: string, size: number): Promise<void> {
  await clientPackages()
    .create({ tenantId, packageKey, version, filename, size, state: 'pending', createdAt: nowIso(), ttl: epochSeconds(new Date()) + PENDING_SECONDS })
    .go();
}

export async function findPackage(tenantId: string, packageKey: string): Promise<ClientPackage | undefined> {
  return (await clientPackages().get({ tenantId, packageKey }).go()).data ?? undefined;
}

export async function dropPackage(tenantId: string, packageKey: string): Promise<void> {
  await clientPackages().delete({ tenantId, packageKey }).go();
}

/**
 * Marks the package ready and makes it the latest release; undefined when it is no longer
 * pending (completed at the same moment), and then nothing changes.
 */
export async function releasePackage(tenantId: string, pkg: ClientPackage, sha256: string): Promise<ClientReleaseItem | undefined> {
  const uploadTime = nowIso();
  try {
    await clientPackages()
      .patch({ tenantId, packageKey: pkg.packageKey })
      .set({ state: 'ready', sha256, uploadedAt: uploadTime })
      .remove(['ttl'])
      .where((attr, op) => op.eq(attr.state, 'pending'))
      .go();
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
  const release = { tenantId, packageKey: pkg.packageKey, version: pkg.version, size: pkg.size, sha256, uploadTime };
  await clientRelease().put(release).go();
  return release;
}

export async function latestRelease(tenantId: string): Promise<ClientRelease | null> {
  const item = (await clientRelease().get({ tenantId }).go()).data;
  return item ? { version: item.version, size: item.size, sha256: item.sha256, uploadTime: item.uploadTime } : null;
}
