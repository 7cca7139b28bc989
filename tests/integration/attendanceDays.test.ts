import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import type { RecomputeJobJson } from '@passcloud/functions/contract/attendance';
import type { MonthTotals, StoredDay } from '@passcloud/functions/data/attendanceDays';
import { createAccount } from '@passcloud/functions/data/identity';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '@passcloud/functions/lib/aws';
import { EVENTS_TABLE, tableName } from '@passcloud/functions/data/tables';
import { createRecomputeJob } from '@passcloud/functions/data/attendanceJobs';
import { attendanceGroups } from '@passcloud/functions/data/attendanceRules';
import { releaseJobSlot, takeJobSlot } from '@passcloud/functions/data/jobSlots';
import { newTimeId } from '@passcloud/functions/lib/crypto';
import { tenants } from '@passcloud/functions/data/tenants';
import { addDays, atLocalTime, dayOf } from '@passcloud/functions/domain/time';
import { closeAttendanceDays } from '@passcloud/functions/jobs/attendanceClose';
import { readFirstSheet } from '@passcloud/functions/lib/xlsx';
import { sendAttendanceSummaries } from '@passcloud/functions/jobs/attendanceMail';
import { baseUrl, call, login, mailsTo, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { until } from '../support/wait.ts';

/**
 * Attendance statistics end to end: punches arrive from a terminal over MQTT, their days are
 * computed as they arrive, the day-close job computes days nobody punched in, a rule change is
 * applied to past days on demand, and the daily and monthly lists read what was stored.
 */

const ZONE = 'Asia/Tokyo';
let token: string;
let tenantId: string;
let device: DeviceAgent;
let shiftKey: string;
let groupKey: string;
let worker: string;
let idle: string;
const workerName = unique('Wren ');
const idleName = unique('Ivo ');

const period = { onDuty: '09:00', offDuty: '18:00', earliestCheckIn: '07:00', latestCheckOut: '21:00', lateTolerance: 0, earlyLeaveTolerance: 0 };
const everyDay = (key: string) => ({ sun: key, mon: key, tue: key, wed: key, thu: key, fri: key, sat: key });
interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
type Issues = { issues: { path: string; message: string }[] };

const today = () => dayOf(new Date(), ZONE);
const at = (day: string, hhmm: string) => atLocalTime(day, Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3)), ZONE).getTime();
const daily = (query: string, as = token) => call<Page<StoredDay>>('GET', `/v1/attendance/daily?pageSize=200&${query}`, { token: as });
const dayOfWorker = async (date: string) => (await daily(`from=${date}&to=${date}&keyword=${encodeURIComponent(workerName)}`)).body.data.items[0];

async function employee(name: string): Promise<string> {
  const group = await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Staff '), type: 'employee' } });
  const answer = await call<{ employeeKey: string }>('POST', '/v1/employees', {
    token,
    body: { personId: unique('W'), name, role: 'Clerk', gender: 'male', groupKey: group.body.data.groupKey, needsAttendance: true },
  });
  expect(answer.body.code).toBe(201);
  return answer.body.data.employeeKey;
}

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  await tenants().patch({ tenantId }).set({ timezone: ZONE }).go();
  await grantSeats(token, 1);
  device = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('AT').toUpperCase(), 1), heartbeatMs: 60_000 });
  await device.start();
  worker = await employee(workerName);
  idle = await employee(idleName);
  shiftKey = (await call<{ shiftKey: string }>('POST', '/v1/attendance/shifts', { token, body: { name: 'Day', periods: [period] } })).body.data.shiftKey;
  const group = await call<{ attendanceGroupKey: string }>('POST', '/v1/attendance/groups', {
    token,
    body: { name: 'Everyone', employeeKeys: [worker, idle], deviceKeys: [device.deviceKey], weekdays: everyDay(shiftKey), workdayOvertimeAfter: '19:00', restDayMinHours: null },
  });
  expect(group.body.code).toBe(201);
  groupKey = group.body.data.attendanceGroupKey;
});

afterAll(async () => {
  await device?.stop();
});

describe('attendance statistics', () => {
  it('computes the days of punches as they arrive, each figure with its trace', async () => {
    const first = addDays(today(), -3);
    const second = addDays(today(), -2);
    for (const verifyTime of [at(first, '09:10'), at(first, '19:40'), at(second, '08:55')]) {
      device.records.add(newPassRecord({ personKey: worker, name: workerName, verifyTime, temperature: 36.5 }));
    }
    const late = await until(() => dayOfWorker(first), (day) => !!day);
    expect(late).toMatchObject({ date: first, kind: 'workday', status: ['late'], late: 10, work: 530, overtimeWorkday: 40, shiftName: 'Day', open: false, attendanceGroupKey: groupKey });
    expect(late!.trace).toEqual(
      expect.arrayContaining([
        { code: 'late', params: { minutes: 10, clockIn: '09:10', onDuty: '09:00', tolerance: expect.any(Number) } },
        { code: 'workdayOvertime', params: expect.objectContaining({ minutes: 40 }) },
      ]),
    );
    const missing = await until(() => dayOfWorker(second), (day) => !!day);
    expect(missing).toMatchObject({ status: ['missingOut'], missingOut: 1, firstIn: expect.stringContaining('08:55') });

    const onlyLate = await daily(`from=${first}&to=${second}&status=late`);
    expect(onlyLate.body.data.items.map((d) => [d.name, d.date])).toEqual([[workerName, first]]);
    const byGroup = await daily(`from=${first}&to=${second}&attendanceGroupKey=zzzzzzzzzzzzzzzz`);
    expect(byGroup.body.data.items).toEqual([]);

  });

  it('closes a day nobody punched in with the hourly job, once', async () => {
    // Run as if tomorrow had begun in Tokyo: today is the day that closes.
    const tomorrow = new Date(at(addDays(today(), 1), '00:30'));
    expect(await closeAttendanceDays(tomorrow)).toBeGreaterThanOrEqual(1);
    const closed = await daily(`from=${today()}&to=${today()}&keyword=${encodeURIComponent(idleName)}`);
    expect(closed.body.data.items).toEqual([expect.objectContaining({ personKey: idle, status: ['absence'], absence: 1, open: true })]);
    // A second run finds the day closed and leaves it as it was.
    const computedAt = closed.body.data.items[0]!.computedAt;
    await closeAttendanceDays(tomorrow);
    const again = await daily(`from=${today()}&to=${today()}&keyword=${encodeURIComponent(idleName)}`);
    expect(again.body.data.items[0]!.computedAt).toBe(computedAt);

    // The dashboard reads yesterday's days by status: the worker punched nothing yesterday,
    // and the idle employee was not employed yet.
    const view = await call<{ attendance: unknown }>('GET', '/v1/dashboard', { token });
    expect(view.body.data.attendance).toEqual({ day: addDays(today(), -1), total: 1, normal: 0, late: 0, earlyLeave: 0, missing: 0, absence: 1 });

    // Once counted, yesterday's counts are kept (the next view reads one item)…
    const yesterday = addDays(today(), -1);
    const counts = async () =>
      (await dynamo().send(new GetCommand({ TableName: tableName(EVENTS_TABLE), Key: { pk: tenantId, sk: `attCounts#${yesterday}` }, ConsistentRead: true }))).Item;
    // (Days of earlier punches may still be stored as this runs: the view that follows them keeps the counts.)
    const kept = await until(
      async () => {
        await call('GET', '/v1/dashboard', { token });
        return counts();
      },
      (item) => !!item?.counts && item.countedGen === (item.gen ?? 0),
    );
    expect(kept).toMatchObject({ counts: { total: 1, absence: 1 } });
    // …until yesterday's days change: punches of yesterday arriving late are counted.
    for (const verifyTime of [at(yesterday, '09:20'), at(yesterday, '18:05')]) {
      device.records.add(newPassRecord({ personKey: worker, name: workerName, verifyTime, temperature: 36.6 }));
    }
    const changed = await until(
      async () => (await call<{ attendance: { late: number } | null }>('GET', '/v1/dashboard', { token })).body.data.attendance,
      (attendance) => attendance?.late === 1,
    );
    expect(changed).toEqual({ day: yesterday, total: 1, normal: 0, late: 1, earlyLeave: 0, missing: 0, absence: 0 });
    // The two punches may store the day twice (each raising the generation): the views that follow keep the counts of the last.
    const recounted = await until(
      async () => {
        await call('GET', '/v1/dashboard', { token });
        return counts();
      },
      (item) => !!item?.counts && item.countedGen === item.gen && (item.counts as { late?: number }).late === 1,
    );
    expect(recounted!.gen).toBeGreaterThan(Number(kept!.gen ?? 0));
    expect(recounted).toMatchObject({ counts: { total: 1, late: 1 }, countedGen: recounted!.gen });
  });

  it('applies a changed rule to past days when asked, and the month sums its days', async () => {
    const first = addDays(today(), -3);
    const before = (await dayOfWorker(first))!;
    const shift = await call<{ version: number }>('GET', `/v1/attendance/shifts/${shiftKey}`, { token });
    expect((await call('PATCH', `/v1/attendance/shifts/${shiftKey}`, { token, body: { name: 'Day', periods: [{ ...period, lateTolerance: 15 }], version: shift.body.data.version } })).body.code).toBe(201);
    // The stored figures stay until the range is computed again, and the list says the rules changed after them.
    expect((await dayOfWorker(first))!.late).toBe(10);
    const outdated = await call<Page<StoredDay> & { rulesChangedAt: string | null }>('GET', `/v1/attendance/daily?from=${first}&to=${first}`, { token });
    expect(outdated.body.data.rulesChangedAt! > before.computedAt).toBe(true);
    const started = await call<{ jobKey: string }>('POST', '/v1/attendance/recompute', { token, body: { from: first, to: addDays(today(), 5) } });
    expect(started.body.code).toBe(202);
    const job = await until(
      async () => (await call<RecomputeJobJson>('GET', `/v1/attendance/recompute/${started.body.data.jobKey}`, { token })).body.data,
      (j) => j.state === 'done' || j.state === 'failed',
      30_000,
    );
    // Days to come are not computed: the range ends today.
    expect(job).toMatchObject({ state: 'done', from: first, to: today(), error: null });
    expect(job.done).toBe(job.total);
    expect(job.total).toBeGreaterThanOrEqual(2);
    expect(job.stored).toBeGreaterThanOrEqual(2);
    expect(job.finishTime).not.toBeNull();
    // The statistics screen finds it as the newest run.
    expect((await call<RecomputeJobJson>('GET', '/v1/attendance/recompute', { token })).body.data.jobKey).toBe(started.body.data.jobKey);
    const after = (await dayOfWorker(first))!;
    expect(after).toMatchObject({ status: ['normal'], late: 0 });
    expect(after.computedAt > before.computedAt).toBe(true);
    expect(after.computedAt > outdated.body.data.rulesChangedAt!).toBe(true);

    const month = first.slice(0, 7);
    const days = (await daily(`from=${month}-01&to=${addDays(`${month}-01`, 30) < today() ? addDays(`${month}-01`, 30) : today()}&keyword=${encodeURIComponent(workerName)}`)).body.data.items.filter((d) => d.date.startsWith(month));
    const totals = await call<Page<MonthTotals>>('GET', `/v1/attendance/monthly?month=${month}&keyword=${encodeURIComponent(workerName)}`, { token });
    expect(totals.body.data.items).toHaveLength(1);
    expect(totals.body.data.items[0]).toMatchObject({
      personKey: worker,
      workdays: days.filter((d) => d.kind === 'workday').length,
      late: days.reduce((n, d) => n + d.late, 0),
      work: days.reduce((n, d) => n + d.work, 0),
      missing: days.reduce((n, d) => n + d.missingIn + d.missingOut, 0),
      overtimeWorkday: days.reduce((n, d) => n + d.overtimeWorkday, 0),
    });
  });

  it('exports the daily and monthly statistics as workbooks in the caller\'s language', async () => {
    const first = addDays(today(), -3);
    const sheet = async (path: string, locale: string) => {
      const res = await fetch(`${baseUrl()}${path}`, { headers: { authorization: `Bearer ${token}`, 'accept-language': locale } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('spreadsheetml');
      return readFirstSheet(Buffer.from(await res.arrayBuffer()));
    };
    const daily = await sheet(`/v1/attendance/daily/export?from=${first}&to=${first}&keyword=${encodeURIComponent(workerName)}`, 'en_US');
    expect(daily[0]!.slice(0, 7)).toEqual(['Personnel ID', 'Name', 'Department', 'Attendance group', 'Date', 'Shift', 'Status']);
    expect(daily).toHaveLength(2);
    expect(daily[1]!.slice(1, 7)).toEqual([workerName, '', 'Everyone', first, 'Day', 'Normal']);
    const zh = await sheet(`/v1/attendance/monthly/export?month=${first.slice(0, 7)}&keyword=${encodeURIComponent(workerName)}`, 'zh_CN');
    expect(zh[0]![1]).toBe('姓名');
    expect(zh[1]![1]).toBe(workerName);
    const refused = await fetch(`${baseUrl()}/v1/attendance/daily/export?from=${today()}&to=${addDays(today(), -1)}`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(422);
  });

  it('mails the daily summary at the time of the email settings, once a day', async () => {
    const hr = `${unique('hr')}@example.test`;
    const settings = await call<{ version: number }>('GET', '/v1/settings/email', { token });
    const saved = await call('PUT', '/v1/settings/email', { confirm: true,
      token,
      body: { senderName: 'HR', recipients: [hr], attendanceSummary: true, attendanceSummaryTime: '00:00', version: settings.body.data.version },
    });
    expect(saved.body.code).toBe(201);
    expect(await sendAttendanceSummaries()).toBeGreaterThanOrEqual(1);
    const mails = await until(() => mailsTo(hr), (found) => found.length > 0);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe(`Attendance summary of ${today()}`);
    expect(mails[0]!.text).toMatch(/^Attendance on \d{4}-\d{2}-\d{2}: 2 counted/);
    expect(mails[0]!.text).toContain(idleName);
    // A second run the same day sends nothing more.
    await sendAttendanceSummaries();
    expect(await mailsTo(hr)).toHaveLength(1);
    const records = await call<{ items: { group: string; status: string }[] }>('GET', '/v1/mailRecords?group=attendanceSummary', { token });
    expect(records.body.data.items).toEqual([expect.objectContaining({ group: 'attendanceSummary', status: 'sent' })]);
  });

  it('refuses a range backwards or over 31 days and a month that is not one, and a reader without the permission', async () => {
    const backwards = await call<Issues>('GET', `/v1/attendance/daily?from=${today()}&to=${addDays(today(), -1)}`, { token });
    expect(backwards.status).toBe(422);
    expect(backwards.body.data.issues[0]!.path).toBe('to');
    expect((await call('GET', `/v1/attendance/daily?from=${addDays(today(), -40)}&to=${today()}`, { token })).status).toBe(422);
    expect((await call('GET', '/v1/attendance/monthly?month=2026-13', { token })).status).toBe(422);
    expect((await call('POST', '/v1/attendance/recompute', { token, body: { from: today(), to: addDays(today(), -3) } })).status).toBe(422);

    const username = unique('rules');
    await createAccount(tenantId, { username, password: 'rules-only-1', authCodes: ['pass:attendance-settings'] });
    const clerk = (await login(username, 'rules-only-1')).token;
    expect((await call('GET', `/v1/attendance/daily?from=${today()}&to=${today()}`, { token: clerk })).status).toBe(401);
    expect((await call('GET', `/v1/attendance/monthly?month=${today().slice(0, 7)}`, { token: clerk })).status).toBe(401);
  });

  it('computes one range at a time per company, says when a run stopped midway, and keeps the earlier figures readable', async () => {
    const date = addDays(today(), -2);
    const before = (await dayOfWorker(date))!;
    const latest = async () => (await call<RecomputeJobJson | null>('GET', '/v1/attendance/recompute', { token })).body.data;
    const newest = await latest();

    // A run in progress holds the company's one slot: another start answers 429 naming it and creates nothing.
    const held = { jobKey: `held${Date.now().toString(36)}`, at: new Date().toISOString() };
    await takeJobSlot(tenantId, 'recompute', held.jobKey, held.at);
    const refused = await call<{ jobKey: string; limit: number }>('POST', '/v1/attendance/recompute', { token, locale: 'ja_JP', body: { from: date, to: date } });
    expect(refused.status).toBe(429);
    expect(refused.body.data).toMatchObject({ jobKey: held.jobKey, limit: 1 });
    expect(refused.body.message).toContain('再計算');
    expect((await latest())?.jobKey).toBe(newest?.jobKey);
    await releaseJobSlot(tenantId, 'recompute', held.jobKey, held.at);

    // A range starting after today cannot be computed.
    const future = await call<Issues>('POST', '/v1/attendance/recompute', { token, body: { from: addDays(today(), 2), to: addDays(today(), 3) } });
    expect(future.status).toBe(422);
    expect(future.body.data.issues[0]!.path).toBe('from');
    expect((await latest())?.jobKey).toBe(newest?.jobKey);

    // A run that fails midway (here: a group whose time zone cannot be read) is marked failed with
    // the reason, gives its slot back, and every day keeps the figures it had.
    const group = (await attendanceGroups().get({ tenantId, attendanceGroupKey: groupKey }).go()).data!;
    await attendanceGroups().patch({ tenantId, attendanceGroupKey: groupKey }).set({ timezone: 'Nowhere/Atlantis' }).go();
    try {
      const started = await call<{ jobKey: string }>('POST', '/v1/attendance/recompute', { token, body: { from: date, to: date } });
      expect(started.body.code).toBe(202);
      const failed = await until(
        async () => (await call<RecomputeJobJson>('GET', `/v1/attendance/recompute/${started.body.data.jobKey}`, { token })).body.data,
        (j) => j.state === 'done' || j.state === 'failed',
        30_000,
      );
      expect(failed).toMatchObject({ state: 'failed', error: expect.stringContaining('stopped before it was complete') });
      expect(failed.done).toBeLessThan(failed.total);
      expect((await latest())).toMatchObject({ jobKey: started.body.data.jobKey, state: 'failed' });
      expect(await dayOfWorker(date)).toMatchObject({ computedAt: before.computedAt, late: before.late, status: before.status });
    } finally {
      await attendanceGroups().patch({ tenantId, attendanceGroupKey: groupKey }).set({ timezone: group.timezone }).go();
    }
    const again = await call<{ jobKey: string }>('POST', '/v1/attendance/recompute', { token, body: { from: date, to: date } });
    expect(again.body.code).toBe(202);
    await until(
      async () => (await call<RecomputeJobJson>('GET', `/v1/attendance/recompute/${again.body.data.jobKey}`, { token })).body.data.state,
      (state) => state === 'done',
      30_000,
    );
    expect((await dayOfWorker(date))!.computedAt > before.computedAt).toBe(true);

    // A job whose worker was lost (still queued long after it was created) is failed when read.
    const lost = await createRecomputeJob(tenantId, newTimeId(Date.now() - 20 * 60_000), date, date, 'en_US', new Date(Date.now() - 20 * 60_000));
    const read = await call<RecomputeJobJson>('GET', `/v1/attendance/recompute/${lost.jobKey}`, { token });
    expect(read.body.data).toMatchObject({ state: 'failed', error: expect.stringContaining('never started') });

    // Statistics readers see the runs; only rule keepers start them; another company sees none.
    const username = unique('stats');
    await createAccount(tenantId, { username, password: 'stats-only-1', authCodes: ['pass:attendance-statistics'] });
    const reader = (await login(username, 'stats-only-1')).token;
    expect((await call('GET', '/v1/attendance/recompute', { token: reader })).status).toBe(200);
    const newestBefore = (await latest())?.jobKey;
    expect((await call('POST', '/v1/attendance/recompute', { token: reader, body: { from: date, to: date } })).status).toBe(401);
    expect((await latest())?.jobKey).toBe(newestBefore);
    const other = await newCompany();
    const stranger = (await login(other.username, other.password)).token;
    expect((await call('GET', `/v1/attendance/recompute/${again.body.data.jobKey}`, { token: stranger })).status).toBe(404);
    expect((await call('GET', '/v1/attendance/recompute', { token: stranger })).body.data).toBeNull();
  });
});

