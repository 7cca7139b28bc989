import { describe, expect, it } from 'vitest';
import { accounts } from '@passcloud/functions/data/accounts';
import { createAccount, findAccountByUsername } from '@passcloud/functions/data/identity';
import { hashPassword, PRODUCTION_HASH_COST } from '@passcloud/functions/lib/crypto';
import { AUTH_CODES } from '@passcloud/functions/contract/menu';
import { call, login, loginAnswer, newCompany, unique } from '../support/api.ts';

/**
 * The test stack hashes passwords at a low scrypt cost (PASSWORD_HASH_COST, a local setting the
 * stack never sets); every stored hash records its own cost, so an account whose hash was made at
 * the production cost, as on AWS, logs in on the same host.
 */

/** A hash made as a deployed function makes it: without the local setting. */
async function productionHash(password: string): Promise<string> {
  const lowered = process.env.PASSWORD_HASH_COST;
  delete process.env.PASSWORD_HASH_COST;
  try {
    return await hashPassword(password);
  } finally {
    if (lowered !== undefined) process.env.PASSWORD_HASH_COST = lowered;
  }
}

describe('password hashes of either cost', () => {
  it('logs in an account whose hash was made at the production cost, and refuses its wrong password', async () => {
    const { tenantId } = await newCompany();
    const username = unique('prodhash');
    const password = 'production-cost-1';
    const accountId = await createAccount(tenantId, { username, password: 'replaced-below-1', authCodes: [...AUTH_CODES], email: `${username}@example.test` });
    const hash = await productionHash(password);
    expect(hash).toMatch(new RegExp(`^scrypt\\$${PRODUCTION_HASH_COST}\\$8\\$1\\$`));
    await accounts().patch({ tenantId, accountId }).set({ passwordHash: hash }).go();

    const user = await login(username, password);
    expect((await call('GET', '/v1/systems/me', { token: user.token })).status).toBe(200);
    expect((await loginAnswer(username, 'replaced-below-1')).status).toBe(401);
    expect((await findAccountByUsername(username))?.passwordHash).toBe(hash);
  });

  it('hashes at the lowered cost on the test stack, and those hashes verify too', async () => {
    const { username, password } = await newCompany();
    expect((await findAccountByUsername(username))?.passwordHash).toMatch(/^scrypt\$10\$8\$1\$/);
    expect((await loginAnswer(username, password)).status).toBe(200);
  });
});
