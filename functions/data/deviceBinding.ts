import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { type DeviceKind, type DeviceInfo, type DeviceSettings } from '#contract/devices';
import { dynamo } from '#lib/aws';
import { newTimeId } from '#lib/crypto';
import { ConflictError, NotFoundError } from '#lib/errors';
import { claims } from './claims.ts';
import { listLicences, takeSeatWrite, type Licence } from './licences.ts';
import { chooseSeat } from '#domain/licence';
import { SYSTEM_SCOPE } from './tables.ts';
import { isConditionFailure, nowIso, transactPut, versionedWrite } from './entity.ts';
import {
  SUPERSEDED_KEPT,
  type Device,
  type DeviceRequest,
  deviceRequests,
  devices,
  findDevice,
  findRequest,
  requireDevice,
  type Replacement,
} from './devices.ts';

/**
 * Binding: a terminal bound with the company's code takes a seat of a licence; a serial number bound
 * before asks an administrator (a replacement for the unit it names, or adding a deleted device
 * again), and the approval or rejection settles the request.
 */

export interface Binding {
  tenantId: string;
  kind: DeviceKind;
  serial: string;
  info: Omit<DeviceInfo, 'serial'>;
  secretHash: string;
  defaults: DeviceSettings;
}

/** The claim on a serial number: its device, or (`deletedAt`) a deleted device's and any request to add it again. */
type SerialClaim = { deviceKey?: string | undefined; deletedAt?: string | undefined; requestKey?: string | undefined };

/**
 * The tenant's claim on this serial number. Serial numbers are unique within a tenant only:
 * binding never depends on, nor tells anything about, other tenants' devices. Claims made before
 * that rule lived under the system scope and are still read.
 */
async function serialClaim(tenantId: string, serial: string): Promise<SerialClaim | undefined> {
  const own = (await claims().get({ tenantId, kind: 'deviceSerial', value: serial }).go()).data;
  if (own) return own;
  const legacy = (await claims().get({ tenantId: SYSTEM_SCOPE, kind: 'deviceSerial', value: serial }).go()).data;
  return legacy?.deviceKey && legacy.ownerTenantId === tenantId ? { deviceKey: legacy.deviceKey } : undefined;
}

/** Why no seat is free: no licence in force at all, or every seat taken. */
function noSeatError(held: Licence[], now: number): ConflictError {
  const live = held.filter((l) => Date.parse(l.expiresAt) > now);
  if (live.length === 0) return new ConflictError('devices.noLicence');
  return new ConflictError('devices.noSeat', undefined, {
    used: live.reduce((n, l) => n + l.used, 0),
    seats: live.reduce((n, l) => n + l.seats, 0),
  });
}

/**
 * Binds a device to a tenant. A serial the tenant does not have yet becomes a device with the
 * default settings, a claim on its serial and a seat of one of the tenant's licences, in one
 * transaction (`bound`); without a free seat the binding is refused. A serial it has is
 * never re-keyed here: the request is kept as the device's pending replacement, with the new
 * facts and secret, until an administrator approves or rejects it (`pendingApproval`). A serial
 * whose device was deleted creates nothing either: it becomes a request to be added again, which
 * waits for an administrator the same way and takes no seat until approved.
 */
export async function bindDevice(input: Binding): Promise<{ deviceKey: string; state: 'bound' | 'pendingApproval'; device?: Device }> {
  for (let round = 0; round < 20; round++) {
    const claim = await serialClaim(input.tenantId, input.serial);
    if (claim?.deletedAt) {
      const requestKey = await askToAddAgain(input, claim);
      if (requestKey) return { deviceKey: requestKey, state: 'pendingApproval' };
      continue;
    }
    if (claim?.deviceKey && (await findDevice(input.tenantId, claim.deviceKey))) {
      const replacement: Replacement = { requestedAt: nowIso(), info: input.info, secretHash: input.secretHash };
      await devices().patch({ tenantId: input.tenantId, deviceKey: claim.deviceKey }).set({ replacement }).add({ version: 1 }).go();
      return { deviceKey: claim.deviceKey, state: 'pendingApproval' };
    }
    const device = await createBound(input.tenantId, newTimeId(), input.kind, input.serial, input.info, input.secretHash, input.defaults);
    if (device) return { deviceKey: device.deviceKey, state: 'bound', device };
    // A parallel bind took the serial (go round: this one becomes its replacement) or the seat
    // (go round: another seat, or none left); wait a little so parallel binds spread out.
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * (round + 1)));
  }
  throw new ConflictError();
}

/**
 * Creates a device with a seat and the claim on its serial, in one transaction. The claim must be
 * free, or be the tombstone of a deleted device whose request to be added again is `requestKey`.
 * Undefined when that condition or the seat was lost to a parallel write.
 */
async function createBound(
  tenantId: string,
  deviceKey: string,
  kind: DeviceKind,
  serial: string,
  info: Omit<DeviceInfo, 'serial'>,
  secretHash: string,
  settings: DeviceSettings,
  readding?: DeviceRequest,
): Promise<Device | undefined> {
  const now = Date.now();
  const held = await listLicences(tenantId);
  const seat = chooseSeat(held, info.mac, now);
  if (!seat) throw noSeatError(held, now);
  const record = {
    tenantId,
    deviceKey,
    ...(kind !== 'faceTerminal' ? { kind } : {}),
    name: info.model ? `${info.model} ${serial.slice(-4)}` : serial,
    serial,
    ...info,
    secretHash,
    settings,
    reported: {},
    licenceId: seat.licenceId,
    createdAt: nowIso(),
  };
  const claimItem = transactPut(
    claims().put({ tenantId, kind: 'deviceSerial', value: serial, ownerTenantId: tenantId, deviceKey }).params<Record<string, unknown>>(),
  );
  if (readding) {
    claimItem.Put!.ConditionExpression = 'requestKey = :request';
    claimItem.Put!.ExpressionAttributeValues = { ...claimItem.Put!.ExpressionAttributeValues, ':request': readding.requestKey };
  } else {
    // A live claim means a parallel bind won; a deleted device's claim is taken over only by approval.
    claimItem.Put!.ConditionExpression = 'attribute_not_exists(pk)';
  }
  const requestDelete = readding
    ? [
        {
          Delete: {
            ...deviceRequests().delete({ tenantId, requestKey: readding.requestKey }).params<Record<string, unknown>>(),
            ConditionExpression: '#v = :v',
            ExpressionAttributeNames: { '#v': 'version' },
            ExpressionAttributeValues: { ':v': readding.version },
          },
        },
      ]
    : [];
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          transactPut(devices().create(record).params<Record<string, unknown>>()),
          claimItem,
          takeSeatWrite(tenantId, seat.licenceId, now),
          ...requestDelete,
        ] as never,
      }),
    );
    const device = await findDevice(tenantId, deviceKey);
    if (!device) throw new NotFoundError();
    return device;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return undefined;
  }
}

/**
 * Records that a terminal asks to be added again under a deleted device's serial number: one
 * request per serial (a terminal binding again while it waits renews it with its new facts and
 * secret). Undefined when the claim changed meanwhile.
 */
async function askToAddAgain(input: Binding, claim: SerialClaim): Promise<string | undefined> {
  const requestKey = claim.requestKey ?? newTimeId();
  const request = {
    tenantId: input.tenantId,
    requestKey,
    ...(input.kind !== 'faceTerminal' ? { kind: input.kind } : {}),
    serial: input.serial,
    info: input.info,
    secretHash: input.secretHash,
    requestedAt: nowIso(),
    deletedAt: claim.deletedAt!,
  };
  const requestPut = transactPut(deviceRequests().put(request).params<Record<string, unknown>>());
  const claimUpdate = claims()
    .patch({ tenantId: input.tenantId, kind: 'deviceSerial', value: input.serial })
    .set({ requestKey })
    .where(
      (attr, op) =>
        `${op.eq(attr.deletedAt, claim.deletedAt!)} AND ${claim.requestKey ? op.eq(attr.requestKey, claim.requestKey) : op.notExists(attr.requestKey)}`,
    )
    .params<Record<string, unknown>>();
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: [requestPut, { Update: claimUpdate } as never] }));
    return requestKey;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return undefined;
  }
}

/** Requests to be added again, oldest first: a page and the key to continue after. */
export async function listRequests(tenantId: string, pageSize: number, cursor?: string): Promise<{ items: DeviceRequest[]; nextCursor: string | null }> {
  const query = deviceRequests().query.primary({ tenantId });
  const page = await (cursor ? query.gt({ requestKey: cursor }) : query).go({ limit: pageSize + 1 });
  const items = page.data as DeviceRequest[];
  const more = items.length > pageSize;
  items.length = Math.min(items.length, pageSize);
  return { items, nextCursor: more ? items[items.length - 1]!.requestKey : null };
}

/**
 * Approves the request the administrator saw (`version`): the device is created under the
 * request's key with the terminal's facts and secret, takes a licence seat and the claim on its
 * serial, and the request goes, in one transaction. Without a free seat nothing changes (409).
 */
export async function approveRequest(tenantId: string, requestKey: string, version: number, settings: DeviceSettings): Promise<Device> {
  for (let round = 0; round < 10; round++) {
    const request = await findRequest(tenantId, requestKey);
    if (!request) throw new NotFoundError();
    if (request.version !== version) throw new ConflictError();
    const device = await createBound(tenantId, requestKey, request.kind ?? 'faceTerminal', request.serial, request.info, request.secretHash, settings, request);
    if (device) return device;
    // A parallel write to the same seat or claim cancelled this one: go round and look again.
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * (round + 1)));
  }
  throw new ConflictError();
}

/** Rejects the request: it goes, and the terminal's credentials never work. The serial stays deleted. */
export async function rejectRequest(tenantId: string, requestKey: string, version: number): Promise<void> {
  const request = await findRequest(tenantId, requestKey);
  if (!request) throw new NotFoundError();
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              ...deviceRequests().delete({ tenantId, requestKey }).params<Record<string, unknown>>(),
              ConditionExpression: '#v = :v',
              ExpressionAttributeNames: { '#v': 'version' },
              ExpressionAttributeValues: { ':v': version },
            },
          },
          {
            Update: claims()
              .patch({ tenantId, kind: 'deviceSerial', value: request.serial })
              .remove(['requestKey'])
              .where((attr, op) => op.eq(attr.requestKey, requestKey))
              .params<Record<string, unknown>>(),
          },
        ] as never,
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await findRequest(tenantId, requestKey)) ? new ConflictError() : new NotFoundError();
  }
}

/** The replacement as the console shows it: the facts, never the secret. */
export function replacementFacts(device: Device) {
  const replacement = device.replacement as Replacement | undefined;
  return replacement ? { requestTime: replacement.requestedAt, ...replacement.info } : null;
}

/**
 * Settles the pending replacement the administrator saw (`version`). Approved, the new terminal's
 * secret and facts replace the old ones, so the old terminal's next connection is refused;
 * rejected, the device keeps its secret and the other terminal's stays useless.
 */
export async function settleReplacement(tenantId: string, deviceKey: string, version: number, approve: boolean): Promise<Device> {
  const device = await requireDevice(tenantId, deviceKey);
  const replacement = device.replacement as Replacement | undefined;
  if (!replacement || device.version !== version) throw new ConflictError();
  const superseded = [device.secretHash, ...((device.supersededSecrets as string[] | undefined) ?? [])].slice(0, SUPERSEDED_KEPT);
  const takeover = approve ? { ...replacement.info, secretHash: replacement.secretHash, supersededSecrets: superseded } : {};
  const result = await versionedWrite(
    () =>
      devices()
        .patch({ tenantId, deviceKey })
        .set(takeover)
        .remove(['replacement'])
        .add({ version: 1 })
        .where((attr, op) => op.eq(attr.version, version))
        .go({ response: 'all_new' }),
    async () => !!(await findDevice(tenantId, deviceKey)),
  );
  return result.data as Device;
}
