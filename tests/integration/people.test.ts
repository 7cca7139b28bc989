import { beforeAll, describe, expect, it, inject } from 'vitest';
import { createAccount } from '@passcloud/functions/data/identity';
import { objectExists } from '@passcloud/functions/lib/storage';
import { call, login, newCompany, registerTenant, unique } from '../support/api.ts';
import { makePng } from '../support/images.ts';

interface Employee {
  employeeKey: string;
  personId: string;
  name: string;
  icCard: string | null;
  phone: string | null;
  state: string;
  resignedAt: string | null;
  avatar: string | null;
  avatarUrl: string | null;
  version: number;
}
interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total?: number;
}
type Issues = { issues: { path: string; message: string }[] };

let token: string;
let staff: string;
let guests: string;

async function group(name: string, type: 'employee' | 'visitor', as = token): Promise<string> {
  const answer = await call<{ groupKey: string }>('POST', '/v1/groups', { token: as, body: { name, type } });
  expect(answer.body.code).toBe(201);
  return answer.body.data.groupKey;
}

async function employee(fields: Record<string, unknown> = {}, as = token, groupKey = staff) {
  return call<Employee>('POST', '/v1/employees', { token: as, body: { personId: unique('E'), name: 'Ada Park', role: 'Engineer', gender: 'female', groupKey, ...fields } });
}

async function count(query = ''): Promise<number> {
  return (await call<Page<Employee>>('GET', `/v1/employees?pageSize=1${query}`, { token })).body.data.total!;
}

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  staff = await group('Staff', 'employee');
  guests = await group('Guests', 'visitor');
});

describe('employees', () => {
  it('creates an employee with every field and reads it back', async () => {
    const department = (await call<{ departmentKey: string }>('POST', '/v1/departments', { token, body: { name: 'R&D' } })).body.data.departmentKey;
    const answer = await employee({ phone: '+1 555 0100', email: 'ada@example.com', icCard: unique('IC'), departmentKey: department, needsAttendance: true, remoteDoorOpen: true, remark: 'Night shift' });
    expect(answer.body.code).toBe(201);
    const read = await call<Employee & Record<string, unknown>>('GET', `/v1/employees/${answer.body.data.employeeKey}`, { token });
    expect(read.body.data).toMatchObject({ name: 'Ada Park', role: 'Engineer', gender: 'female', groupKey: staff, departmentKey: department, needsAttendance: true, remoteDoorOpen: true, state: 'active', version: 1 });
    expect(read.body.data.createTime).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('names every missing required field', async () => {
    const before = await count();
    const answer = await call<Issues>('POST', '/v1/employees', { token, body: { email: 'nope' } });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues.map((i) => i.path).sort()).toEqual(['email', 'gender', 'groupKey', 'name', 'personId', 'role']);
    expect(await count()).toBe(before);
  });

  it('answers 422 with a sentence per field, naming it as the form does, in the caller’s language', async () => {
    const body = { personId: unique('E'), name: '', role: 'Engineer', gender: 'female', groupKey: staff, email: 'ada@' };
    const answer = await call<Issues>('POST', '/v1/employees', { token, body });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues).toEqual([
      { path: 'name', message: 'Name is required' },
      { path: 'email', message: 'Email is not a valid email address' },
    ]);
    expect(answer.body.message).toBe('Some fields are not valid: Name is required; Email is not a valid email address');
    const japanese = await call<Issues>('POST', '/v1/employees', { token, body, locale: 'ja_JP' });
    expect(japanese.body.data.issues).toEqual([
      { path: 'name', message: '氏名は必須です' },
      { path: 'email', message: 'メールアドレスは有効なメールアドレスではありません' },
    ]);
    expect(japanese.body.message).toBe('一部の項目が無効です：氏名は必須です。メールアドレスは有効なメールアドレスではありません');
  });

  it('refuses a duplicate personnel ID or IC card with 409 naming the field, across employees and visitors', async () => {
    const personId = unique('DUP');
    const icCard = unique('CARD');
    expect((await employee({ personId, icCard })).body.code).toBe(201);
    const before = await count();
    const sameId = await employee({ personId: personId.toLowerCase() });
    expect(sameId.status).toBe(409);
    expect((sameId.body.data as unknown as Issues).issues[0]!.path).toBe('personId');
    const sameCard = await employee({ icCard });
    expect(sameCard.status).toBe(409);
    expect((sameCard.body.data as unknown as Issues).issues[0]!.path).toBe('icCard');
    const visitor = await call<Issues>('POST', '/v1/visitors', { token, body: { personId, name: 'V', role: 'Guest', gender: 'male', groupKey: guests } });
    expect(visitor.status).toBe(409);
    expect(await count()).toBe(before);
  });

  it('refuses a group of the wrong kind or of nobody, and a photo that was never uploaded', async () => {
    const answer = await employee({ groupKey: guests, avatar: 'avatar/2026/11/aaaaaaaaaaaaaaaa.jpg', departmentKey: 'nosuchdepartment1' });
    expect(answer.status).toBe(422);
    expect((answer.body.data as unknown as Issues).issues.map((i) => i.path).sort()).toEqual(['avatar', 'departmentKey', 'groupKey']);
  });

  it('keeps the uploaded photo and removes it with the employee', async () => {
    const form = new FormData();
    form.set('kind', 'avatar');
    // As large as the simulated terminals other test files bind to this (the demo) company need.
    form.set('file', new Blob([new Uint8Array(makePng(800, 600))]), 'face.png');
    const upload = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form });
    const created = await employee({ avatar: upload.body.data.fileKey });
    expect(created.body.data.avatarUrl).toContain(upload.body.data.fileKey);
    const tenantId = token.split('.')[0]!;
    expect(await objectExists('photos', tenantId, upload.body.data.fileKey)).toBe(true);
    const before = await count();
    const gone = await call('DELETE', `/v1/employees/${created.body.data.employeeKey}?version=1`, { token });
    expect(gone.body.code).toBe(204);
    expect(await count()).toBe(before - 1);
    expect(await objectExists('photos', tenantId, upload.body.data.fileKey)).toBe(false);
    expect((await call('GET', `/v1/employees/${created.body.data.employeeKey}`, { token })).status).toBe(404);
    // The personnel ID is free again.
    expect((await employee({ personId: created.body.data.personId })).body.code).toBe(201);
  });

  it('edits with the version it read, moves the IC card claim, and answers 409 to a stale version', async () => {
    const oldCard = unique('OLD');
    const made = (await employee({ icCard: oldCard, phone: '123456' })).body.data;
    const newCard = unique('NEW');
    const edited = await call<Employee>('PATCH', `/v1/employees/${made.employeeKey}`, { token, body: { name: 'Ada Kim', icCard: newCard, phone: '', version: 1 } });
    expect(edited.body.code).toBe(201);
    expect(edited.body.data).toMatchObject({ name: 'Ada Kim', icCard: newCard, phone: null, version: 2 });
    const stale = await call('PATCH', `/v1/employees/${made.employeeKey}`, { token, body: { name: 'Stale', version: 1 } });
    expect(stale.status).toBe(409);
    expect((await call<Employee>('GET', `/v1/employees/${made.employeeKey}`, { token })).body.data.name).toBe('Ada Kim');
    // The old card is free, the new one taken.
    expect((await employee({ icCard: oldCard })).body.code).toBe(201);
    expect((await employee({ icCard: newCard })).status).toBe(409);
  });

  it('resigns and re-enters an employee, and lists each state apart', async () => {
    const made = (await employee({ name: 'Resigning Rita' })).body.data;
    const [activeBefore, resignedBefore] = [await count(), await count('&state=resigned')];
    const resigned = await call<Employee>('POST', `/v1/employees/${made.employeeKey}/resign`, { token, body: { version: 1 } });
    expect([await count(), await count('&state=resigned')]).toEqual([activeBefore - 1, resignedBefore + 1]);
    expect(resigned.body.data).toMatchObject({ state: 'resigned', version: 2 });
    expect(resigned.body.data.resignedAt).toMatch(/^\d{4}-/);
    const again = await call<Issues>('POST', `/v1/employees/${made.employeeKey}/resign`, { token, body: { version: 2 } });
    expect(again.status).toBe(422);
    const active = await call<Page<Employee>>('GET', '/v1/employees?keyword=rita', { token });
    const gone = await call<Page<Employee>>('GET', '/v1/employees?state=resigned&keyword=rita', { token });
    expect(active.body.data.items.map((e) => e.employeeKey)).not.toContain(made.employeeKey);
    expect(gone.body.data.items.map((e) => e.employeeKey)).toContain(made.employeeKey);
    const back = await call<Employee>('POST', `/v1/employees/${made.employeeKey}/entry`, { token, body: { version: 2 } });
    expect(back.body.data).toMatchObject({ state: 'active', resignedAt: null, version: 3 });
    expect([await count(), await count('&state=resigned')]).toEqual([activeBefore, resignedBefore]);
  });
});

describe('employee lists', () => {
  it('pages newest first with a cursor and finds by name, personnel ID, phone or IC card', async () => {
    const listGroup = await group('Paging', 'employee');
    const made: Employee[] = [];
    for (let i = 0; i < 7; i++) made.push((await employee({ name: `Pager ${i}`, phone: `55501${i}`, icCard: unique(`PG${i}`) }, token, listGroup)).body.data);
    const first = await call<Page<Employee>>('GET', `/v1/employees?groupKey=${listGroup}&pageSize=3`, { token });
    expect(first.body.data.total).toBe(7);
    expect(first.body.data.items.map((e) => e.name)).toEqual(['Pager 6', 'Pager 5', 'Pager 4']);
    const second = await call<Page<Employee>>('GET', `/v1/employees?groupKey=${listGroup}&pageSize=3&cursor=${first.body.data.nextCursor}`, { token });
    expect(second.body.data.items.map((e) => e.name)).toEqual(['Pager 3', 'Pager 2', 'Pager 1']);
    const third = await call<Page<Employee>>('GET', `/v1/employees?groupKey=${listGroup}&pageSize=3&cursor=${second.body.data.nextCursor}`, { token });
    expect(third.body.data.items.map((e) => e.name)).toEqual(['Pager 0']);
    expect(third.body.data.nextCursor).toBeNull();

    for (const keyword of ['pager 4', made[4]!.personId.toLowerCase(), '555014', made[4]!.icCard!]) {
      const found = await call<Page<Employee>>('GET', `/v1/employees?groupKey=${listGroup}&keyword=${encodeURIComponent(keyword)}`, { token });
      expect(found.body.data.items.map((e) => e.name), keyword).toEqual(['Pager 4']);
    }
  });

  it('refuses a cursor that is not its own', async () => {
    const forged = Buffer.from(JSON.stringify({ pk: inject('demo').tenantId, sk: 'person#employee#0' })).toString('base64url');
    const answer = await call<Issues>('GET', `/v1/employees?cursor=${forged}`, { token });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.path).toBe('cursor');
  });
});

describe('visitors', () => {
  it('creates, edits, lists and deletes a visitor', async () => {
    const made = await call<{ visitorKey: string; version: number }>('POST', '/v1/visitors', {
      token,
      body: { personId: unique('V'), name: 'Vera Guest', role: 'Contractor', gender: 'female', groupKey: guests, phone: '+44 20 7946 0000' },
    });
    expect(made.body.code).toBe(201);
    expect(made.body.data).not.toHaveProperty('state');
    const key = made.body.data.visitorKey;
    expect((await call('PATCH', `/v1/visitors/${key}`, { token, body: { role: 'Auditor', version: 1 } })).body.code).toBe(201);
    const list = await call<Page<{ visitorKey: string; role: string }>>('GET', '/v1/visitors?keyword=vera', { token });
    expect(list.body.data.items).toEqual([expect.objectContaining({ visitorKey: key, role: 'Auditor' })]);
    expect((await call('DELETE', `/v1/visitors/${key}?version=1`, { token })).status).toBe(409);
    expect((await call('DELETE', `/v1/visitors/${key}?version=2`, { token })).body.code).toBe(204);
    // An employee key is not a visitor key.
    const someone = (await employee()).body.data.employeeKey;
    expect((await call('GET', `/v1/visitors/${someone}`, { token })).status).toBe(404);
  });
});

describe('groups and departments', () => {
  it('keeps a group that still has people and deletes an empty one', async () => {
    const busy = await group('Busy', 'employee');
    await employee({}, token, busy);
    expect((await call('DELETE', `/v1/groups/${busy}?version=1`, { token })).status).toBe(409);
    const empty = await group('Empty', 'employee');
    expect((await call('PATCH', `/v1/groups/${empty}`, { token, body: { name: 'Still empty', version: 1 } })).body.code).toBe(201);
    expect((await call('DELETE', `/v1/groups/${empty}?version=2`, { token })).body.code).toBe(204);
    const listed = await call<Page<{ groupKey: string }>>('GET', '/v1/groups?type=employee', { token });
    expect(listed.body.data.items.map((g) => g.groupKey)).toContain(busy);
    expect(listed.body.data.items.map((g) => g.groupKey)).not.toContain(empty);
  });

  it('needs the employee code for employee groups and the visitor code for visitor groups', async () => {
    const username = unique('visitdesk');
    const tenantId = token.split('.')[0]!;
    await createAccount(tenantId, { username, password: 'visit-desk-1', authCodes: ['pass:visitor'] });
    const desk = (await login(username, 'visit-desk-1')).token;
    expect((await call('GET', '/v1/groups?type=visitor', { token: desk })).body.code).toBe(200);
    expect((await call('GET', '/v1/groups?type=employee', { token: desk })).status).toBe(401);
    expect((await call('POST', '/v1/groups', { token: desk, body: { name: 'Sneaky', type: 'employee' } })).status).toBe(401);
    expect((await call('PATCH', `/v1/groups/${staff}`, { token: desk, body: { name: 'Sneaky', version: 1 } })).status).toBe(401);
    const groupsAfter = await call<Page<{ name: string }>>('GET', '/v1/groups?type=employee', { token });
    expect(groupsAfter.body.data.items.map((g) => g.name)).not.toContain('Sneaky');
  });

  it('builds the department tree and refuses a cycle or removing a department in use', async () => {
    const made = async (name: string, parentKey?: string) =>
      (await call<{ departmentKey: string; version: number }>('POST', '/v1/departments', { token, body: { name, ...(parentKey ? { parentKey } : {}) } })).body.data;
    const top = await made('Operations');
    const middle = await made('Security', top.departmentKey);
    const leaf = await made('Night watch', middle.departmentKey);
    const tree = await call<Page<{ departmentKey: string; children: { departmentKey: string; children: { name: string }[] }[] }>>('GET', '/v1/departments', { token });
    const ops = tree.body.data.items.find((d) => d.departmentKey === top.departmentKey)!;
    expect(ops.children[0]!.children.map((c) => c.name)).toEqual(['Night watch']);
    const cycle = await call<Issues>('PATCH', `/v1/departments/${top.departmentKey}`, { token, body: { parentKey: leaf.departmentKey, version: 1 } });
    expect(cycle.status).toBe(422);
    expect(cycle.body.data.issues[0]!.path).toBe('parentKey');
    expect((await call('DELETE', `/v1/departments/${middle.departmentKey}?version=1`, { token })).status).toBe(409);
    expect((await call('DELETE', `/v1/departments/${leaf.departmentKey}?version=1`, { token })).body.code).toBe(204);
  });

  it('starts a new company with an employee group and a visitor group, named in the owner’s language', async () => {
    const fresh = await registerTenant();
    const freshToken = (await login(fresh.username, fresh.password)).token;
    const names = async (type: string) => (await call<Page<{ name: string }>>('GET', `/v1/groups?type=${type}`, { token: freshToken })).body.data.items.map((g) => g.name);
    expect(await names('employee')).toEqual(['Employees']);
    expect(await names('visitor')).toEqual(['Visitors']);
    expect(await names('device')).toEqual([]);
  });

  it('refuses a group name its type already has (whatever the case), with 409 naming the name, and changes nothing', async () => {
    const name = unique('Front desk ');
    await group(name, 'employee');
    const before = (await call<Page<{ name: string }>>('GET', '/v1/groups?type=employee', { token })).body.data.items.length;
    const again = await call<Issues>('POST', '/v1/groups', { token, body: { name: `  ${name.toUpperCase()} `, type: 'employee' } });
    expect(again.status).toBe(409);
    expect(again.body.data.issues[0]!.path).toBe('name');
    expect(again.body.message).toContain(name.toUpperCase());
    expect((await call<Page<{ name: string }>>('GET', '/v1/groups?type=employee', { token })).body.data.items.length).toBe(before);
    // Another type may use the name.
    expect((await call('POST', '/v1/groups', { token, body: { name, type: 'visitor' } })).body.code).toBe(201);
    // Renaming onto a taken name is refused; renaming to a free one frees the old name.
    const other = await call<{ groupKey: string; version: number }>('POST', '/v1/groups', { token, body: { name: unique('Back office '), type: 'employee' } });
    const onto = await call<Issues>('PATCH', `/v1/groups/${other.body.data.groupKey}`, { token, body: { name, version: other.body.data.version } });
    expect(onto.status).toBe(409);
    expect(onto.body.data.issues[0]!.path).toBe('name');
  });

  it('creates a name only once under 10 parallel requests', async () => {
    const name = unique('Parallel ');
    const answers = await Promise.all(Array.from({ length: 10 }, () => call('POST', '/v1/groups', { token, body: { name, type: 'employee' } })));
    expect(answers.filter((a) => a.body.code === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(9);
    const listed = (await call<Page<{ name: string }>>('GET', '/v1/groups?type=employee', { token })).body.data.items.filter((g) => g.name === name);
    expect(listed).toHaveLength(1);
  });

  it('frees a deleted group’s name', async () => {
    const name = unique('Temporary ');
    const made = await call<{ groupKey: string; version: number }>('POST', '/v1/groups', { token, body: { name, type: 'visitor' } });
    expect((await call('DELETE', `/v1/groups/${made.body.data.groupKey}?version=${made.body.data.version}`, { token })).body.code).toBe(204);
    expect((await call('POST', '/v1/groups', { token, body: { name, type: 'visitor' } })).body.code).toBe(201);
  });

  it('never shows one tenant the groups of another', async () => {
    const other = await newCompany();
    const otherToken = (await login(other.username, other.password)).token;
    await group('Other tenant staff', 'employee', otherToken);
    const mine = await call<Page<{ name: string }>>('GET', '/v1/groups?type=employee', { token });
    expect(mine.body.data.items.map((g) => g.name)).not.toContain('Other tenant staff');
    expect((await employee({}, otherToken, staff)).status).toBe(422);
  });
});
