import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { IntercomKind } from '#contract/devices';
import { dynamo } from '#lib/aws';
import { ConflictError, NotFoundError } from '#lib/errors';
import { claims } from './claims.ts';
import { allIntercoms, deviceListPage, devices, findDevice, isIntercom, type Device } from './devices.ts';
import { isConditionFailure, transactPut } from './entity.ts';

/**
 * Intercoms are devices (data/devices.ts) of kind `doorStation` or `indoorMonitor`: bound, seated,
 * connected and deleted like face terminals. What is theirs alone is the number others dial,
 * unique within the company through a claim (`intercomNumber`) taken in the same transaction
 * that sets it.
 */

export interface IntercomListQuery {
  pageSize: number;
  cursor?: string | undefined;
  keyword?: string | undefined;
  kind?: IntercomKind | undefined;
  online?: 'true' | 'false' | undefined;
}

/** A page of the intercom list: filtered (the keyword also searches numbers), in list order (name, serial), with the totals of the filtered set. */
export async function intercomListPage(tenantId: string, query: IntercomListQuery) {
  return deviceListPage(
    tenantId,
    query,
    (await allIntercoms(tenantId)).filter((d) => !query.kind || d.kind === query.kind),
  );
}

/** The company's intercom with this number, if any. */
export async function intercomByNumber(tenantId: string, number: string): Promise<Device | undefined> {
  const claim = (await claims().get({ tenantId, kind: 'intercomNumber', value: number }).go()).data;
  if (!claim?.deviceKey) return undefined;
  const device = await findDevice(tenantId, claim.deviceKey);
  return device && isIntercom(device) && device.number === number ? device : undefined;
}

export interface IntercomChanges {
  name?: string;
  /** null takes the number away. */
  number?: string | null;
}

/**
 * Renames an intercom and sets or takes away its number, when `version` is the one last read.
 * A new number is claimed and the old one given back in the same transaction: of two intercoms
 * given one number at once, one gets it and the other answers 409 on `number`.
 */
export async function updateIntercom(device: Device, version: number, changes: IntercomChanges): Promise<Device> {
  const { tenantId, deviceKey } = device;
  const numberChanges = changes.number !== undefined && (changes.number ?? undefined) !== device.number;
  let update = devices()
    .patch({ tenantId, deviceKey })
    .set({ ...(changes.name !== undefined ? { name: changes.name } : {}), ...(numberChanges && changes.number ? { number: changes.number } : {}) });
  if (numberChanges && !changes.number) update = update.remove(['number']);
  const deviceUpdate = update
    .add({ version: 1 })
    .where((attr, op) => op.eq(attr.version, version))
    .params<Record<string, unknown>>();
  const items: unknown[] = [{ Update: deviceUpdate }];
  if (numberChanges && changes.number) {
    const claim = transactPut(
      claims().put({ tenantId, kind: 'intercomNumber', value: changes.number, ownerTenantId: tenantId, deviceKey }).params<Record<string, unknown>>(),
    );
    claim.Put!.ConditionExpression = 'attribute_not_exists(pk)';
    items.push(claim);
  }
  if (numberChanges && device.number) {
    items.push({
      Delete: {
        ...claims().delete({ tenantId, kind: 'intercomNumber', value: device.number }).params<Record<string, unknown>>(),
        ConditionExpression: '#d = :d',
        ExpressionAttributeNames: { '#d': 'deviceKey' },
        ExpressionAttributeValues: { ':d': deviceKey },
      },
    });
  }
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items as never }));
  } catch (error) {
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
    if (!reasons && !isConditionFailure(error)) throw error;
    const current = await findDevice(tenantId, deviceKey);
    if (!current || !isIntercom(current)) throw new NotFoundError();
    if (current.version !== version) throw new ConflictError();
    if (reasons?.[1]?.Code === 'ConditionalCheckFailed') throw new ConflictError('intercom.numberTaken', 'number', { number: changes.number ?? '' });
    throw new ConflictError();
  }
  const updated = await findDevice(tenantId, deviceKey);
  if (!updated) throw new NotFoundError();
  return updated;
}
