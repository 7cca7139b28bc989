import { createTenantWithOwner, findAccountByUsername, findTenant } from '@passcloud/functions/data/identity';

/** The demo tenant of DESIGN.md §4, created on the first start. */
export const DEMO = { companyName: 'Demo Company', username: 'admin', password: 'admin12345', email: 'admin@demo.passcloud.local' } as const;

export interface DemoTenant {
  tenantId: string;
  userCode: string;
  username: string;
  password: string;
}

export async function seedDemo(): Promise<DemoTenant> {
  const existing = await findAccountByUsername(DEMO.username);
  if (existing) {
    const tenant = await findTenant(existing.tenantId);
    return { tenantId: existing.tenantId, userCode: tenant?.userCode ?? '', username: DEMO.username, password: DEMO.password };
  }
  const created = await createTenantWithOwner({ ...DEMO, nickname: 'Administrator', defaultGroups: { employee: 'Employees', visitor: 'Visitors' } });
  return { tenantId: created.tenantId, userCode: created.userCode, username: DEMO.username, password: DEMO.password };
}
