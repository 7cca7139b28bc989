import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '@passcloud/functions/routes';
import { sessions } from '@passcloud/functions/data/sessions';
import { openSession, requireAccount } from '@passcloud/functions/data/identity';
import { findAccountByUsername } from '@passcloud/functions/data/identity';
import { newRsaKeyPair, sha256 } from '@passcloud/functions/lib/crypto';
import { call, newCompany } from '../support/api.ts';

/**
 * A console left open past its session: whichever function the next request reaches removes the
 * ended session (lib/auth.ts) and answers 666, so the console asks for a new login. Each function
 * runs with its own role on the local host (infra/local/roles.ts), so this holds only when every
 * role that serves session routes may delete from the main table.
 */
let company: Awaited<ReturnType<typeof newCompany>>;
let keys: Awaited<ReturnType<typeof newRsaKeyPair>>;

beforeAll(async () => {
  company = await newCompany();
  keys = await newRsaKeyPair();
});

/** One session route of each function: a GET where it has one, its path's parameters filled in. */
const sample = [...new Set(routes.filter((r) => r.access === 'session').map((r) => r.resource))].map((resource) => {
  const own = routes.filter((r) => r.resource === resource && r.access === 'session');
  const route = own.find((r) => r.method === 'GET' && !r.path.includes('{')) ?? own.find((r) => r.method === 'GET') ?? own[0]!;
  return { resource, method: route.method, path: route.path.replace(/\{[^}]+\}/g, 'x0000000000000000') };
});

describe('an idle session', () => {
  it.each(sample)('answers 666 at $resource ($method $path) and is removed', async ({ method, path }) => {
    const found = (await findAccountByUsername(company.username))!;
    const token = await openSession(await requireAccount(found.tenantId, found.accountId), keys);
    await sessions().patch({ tenantId: found.tenantId, tokenHash: sha256(token) }).set({ lastSeenAt: Date.now() - 3 * 3600_000 }).go();
    const answer = await call(method, path, { token, ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(401);
    expect(answer.body.code).toBe(666);
    // The session is gone: the same token is now simply unknown.
    expect((await sessions().get({ tenantId: found.tenantId, tokenHash: sha256(token) }).go()).data).toBeNull();
  });
});
