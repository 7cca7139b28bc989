import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '@passcloud/functions/data/identity';
import type { AuthCode } from '@passcloud/functions/contract/menu';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';

/**
 * Pickers: the names and keys a screen chooses from, readable by each permission whose screens
 * choose them, and by no other; they carry nothing the full people or device API would add.
 */

let owner: string;
let tenantId: string;
let agent: DeviceAgent;
const made = { staff: '', guests: '', doors: '', department: '', employee: '', visitor: '', device: '' };

async function accountWith(codes: AuthCode[]): Promise<string> {
  const username = unique('picker');
  await createAccount(tenantId, { username, password: 'picker-pass-1', authCodes: codes });
  return (await login(username, 'picker-pass-1')).token;
}

const read = (path: string, token: string) => call<{ items: Record<string, unknown>[]; nextCursor: string | null }>('GET', path, { token });

beforeAll(async () => {
  const made0 = await newCompany();
  owner = (await login(made0.username, made0.password)).token;
  tenantId = owner.split('.')[0]!;
  const group = async (name: string, type: string) => (await call<{ groupKey: string }>('POST', '/v1/groups', { token: owner, body: { name, type } })).body.data.groupKey;
  made.staff = await group('Staff', 'employee');
  made.guests = await group('Guests', 'visitor');
  made.doors = await group('Doors', 'device');
  made.department = (await call<{ departmentKey: string }>('POST', '/v1/departments', { token: owner, body: { name: 'Front office' } })).body.data.departmentKey;
  made.employee = (
    await call<{ employeeKey: string }>('POST', '/v1/employees', {
      token: owner,
      body: { personId: unique('P'), name: 'Mina Cho', role: 'Clerk', gender: 'female', groupKey: made.staff, departmentKey: made.department, phone: '+1 555 0199', email: 'mina@example.com' },
    })
  ).body.data.employeeKey;
  made.visitor = (
    await call<{ visitorKey: string }>('POST', '/v1/visitors', { token: owner, body: { personId: unique('V'), name: 'Ravi Das', role: 'Guest', gender: 'male', groupKey: made.guests, phone: '+1 555 0142' } })
  ).body.data.visitorKey;
  await grantSeats(owner, 5);
  agent = new DeviceAgent({ apiUrl: baseUrl(), userCode: made0.userCode, info: simulatedInfo(unique('PK').toUpperCase(), 1), heartbeatMs: 60_000 });
  await agent.start();
  made.device = agent.deviceKey!;
});

afterAll(async () => {
  await agent?.stop();
});

describe('pickers', () => {
  it('let an account with pass authority only choose everything the wizard needs, names and keys only', async () => {
    const token = await accountWith(['pass:authority']);
    // The full APIs stay closed to it.
    for (const path of ['/v1/employees', '/v1/devices', '/v1/departments', '/v1/groups?type=employee']) expect((await call('GET', path, { token })).status, path).toBe(401);

    const employees = await read('/v1/pickers/people?type=employee', token);
    expect(employees.status).toBe(200);
    expect(employees.body.data.items).toEqual([
      { employeeKey: made.employee, name: 'Mina Cho', personId: expect.any(String), groupKey: made.staff, departmentKey: made.department, hasPhoto: false, avatarUrl: null },
    ]);
    const visitors = await read('/v1/pickers/people?type=visitor&keyword=ravi', token);
    expect(visitors.body.data.items).toEqual([{ visitorKey: made.visitor, name: 'Ravi Das', personId: expect.any(String), groupKey: made.guests, hasPhoto: false, avatarUrl: null }]);
    expect(JSON.stringify([employees.body, visitors.body])).not.toMatch(/ 555 |example\.com|version|role/);

    const groups = await Promise.all(['employee', 'visitor', 'device'].map((type) => read(`/v1/pickers/groups?type=${type}`, token)));
    // Each list holds the group made here (besides the company's default ones), as name, key and type only.
    expect(groups[0]!.body.data.items).toContainEqual({ groupKey: made.staff, name: 'Staff', type: 'employee' });
    expect(groups[1]!.body.data.items).toContainEqual({ groupKey: made.guests, name: 'Guests', type: 'visitor' });
    expect(groups[2]!.body.data.items).toContainEqual({ groupKey: made.doors, name: 'Doors', type: 'device' });
    for (const group of groups.flatMap((g) => g.body.data.items)) expect(Object.keys(group).sort()).toEqual(['groupKey', 'name', 'type']);
    expect((await read('/v1/pickers/departments', token)).body.data.items).toEqual([{ departmentKey: made.department, name: 'Front office', parentKey: null, children: [] }]);
    const devices = await read('/v1/pickers/devices?pageSize=50', token);
    expect(devices.body.data.items).toEqual([{ deviceKey: made.device, name: expect.any(String), serial: expect.any(String), groupKey: null, online: expect.any(Boolean) }]);
    expect(JSON.stringify(devices.body)).not.toMatch(/secret|ip"|mac"|settings/);

    // And with them, it grants: a person on a device.
    const granted = await call<{ authorities: number }>('POST', '/v1/authorities', { token, body: { setType: 0, personKeys: [made.employee], deviceKeys: [made.device], validity: { permanent: true } } });
    expect(granted.body.code).toBe(201);
    expect(granted.body.data.authorities).toBe(1);
  });

  it('answer the blacklist permission as they answer pass authority', async () => {
    const token = await accountWith(['pass:blacklist']);
    for (const path of ['/v1/pickers/people?type=visitor', '/v1/pickers/groups?type=device', '/v1/pickers/departments', '/v1/pickers/devices']) expect((await read(path, token)).status, path).toBe(200);
  });

  it('give pass records the terminals and their groups, and nothing about people', async () => {
    const token = await accountWith(['pass:record']);
    expect((await read('/v1/pickers/devices', token)).body.data.items.map((d) => d.deviceKey)).toEqual([made.device]);
    expect((await read('/v1/pickers/groups?type=device', token)).status).toBe(200);
    for (const path of ['/v1/pickers/people?type=employee', '/v1/pickers/people?type=visitor', '/v1/pickers/groups?type=employee', '/v1/pickers/departments']) {
      const answer = await read(path, token);
      expect(answer.status, path).toBe(401);
      expect(answer.body.data).toBeNull();
    }
  });

  it('hold each kind of person to its own permission', async () => {
    const token = await accountWith(['pass:visitor']);
    expect((await read('/v1/pickers/people?type=visitor', token)).body.data.items.map((p) => p.visitorKey)).toEqual([made.visitor]);
    const employees = await read('/v1/pickers/people?type=employee', token);
    expect(employees.status).toBe(401);
    expect(JSON.stringify(employees.body)).not.toContain('Mina');
    expect((await read('/v1/pickers/groups?type=employee', token)).status).toBe(401);
    expect((await read('/v1/pickers/devices', token)).status).toBe(401);
  });

  it('answer no one without a permission that chooses, and name a wrong type', async () => {
    const token = await accountWith(['settings:privacy']);
    for (const path of ['/v1/pickers/people?type=employee', '/v1/pickers/groups?type=device', '/v1/pickers/departments', '/v1/pickers/devices']) expect((await read(path, token)).status, path).toBe(401);
    const wrong = await call<{ issues: { path: string }[] }>('GET', '/v1/pickers/people?type=robot', { token: owner });
    expect(wrong.status).toBe(422);
    expect(wrong.body.data.issues.map((i) => i.path)).toEqual(['type']);
  });
});
