import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createTenantWithOwner, findAccountByUsername, findTenant } from '@passcloud/functions/data/identity';
import { activateLicence, listLicences } from '@passcloud/functions/data/licences';
import { issueLicenceCode } from '@passcloud/functions/domain/licence';

/** The demo tenant of DESIGN.md §4, created on the first start. */
export const DEMO = { companyName: 'Demo Company', username: 'admin', password: 'admin12345', email: 'admin@demo.passcloud.local' } as const;

export interface DemoTenant {
  tenantId: string;
  userCode: string;
  username: string;
  password: string;
}

/** Seats of the licence the demo tenant starts with. */
export const DEMO_SEATS = 100;

/** Creates the demo tenant on the first start, with a licence issued by the local demo key. */
export async function seedDemo(licencePrivateKeyFile: string): Promise<DemoTenant> {
  const existing = await findAccountByUsername(DEMO.username);
  const demo = existing
    ? { tenantId: existing.tenantId, userCode: (await findTenant(existing.tenantId))?.userCode ?? '' }
    : await createTenantWithOwner({ ...DEMO, nickname: 'Administrator', defaultGroups: { employee: 'Employees', visitor: 'Visitors' } });
  if (!(await listLicences(demo.tenantId)).some((l) => Date.parse(l.expiresAt) > Date.now())) {
    const now = new Date();
    const terms = { id: randomUUID(), seats: DEMO_SEATS, expiresAt: new Date(now.getTime() + 365 * 86_400_000).toISOString(), issuedAt: now.toISOString() };
    await activateLicence(demo.tenantId, issueLicenceCode(readFileSync(licencePrivateKeyFile, 'utf8'), terms), terms);
  }
  return { tenantId: demo.tenantId, userCode: demo.userCode, username: DEMO.username, password: DEMO.password };
}
