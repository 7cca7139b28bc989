import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemoAttendance } from '@passcloud/infra/local/demoAttendance';
import type { MonthTotals, StoredDay } from '@passcloud/functions/data/attendanceDays';
import { addDays, dayOf } from '@passcloud/functions/domain/time';
import { call, login, newCompany, unique } from '../support/api.ts';

/** The demo company's month of attendance: its rules, back-filled punches and computed statistics. */

let token: string;
let tenantId: string;
const people: string[] = [];

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Staff', type: 'employee' } })).body.data.groupKey;
  for (const [i, needsAttendance] of [true, true, true, false].entries()) {
    const answer = await call<{ employeeKey: string }>('POST', '/v1/employees', {
      token,
      body: { personId: unique('D'), name: `Demo ${i}`, role: 'Staff', gender: 'female', groupKey, needsAttendance },
    });
    people.push(answer.body.data.employeeKey);
  }
});

describe('the demo attendance', () => {
  it('back-fills weeks of punches into daily and monthly statistics, once', async () => {
    // Three weeks back, so the holiday (8 to 14 days ago, a Wednesday) falls after everyone's first punch.
    const stored = await seedDemoAttendance(tenantId, ['demodevice000001', 'demodevice000002'], 21);
    expect(stored).toBeGreaterThan(0);
    const today = dayOf(new Date(), 'UTC');
    const days = (await call<{ items: StoredDay[] }>('GET', `/v1/attendance/daily?from=${addDays(today, -21)}&to=${addDays(today, -1)}&pageSize=200`, { token })).body.data.items;
    // Everyone who needs attendance has every day since their first punch; the one who does not, none.
    expect(new Set(days.map((d) => d.personKey))).toEqual(new Set(people.slice(0, 3)));
    expect(days.some((d) => d.kind === 'holiday')).toBe(true);
    expect(days.filter((d) => d.kind === 'workday' && d.firstIn).length).toBeGreaterThan(days.filter((d) => d.kind === 'workday').length / 2);
    const month = addDays(today, -1).slice(0, 7);
    const totals = (await call<{ items: MonthTotals[] }>('GET', `/v1/attendance/monthly?month=${month}`, { token })).body.data.items;
    expect(totals).toHaveLength(3);
    for (const t of totals) expect(t.workdays).toBe(days.filter((d) => d.personKey === t.personKey && d.kind === 'workday' && d.date.startsWith(month)).length);

    const groups = (await call<{ items: { name: string; staffCount: number }[] }>('GET', '/v1/attendance/groups', { token })).body.data.items;
    expect(groups).toEqual([expect.objectContaining({ name: 'Head office', staffCount: 3 })]);
    expect(await seedDemoAttendance(tenantId, ['demodevice000001'], 21)).toBe(0);
  });
});
