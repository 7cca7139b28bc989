import { Entity, type EntityItem } from 'electrodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type DeviceKind, type DeviceInfo, type DeviceSettings, type SettingsPatch } from '#contract/devices';
import { dynamo } from '#lib/aws';
import { safeEqualText, sha256 } from '#lib/crypto';
import { ConflictError, NotFoundError, fieldError } from '#lib/errors';
import { dropDeviceAuthorities } from './authorities.ts';
import { claims } from './claims.ts';
import { releaseSeatWrite } from './licences.ts';
import { MAIN_TABLE, SYSTEM_SCOPE } from './tables.ts';
import { SERVICE, entityConfig, isConditionFailure, lazy, nowIso, tenantPartition, transactPut, versionedWrite } from './entity.ts';
import { DEVICE, DEVICE_REQUEST } from './keys/main.ts';

const infoAttributes = {
  model: { type: 'string' },
  mac: { type: 'string', required: true },
  ip: { type: 'string', required: true },
  firmware: { type: 'string', required: true },
  appVersion: { type: 'string', required: true },
  /** `{ freeBytes, totalBytes }` */
  storage: { type: 'any', required: true },
  timezone: { type: 'string', required: true },
  cameraResolution: { type: 'string', required: true },
  previewResolution: { type: 'string', required: true },
  /** `{ count, capacity }` of the terminal's face library, as it last reported. */
  faces: { type: 'any' },
  /** `{ minWidth, minHeight }`: the smallest photo the terminal enrols a face from, as it last reported; absent when it says nothing. */
  enrolment: { type: 'any' },
  /** Intercoms: network signal in dBm, and the name of their client software. */
  signal: { type: 'number' },
  clientName: { type: 'string' },
} as const;

/** Face terminals bound to a tenant. `settings` is what the console wants, `reported` what the device last confirmed. */
export const devices = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'device', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          deviceKey: { type: 'string', required: true },
          /** Absent for a face terminal (devices bound before intercoms existed). */
          kind: { type: ['faceTerminal', 'doorStation', 'indoorMonitor'] as const },
          name: { type: 'string', required: true },
          /** Intercoms: the number others dial, unique in the company (claim `intercomNumber`). */
          number: { type: 'string' },
          groupKey: { type: 'string' },
          serial: { type: 'string', required: true },
          ...infoAttributes,
          /** sha256 of the MQTT password issued at binding. */
          secretHash: { type: 'string', required: true },
          online: { type: 'boolean', required: true, default: false },
          /** Time (ms) of the presence event that set `online`; older events are ignored. */
          presenceAt: { type: 'number', required: true, default: 0 },
          lastSeenAt: { type: 'string' },
          /** When the current (or last) connection began: an intercom's network access time. */
          connectedAt: { type: 'string' },
          settings: { type: 'any', required: true },
          reported: { type: 'any', required: true, default: () => ({}) },
          /** Shadow version `reported` was read from; older shadow documents are ignored. */
          shadowVersion: { type: 'number', required: true, default: 0 },
          /** The last capturePhoto command. */
          photoCommandKey: { type: 'string' },
          /**
           * A terminal that bound itself again under this serial (a replaced or factory-reset unit,
           * or someone posing as one): its facts and the hash of the secret it was given. The
           * secret works only once an administrator approves the replacement in the console.
           */
          replacement: { type: 'any' },
          /**
           * Hashes of the secrets of the units an approved replacement superseded (the newest few):
           * such a unit is told it was replaced instead of being refused without a reason.
           */
          supersededSecrets: { type: 'list', items: { type: 'string' } },
          /** The licence whose seat this terminal holds (licences.ts). */
          licenceId: { type: 'string' },
          createdAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['deviceKey'], template: DEVICE.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export type Device = EntityItem<ReturnType<typeof devices>> & { settings: DeviceSettings; reported: SettingsPatch };

/**
 * A terminal asking to be added again under the serial number of a device an administrator
 * deleted: what it said about itself and the hash of the secret it was given. Nothing exists for
 * it (no device, no licence seat, no thing) until an administrator approves; the request's key
 * then becomes the device's, so the credentials the terminal holds start to work.
 */
export const deviceRequests = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'deviceRequest', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          requestKey: { type: 'string', required: true },
          /** Absent for a face terminal. */
          kind: { type: ['faceTerminal', 'doorStation', 'indoorMonitor'] as const },
          serial: { type: 'string', required: true },
          info: { type: 'any', required: true },
          secretHash: { type: 'string', required: true },
          requestedAt: { type: 'string', required: true },
          /** When the device with this serial number was deleted. */
          deletedAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['requestKey'], template: DEVICE_REQUEST.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export type DeviceRequest = EntityItem<ReturnType<typeof deviceRequests>> & { info: Omit<DeviceInfo, 'serial'> };

/** A binding waiting for an administrator: what the new terminal said about itself, and when. */
export interface Replacement {
  requestedAt: string;
  info: Omit<DeviceInfo, 'serial'>;
  secretHash: string;
}

// Devices

export async function findRequest(tenantId: string, requestKey: string): Promise<DeviceRequest | undefined> {
  return ((await deviceRequests().get({ tenantId, requestKey }).go()).data as DeviceRequest | null) ?? undefined;
}

export async function findDevice(tenantId: string, deviceKey: string): Promise<Device | undefined> {
  return ((await devices().get({ tenantId, deviceKey }).go()).data as Device | null) ?? undefined;
}

/** The device whose secret (the MQTT password binding gave) this is, else undefined: how a terminal proves itself, on MQTT and over HTTPS. */
export async function deviceWithSecret(tenantId: string, deviceKey: string, secret: string): Promise<Device | undefined> {
  const device = await findDevice(tenantId, deviceKey);
  return device && safeEqualText(device.secretHash, sha256(secret)) ? device : undefined;
}

/** Superseded secrets kept per device. */
export const SUPERSEDED_KEPT = 5;

/**
 * Why a device's credentials are refused, for the terminal to act on: the device is gone
 * (`deleted`), the secret is of a replacement still waiting for approval (`pendingApproval`) or
 * of a unit an approved replacement superseded (`replaced`); anything else is `unauthorized`.
 */
export async function refusalOf(tenantId: string, deviceKey: string, secret: string): Promise<'deleted' | 'pendingApproval' | 'replaced' | 'unauthorized'> {
  let device = await findDevice(tenantId, deviceKey);
  const hash = sha256(secret);
  if (!device) {
    // The key of a request to be added again, still waiting for an administrator.
    const request = await findRequest(tenantId, deviceKey);
    if (request && safeEqualText(request.secretHash, hash)) return 'pendingApproval';
    // Approved between the two reads (the device replaced the request in one transaction): with
    // the request's secret it connects now, so the terminal is told to go on asking, not to stop.
    device = await findDevice(tenantId, deviceKey);
    if (!device) return 'deleted';
    if (safeEqualText(device.secretHash, hash)) return 'pendingApproval';
  }
  const pending = (device.replacement as Replacement | undefined)?.secretHash;
  if (pending && safeEqualText(pending, hash)) return 'pendingApproval';
  if (((device.supersededSecrets as string[] | undefined) ?? []).some((old) => safeEqualText(old, hash))) return 'replaced';
  return 'unauthorized';
}

/** What the device is; devices bound before intercoms existed are face terminals. */
export const kindOf = (device: Pick<Device, 'kind'>): DeviceKind => device.kind ?? 'faceTerminal';
export const isIntercom = (device: Pick<Device, 'kind'>): boolean => kindOf(device) !== 'faceTerminal';

/** A face terminal of the tenant (the pass platform's devices); an intercom's key is not found here. */
export async function requireDevice(tenantId: string, deviceKey: string): Promise<Device> {
  const device = await findDevice(tenantId, deviceKey);
  if (!device || isIntercom(device)) throw new NotFoundError();
  return device;
}

/** An intercom of the tenant; a face terminal's key is not found here. */
export async function requireIntercom(tenantId: string, deviceKey: string): Promise<Device> {
  const device = await findDevice(tenantId, deviceKey);
  if (!device || !isIntercom(device)) throw new NotFoundError();
  return device;
}

/** Every device of a tenant of every kind, in key order (a tenant has hundreds to a few thousand). */
export async function everyDevice(tenantId: string): Promise<Device[]> {
  return (await devices().query.primary({ tenantId }).go({ pages: 'all' })).data as Device[];
}

/** Every face terminal of a tenant, in key order. */
export async function allFaceTerminals(tenantId: string): Promise<Device[]> {
  return (await everyDevice(tenantId)).filter((d) => !isIntercom(d));
}

/** Every intercom of a tenant, in key order. */
export async function allIntercoms(tenantId: string): Promise<Device[]> {
  return (await everyDevice(tenantId)).filter(isIntercom);
}

/** The device list's order: by name, then serial number, with numbers in them compared as numbers (0002 before 0010). */
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
type ListPosition = Pick<Device, 'name' | 'serial' | 'deviceKey'>;
function byListOrder(a: ListPosition, b: ListPosition): number {
  return collator.compare(a.name, b.name) || collator.compare(a.serial, b.serial) || (a.deviceKey < b.deviceKey ? -1 : a.deviceKey > b.deviceKey ? 1 : 0);
}
/** A page link: the position of the last device shown, so pages stay stable while devices come and go. */
const encodeListCursor = (d: ListPosition): string => Buffer.from(JSON.stringify([d.name, d.serial, d.deviceKey])).toString('base64url');
function decodeListCursor(cursor: string): ListPosition {
  try {
    const [name, serial, deviceKey] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof name === 'string' && typeof serial === 'string' && typeof deviceKey === 'string') return { name, serial, deviceKey };
  } catch {
    // answered below
  }
  throw fieldError('cursor', 'error.badCursor');
}

/** The keyword searches the name, serial, IP and MAC, and an intercom's number. */
const matches = (device: Device, keyword: string) =>
  [device.name, device.serial, device.ip, device.mac, device.number ?? ''].some((field) => field.toLowerCase().includes(keyword.toLowerCase()));

export interface DeviceListQuery {
  pageSize: number;
  cursor?: string | undefined;
  keyword?: string | undefined;
  groupKey?: string | undefined;
  online?: 'true' | 'false' | undefined;
}

/** A page of the device list (the device screen and the pickers): filtered, in list order, after the cursor's device. */
export async function deviceListPage(
  tenantId: string,
  query: DeviceListQuery,
  fleet?: Device[],
): Promise<{ page: Device[]; nextCursor: string | null; filtered: Device[] }> {
  const filtered = (fleet ?? (await allFaceTerminals(tenantId))).filter(
    (d) =>
      (!query.groupKey || d.groupKey === query.groupKey) &&
      (!query.keyword || matches(d, query.keyword)) &&
      (query.online === undefined || d.online === (query.online === 'true')),
  );
  filtered.sort(byListOrder);
  const after = query.cursor ? decodeListCursor(query.cursor) : undefined;
  const start = after ? filtered.findIndex((d) => byListOrder(d, after) > 0) : 0;
  const page = start < 0 ? [] : filtered.slice(start, start + query.pageSize);
  const more = start >= 0 && start + query.pageSize < filtered.length;
  return { page, nextCursor: more ? encodeListCursor(page[page.length - 1]!) : null, filtered };
}

export async function anyDeviceInGroup(tenantId: string, groupKey: string): Promise<boolean> {
  return (await allFaceTerminals(tenantId)).some((d) => d.groupKey === groupKey);
}

export interface DeviceChanges {
  name?: string;
  groupKey?: string | null;
  settings?: DeviceSettings;
}

export async function updateDevice(tenantId: string, deviceKey: string, version: number, changes: DeviceChanges): Promise<Device> {
  const { groupKey, ...rest } = changes;
  const result = await versionedWrite(
    () => {
      let op = devices()
        .patch({ tenantId, deviceKey })
        .set({ ...rest, ...(groupKey ? { groupKey } : {}) });
      if (groupKey === null) op = op.remove(['groupKey']);
      return op
        .add({ version: 1 })
        .where((attr, op) => op.eq(attr.version, version))
        .go({ response: 'all_new' });
    },
    async () => !!(await findDevice(tenantId, deviceKey)),
  );
  return result.data as Device;
}

export async function deleteDevice(tenantId: string, device: Device, version: number): Promise<void> {
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              ...devices().delete({ tenantId, deviceKey: device.deviceKey }).params<Record<string, unknown>>(),
              ConditionExpression: '#v = :v',
              ExpressionAttributeNames: { '#v': 'version' },
              ExpressionAttributeValues: { ':v': version },
            },
          },
          // The claim stays as the serial's tombstone: the terminal binding again must be approved.
          transactPut(
            claims()
              .put({ tenantId, kind: 'deviceSerial', value: device.serial, ownerTenantId: tenantId, deletedAt: nowIso() })
              .params<Record<string, unknown>>(),
          ),
          ...(device.licenceId ? [releaseSeatWrite(tenantId, device.licenceId)] : []),
          // An intercom's number is free again.
          ...(device.number
            ? [
                {
                  Delete: {
                    ...claims().delete({ tenantId, kind: 'intercomNumber', value: device.number }).params<Record<string, unknown>>(),
                    ConditionExpression: '#d = :d',
                    ExpressionAttributeNames: { '#d': 'deviceKey' },
                    ExpressionAttributeValues: { ':d': device.deviceKey },
                  },
                },
              ]
            : []),
        ] as never,
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await findDevice(tenantId, device.deviceKey)) ? new ConflictError() : new NotFoundError();
  }
  await dropDeviceAuthorities(tenantId, device.deviceKey);
  // A claim from before serials were unique per tenant, if it is this tenant's.
  await claims()
    .delete({ tenantId: SYSTEM_SCOPE, kind: 'deviceSerial', value: device.serial })
    .where((attr, op) => op.eq(attr.ownerTenantId, tenantId))
    .go()
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

/** Presence: applies a connect or disconnect unless a newer presence event was already applied. */
export async function setPresence(tenantId: string, deviceKey: string, online: boolean, at: number): Promise<boolean> {
  try {
    await devices()
      .patch({ tenantId, deviceKey })
      .set({ online, presenceAt: at, ...(online ? { lastSeenAt: new Date(at).toISOString(), connectedAt: new Date(at).toISOString() } : {}) })
      .where((attr, op) => op.lt(attr.presenceAt, at))
      .go();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

export async function recordHeartbeat(tenantId: string, deviceKey: string, info: Omit<DeviceInfo, 'serial'>): Promise<void> {
  try {
    const op = devices()
      .patch({ tenantId, deviceKey })
      .set({ ...info, lastSeenAt: nowIso() });
    // A terminal that stopped reporting its enrolment needs (older firmware again) keeps SPEC's photo rules.
    await (info.enrolment ? op : op.remove(['enrolment'])).go();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Stores what the device reported, unless a newer shadow version is already stored. */
export async function recordReported(tenantId: string, deviceKey: string, reported: SettingsPatch, shadowVersion: number): Promise<void> {
  try {
    await devices()
      .patch({ tenantId, deviceKey })
      .set({ reported, shadowVersion })
      .where((attr, op) => op.lt(attr.shadowVersion, shadowVersion))
      .go();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
