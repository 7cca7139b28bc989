import { beforeAll, describe, expect, it } from 'vitest';
import { people } from '@passcloud/functions/data/people';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';

/**
 * An employee in an attendance group needs attendance, through the HTTP API: the person routes
 * refuse a group without it (naming the field, changing nothing), and a group names every one of
 * its members, those kept from before the rule too.
 */

interface Employee {
  employeeKey: string;
  name: string;
  attendanceGroupKey: string | null;
  needsAttendance: boolean;
  version: number;
}
interface Group {
  attendanceGroupKey: string;
  name: string;
  staffCount: number;
  version: number;
  staff: { employeeKey: string; personId: string; name: string; needsAttendance: boolean; attendanceGroupName: string | null }[];
}
type Issues = { issues: { path: string; message: string }[] };

let token: string;
let tenantId: string;
let userCode: string;
let staffGroup: string;
let attendanceGroup: Group;

const employeeBody = (name: string, fields: Record<string, unknown> = {}) => ({
  personId: unique('S'),
  name,
  role: 'Staff',
  gender: 'male',
  groupKey: staffGroup,
  ...fields,
});
const read = async (employeeKey: string) => (await call<Employee>('GET', `/v1/employees/${employeeKey}`, { token })).body.data;
const named = async (name: string) =>
  (await call<{ items: Employee[] }>('GET', `/v1/employees?keyword=${encodeURIComponent(name)}`, { token })).body.data.items;

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  userCode = owner.userCode;
  tenantId = token.split('.')[0]!;
  staffGroup = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Staff', type: 'employee' } })).body.data.groupKey;
  const period = { onDuty: '09:00', offDuty: '18:00', earliestCheckIn: '07:00', latestCheckOut: '21:00', lateTolerance: 0, earlyLeaveTolerance: 0 };
  const shiftKey = (await call<{ shiftKey: string }>('POST', '/v1/attendance/shifts', { token, body: { name: 'Day', periods: [period] } })).body.data.shiftKey;
  const weekdays = { sun: null, mon: shiftKey, tue: shiftKey, wed: shiftKey, thu: shiftKey, fri: shiftKey, sat: null };
  const made = await call<Group>('POST', '/v1/attendance/groups', {
    token,
    body: { name: unique('Office '), weekdays, workdayOvertimeAfter: null, restDayMinHours: null },
  });
  expect(made.body.code).toBe(201);
  attendanceGroup = made.body.data;
});

describe('an employee in an attendance group', () => {
  it('is refused without Needs attendance, naming the field, and nobody is created', async () => {
    const name = unique('Ivo Lang ');
    const refused = await call<Issues>('POST', '/v1/employees', {
      token,
      locale: 'en_US',
      body: employeeBody(name, { attendanceGroupKey: attendanceGroup.attendanceGroupKey, needsAttendance: false }),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.data.issues).toEqual([
      { path: 'needsAttendance', message: 'An employee in an attendance group needs attendance: turn on Needs attendance, or choose no attendance group' },
    ]);
    // The default of the switch is off: a group alone is refused too.
    const alone = await call<Issues>('POST', '/v1/employees', { token, body: employeeBody(name, { attendanceGroupKey: attendanceGroup.attendanceGroupKey }) });
    expect(alone.status).toBe(422);
    expect(alone.body.data.issues.map((i) => i.path)).toEqual(['needsAttendance']);
    const ja = await call<Issues>('POST', '/v1/employees', {
      token,
      locale: 'ja_JP',
      body: employeeBody(name, { attendanceGroupKey: attendanceGroup.attendanceGroupKey }),
    });
    expect(ja.body.data.issues[0]!.message).toContain('勤怠管理の対象');
    expect(await named(name)).toEqual([]);

    const made = await call<Employee>('POST', '/v1/employees', {
      token,
      body: employeeBody(name, { attendanceGroupKey: attendanceGroup.attendanceGroupKey, needsAttendance: true }),
    });
    expect(made.body.code).toBe(201);
    expect(made.body.data).toMatchObject({ attendanceGroupKey: attendanceGroup.attendanceGroupKey, needsAttendance: true });
  });

  it('keeps Needs attendance while in the group: switching it off alone is refused and changes nothing; leaving the group with it is taken', async () => {
    const name = unique('Una Berg ');
    const made = await call<Employee>('POST', '/v1/employees', {
      token,
      body: employeeBody(name, { attendanceGroupKey: attendanceGroup.attendanceGroupKey, needsAttendance: true }),
    });
    const key = made.body.data.employeeKey;
    const off = await call<Issues>('PATCH', `/v1/employees/${key}`, { token, body: { needsAttendance: false, version: 1 } });
    expect(off.status).toBe(422);
    expect(off.body.data.issues.map((i) => i.path)).toEqual(['needsAttendance']);
    expect(await read(key)).toMatchObject({ attendanceGroupKey: attendanceGroup.attendanceGroupKey, needsAttendance: true, version: 1 });

    // Joining a group with the switch left off is refused as well.
    const other = await call<Employee>('POST', '/v1/employees', { token, body: employeeBody(unique('Ola Voss ')) });
    const join = await call<Issues>('PATCH', `/v1/employees/${other.body.data.employeeKey}`, {
      token,
      body: { attendanceGroupKey: attendanceGroup.attendanceGroupKey, version: 1 },
    });
    expect(join.status).toBe(422);
    expect(join.body.data.issues.map((i) => i.path)).toEqual(['needsAttendance']);
    expect(await read(other.body.data.employeeKey)).toMatchObject({ attendanceGroupKey: null, needsAttendance: false, version: 1 });

    const left = await call<Employee>('PATCH', `/v1/employees/${key}`, { token, body: { attendanceGroupKey: '', needsAttendance: false, version: 1 } });
    expect(left.body.code).toBe(201);
    expect(left.body.data).toMatchObject({ attendanceGroupKey: null, needsAttendance: false, version: 2 });
  });

  it('kept in a group from before the rule, is named in the group, stays when the group is saved, and may still be edited', async () => {
    const name = unique('Eda Holm ');
    const made = await call<Employee>('POST', '/v1/employees', { token, body: employeeBody(name) });
    const key = made.body.data.employeeKey;
    // Stored before the API refused it: in the group with Needs attendance off.
    await people().patch({ tenantId, kind: 'employee', personKey: key }).set({ attendanceGroupKey: attendanceGroup.attendanceGroupKey }).go();

    const group = (await call<Group>('GET', `/v1/attendance/groups/${attendanceGroup.attendanceGroupKey}`, { token })).body.data;
    const member = group.staff.find((s) => s.employeeKey === key);
    expect(member).toMatchObject({ name, needsAttendance: false, attendanceGroupName: attendanceGroup.name });
    for (const s of group.staff) expect(s.name.trim().length, s.employeeKey).toBeGreaterThan(0);

    const saved = await call<Group>('PATCH', `/v1/attendance/groups/${attendanceGroup.attendanceGroupKey}`, {
      token,
      body: {
        name: group.name,
        employeeKeys: group.staff.map((s) => s.employeeKey),
        weekdays: (await call<{ weekdays: unknown }>('GET', `/v1/attendance/groups/${attendanceGroup.attendanceGroupKey}`, { token })).body.data.weekdays,
        workdayOvertimeAfter: null,
        restDayMinHours: null,
        version: group.version,
      },
    });
    expect(saved.body.code).toBe(201);
    expect(saved.body.data.staff.map((s) => s.employeeKey)).toContain(key);
    attendanceGroup = saved.body.data;

    // A change of other fields leaves the old disagreement alone; naming the switch must settle it.
    const renamed = await call<Employee>('PATCH', `/v1/employees/${key}`, { token, body: { remark: 'moved desks', version: 1 } });
    expect(renamed.body.code).toBe(201);
    const settled = await call<Employee>('PATCH', `/v1/employees/${key}`, { token, body: { needsAttendance: true, version: 2 } });
    expect(settled.body.data).toMatchObject({ attendanceGroupKey: attendanceGroup.attendanceGroupKey, needsAttendance: true });
  });
});

describe('the devices of an attendance group', () => {
  it('lets a device removed since go when the group is saved, and still refuses one that never existed', async () => {
    await grantSeats(token, 1);
    const { serial, ...info } = simulatedInfo(unique('ATT').toUpperCase(), 1);
    const bound = await call<{ deviceKey: string }>('POST', '/v1/devices/bind', { body: { userCode, serial, info } });
    expect(bound.body.code).toBe(201);
    const deviceKey = bound.body.data.deviceKey;
    const read = async () =>
      (await call<Group & { deviceKeys: string[]; weekdays: unknown }>('GET', `/v1/attendance/groups/${attendanceGroup.attendanceGroupKey}`, { token })).body
        .data;
    const body = (group: Group & { weekdays: unknown }, deviceKeys: string[]) => ({
      name: group.name,
      employeeKeys: group.staff.map((s) => s.employeeKey),
      deviceKeys,
      weekdays: group.weekdays,
      workdayOvertimeAfter: null,
      restDayMinHours: null,
      version: group.version,
    });
    const named = await call<Group & { deviceKeys: string[] }>('PATCH', `/v1/attendance/groups/${attendanceGroup.attendanceGroupKey}`, {
      token,
      body: body(await read(), [deviceKey]),
    });
    expect(named.body.data.deviceKeys).toEqual([deviceKey]);
    expect((await call('DELETE', `/v1/devices/${deviceKey}?version=1`, { token })).body.code).toBe(204);

    const group = await read();
    expect(group.deviceKeys).toEqual([deviceKey]);
    const unknown = await call<Issues>('PATCH', `/v1/attendance/groups/${attendanceGroup.attendanceGroupKey}`, {
      token,
      body: body(group, [deviceKey, 'zzzzzzzzzzzzzzzz']),
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.data.issues.map((i) => i.path)).toEqual(['deviceKeys']);
    expect((await read()).version).toBe(group.version);
    const saved = await call<Group & { deviceKeys: string[] }>('PATCH', `/v1/attendance/groups/${attendanceGroup.attendanceGroupKey}`, {
      token,
      body: body(group, [deviceKey]),
    });
    expect(saved.body.code).toBe(201);
    expect(saved.body.data.deviceKeys).toEqual([]);
  });
});
