import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryJson } from '@passcloud/functions/contract/audit';
import { readFirstSheet } from '@passcloud/functions/lib/xlsx';
import { baseUrl, call, encrypt, login, newCompany, unique, type UserInfo } from '../support/api.ts';

/** The audit log names the item each action was taken on, as it was then, and says whether it is still there. */

interface Page {
  items: AuditEntryJson[];
  nextCursor: string | null;
}

let owner: UserInfo;

beforeAll(async () => {
  const tenant = await newCompany();
  owner = await login(tenant.username, tenant.password);
});

const changes = async () => (await call<Page>('GET', '/v1/audit?kind=change&pageSize=50', { token: owner.token })).body.data.items;

describe('audit items', () => {
  it('names a department as made, as before a rename, and as before its deletion, which it still names', async () => {
    const name = unique('Named-');
    const made = await call<{ departmentKey: string; version: number }>('POST', '/v1/departments', { token: owner.token, body: { name } });
    expect(made.body.code).toBe(201);
    const key = made.body.data.departmentKey;
    const renamed = await call<{ version: number }>('PATCH', `/v1/departments/${key}`, {
      token: owner.token,
      body: { name: `${name}-2`, version: made.body.data.version },
    });
    expect(renamed.body.code).toBe(201);
    const kept = unique('Kept-');
    const other = await call<{ departmentKey: string }>('POST', '/v1/departments', { token: owner.token, body: { name: kept } });

    let entries = await changes();
    expect(entries[0]).toMatchObject({
      action: 'POST /v1/departments',
      item: { param: 'departmentKey', key: other.body.data.departmentKey, name: kept, exists: true },
    });
    expect(entries[1]).toMatchObject({ action: 'PATCH /v1/departments/{departmentKey}', target: { departmentKey: key }, item: { key, name, exists: true } });
    expect(entries[2]).toMatchObject({ action: 'POST /v1/departments', target: {}, item: { key, name, exists: true } });

    expect((await call('DELETE', `/v1/departments/${key}?version=${renamed.body.data.version}`, { token: owner.token })).body.code).toBe(204);
    entries = await changes();
    expect(entries[0]).toMatchObject({ action: 'DELETE /v1/departments/{departmentKey}', item: { key, name: `${name}-2`, exists: false } });
    // Every entry of the deleted department still names it; none links it any more.
    expect(entries.filter((e) => e.item?.key === key).map((e) => [e.item!.name, e.item!.exists])).toEqual([
      [`${name}-2`, false],
      [name, false],
      [name, false],
    ]);
    expect(entries.find((e) => e.item?.key === other.body.data.departmentKey)!.item!.exists).toBe(true);
  });

  it('names an account by its username, deleted or not, and names nothing where the action has no item', async () => {
    const username = unique('named');
    const made = await call<{ accountKey: string; version: number }>('POST', '/v1/accounts', {
      token: owner.token,
      body: { username, password: await encrypt(owner.key, 'first-pass-1'), authCodes: ['pass:dashboard'] },
    });
    expect(made.body.code).toBe(201);
    const key = made.body.data.accountKey;
    expect((await call('DELETE', `/v1/accounts/${key}?version=${made.body.data.version}`, { token: owner.token, confirm: true })).body.code).toBe(204);
    expect((await call('POST', '/v1/employees/exports', { token: owner.token, body: {}, confirm: true })).body.code).toBe(202);

    const entries = await changes();
    const deleted = entries.find((e) => e.action === 'DELETE /v1/accounts/{accountKey}')!;
    expect(deleted).toMatchObject({ target: { accountKey: key }, item: { param: 'accountKey', key, name: username, exists: false } });
    expect(entries.find((e) => e.action === 'POST /v1/accounts')!.item).toEqual({ param: 'accountKey', key, name: username, exists: false });
    const others = (await call<Page>('GET', '/v1/audit?pageSize=50', { token: owner.token })).body.data.items.filter((e) => e.kind !== 'change');
    expect(others.map((e) => e.kind)).toEqual(expect.arrayContaining(['export', 'login']));
    for (const entry of others) expect(entry.item).toBeNull();
  });

  it('keeps the route and the keys in the export, beside the item’s name', async () => {
    const name = unique('Exported-');
    const made = await call<{ departmentKey: string }>('POST', '/v1/departments', { token: owner.token, body: { name } });
    const file = await fetch(`${baseUrl()}/v1/audit/export?kind=change`, { headers: { authorization: `Bearer ${owner.token}`, 'accept-language': 'en_US' } });
    expect(file.status).toBe(200);
    const rows = await readFirstSheet(Buffer.from(await file.arrayBuffer()));
    const header = rows[0]!;
    const row = rows.find((r) => r.includes(name))!;
    expect(row[header.indexOf('Action')]).toBe('POST /v1/departments');
    expect(row[header.indexOf('Item name')]).toBe(name);
    const deleted = rows.find((r) => r[header.indexOf('Action')] === 'DELETE /v1/accounts/{accountKey}')!;
    expect(deleted[header.indexOf('Item')]).toMatch(/^accountKey=[0-9a-z]+$/);
    expect(made.body.code).toBe(201);
  });
});
