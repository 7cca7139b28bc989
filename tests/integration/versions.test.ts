import { describe, expect, it, inject } from 'vitest';
import { accounts } from '@passcloud/functions/data/accounts';
import { createAccount, updateProfile } from '@passcloud/functions/data/identity';
import { ConflictError, NotFoundError } from '@passcloud/functions/lib/errors';
import { unique } from '../support/api.ts';

describe('versioned writes', () => {
  it('applies a change at the current version and bumps it', async () => {
    const tenantId = inject('demo').tenantId;
    const accountId = await createAccount(tenantId, { username: unique('ver'), password: 'version-pass-1', authCodes: [] });
    const updated = await updateProfile(tenantId, accountId, 1, { nickname: 'Front desk' });
    expect(updated).toMatchObject({ nickname: 'Front desk', version: 2 });
  });

  it('answers 409 to a stale version and changes nothing', async () => {
    const tenantId = inject('demo').tenantId;
    const accountId = await createAccount(tenantId, { username: unique('ver'), password: 'version-pass-1', authCodes: [] });
    await updateProfile(tenantId, accountId, 1, { nickname: 'First' });
    await expect(updateProfile(tenantId, accountId, 1, { nickname: 'Second' })).rejects.toBeInstanceOf(ConflictError);
    const stored = (await accounts().get({ tenantId, accountId }).go()).data;
    expect(stored).toMatchObject({ nickname: 'First', version: 2 });
  });

  it('answers 404 for a record that does not exist, and creates nothing', async () => {
    const tenantId = inject('demo').tenantId;
    await expect(updateProfile(tenantId, 'missing0000000000', 1, { nickname: 'Ghost' })).rejects.toBeInstanceOf(NotFoundError);
    expect((await accounts().get({ tenantId, accountId: 'missing0000000000' }).go()).data).toBeNull();
  });
});
