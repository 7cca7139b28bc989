import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { AuthorityItem, AuthorityPage } from '@passcloud/functions/contract/authorities';
import { SCHEDULE_LIMIT, type SchedulePage, type ScheduleView } from '@passcloud/functions/contract/schedules';
import { createAccount } from '@passcloud/functions/data/identity';
import { holdSchedule, letGoSchedule } from '@passcloud/functions/data/schedules';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';

/**
 * Access schedules through the HTTP API: made, read, listed, changed at their version and deleted
 * while no authorization uses them; every rule refused naming its field with nothing stored; at
 * most SCHEDULE_LIMIT a company under parallel creates; invisible to other companies. An
 * authorization on the pass list takes one, is filtered by it and counts in its `usedBy`.
 */

type Issues = { issues: { path: string; message: string }[] };

const day = [{ from: '07:00', to: '19:00' }];
const office = (name = unique('Office ')) => ({ name, weekly: [day, day, day, day, day, [], []], exceptions: [], holidaysClosed: true });

let token: string;
let userCode: string;
let groupKey: string;
const agents: DeviceAgent[] = [];

const create = (body: unknown, as = token) => call<ScheduleView>('POST', '/v1/schedules', { token: as, locale: 'en_US', body });
const read = (key: string, as = token) => call<ScheduleView>('GET', `/v1/schedules/${key}`, { token: as });
const named = async (name: string, as = token) =>
  (await call<SchedulePage>('GET', `/v1/schedules?pageSize=200&keyword=${encodeURIComponent(name)}`, { token: as })).body.data.items;

async function employee(name: string): Promise<string> {
  const answer = await call<{ employeeKey: string }>('POST', '/v1/employees', {
    token,
    body: { personId: unique('S'), name, role: 'Staff', gender: 'female', groupKey },
  });
  expect(answer.body.code, answer.body.message).toBe(201);
  return answer.body.data.employeeKey;
}

async function device(): Promise<string> {
  const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('SCH').toUpperCase(), 1), heartbeatMs: 60_000 });
  agents.push(agent);
  await agent.start();
  await agent.stop();
  return agent.deviceKey!;
}

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 5);
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Scheduled '), type: 'employee' } })).body.data.groupKey;
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('access schedules', () => {
  it('are made, read, listed, changed at their version and deleted', async () => {
    const name = unique('Shop ');
    const made = await create({
      ...office(name),
      weekly: [
        [
          { from: '13:00', to: '24:00' },
          { from: '08:00', to: '12:00' },
        ],
        [],
        [],
        [],
        [],
        [],
        [],
      ],
    });
    expect(made.body.code, made.body.message).toBe(201);
    const schedule = made.body.data;
    expect(schedule).toMatchObject({ name, version: 1, usedBy: 0, holidaysClosed: true, exceptions: [] });
    expect(schedule.weekly[0]).toEqual([
      { from: '08:00', to: '12:00' },
      { from: '13:00', to: '24:00' },
    ]);
    expect((await read(schedule.scheduleKey)).body.data).toEqual(schedule);
    expect((await named(name)).map((s) => s.scheduleKey)).toEqual([schedule.scheduleKey]);

    const changed = await call<ScheduleView>('PATCH', `/v1/schedules/${schedule.scheduleKey}`, {
      token,
      body: { exceptions: [{ date: '2026-12-24', periods: [] }], holidaysClosed: false, version: 1 },
    });
    expect(changed.body.code, changed.body.message).toBe(201);
    expect(changed.body.data).toMatchObject({
      name,
      version: 2,
      holidaysClosed: false,
      exceptions: [{ date: '2026-12-24', periods: [] }],
      weekly: schedule.weekly,
    });

    // A stale version changes nothing.
    const stale = await call('PATCH', `/v1/schedules/${schedule.scheduleKey}`, { token, body: { name: 'Stale', version: 1 } });
    expect(stale.status).toBe(409);
    expect((await call('DELETE', `/v1/schedules/${schedule.scheduleKey}?version=1`, { token })).status).toBe(409);
    expect((await read(schedule.scheduleKey)).body.data).toMatchObject({ name, version: 2 });

    expect((await call('DELETE', `/v1/schedules/${schedule.scheduleKey}?version=2`, { token })).body.code).toBe(204);
    expect((await read(schedule.scheduleKey)).status).toBe(404);
    expect(await named(name)).toEqual([]);
  });

  it('refuses each broken rule naming its field, and stores nothing', async () => {
    const name = unique('Broken ');
    const week = (monday: unknown) => ({ ...office(name), weekly: [monday, [], [], [], [], [], []] });
    const five = ['01', '03', '05', '07', '09'].map((h) => ({ from: `${h}:00`, to: `${h}:30` }));
    const cases: [unknown, string, string][] = [
      [week([{ from: '7:00', to: '19:00' }]), 'weekly.0.0.from', 'Use a time of day as HH:MM, from 00:00 to 24:00'],
      [week([{ from: '09:00', to: '25:00' }]), 'weekly.0.0.to', 'Use a time of day as HH:MM, from 00:00 to 24:00'],
      [week([{ from: '19:00', to: '07:00' }]), 'weekly.0.0.to', 'The end must be later than the start'],
      [week([{ from: '24:00', to: '24:00' }]), 'weekly.0.0.to', 'The end must be later than the start'],
      [
        week([
          { from: '08:00', to: '12:00' },
          { from: '11:00', to: '13:00' },
        ]),
        'weekly.0.1.from',
        'Period 2 overlaps period 1',
      ],
      [week(five), 'weekly.0', 'A day may have at most 4 periods'],
      [{ ...office(name), weekly: [day, day, day, day, day, []] }, 'weekly', 'Give the periods of seven days, Monday first'],
      [{ ...office(name), exceptions: [{ date: '2026-02-30', periods: [] }] }, 'exceptions.0.date', 'Enter a date as YYYY-MM-DD'],
      [
        {
          ...office(name),
          exceptions: [
            { date: '2026-03-01', periods: [] },
            { date: '2026-03-01', periods: day },
          ],
        },
        'exceptions.1.date',
        'The date 2026-03-01 is already exception 1',
      ],
      [
        { ...office(name), exceptions: [{ date: '2026-03-01', periods: [{ from: '10:00', to: '09:00' }] }] },
        'exceptions.0.periods.0.to',
        'The end must be later than the start',
      ],
      [{ ...office(name), name: ' ' }, 'name', 'Name is required'],
      [{ ...office(name), holidaysClosed: 'yes' }, 'holidaysClosed', ''],
    ];
    for (const [body, path, message] of cases) {
      const answer = await call<Issues>('POST', '/v1/schedules', { token, locale: 'en_US', body });
      expect(answer.status, path).toBe(422);
      const issue = answer.body.data.issues.find((i) => i.path === path);
      expect(issue, `${path}: ${JSON.stringify(answer.body.data.issues)}`).toBeDefined();
      if (message) expect(issue!.message).toBe(message);
    }
    expect(await named(name)).toEqual([]);

    // A change is checked by the same rules, and leaves the schedule as it was.
    const kept = (await create(office(name))).body.data;
    const refused = await call<Issues>('PATCH', `/v1/schedules/${kept.scheduleKey}`, {
      token,
      locale: 'en_US',
      body: { weekly: [[{ from: '10:00', to: '09:00' }], [], [], [], [], [], []], version: 1 },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.data.issues[0]).toMatchObject({ path: 'weekly.0.0.to' });
    expect((await read(kept.scheduleKey)).body.data).toEqual(kept);
  });

  it('holds a company to its limit under parallel creates', async () => {
    const owner = await newCompany();
    const other = (await login(owner.username, owner.password)).token;
    const attempts = SCHEDULE_LIMIT + 15;
    const answers = await Promise.all(Array.from({ length: attempts }, (_, i) => create(office(`Cap ${i}`), other)));
    expect(answers.filter((a) => a.body.code === 201).length).toBe(SCHEDULE_LIMIT);
    const refused = answers.filter((a) => a.status === 409);
    expect(refused.length).toBe(attempts - SCHEDULE_LIMIT);
    expect(refused[0]!.body.message).toContain(`at most ${SCHEDULE_LIMIT} access schedules`);
    const listed = (await call<SchedulePage>('GET', '/v1/schedules?pageSize=200', { token: other })).body.data.items;
    expect(listed.length).toBe(SCHEDULE_LIMIT);
    // Deleting one frees a place.
    expect((await call('DELETE', `/v1/schedules/${listed[0]!.scheduleKey}?version=1`, { token: other })).body.code).toBe(204);
    expect((await create(office('Cap again'), other)).body.code).toBe(201);
    expect((await create(office('Cap over'), other)).status).toBe(409);
  }, 90_000);

  it('are another company’s business only: 404 to read, change or delete', async () => {
    const mine = (await create(office())).body.data;
    const owner = await newCompany();
    const stranger = (await login(owner.username, owner.password)).token;
    expect((await read(mine.scheduleKey, stranger)).status).toBe(404);
    expect((await call('PATCH', `/v1/schedules/${mine.scheduleKey}`, { token: stranger, body: { name: 'Mine now', version: 1 } })).status).toBe(404);
    expect((await call('DELETE', `/v1/schedules/${mine.scheduleKey}?version=1`, { token: stranger })).status).toBe(404);
    expect((await call<SchedulePage>('GET', '/v1/schedules?pageSize=200', { token: stranger })).body.data.items).toEqual([]);
    expect((await read(mine.scheduleKey)).body.data).toEqual(mine);
  });

  it('need pass authority', async () => {
    const username = unique('recordsonly');
    await createAccount(token.split('.')[0]!, { username, password: 'records-only-1', authCodes: ['pass:record'] });
    const limited = (await login(username, 'records-only-1')).token;
    expect((await call('GET', '/v1/schedules', { token: limited })).status).toBe(401);
    expect((await create(office(), limited)).status).toBe(401);
  });
});

describe('authorizations with a schedule', () => {
  let deviceKey: string;
  let ada: string;
  let ben: string;
  let schedule: ScheduleView;
  const list = async (query: string) => (await call<AuthorityPage>('GET', `/v1/authorities?pageSize=200&${query}`, { token })).body.data.items;
  const pairOf = (items: AuthorityItem[], personKey: string) => items.find((i) => i.personKey === personKey);

  beforeAll(async () => {
    deviceKey = await device();
    ada = await employee('Ada Scheduled');
    ben = await employee('Ben Scheduled');
    schedule = (await create(office())).body.data;
  });

  it('take a schedule when granted, show it, are filtered by it and count in its usage', async () => {
    const granted = await call('POST', '/v1/authorities', {
      token,
      body: { setType: 0, personKeys: [ada, ben], deviceKeys: [deviceKey], validity: { permanent: true }, scheduleKey: schedule.scheduleKey },
    });
    expect(granted.body.code, granted.body.message).toBe(201);
    const items = await list(`setType=0&scheduleKey=${schedule.scheduleKey}`);
    expect(items.map((i) => i.personKey).sort()).toEqual([ada, ben].sort());
    expect(pairOf(items, ada)).toMatchObject({ scheduleKey: schedule.scheduleKey, scheduleName: schedule.name });
    expect((await read(schedule.scheduleKey)).body.data.usedBy).toBe(2);
    expect((await named(schedule.name))[0]!.usedBy).toBe(2);
  });

  it('keep a schedule in use: its deletion answers 409 with how many use it', async () => {
    const refused = await call('DELETE', `/v1/schedules/${schedule.scheduleKey}?version=1`, { token, locale: 'en_US' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('Authorizations that use this schedule: 2; give them another schedule first');
    expect((await read(schedule.scheduleKey)).body.data).toMatchObject({ version: 1, usedBy: 2 });
  });

  it('change or keep their schedule with their validity', async () => {
    const adaItem = pairOf(await list('setType=0'), ada)!;
    // Absent: the schedule stays.
    const kept = await call<AuthorityItem>('PATCH', `/v1/authorities/${adaItem.authorityKey}`, {
      token,
      body: { validity: { permanent: true }, version: adaItem.version },
    });
    expect(kept.body.code, kept.body.message).toBe(201);
    expect(kept.body.data.scheduleKey).toBe(schedule.scheduleKey);
    // Null: at any time.
    const cleared = await call<AuthorityItem>('PATCH', `/v1/authorities/${adaItem.authorityKey}`, {
      token,
      body: { validity: { permanent: true }, scheduleKey: null, version: kept.body.data.version },
    });
    expect(cleared.body.code, cleared.body.message).toBe(201);
    expect(cleared.body.data).toMatchObject({ scheduleKey: null, scheduleName: null });
    expect((await list(`setType=0&scheduleKey=${schedule.scheduleKey}`)).map((i) => i.personKey)).toEqual([ben]);
    expect((await read(schedule.scheduleKey)).body.data.usedBy).toBe(1);

    // Another schedule: counted there, no longer here.
    const always = (await create({ ...office(), weekly: Array.from({ length: 7 }, () => [{ from: '00:00', to: '24:00' }]) })).body.data;
    const moved = await call<AuthorityItem>('PATCH', `/v1/authorities/${adaItem.authorityKey}`, {
      token,
      body: { validity: { permanent: true }, scheduleKey: always.scheduleKey, version: cleared.body.data.version },
    });
    expect(moved.body.data.scheduleKey).toBe(always.scheduleKey);
    expect((await read(always.scheduleKey)).body.data.usedBy).toBe(1);

    // Revoked: no longer counted, and the schedule may go.
    const revoked = await call('DELETE', `/v1/authorities/${adaItem.authorityKey}?version=${moved.body.data.version}`, { token });
    expect(revoked.body.code).toBe(204);
    expect((await read(always.scheduleKey)).body.data.usedBy).toBe(0);
    expect((await call('DELETE', `/v1/schedules/${always.scheduleKey}?version=1`, { token })).body.code).toBe(204);
  });

  it('refuse an unknown or another company’s schedule, naming the field, and store nothing', async () => {
    const owner = await newCompany();
    const theirs = (await create(office(), (await login(owner.username, owner.password)).token)).body.data;
    const cara = await employee('Cara Refused');
    for (const scheduleKey of [theirs.scheduleKey, 'zzzzzzzzzzzzzzzz']) {
      const answer = await call<Issues>('POST', '/v1/authorities', {
        token,
        locale: 'en_US',
        body: { setType: 0, personKeys: [cara], deviceKeys: [deviceKey], validity: { permanent: true }, scheduleKey },
      });
      expect(answer.status).toBe(422);
      expect(answer.body.data.issues).toEqual([{ path: 'scheduleKey', message: 'No such access schedule' }]);
    }
    expect(pairOf(await list('setType=0'), cara)).toBeUndefined();
    const benItem = pairOf(await list('setType=0'), ben)!;
    const patched = await call<Issues>('PATCH', `/v1/authorities/${benItem.authorityKey}`, {
      token,
      locale: 'en_US',
      body: { validity: { permanent: true }, scheduleKey: theirs.scheduleKey, version: benItem.version },
    });
    expect(patched.status).toBe(422);
    expect(patched.body.data.issues[0]!.path).toBe('scheduleKey');
    expect(pairOf(await list('setType=0'), ben)).toMatchObject({ scheduleKey: schedule.scheduleKey, version: benItem.version });
  });

  it('never name a deleted schedule: a grant racing the deletion of its schedule is refused, or the deletion is', async () => {
    for (let round = 0; round < 6; round++) {
      const raced = (await create(office())).body.data;
      const person = await employee(`Dee Racing ${round}`);
      const [granted, removed] = await Promise.all([
        call<Issues>('POST', '/v1/authorities', {
          token,
          locale: 'en_US',
          body: { setType: 0, personKeys: [person], deviceKeys: [deviceKey], validity: { permanent: true }, scheduleKey: raced.scheduleKey },
        }),
        call('DELETE', `/v1/schedules/${raced.scheduleKey}?version=1`, { token }),
      ]);
      const pair = pairOf(await list('setType=0'), person);
      if (granted.body.code === 201) {
        expect(removed.status).toBe(409);
        expect(pair?.scheduleKey).toBe(raced.scheduleKey);
        expect((await read(raced.scheduleKey)).body.data.usedBy).toBe(1);
      } else {
        expect(granted.status).toBe(422);
        expect(granted.body.data.issues).toEqual([{ path: 'scheduleKey', message: 'No such access schedule' }]);
        expect(removed.body.code).toBe(204);
        expect(pair).toBeUndefined();
      }
    }
  });

  it('keep a schedule while a grant is writing with it, and let it go when written', async () => {
    const held = (await create(office())).body.data;
    const tenantId = token.split('.')[0]!;
    expect(await holdSchedule(tenantId, held.scheduleKey, 60_000)).toBe(true);
    const refused = await call('DELETE', `/v1/schedules/${held.scheduleKey}?version=1`, { token, locale: 'en_US' });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('A grant is writing authorizations with this schedule; try again in a few minutes');
    expect((await read(held.scheduleKey)).body.code).toBe(200);
    await letGoSchedule(tenantId, held.scheduleKey);
    expect((await call('DELETE', `/v1/schedules/${held.scheduleKey}?version=1`, { token })).body.code).toBe(204);
    // Gone: a grant can no longer hold it.
    expect(await holdSchedule(tenantId, held.scheduleKey, 60_000)).toBe(false);
  });

  it('refuse a schedule on a blacklist entry, naming the field, and store nothing', async () => {
    const answer = await call<Issues>('POST', '/v1/authorities', {
      token,
      locale: 'en_US',
      body: { setType: 1, personKeys: [ada], deviceKeys: [deviceKey], validity: { permanent: true }, scheduleKey: schedule.scheduleKey },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues).toEqual([{ path: 'scheduleKey', message: 'A blacklist entry has no access schedule' }]);
    expect(await list('setType=1')).toEqual([]);
    // Without one, the same entry is made.
    expect(
      (
        await call('POST', '/v1/authorities', {
          token,
          body: { setType: 1, personKeys: [ada], deviceKeys: [deviceKey], validity: { permanent: true }, scheduleKey: null },
        })
      ).body.code,
    ).toBe(201);
    expect((await list('setType=1')).map((i) => [i.personKey, i.scheduleKey])).toEqual([[ada, null]]);
  });
});
