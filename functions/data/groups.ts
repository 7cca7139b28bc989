import { Entity, type EntityItem } from 'electrodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError, NotFoundError } from '#lib/errors';
import { dynamo } from '#lib/aws';
import { claims } from './claims.ts';
import { MAIN_TABLE } from './tables.ts';
import {
  SERVICE,
  entityConfig,
  isConditionFailure,
  lazy,
  nowIso,
  tenantPartition,
  transactDelete,
  transactPut,
  transactUpdate,
  type TransactItem,
} from './entity.ts';
import { newTimeId } from '#lib/crypto';
import { GROUP } from './keys/main.ts';

/** Groups, each of employees, of visitors or of devices. */
export const groups = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'group', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          groupKey: { type: 'string', required: true },
          type: { type: ['employee', 'visitor', 'device'] as const, required: true },
          name: { type: 'string', required: true },
          createdAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['groupKey'], template: GROUP.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export type Group = EntityItem<ReturnType<typeof groups>>;

export async function findGroup(tenantId: string, groupKey: string): Promise<Group | undefined> {
  return (await groups().get({ tenantId, groupKey }).go()).data ?? undefined;
}

export async function requireGroup(tenantId: string, groupKey: string): Promise<Group> {
  const group = await findGroup(tenantId, groupKey);
  if (!group) throw new NotFoundError();
  return group;
}

export async function listGroups(tenantId: string, type: Group['type']): Promise<Group[]> {
  const all = await groups().query.primary({ tenantId }).go({ pages: 'all' });
  return all.data.filter((g) => g.type === type).sort((a, b) => a.name.localeCompare(b.name));
}

/** Group names are unique per type within a tenant, whatever their case, width or spacing. */
const nameClaimValue = (type: Group['type'], name: string): string => `${type}#${name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase()}`;
const nameClaim = (tenantId: string, type: Group['type'], name: string) => ({ tenantId, kind: 'groupName' as const, value: nameClaimValue(type, name) });

function claimPut(tenantId: string, type: Group['type'], name: string, groupKey: string): TransactItem {
  const item = transactPut(
    claims()
      .put({ ...nameClaim(tenantId, type, name), ownerTenantId: tenantId, groupKey })
      .params<Record<string, unknown>>(),
  );
  item.Put!.ConditionExpression = 'attribute_not_exists(pk)';
  return item;
}

/** A group of this type and name, claimed or (for groups made before names were claimed) listed. */
async function nameTaken(tenantId: string, type: Group['type'], name: string, except?: string): Promise<boolean> {
  const claim = (
    await claims()
      .get(nameClaim(tenantId, type, name))
      .go()
  ).data;
  if (claim && claim.groupKey !== except) return true;
  const wanted = nameClaimValue(type, name);
  return (await listGroups(tenantId, type)).some((g) => g.groupKey !== except && nameClaimValue(type, g.name) === wanted);
}

const nameTakenError = (name: string) => new ConflictError('groups.nameTaken', 'name', { name });

/** Creates a group; a name the type already has answers 409 naming `name` (one transaction decides between parallel requests). */
export async function createGroup(tenantId: string, name: string, type: Group['type']): Promise<Group> {
  if (await nameTaken(tenantId, type, name)) throw nameTakenError(name);
  const { groupKey, writes } = groupWrites(tenantId, name, type);
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: writes }));
  } catch (error) {
    if (isConditionFailure(error)) throw nameTakenError(name);
    throw error;
  }
  return requireGroup(tenantId, groupKey);
}

/** The writes that create a group and claim its name, for a transaction of the caller's. */
export function groupWrites(tenantId: string, name: string, type: Group['type']): { groupKey: string; writes: TransactItem[] } {
  const record = { tenantId, groupKey: newTimeId(), name, type, createdAt: nowIso() };
  return {
    groupKey: record.groupKey,
    writes: [transactPut(groups().create(record).params<Record<string, unknown>>()), claimPut(tenantId, type, name, record.groupKey)],
  };
}

export async function renameGroup(tenantId: string, groupKey: string, name: string, version: number): Promise<Group> {
  const current = await requireGroup(tenantId, groupKey);
  if (nameClaimValue(current.type, name) !== nameClaimValue(current.type, current.name) && (await nameTaken(tenantId, current.type, name, groupKey))) {
    throw nameTakenError(name);
  }
  const update = groups()
    .patch({ tenantId, groupKey })
    .set({ name })
    .add({ version: 1 })
    .where((attr, op) => op.eq(attr.version, version))
    .params<Record<string, unknown>>();
  const items: TransactItem[] = [transactUpdate(update)];
  if (nameClaimValue(current.type, name) !== nameClaimValue(current.type, current.name)) {
    items.push(
      transactDelete(
        claims()
          .delete(nameClaim(tenantId, current.type, current.name))
          .params<Record<string, unknown>>(),
      ),
    );
    items.push(claimPut(tenantId, current.type, name, groupKey));
  }
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const now = await findGroup(tenantId, groupKey);
    if (!now) throw new NotFoundError();
    if (now.version !== version) throw new ConflictError();
    throw nameTakenError(name);
  }
  return requireGroup(tenantId, groupKey);
}

export async function deleteGroup(tenantId: string, groupKey: string, version: number): Promise<void> {
  const current = await requireGroup(tenantId, groupKey);
  const remove = groups()
    .delete({ tenantId, groupKey })
    .where((attr, op) => `${op.exists(attr.groupKey)} AND ${op.eq(attr.version, version)}`)
    .params<Record<string, unknown>>();
  const claim = claims()
    .delete(nameClaim(tenantId, current.type, current.name))
    .params<Record<string, unknown>>();
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: [transactDelete(remove), transactDelete(claim)] }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await findGroup(tenantId, groupKey)) ? new ConflictError() : new NotFoundError();
  }
}
