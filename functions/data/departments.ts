import { Entity, type EntityItem } from 'electrodb';
import { newTimeId } from '#lib/crypto';
import { NotFoundError } from '#lib/errors';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, nowIso, tenantPartition, versionedWrite } from './entity.ts';
import { DEPARTMENT } from './keys/main.ts';

/** Departments form a tree through `parentKey`. */
export const departments = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'department', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          departmentKey: { type: 'string', required: true },
          name: { type: 'string', required: true },
          parentKey: { type: 'string' },
          createdAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['departmentKey'], template: DEPARTMENT.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export type Department = EntityItem<ReturnType<typeof departments>>;

export async function findDepartment(tenantId: string, departmentKey: string): Promise<Department | undefined> {
  return (await departments().get({ tenantId, departmentKey }).go()).data ?? undefined;
}

export async function requireDepartment(tenantId: string, departmentKey: string): Promise<Department> {
  const department = await findDepartment(tenantId, departmentKey);
  if (!department) throw new NotFoundError();
  return department;
}

export async function listDepartments(tenantId: string): Promise<Department[]> {
  return (await departments().query.primary({ tenantId }).go({ pages: 'all' })).data;
}

export async function createDepartment(tenantId: string, name: string, parentKey?: string): Promise<Department> {
  return (await departments().create({ tenantId, departmentKey: newTimeId(), name, parentKey, createdAt: nowIso() }).go()).data;
}

export async function updateDepartment(tenantId: string, departmentKey: string, version: number, changes: { name?: string; parentKey?: string | null }) {
  const key = { tenantId, departmentKey };
  const { parentKey, ...rest } = changes;
  const result = await versionedWrite(
    () => {
      let update = departments().patch(key).set(rest).add({ version: 1 });
      if (parentKey === null) update = update.remove(['parentKey']);
      else if (parentKey) update = update.set({ parentKey });
      return update.where((attr, op) => op.eq(attr.version, version)).go({ response: 'all_new' });
    },
    async () => !!(await findDepartment(tenantId, departmentKey)),
  );
  return result.data as Department;
}

export async function deleteDepartment(tenantId: string, departmentKey: string, version: number): Promise<void> {
  await versionedWrite(
    () =>
      departments()
        .delete({ tenantId, departmentKey })
        .where((attr, op) => `${op.exists(attr.departmentKey)} AND ${op.eq(attr.version, version)}`)
        .go(),
    async () => !!(await findDepartment(tenantId, departmentKey)),
  );
}

export const departmentJson = (d: Department) => ({ departmentKey: d.departmentKey, name: d.name, parentKey: d.parentKey ?? null, version: d.version });

export interface DepartmentNode {
  departmentKey: string;
  name: string;
  parentKey: string | null;
  version: number;
  children: DepartmentNode[];
}

/** The departments as a tree, each level sorted by name. */
export function departmentTree(list: Department[]): DepartmentNode[] {
  const nodes = new Map<string, DepartmentNode>(list.map((d) => [d.departmentKey, { ...departmentJson(d), children: [] }]));
  const roots: DepartmentNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentKey ? nodes.get(node.parentKey) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  const sort = (level: DepartmentNode[]) => {
    level.sort((a, b) => a.name.localeCompare(b.name));
    level.forEach((n) => sort(n.children));
  };
  sort(roots);
  return roots;
}
