import { beforeAll, describe, expect, it } from 'vitest';
import { call, encrypt, login, newCompany, unique, type UserInfo } from '../support/api.ts';

/** One nickname rule for creating and changing an account: optional, at most 64 characters, and left empty it is the username. */

interface Account {
  accountKey: string;
  username: string;
  nickname: string;
  version: number;
}
type Issues = { issues: { path: string; message: string }[] };

let owner: UserInfo;

beforeAll(async () => {
  const tenant = await newCompany();
  owner = await login(tenant.username, tenant.password);
});

async function create(fields: Record<string, unknown>) {
  const username = unique('nick');
  const answer = await call<Account & Issues>('POST', '/v1/accounts', {
    token: owner.token,
    body: { username, password: await encrypt(owner.key, 'first-pass-1'), authCodes: ['pass:dashboard'], ...fields },
  });
  return { answer, username };
}
const read = async (key: string) => (await call<Account>('GET', `/v1/accounts/${key}`, { token: owner.token })).body.data;
const patch = (account: Account, body: Record<string, unknown>) =>
  call<Account & Issues>('PATCH', `/v1/accounts/${account.accountKey}`, { token: owner.token, body: { ...body, version: account.version } });

describe('account nickname', () => {
  it('is optional on create as on change: left out or empty, it is the username', async () => {
    const { answer: bare, username } = await create({});
    expect(bare.body.code).toBe(201);
    expect(bare.body.data.nickname).toBe(username);
    const { answer: empty, username: other } = await create({ nickname: '   ' });
    expect(empty.body.code).toBe(201);
    expect(empty.body.data.nickname).toBe(other);

    const named = await patch(bare.body.data, { nickname: 'Front desk' });
    expect(named.body.code).toBe(201);
    expect(named.body.data.nickname).toBe('Front desk');
    const cleared = await patch(named.body.data, { nickname: '' });
    expect(cleared.body.code).toBe(201);
    expect(cleared.body.data.nickname).toBe(username);
    expect((await read(bare.body.data.accountKey)).nickname).toBe(username);
  });

  it('refuses a nickname over 64 characters on create and on change alike, naming the field, and changes nothing', async () => {
    const long = 'n'.repeat(65);
    const { answer: refused, username } = await create({ nickname: long });
    expect(refused.status).toBe(422);
    expect(refused.body.data.issues).toEqual([{ path: 'nickname', message: 'Nickname must be at most 64 characters' }]);
    const list = await call<{ items: Account[] }>('GET', `/v1/accounts?keyword=${username}`, { token: owner.token });
    expect(list.body.data.items).toEqual([]);

    const { answer: made } = await create({ nickname: 'Kept' });
    const change = await patch(made.body.data, { nickname: long });
    expect(change.status).toBe(422);
    expect(change.body.data.issues).toEqual([{ path: 'nickname', message: 'Nickname must be at most 64 characters' }]);
    expect(await read(made.body.data.accountKey)).toMatchObject({ nickname: 'Kept', version: made.body.data.version });
  });
});
