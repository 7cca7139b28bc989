import { beforeAll, describe, expect, it } from 'vitest';
import { ATTENDANCE_LIMITS } from '@passcloud/functions/contract/attendance';
import { createAccount } from '@passcloud/functions/data/identity';
import { companyTimezone } from '@passcloud/functions/data/tenants';
import { call, login, newCompany, unique } from '../support/api.ts';

/** Shifts, attendance groups and holidays through the HTTP API, as the settings screens use them. */

interface Period {
  onDuty: string;
  offDuty: string;
  earliestCheckIn: string;
  latestCheckOut: string;
  lateTolerance: number;
  earlyLeaveTolerance: number;
}
interface Shift {
  shiftKey: string;
  name: string;
  periods: Period[];
  usedBy: { groups: { attendanceGroupKey: string; name: string }[] };
  version: number;
}
interface Group {
  attendanceGroupKey: string;
  name: string;
  staffCount: number;
  deviceKeys: string[];
  weekdays: Record<string, string | null>;
  workdayOvertimeAfter: string | null;
  restDayMinHours: number | null;
  timezone: string;
  version: number;
  staff?: { employeeKey: string; name: string; attendanceGroupName: string | null }[];
}
interface Holiday {
  holidayKey: string;
  name: string;
  start: string;
  end: string;
  workday: boolean;
  shiftKey: string | null;
  remark: string | null;
  version: number;
}
interface Page<T> {
  items: T[];
  nextCursor: string | null;
  total: number;
}
type Issues = { issues: { path: string; message: string }[] };

const period = (fields: Partial<Period> = {}): Period => ({
  onDuty: '09:00',
  offDuty: '12:00',
  earliestCheckIn: '07:00',
  latestCheckOut: '12:30',
  lateTolerance: 5,
  earlyLeaveTolerance: 5,
  ...fields,
});
const twoPeriods = [period(), period({ onDuty: '13:30', offDuty: '18:00', earliestCheckIn: '12:45', latestCheckOut: '21:00' })];

let token: string;
let tenantId: string;
let staffGroup: string;

async function shift(body: Record<string, unknown>, as = token) {
  return call<Shift>('POST', '/v1/attendance/shifts', { token: as, body });
}
async function shiftsNamed(name: string): Promise<Shift[]> {
  return (await call<Page<Shift>>('GET', `/v1/attendance/shifts?pageSize=200&keyword=${encodeURIComponent(name)}`, { token })).body.data.items;
}
const week = (key: string | null, weekend: string | null = null) => ({ sun: weekend, mon: key, tue: key, wed: key, thu: key, fri: key, sat: weekend });
const groupBody = (shiftKey: string, fields: Record<string, unknown> = {}) => ({
  name: unique('Office '),
  weekdays: week(shiftKey),
  workdayOvertimeAfter: '19:00',
  restDayMinHours: 2,
  ...fields,
});
async function employee(name: string, needsAttendance = true): Promise<string> {
  const answer = await call<{ employeeKey: string }>('POST', '/v1/employees', {
    token,
    body: { personId: unique('E'), name, role: 'Staff', gender: 'female', groupKey: staffGroup, needsAttendance },
  });
  expect(answer.body.code).toBe(201);
  return answer.body.data.employeeKey;
}
async function employeeGroup(employeeKey: string): Promise<string | null> {
  return (await call<{ attendanceGroupKey: string | null }>('GET', `/v1/employees/${employeeKey}`, { token })).body.data.attendanceGroupKey;
}

beforeAll(async () => {
  const owner = await newCompany();
  const user = await login(owner.username, owner.password);
  token = user.token;
  tenantId = token.split('.')[0]!;
  staffGroup = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Staff', type: 'employee' } })).body.data.groupKey;
});

describe('shifts', () => {
  it('creates a shift of two periods, reads, renames and deletes it', async () => {
    const name = unique('Day ');
    const made = await shift({ name, periods: twoPeriods });
    expect(made.body.code).toBe(201);
    expect(made.body.data).toMatchObject({ name, periods: twoPeriods, usedBy: { groups: [] }, version: 1 });

    const read = await call<Shift>('GET', `/v1/attendance/shifts/${made.body.data.shiftKey}`, { token });
    expect(read.body.data.periods).toEqual(twoPeriods);

    const renamed = await call<Shift>('PATCH', `/v1/attendance/shifts/${made.body.data.shiftKey}`, { token, body: { name: `${name} 2`, periods: [period()], version: 1 } });
    expect(renamed.body.code).toBe(201);
    expect(renamed.body.data).toMatchObject({ name: `${name} 2`, periods: [period()], version: 2 });

    const stale = await call('PATCH', `/v1/attendance/shifts/${made.body.data.shiftKey}`, { token, body: { name: 'Stale', periods: [period()], version: 1 } });
    expect(stale.status).toBe(409);
    expect((await shiftsNamed(`${name} 2`)).length).toBe(1);

    expect((await call('DELETE', `/v1/attendance/shifts/${made.body.data.shiftKey}?version=2`, { token })).body.code).toBe(204);
    expect((await call('GET', `/v1/attendance/shifts/${made.body.data.shiftKey}`, { token })).status).toBe(404);
  });

  it('keeps a night period that ends the next day', async () => {
    const night = [period({ onDuty: '22:00', offDuty: '06:00', earliestCheckIn: '21:00', latestCheckOut: '08:00' })];
    const made = await shift({ name: unique('Night '), periods: night });
    expect(made.body.code).toBe(201);
    expect(made.body.data.periods).toEqual(night);
  });

  it('refuses overlapping periods, a window into the next period and bad tolerances, naming the period and field', async () => {
    const name = unique('Bad ');
    const cases: [Period[], string][] = [
      [[period(), period({ onDuty: '11:00', offDuty: '18:00', earliestCheckIn: '10:00', latestCheckOut: '19:00' })], 'periods.1.onDuty'],
      [[period({ latestCheckOut: '14:00' }), period({ onDuty: '13:30', offDuty: '18:00', earliestCheckIn: '12:45', latestCheckOut: '21:00' })], 'periods.1.earliestCheckIn'],
      [[period({ lateTolerance: 200 })], 'periods.0.lateTolerance'],
      [[period({ earlyLeaveTolerance: -1 })], 'periods.0.earlyLeaveTolerance'],
      [[period({ onDuty: '9:00' })], 'periods.0.onDuty'],
    ];
    for (const [periods, path] of cases) {
      const answer = await shift({ name, periods });
      expect(answer.status, path).toBe(422);
      expect((answer.body.data as unknown as Issues).issues.map((i) => i.path), path).toContain(path);
    }
    const overlap = await call<Issues>('POST', '/v1/attendance/shifts', { token, locale: 'en_US', body: { name, periods: cases[0]![0] } });
    expect(overlap.body.data.issues.find((i) => i.path === 'periods.1.onDuty')!.message).toBe('Period 2 overlaps period 1');
    const late = await call<Issues>('POST', '/v1/attendance/shifts', { token, locale: 'en_US', body: { name, periods: cases[2]![0] } });
    expect(late.body.data.issues[0]!.message).toBe('Period 1: Late tolerance (minutes) is longer than the period');

    const four = await shift({ name, periods: [period(), period({ onDuty: '13:00', offDuty: '14:00', earliestCheckIn: '12:45', latestCheckOut: '14:10' }), period({ onDuty: '15:00', offDuty: '16:00', earliestCheckIn: '14:30', latestCheckOut: '16:10' }), period({ onDuty: '17:00', offDuty: '18:00', earliestCheckIn: '16:30', latestCheckOut: '18:10' })] });
    expect(four.status).toBe(422);
    expect((four.body.data as unknown as Issues).issues[0]!.path).toBe('periods');
    const nameless = await call<Issues>('POST', '/v1/attendance/shifts', { token, locale: 'en_US', body: { name: ' ', periods: [period()] } });
    expect(nameless.status).toBe(422);
    expect(nameless.body.data.issues[0]).toMatchObject({ path: 'name', message: 'Name is required' });
    expect(await shiftsNamed(name)).toEqual([]);
  });
});

describe('attendance groups', () => {
  let dayShift: string;
  beforeAll(async () => {
    dayShift = (await shift({ name: unique('Office day '), periods: twoPeriods })).body.data.shiftKey;
  });

  it('creates a group with staff and rules; its shift cannot be deleted while the group uses it', async () => {
    const ana = await employee('Ana Lima');
    const ben = await employee('Ben Ode');
    const made = await call<Group>('POST', '/v1/attendance/groups', { token, body: groupBody(dayShift, { employeeKeys: [ana, ben], timezone: 'Asia/Shanghai' }) });
    expect(made.body.code).toBe(201);
    expect(made.body.data).toMatchObject({ staffCount: 2, weekdays: week(dayShift), workdayOvertimeAfter: '19:00', restDayMinHours: 2, timezone: 'Asia/Shanghai', version: 1 });
    expect(made.body.data.staff!.map((s) => s.name)).toEqual(['Ana Lima', 'Ben Ode']);
    expect(await employeeGroup(ana)).toBe(made.body.data.attendanceGroupKey);

    const used = await call<Shift>('GET', `/v1/attendance/shifts/${dayShift}`, { token });
    expect(used.body.data.usedBy.groups).toEqual([{ attendanceGroupKey: made.body.data.attendanceGroupKey, name: made.body.data.name }]);
    const refused = await call('DELETE', `/v1/attendance/shifts/${dayShift}?version=1`, { token, locale: 'en_US' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(made.body.data.name);
    expect((await call('GET', `/v1/attendance/shifts/${dayShift}`, { token })).body.code).toBe(200);

    // Ben leaves the group, Ana stays; the rules change with the same request.
    const edited = await call<Group>('PATCH', `/v1/attendance/groups/${made.body.data.attendanceGroupKey}`, {
      token,
      body: groupBody(dayShift, { name: made.body.data.name, employeeKeys: [ana], workdayOvertimeAfter: null, restDayMinHours: null, version: 1 }),
    });
    expect(edited.body.code).toBe(201);
    expect(edited.body.data).toMatchObject({ staffCount: 1, workdayOvertimeAfter: null, restDayMinHours: null, version: 2 });
    expect(await employeeGroup(ben)).toBeNull();

    // Deleting the group frees its staff, and then the shift.
    expect((await call('DELETE', `/v1/attendance/groups/${made.body.data.attendanceGroupKey}?version=2`, { token })).body.code).toBe(204);
    expect(await employeeGroup(ana)).toBeNull();
    expect((await call('DELETE', `/v1/attendance/shifts/${dayShift}?version=1`, { token })).body.code).toBe(204);
    dayShift = (await shift({ name: unique('Office day '), periods: twoPeriods })).body.data.shiftKey;
  });

  it('asks before moving staff from another group, and moves them when told', async () => {
    const cleo = await employee('Cleo Moss');
    const first = await call<Group>('POST', '/v1/attendance/groups', { token, body: groupBody(dayShift, { employeeKeys: [cleo] }) });
    expect(first.body.code).toBe(201);
    const second = groupBody(dayShift, { employeeKeys: [cleo] });
    const asked = await call<{ people: { employeeKey: string; attendanceGroupName: string }[] }>('POST', '/v1/attendance/groups', { token, locale: 'en_US', body: second });
    expect(asked.status).toBe(409);
    expect(asked.body.message).toContain('Cleo Moss');
    expect(asked.body.data.people).toEqual([{ employeeKey: cleo, name: 'Cleo Moss', attendanceGroupName: first.body.data.name }]);
    const names = (await call<Page<Group>>('GET', `/v1/attendance/groups?pageSize=200&keyword=${encodeURIComponent(second.name as string)}`, { token })).body.data.items;
    expect(names).toEqual([]);
    expect(await employeeGroup(cleo)).toBe(first.body.data.attendanceGroupKey);

    const moved = await call<Group>('POST', '/v1/attendance/groups', { token, body: { ...second, moveStaff: true } });
    expect(moved.body.code).toBe(201);
    expect(await employeeGroup(cleo)).toBe(moved.body.data.attendanceGroupKey);
    const before = await call<Group>('GET', `/v1/attendance/groups/${first.body.data.attendanceGroupKey}`, { token });
    expect(before.body.data.staffCount).toBe(0);
  });

  it('refuses staff who do not need attendance, unknown shifts and devices, and a week without work, naming each field', async () => {
    const dan = await employee('Dan Roe', false);
    const name = unique('Refused ');
    const answer = await call<Issues>('POST', '/v1/attendance/groups', {
      token,
      locale: 'en_US',
      body: groupBody(dayShift, { name, employeeKeys: [dan], deviceKeys: ['zzzzzzzzzzzzzzzz'], weekdays: { ...week(dayShift), sat: 'zzzzzzzzzzzzzzzz' } }),
    });
    expect(answer.status).toBe(422);
    const paths = answer.body.data.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['weekdays.sat', 'deviceKeys', 'employeeKeys']));
    expect(answer.body.data.issues.find((i) => i.path === 'employeeKeys')!.message).toContain('Dan Roe');

    const idle = await call<Issues>('POST', '/v1/attendance/groups', { token, body: groupBody(dayShift, { name, weekdays: week(null) }) });
    expect(idle.status).toBe(422);
    expect(idle.body.data.issues[0]!.path).toBe('weekdays');
    const noRules = await call<Issues>('POST', '/v1/attendance/groups', { token, body: { name, weekdays: week(dayShift) } });
    expect(noRules.status).toBe(422);
    expect(noRules.body.data.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['workdayOvertimeAfter', 'restDayMinHours']));
    const zone = await call<Issues>('POST', '/v1/attendance/groups', { token, body: groupBody(dayShift, { name, timezone: 'Mars/Olympus' }) });
    expect(zone.body.data.issues[0]!.path).toBe('timezone');
    const list = await call<Page<Group>>('GET', `/v1/attendance/groups?keyword=${encodeURIComponent(name)}`, { token });
    expect(list.body.data.items).toEqual([]);
    expect(await employeeGroup(dan)).toBeNull();
  });

  it('takes the company time zone when none is given, and an employee may only name an existing group', async () => {
    const made = await call<Group>('POST', '/v1/attendance/groups', { token, body: groupBody(dayShift) });
    expect(made.body.data.timezone).toBe(await companyTimezone(tenantId));
    const eve = await employee('Eve Stone');
    const wrong = await call<Issues>('PATCH', `/v1/employees/${eve}`, { token, body: { attendanceGroupKey: 'zzzzzzzzzzzzzzzz', version: 1 } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.data.issues[0]!.path).toBe('attendanceGroupKey');
    const right = await call('PATCH', `/v1/employees/${eve}`, { token, body: { attendanceGroupKey: made.body.data.attendanceGroupKey, version: 1 } });
    expect(right.body.code).toBe(201);
    const staff = await call<Page<{ employeeKey: string; attendanceGroupName: string }>>('GET', `/v1/attendance/staff?keyword=Eve%20Stone`, { token });
    expect(staff.body.data.items).toEqual([expect.objectContaining({ employeeKey: eve, attendanceGroupName: made.body.data.name })]);
  });
});

describe('holidays', () => {
  it('creates a holiday and a make-up workday, lists them by year and deletes them', async () => {
    const shiftKey = (await shift({ name: unique('Make-up '), periods: [period()] })).body.data.shiftKey;
    const name = unique('National Day ');
    const off = await call<Holiday>('POST', '/v1/attendance/holidays', { token, body: { name, start: '2026-10-01', end: '2026-10-07', remark: 'Golden week', workday: false } });
    expect(off.body.code).toBe(201);
    expect(off.body.data).toMatchObject({ name, start: '2026-10-01', end: '2026-10-07', remark: 'Golden week', workday: false, shiftKey: null });
    const makeUp = await call<Holiday>('POST', '/v1/attendance/holidays', { token, body: { name: `${name} make-up`, start: '2026-10-10', end: '2026-10-10', workday: true, shiftKey } });
    expect(makeUp.body.data).toMatchObject({ workday: true, shiftKey });

    const inYear = await call<Page<Holiday>>('GET', `/v1/attendance/holidays?year=2026&keyword=${encodeURIComponent(name)}`, { token });
    expect(inYear.body.data.items.map((h) => h.name).sort()).toEqual([name, `${name} make-up`]);
    const otherYear = await call<Page<Holiday>>('GET', `/v1/attendance/holidays?year=2025&keyword=${encodeURIComponent(name)}`, { token });
    expect(otherYear.body.data.items).toEqual([]);

    const inUse = await call('DELETE', `/v1/attendance/shifts/${shiftKey}?version=1`, { token });
    expect(inUse.status).toBe(409);

    const edited = await call<Holiday>('PATCH', `/v1/attendance/holidays/${makeUp.body.data.holidayKey}`, { token, body: { name: `${name} make-up`, start: '2026-10-11', end: '2026-10-11', workday: false, version: 1 } });
    expect(edited.body.data).toMatchObject({ start: '2026-10-11', workday: false, shiftKey: null, version: 2 });
    expect((await call('DELETE', `/v1/attendance/holidays/${off.body.data.holidayKey}?version=1`, { token })).body.code).toBe(204);
    expect((await call('DELETE', `/v1/attendance/shifts/${shiftKey}?version=1`, { token })).body.code).toBe(204);
  });

  it('refuses an end before the start, a make-up workday without a shift, and dates that are not dates', async () => {
    const name = unique('Refused ');
    const cases: [Record<string, unknown>, string][] = [
      [{ name, start: '2026-05-03', end: '2026-05-01', workday: false }, 'end'],
      [{ name, start: '2026-05-01', end: '2026-05-01', workday: true }, 'shiftKey'],
      [{ name, start: '2026-02-30', end: '2026-03-01', workday: false }, 'start'],
      [{ name, start: '2026-05-01', end: '2026-05-01' }, 'workday'],
      [{ name, start: '2026-05-01', end: '2026-05-01', workday: true, shiftKey: 'zzzzzzzzzzzzzzzz' }, 'shiftKey'],
      [{ start: '2026-05-01', end: '2026-05-01', workday: false }, 'name'],
    ];
    for (const [body, path] of cases) {
      const answer = await call<Issues>('POST', '/v1/attendance/holidays', { token, body });
      expect(answer.status, path).toBe(422);
      expect(answer.body.data.issues.map((i) => i.path), path).toContain(path);
    }
    expect((await call<Page<Holiday>>('GET', `/v1/attendance/holidays?keyword=${encodeURIComponent(name)}`, { token })).body.data.items).toEqual([]);
  });
});

describe('limits and permissions', () => {
  it('holds the cap on shifts under parallel creates', async () => {
    const owner = await newCompany();
    const other = (await login(owner.username, owner.password)).token;
    const attempts = ATTENDANCE_LIMITS.shift + 20;
    const answers = await Promise.all(Array.from({ length: attempts }, (_, i) => shift({ name: `Cap ${i}`, periods: [period()] }, other)));
    const made = answers.filter((a) => a.body.code === 201).length;
    expect(made).toBe(ATTENDANCE_LIMITS.shift);
    expect(answers.filter((a) => a.status === 409).length).toBe(attempts - made);
    const listed = await call<Page<Shift>>('GET', '/v1/attendance/shifts?pageSize=200', { token: other });
    expect(listed.body.data.total).toBe(ATTENDANCE_LIMITS.shift);
    // Deleting one frees a place.
    const one = listed.body.data.items[0]!;
    expect((await call('DELETE', `/v1/attendance/shifts/${one.shiftKey}?version=1`, { token: other })).body.code).toBe(204);
    expect((await shift({ name: 'Cap again', periods: [period()] }, other)).body.code).toBe(201);
  }, 60_000);

  it('pages shifts with a cursor', async () => {
    const owner = await newCompany();
    const other = (await login(owner.username, owner.password)).token;
    for (let i = 0; i < 5; i++) expect((await shift({ name: `Page ${i}`, periods: [period()] }, other)).body.code).toBe(201);
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: Page<Shift> = (await call<Page<Shift>>('GET', `/v1/attendance/shifts?pageSize=2${cursor ? `&cursor=${cursor}` : ''}`, { token: other })).body.data;
      seen.push(...page.items.map((s) => s.name));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual(['Page 0', 'Page 1', 'Page 2', 'Page 3', 'Page 4']);
  });

  it('answers 401 to an account without the attendance settings permission, and changes nothing', async () => {
    const username = unique('stats');
    await createAccount(tenantId, { username, password: 'stats-only-1', authCodes: ['pass:attendance-statistics'] });
    const clerk = (await login(username, 'stats-only-1')).token;
    const name = unique('Sneaky ');
    expect((await shift({ name, periods: [period()] }, clerk)).status).toBe(401);
    expect((await call('GET', '/v1/attendance/groups', { token: clerk })).status).toBe(401);
    expect((await call('POST', '/v1/attendance/holidays', { token: clerk, body: { name, start: '2026-01-01', end: '2026-01-01', workday: false } })).status).toBe(401);
    expect(await shiftsNamed(name)).toEqual([]);
  });
});
