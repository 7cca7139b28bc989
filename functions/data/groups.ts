import { Entity, type EntityItem } from 'electrodb';
import { NotFoundError } from '#lib/errors';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, nowIso, tenantPartition, versionedWrite } from './entity.ts';
import { newTimeId } from '#lib/crypto';

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
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['groupKey'], template: 'group#${groupKey}', casing: 'none' } },
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

export async function createGroup(tenantId: string, name: string, type: Group['type']): Promise<Group> {
  return (await groups().create({ tenantId, groupKey: newTimeId(), name, type, createdAt: nowIso() }).go()).data;
}

export async function renameGroup(tenantId: string, groupKey: string, name: string, version: number): Promise<Group> {
  const key = { tenantId, groupKey };
  const result = await versionedWrite(
    () =>
      groups()
        .patch(key)
        .set({ name })
        .add({ version: 1 })
        .where((attr, op) => op.eq(attr.version, version))
        .go({ response: 'all_new' }),
    async () => !!(await findGroup(tenantId, groupKey)),
  );
  return result.data as Group;
}

export async function deleteGroup(tenantId: string, groupKey: string, version: number): Promise<void> {
  const key = { tenantId, groupKey };
  await versionedWrite(
    () =>
      groups()
        .delete(key)
        .where((attr, op) => `${op.exists(attr.groupKey)} AND ${op.eq(attr.version, version)}`)
        .go(),
    async () => !!(await findGroup(tenantId, groupKey)),
  );
}
