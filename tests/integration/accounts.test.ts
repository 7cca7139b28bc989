import { beforeAll, describe, expect, it } from 'vitest';
import { AUTH_CODES } from '@passcloud/functions/contract/menu';
import { accounts } from '@passcloud/functions/data/accounts';
import { countAttempt } from '@passcloud/functions/data/identity';
import { invitations } from '@passcloud/functions/data/invitations';
import { sha256 } from '@passcloud/functions/lib/crypto';
import { baseUrl, call, encrypt, login, loginAnswer, mailsTo, newCompany, securityKey, unique, type UserInfo } from '../support/api.ts';

interface Account {
  accountKey: string;
  username: string;
  nickname: string;
  email: string | null;
  authCodes: string[];
  owner: boolean;
  disabled: boolean;
  mustChangePassword: boolean;
  version: number;
}
type Issues = { issues: { path: string; message: string }[] };
interface MenuNode {
  path: string;
  authCode?: string;
  children?: MenuNode[];
}

let owner: UserInfo;
let ownerPassword: string;

beforeAll(async () => {
  const tenant = await newCompany();
  ownerPassword = tenant.password;
  owner = await login(tenant.username, tenant.password);
});

const allCodes = [...AUTH_CODES];
const without = (...codes: string[]) => allCodes.filter((c) => !codes.includes(c));
const flatten = (nodes: MenuNode[]): MenuNode[] => nodes.flatMap((n) => [n, ...flatten(n.children ?? [])]);

async function create(as: UserInfo, fields: Record<string, unknown> & { authCodes: string[] }, password = 'first-pass-1') {
  const username = unique('acct');
  const answer = await call<Account & Issues>('POST', '/v1/accounts', {
    token: as.token,
    body: { username, nickname: 'Front desk', email: `${username}@example.test`, password: await encrypt(as.key, password), ...fields },
  });
  return { answer, username, password };
}

/** Logs in with the initial password and chooses a new one, as the console makes a new user do. */
async function firstLogin(username: string, password: string, next = 'own-pass-2') {
  const user = await login(username, password);
  expect(user).toMatchObject({ mustChangePassword: true });
  const payload = await encrypt(user.key, JSON.stringify({ oldPassword: password, newPassword: next }));
  expect((await call('PATCH', '/v1/systems/reset', { token: user.token, body: { payload } })).body.code).toBe(201);
  return login(username, next);
}

const read = async (key: string) => (await call<Account>('GET', `/v1/accounts/${key}`, { token: owner.token })).body.data;

/** The newest invitation mailed to `email`: its text, its link and the link's token. */
async function invitation(email: string): Promise<{ text: string; link: URL; token: string }> {
  const text = (await mailsTo(email)).at(-1)?.text ?? '';
  const found = /https?:\/\/\S+\/invitation\?token=[A-Za-z0-9_-]{43}/.exec(text)?.[0];
  if (!found) throw new Error(`no invitation link mailed to ${email}: ${text}`);
  const link = new URL(found);
  return { text, link, token: link.searchParams.get('token')! };
}

/** Chooses a password through an invitation link, encrypted with a login key as the console does. */
async function choose(token: string, password: string, locale?: string) {
  const { securityId, publicKey } = await securityKey();
  return call<Issues & { username: string }>('POST', '/v1/systems/invitation', {
    body: { securityId, token, password: await encrypt(publicKey, password) },
    ...(locale ? { locale } : {}),
  });
}

describe('accounts and permissions', () => {
  it('creates an account with part of the permission tree; it must change its password first, then sees and reaches only what it was given', async () => {
    const { answer, username, password } = await create(owner, { authCodes: without('pass:employee', 'pass:employeeImport') });
    expect(answer.body).toMatchObject({ code: 201, data: { username, owner: false, disabled: false, mustChangePassword: true } });

    const fresh = await login(username, password);
    const blocked = await call('GET', '/v1/visitors', { token: fresh.token });
    expect(blocked.status).toBe(401);
    expect(blocked.body.message).toMatch(/new password/);

    const user = await firstLogin(username, password);
    expect(user.mustChangePassword).toBe(false);
    expect((await call('GET', '/v1/visitors', { token: user.token })).status).toBe(200);
    for (const path of ['/v1/employees', '/v1/employees/exports/zzzzzzzzzzzzzzzz']) expect((await call('GET', path, { token: user.token })).status).toBe(401);
    const menu = flatten((await call<MenuNode[]>('GET', '/v1/systems/routes', { token: user.token })).body.data);
    expect(menu.some((n) => n.authCode === 'pass:employee')).toBe(false);
    expect(menu.some((n) => n.authCode === 'pass:visitor')).toBe(true);
  });

  it('ends the session at its next request (661) when permissions change, the account is disabled or deleted', async () => {
    const made = await Promise.all([0, 1, 2].map(() => create(owner, { authCodes: ['pass:dashboard', 'pass:visitor'] })));
    const users = await Promise.all(made.map((m) => firstLogin(m.username, m.password)));
    const keys = made.map((m) => m.answer.body.data.accountKey);

    const changed = await call<Account>('PATCH', `/v1/accounts/${keys[0]}`, { token: owner.token, body: { authCodes: ['pass:dashboard'], version: (await read(keys[0]!)).version } });
    expect(changed.body.data.authCodes).toEqual(['pass:dashboard']);
    expect((await call('GET', '/v1/systems/me', { token: users[0]!.token })).body.code).toBe(661);
    const again = await login(made[0]!.username, 'own-pass-2');
    expect(flatten((await call<MenuNode[]>('GET', '/v1/systems/routes', { token: again.token })).body.data).some((n) => n.authCode === 'pass:visitor')).toBe(false);

    await call('PATCH', `/v1/accounts/${keys[1]}`, { token: owner.token, body: { disabled: true, version: (await read(keys[1]!)).version } });
    expect((await call('GET', '/v1/systems/me', { token: users[1]!.token })).body.code).toBe(661);
    expect((await loginAnswer(made[1]!.username, 'own-pass-2')).body.code).toBe(661);

    const deleted = await call('DELETE', `/v1/accounts/${keys[2]}?version=${(await read(keys[2]!)).version}`, { confirm: true, token: owner.token });
    expect(deleted.body.code).toBe(204);
    expect((await call('GET', '/v1/systems/me', { token: users[2]!.token })).body.code).toBe(661);
    expect((await loginAnswer(made[2]!.username, 'own-pass-2')).status).toBe(401);
    expect((await call('GET', `/v1/accounts/${keys[2]}`, { token: owner.token })).status).toBe(404);
  });

  it('protects the owner: it cannot be disabled, deleted or lose account management, and nobody else manages it', async () => {
    const list = (await call<{ items: Account[] }>('GET', '/v1/accounts', { token: owner.token })).body.data.items;
    const me = list.find((a) => a.owner)!;
    expect(list[0]!.owner).toBe(true);
    const disable = await call<Issues>('PATCH', `/v1/accounts/${me.accountKey}`, { token: owner.token, body: { disabled: true, version: me.version } });
    expect(disable.status).toBe(422);
    expect(disable.body.data.issues[0]!.path).toBe('disabled');
    const strip = await call<Issues>('PATCH', `/v1/accounts/${me.accountKey}`, { token: owner.token, body: { authCodes: without('settings:account'), version: me.version } });
    expect(strip.status).toBe(422);
    expect(strip.body.data.issues[0]!.path).toBe('authCodes');
    expect((await call('DELETE', `/v1/accounts/${me.accountKey}?version=${me.version}`, { confirm: true, token: owner.token })).status).toBe(409);
    expect(await read(me.accountKey)).toMatchObject({ disabled: false, authCodes: allCodes, version: me.version });

    // A sub-administrator may manage accounts, but neither the owner nor beyond its own permissions.
    const { username, password } = await create(owner, { authCodes: ['settings:account', 'pass:visitor'] });
    const admin = await firstLogin(username, password);
    expect((await call('PATCH', `/v1/accounts/${me.accountKey}`, { token: admin.token, body: { nickname: 'Taken', version: me.version } })).status).toBe(401);
    expect((await call('POST', `/v1/accounts/${me.accountKey}/password`, { token: admin.token, body: { password: await encrypt(admin.key, 'takeover-1') } })).status).toBe(401);
    const beyond = await create(admin, { authCodes: ['pass:visitor', 'pass:device'] });
    expect(beyond.answer.status).toBe(422);
    expect(beyond.answer.body.data.issues[0]!.path).toBe('authCodes');
    const self = (await call<{ items: Account[] }>('GET', `/v1/accounts?keyword=${username}`, { token: admin.token })).body.data.items[0]!;
    const raise = await call<Issues>('PATCH', `/v1/accounts/${self.accountKey}`, { token: admin.token, body: { authCodes: allCodes, version: self.version } });
    expect(raise.status).toBe(422);
    expect((await read(self.accountKey)).authCodes).toEqual(['settings:account', 'pass:visitor']);
    // The owner still logs in (its new session replaces the old one).
    owner = await login((await call<UserInfo>('GET', '/v1/systems/me', { token: owner.token })).body.data.username, ownerPassword);
  });

  it('keeps usernames unique across companies and names the field, and creates nothing', async () => {
    const count = async () => (await call<{ total: number }>('GET', '/v1/accounts', { token: owner.token })).body.data.total;
    const before = await count();
    const taken = await call<Issues>('POST', '/v1/accounts', { token: owner.token, body: { username: 'admin', authCodes: [], password: await encrypt(owner.key, 'whatever-pass-1') } });
    expect(taken.status).toBe(409);
    expect(taken.body.data.issues[0]!.path).toBe('username');
    expect(await count()).toBe(before);
  });

  it('invites by mail with a one-time link, never a password: the person chooses it there and logs in with it', async () => {
    const username = unique('invited');
    const email = `${username}@example.test`;
    const answer = await call<Account>('POST', '/v1/accounts', {
      token: owner.token,
      body: { username, email, authCodes: ['pass:dashboard'], invite: true },
      headers: { origin: 'https://evil.example', 'x-forwarded-host': 'evil.example' },
    });
    expect(answer.body.code).toBe(201);
    expect(answer.body.data).toMatchObject({ username, mustChangePassword: false });
    const { text, link, token } = await invitation(email);
    expect(text).toContain(username);
    expect(text).toContain(owner.companyName);
    expect(text).not.toContain('evil.example');
    expect(text).not.toMatch(/Password: \S/);
    expect(link.origin).toBe(new URL(baseUrl()).origin);
    expect(link.pathname).toBe('/invitation');
    // The mail record keeps the link's token masked.
    const recorded = (await call<{ items: { to: string; content: string; name: string | null }[] }>('GET', '/v1/mailRecords?group=invitation', { token: owner.token })).body.data.items.find((m) => m.to === email)!;
    // The record is named after the account the invitation is for.
    expect(recorded.name).toBe(username);
    expect(recorded.content).not.toContain(token);
    expect(recorded.content).toContain(`token=${'*'.repeat(token.length)}`);

    expect((await call('GET', `/v1/systems/invitation?token=${token}`)).body).toMatchObject({ code: 200, data: { username, companyName: owner.companyName } });
    // The password rules hold, and a refusal leaves the link usable.
    const short = await choose(token, 'short');
    expect(short.status).toBe(422);
    expect(short.body.data.issues).toEqual([{ path: 'password', message: 'Must be at least 8 characters' }]);
    // Two uses at the same moment: one sets the password.
    const [first, second] = await Promise.all([choose(token, 'chosen-pass-1'), choose(token, 'chosen-pass-2')]);
    expect([first.body.code, second.body.code].sort()).toEqual([201, 404]);
    const chosen = first.body.code === 201 ? 'chosen-pass-1' : 'chosen-pass-2';
    const other = chosen === 'chosen-pass-1' ? 'chosen-pass-2' : 'chosen-pass-1';
    // A later use is refused and changes nothing.
    const again = await choose(token, 'chosen-pass-3');
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('This invitation link is not valid: it has expired, was used already or was replaced by a newer one. Ask your administrator for a new invitation.');
    expect((await call('GET', `/v1/systems/invitation?token=${token}`)).status).toBe(404);
    for (const wrong of [other, 'chosen-pass-3']) expect((await loginAnswer(username, wrong)).status).toBe(401);
    const user = await login(username, chosen);
    expect(user.mustChangePassword).toBe(false);
    expect((await call('GET', '/v1/systems/me', { token: user.token })).status).toBe(200);

    // Without an email there is nobody to invite, and no account is made.
    const nomail = unique('nomail');
    const none = await call<Issues>('POST', '/v1/accounts', { token: owner.token, body: { username: nomail, authCodes: [], invite: true } });
    expect(none.status).toBe(422);
    expect(none.body.data.issues[0]!.path).toBe('email');
    expect((await call<{ total: number }>('GET', `/v1/accounts?keyword=${nomail}`, { token: owner.token })).body.data.total).toBe(0);
  });

  it('answers an unknown, malformed or expired link clearly in the caller’s language, and changes nothing', async () => {
    const username = unique('late');
    const email = `${username}@example.test`;
    const made = await call<Account>('POST', '/v1/accounts', { token: owner.token, body: { username, email, authCodes: [], invite: true } });
    const { token } = await invitation(email);
    const stored = async () => (await accounts().get({ tenantId: owner.token.split('.')[0]!, accountId: made.body.data.accountKey }).go()).data!;
    const before = await stored();

    const unknown = await choose('A'.repeat(43), 'whatever-pass-1', 'ja_JP');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toMatch(/^この招待リンクは無効です/);
    const malformed = await call<Issues>('GET', '/v1/systems/invitation?token=abc');
    expect(malformed.status).toBe(422);
    expect(malformed.body.data.issues).toEqual([{ path: 'token', message: expect.stringMatching(/^This invitation link is not valid/) }]);

    await invitations()
      .patch({ tenantId: '_system', tokenHash: sha256(`invitation:${token}`) })
      .set({ expiresAt: Date.now() - 1000 })
      .go();
    expect((await call('GET', `/v1/systems/invitation?token=${token}`)).status).toBe(404);
    const expired = await choose(token, 'too-late-pass-1');
    expect(expired.status).toBe(404);
    expect(await stored()).toEqual(before);
    expect((await loginAnswer(username, 'too-late-pass-1')).status).toBe(401);
  });

  it('resets a password by invitation: the session and the old password end, and only the newest link works', async () => {
    const { answer, username, password } = await create(owner, { authCodes: ['pass:dashboard'] });
    const email = `${username}@example.test`;
    const user = await firstLogin(username, password);
    const key = answer.body.data.accountKey;
    const reset = await call<Account>('POST', `/v1/accounts/${key}/password`, { token: owner.token, body: { invite: true } });
    expect(reset.body.data.mustChangePassword).toBe(false);
    expect((await call('GET', '/v1/systems/me', { token: user.token })).status).toBe(403);
    expect((await loginAnswer(username, 'own-pass-2')).status).toBe(401);
    const older = await invitation(email);
    expect(older.text).toMatch(/reset the password/);
    expect(older.text).not.toMatch(/Password: \S/);
    // A second reset makes the first link void.
    await call('POST', `/v1/accounts/${key}/password`, { token: owner.token, body: { invite: true } });
    const newer = await invitation(email);
    expect(newer.token).not.toBe(older.token);
    expect((await choose(older.token, 'stale-link-pass-1')).status).toBe(404);
    expect((await choose(newer.token, 'fresh-link-pass-1')).body.code).toBe(201);
    expect((await login(username, 'fresh-link-pass-1')).mustChangePassword).toBe(false);
  });

  it('mails at most 50 invitations an hour per company, however many are asked for at once', async () => {
    const tenant = await newCompany();
    const admin = await login(tenant.username, tenant.password);
    const tenantId = admin.token.split('.')[0]!;
    // The hour's count brought to 47 of 50 (each invitation makes an account, which takes a while): three are left for six asked.
    for (let i = 0; i < 47; i++) await countAttempt('invitations', tenantId, 'accounts.invitationLimit', tenantId);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => {
        const username = unique('many');
        return call('POST', '/v1/accounts', { token: admin.token, body: { username, email: `${username}@example.test`, authCodes: [], invite: true } });
      }),
    );
    expect(answers.filter((a) => a.body.code === 201)).toHaveLength(3);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(3);
    expect(refused[0]!.body.message).toMatch(/^At most 50 invitations can be sent in an hour; try again in \d+ minutes$/);
    // The refused ones made no account and sent nothing.
    expect((await call<{ total: number }>('GET', '/v1/accounts?keyword=many', { token: admin.token })).body.data.total).toBe(3);
    expect((await call<{ items: unknown[] }>('GET', '/v1/mailRecords?group=invitation', { token: admin.token })).body.data.items).toHaveLength(3);
    // A reset by invitation counts too.
    const someone = (await call<{ items: Account[] }>('GET', '/v1/accounts?keyword=many', { token: admin.token })).body.data.items[0]!;
    const reset = await call('POST', `/v1/accounts/${someone.accountKey}/password`, { token: admin.token, body: { invite: true }, locale: 'ja_JP' });
    expect(reset.status).toBe(429);
    expect(reset.body.message).toMatch(/^招待は 1 時間に 50 件までです/);
  });

  it('resets a password: the account’s session ends and its next login must choose a new one', async () => {
    const { answer, username, password } = await create(owner, { authCodes: ['pass:dashboard'] });
    const user = await firstLogin(username, password);
    const reset = await call<Account>('POST', `/v1/accounts/${answer.body.data.accountKey}/password`, {
      token: owner.token,
      body: { password: await encrypt(owner.key, 'reset-pass-3') },
    });
    expect(reset.body.data.mustChangePassword).toBe(true);
    expect((await call('GET', '/v1/systems/me', { token: user.token })).status).toBe(403);
    await firstLogin(username, 'reset-pass-3', 'own-pass-4');
    const short = await call<Issues>('POST', `/v1/accounts/${answer.body.data.accountKey}/password`, { token: owner.token, body: { password: await encrypt(owner.key, 'short') } });
    expect(short.status).toBe(422);
    expect(short.body.data.issues[0]!.path).toBe('password');
  });

  it('finds accounts by keyword, pages them and refuses a stale version', async () => {
    const tag = unique('kw');
    for (let i = 0; i < 3; i++) await create(owner, { authCodes: [], nickname: `${tag} ${i}` });
    const first = (await call<{ items: Account[]; nextCursor: string | null; total: number }>('GET', `/v1/accounts?keyword=${tag}&pageSize=2`, { token: owner.token })).body.data;
    expect(first.total).toBe(3);
    const second = (await call<{ items: Account[]; nextCursor: string | null }>('GET', `/v1/accounts?keyword=${tag}&pageSize=2&cursor=${first.nextCursor}`, { token: owner.token })).body.data;
    expect([...first.items, ...second.items].map((a) => a.nickname).sort()).toEqual([`${tag} 0`, `${tag} 1`, `${tag} 2`]);
    const target = first.items[0]!;
    expect((await call('PATCH', `/v1/accounts/${target.accountKey}`, { token: owner.token, body: { nickname: 'New', version: target.version + 5 } })).status).toBe(409);
    expect((await read(target.accountKey)).nickname).toBe(target.nickname);
  });
});
