import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type ExcelJS from 'exceljs';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { portrait } from '@passcloud/device-shadow/portraits';
import type { PassRecordItem, PassRecordPage, RecordExportJob } from '@passcloud/functions/contract/passRecords';
import type { PassRecordUp } from '@passcloud/functions/contract/protocol';
import type { ScheduleView } from '@passcloud/functions/contract/schedules';
import { loadExcel } from '@passcloud/functions/lib/xlsx';
import { call, baseUrl, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { avatarOf, employeeWith } from '../support/people.ts';
import { until } from '../support/wait.ts';

/**
 * Access schedules decided on the terminal: the simulated terminal pulls the schedules its faces
 * name with its face sync and decides by them in its own time zone, offline too; a closed schedule
 * refuses an authorized person with the reason `schedule`, which the records list filters by, the
 * detail traces and the export writes; an edited schedule reaches the terminal at once.
 */

const ALL_DAY = [{ from: '00:00', to: '24:00' }];
const OPEN_WEEK = Array.from({ length: 7 }, () => ALL_DAY);
const CLOSED_WEEK = Array.from({ length: 7 }, () => []);

let token: string;
let userCode: string;
let groupKey: string;
const agents: DeviceAgent[] = [];
const flash = mkdtempSync(join(tmpdir(), 'schedule-decisions-'));

function terminal(serial: string, zone = 'Asia/Tokyo'): DeviceAgent {
  const agent = new DeviceAgent({
    apiUrl: baseUrl(),
    userCode,
    info: { ...simulatedInfo(serial, 1), timezone: zone },
    heartbeatMs: 60_000,
    credentialsFile: join(flash, `${serial}.json`),
  });
  agents.push(agent);
  return agent;
}

async function schedule(name: string, weekly: unknown[]): Promise<ScheduleView> {
  const answer = await call<ScheduleView>('POST', '/v1/schedules', { token, body: { name: unique(name), weekly, exceptions: [], holidaysClosed: false } });
  expect(answer.body.code, answer.body.message).toBe(201);
  return answer.body.data;
}

const employee = async (name: string): Promise<string> =>
  employeeWith(token, { personId: unique('S'), name, groupKey, avatar: await avatarOf(token, portrait(name)) });

async function grant(personKey: string, deviceKey: string, scheduleKey: string | null): Promise<void> {
  const answer = await call('POST', '/v1/authorities', {
    token,
    body: { setType: 0, validity: { permanent: true }, personKeys: [personKey], deviceKeys: [deviceKey], scheduleKey },
  });
  expect(answer.body.code, answer.body.message).toBe(201);
}

const records = async (query: string) => (await call<PassRecordPage>('GET', `/v1/passRecords?pageSize=100&${query}`, { token })).body.data.items;
const recordOf = async (record: PassRecordUp, agent: DeviceAgent) =>
  (await call<PassRecordItem>('GET', `/v1/passRecords/${agent.deviceKey}.${record.recordId}`, { token })).body.data;
/** Waits until the terminal holds a face and the schedule it names, at this version or later. */
const holds = (agent: DeviceAgent, personKey: string, scheduleKey: string | null, version = 1) =>
  until(
    () => agent.faces.find('pass', personKey),
    (face) => !!face && (face.scheduleId ?? null) === scheduleKey && (!scheduleKey || (agent.schedules.find(scheduleKey)?.version ?? 0) >= version),
    20_000,
  );
const acked = (agent: DeviceAgent) =>
  until(
    () => agent.records.pending,
    (n) => n === 0,
    20_000,
  );

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 5);
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Schedules '), type: 'employee' } })).body.data.groupKey;
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('access schedules on the terminal', () => {
  let agent: DeviceAgent;
  let open: ScheduleView;
  let closed: ScheduleView;
  let ada: string;
  let ben: string;
  let cleo: string;
  const refusals: PassRecordUp[] = [];

  beforeAll(async () => {
    agent = terminal(unique('SCH').toUpperCase());
    await agent.start();
    open = await schedule('Open all week ', OPEN_WEEK);
    closed = await schedule('Closed all week ', CLOSED_WEEK);
    ada = await employee('Ada Opentimes');
    ben = await employee('Ben Closedtimes');
    cleo = await employee('Cleo Anytime');
    await grant(ada, agent.deviceKey!, open.scheduleKey);
    await grant(ben, agent.deviceKey!, closed.scheduleKey);
    await grant(cleo, agent.deviceKey!, null);
    await holds(agent, ada, open.scheduleKey);
    await holds(agent, ben, closed.scheduleKey);
    await holds(agent, cleo, null);
  });

  it('lets a person through while their schedule is open, and refuses them for `schedule` while it is closed', async () => {
    const passed = agent.see({ personKey: ada, temperature: 36.5 });
    const refused = agent.see({ personKey: ben, temperature: 36.5 });
    const anytime = agent.see({ personKey: cleo });
    refusals.push(refused);
    expect(passed).toMatchObject({
      passState: 'passed',
      decision: { list: 'pass', doorMode: 'normal', schedule: { scheduleId: open.scheduleKey, open: true, timezone: 'Asia/Tokyo' } },
    });
    expect(passed.refusedFor).toBeUndefined();
    expect(refused).toMatchObject({
      passState: 'refused',
      refusedFor: 'schedule',
      decision: { schedule: { scheduleId: closed.scheduleKey, open: false, because: 'weekly' } },
    });
    expect(anytime).toMatchObject({ passState: 'passed', decision: { list: 'pass', schedule: null } });
    await acked(agent);

    expect(await recordOf(passed, agent)).toMatchObject({
      passState: 'passed',
      refusedFor: null,
      decision: { schedule: { open: true, period: { from: '00:00', to: '24:00' } } },
    });
    const detail = await recordOf(refused, agent);
    expect(detail).toMatchObject({
      personKey: ben,
      passState: 'refused',
      refusedFor: 'schedule',
      decision: { list: 'pass', schedule: { open: false, period: null } },
    });
  });

  it('filters the record list by the reason of the refusal', async () => {
    const bySchedule = await records('refusedFor=schedule');
    expect(bySchedule.map((r) => r.personKey)).toEqual([ben]);
    expect(await records('refusedFor=temperature')).toEqual([]);
    // A refusal a terminal gave no reason for (an older terminal) is listed as `unknown`.
    const older = agent.see({ personKey: 'notheld0001' });
    await acked(agent);
    const unknown = await records('refusedFor=unknown');
    expect(unknown.map((r) => r.recordKey)).toEqual([`${agent.deviceKey}.${older.recordId}`]);
    expect(unknown[0]!.refusedFor).toBe('unknown');
    expect((await call('GET', '/v1/passRecords?refusedFor=closed', { token })).body.code).toBe(422);
  });

  it('takes an edited schedule to the terminal, which then decides by it', async () => {
    const edited = await call<ScheduleView>('PATCH', `/v1/schedules/${open.scheduleKey}`, { token, body: { weekly: CLOSED_WEEK, version: open.version } });
    expect(edited.body.code, edited.body.message).toBe(201);
    // Well within the terminal's 5-minute poll: the notification after the edit brought it.
    await holds(agent, ada, open.scheduleKey, edited.body.data.version);
    const now = agent.see({ personKey: ada });
    expect(now).toMatchObject({ passState: 'refused', refusedFor: 'schedule' });
    refusals.push(now);
    await acked(agent);
  });

  it('keeps deciding by its schedules while offline, and reports those passes when it is back', async () => {
    await agent.stop();
    // Restarted without a connection: the face library and the schedules come from its flash.
    const offline = new DeviceAgent({ ...agent.options });
    agents.push(offline);
    expect(offline.connected).toBe(false);
    const away = offline.see({ personKey: ada });
    const anytime = offline.see({ personKey: cleo });
    expect(away).toMatchObject({ passState: 'refused', refusedFor: 'schedule', decision: { schedule: { scheduleId: open.scheduleKey, open: false } } });
    expect(anytime.passState).toBe('passed');
    refusals.push(away);
    expect(offline.records.pending).toBe(2);
    await offline.start();
    await acked(offline);
    expect(await recordOf(away, offline)).toMatchObject({ personKey: ada, refusedFor: 'schedule' });
    expect((await records('refusedFor=schedule')).map((r) => r.recordKey).sort()).toEqual(refusals.map((r) => `${offline.deviceKey}.${r.recordId}`).sort());
  });

  it('writes the reason and the decision in the export', async () => {
    const started = await call<{ jobKey: string }>('POST', '/v1/passRecords/exports', { token, body: { refusedFor: 'schedule' } });
    expect(started.body.code, started.body.message).toBe(202);
    const job = await until(
      async () => (await call<RecordExportJob>('GET', `/v1/passRecords/exports/${started.body.data.jobKey}`, { token })).body.data,
      (j) => j.state === 'done' || j.state === 'failed',
    );
    expect(job.state).toBe('done');
    const workbook = new (await loadExcel()).Workbook();
    await workbook.xlsx.load((await (await fetch(job.url!)).arrayBuffer()) as unknown as ExcelJS.Buffer);
    const sheet = workbook.worksheets[0]!;
    const header = (sheet.getRow(1).values as unknown[]).map(String);
    const reason = header.indexOf('Refused for');
    const decision = header.indexOf('Decision');
    expect(reason).toBeGreaterThan(0);
    expect(decision).toBeGreaterThan(0);
    expect(sheet.rowCount).toBe(1 + refusals.length);
    for (let row = 2; row <= sheet.rowCount; row++) {
      expect(sheet.getRow(row).getCell(reason).value).toBe('Outside schedule');
      expect(String(sheet.getRow(row).getCell(decision).value)).toMatch(
        /^Pass list; schedule closed at \d{4}-\d{2}-\d{2} \d{2}:\d{2} \(Asia\/Tokyo, weekly hours\)/,
      );
    }
  });
});

describe('holidays that close a schedule', () => {
  it('reach the terminals whose faces use such a schedule when the holiday list changes, and closes it', async () => {
    const agent = terminal(unique('HOL').toUpperCase());
    await agent.start();
    const answer = await call<ScheduleView>('POST', '/v1/schedules', {
      token,
      body: { name: unique('Open but holidays '), weekly: OPEN_WEEK, exceptions: [], holidaysClosed: true },
    });
    expect(answer.body.code, answer.body.message).toBe(201);
    const office = answer.body.data;
    const dana = await employee('Dana Holiday');
    await grant(dana, agent.deviceKey!, office.scheduleKey);
    await holds(agent, dana, office.scheduleKey);
    expect(agent.see({ personKey: dana })).toMatchObject({ passState: 'passed' });

    // Yesterday to tomorrow in the terminal's zone: today is a holiday wherever the clock stands.
    const day = (offset: number) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Tokyo' }).format(new Date(Date.now() + offset * 86_400_000));
    const holiday = await call<{ holidayKey: string; version: number }>('POST', '/v1/attendance/holidays', {
      token,
      body: { name: unique('Closed today '), start: day(-1), end: day(1), workday: false },
    });
    expect(holiday.body.code, holiday.body.message).toBe(201);
    // Well within the terminal's 5-minute poll: the notification after the change brought it.
    const refused = await until(
      () => agent.see({ personKey: dana }),
      (record) => record.passState === 'refused',
      20_000,
    );
    expect(refused).toMatchObject({ refusedFor: 'schedule', decision: { schedule: { open: false, because: 'holiday' } } });

    const removed = await call('DELETE', `/v1/attendance/holidays/${holiday.body.data.holidayKey}?version=${holiday.body.data.version}`, { token });
    expect(removed.body.code, removed.body.message).toBeLessThan(300);
    await until(
      () => agent.see({ personKey: dana }),
      (record) => record.passState === 'passed',
      20_000,
    );
    await acked(agent);
  });
});
