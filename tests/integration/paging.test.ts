import '../support/localEnv.ts';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import { deviceTopics, type PassRecordUp, type RecordsAckMessage } from '@passcloud/functions/contract/protocol';
import type { PassRecordItem, PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { addDays, dayOf } from '@passcloud/functions/domain/time';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';

/**
 * Paging of the pass record lists: the page sizes they take (20, 50, 100, nothing else), and the
 * total their first page says from the day counters, which must be what is stored.
 */

type Issues = { issues: { path: string; message: string }[] };
type Answer = PassRecordPage & Issues;

const DAY_MS = 86_400_000;
const TODAY = 25;
const TWO_DAYS_AGO = 12;
const FOUR_DAYS_AGO = 8;
const STORED = TODAY + TWO_DAYS_AGO + FOUR_DAYS_AGO;

let token: string;
let deviceKey: string;
let client: MqttClient;
let agent: DeviceAgent;
/** The days of the records (the company's time zone is UTC), fixed when they were made. */
let today: string;
let from: string;
let sent: PassRecordUp[];

const list = (query: string, path = '/v1/passRecords') => call<Answer>('GET', `${path}?${query}`, { token });

/** Every record of a query, page by page at `pageSize`. */
async function all(query: string, pageSize: number): Promise<PassRecordItem[]> {
  const items: PassRecordItem[] = [];
  let cursor: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof list>> = await list(`${query}&pageSize=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.body.code, page.body.message).toBe(200);
    expect(page.body.data.items.length).toBeLessThanOrEqual(pageSize);
    items.push(...page.body.data.items);
    cursor = page.body.data.nextCursor;
  } while (cursor);
  return items;
}

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 2);
  agent = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('PG').toUpperCase(), 1), heartbeatMs: 60_000 });
  await agent.bind();
  deviceKey = agent.deviceKey!;
  const m = agent.binding!.mqtt;
  client = await mqtt.connectAsync(m.url, { clientId: m.clientId, username: m.username, password: m.password, reconnectPeriod: 0, connectTimeout: 5000 });
  const topics = deviceTopics(agent.binding!.thingName);
  const acks: RecordsAckMessage[] = [];
  await client.subscribeAsync(topics.recordsAck, { qos: 1 });
  client.on('message', (_topic, payload) => acks.push(JSON.parse(payload.toString()) as RecordsAckMessage));

  // Records 10 ms apart, today and two and four days back at this time of day: one in five refused.
  const now = Date.now();
  today = dayOf(new Date(now), 'UTC');
  from = addDays(today, -5);
  const made = (daysAgo: number, count: number) =>
    Array.from({ length: count }, (_, i) =>
      newPassRecord({ recordId: unique(`pg${daysAgo}x${i}x`), passState: i % 5 === 0 ? 'refused' : 'passed', verifyTime: now - daysAgo * DAY_MS - i * 10 }),
    );
  sent = [...made(0, TODAY), ...made(2, TWO_DAYS_AGO), ...made(4, FOUR_DAYS_AGO)];
  for (let i = 0; i < sent.length; i += 10) client.publish(topics.records, JSON.stringify({ records: sent.slice(i, i + 10) }), { qos: 1 });
  const end = Date.now() + 20_000;
  while (acks.flatMap((a) => a.stored).length < STORED && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  expect(acks.flatMap((a) => a.stored).length).toBe(STORED);
});

afterAll(async () => {
  await client?.endAsync(true);
  await agent?.stop();
});

describe('page sizes', () => {
  it('answers pages of 20 (also when none is asked), 50 and 100, and pages through without gaps or repeats', async () => {
    const range = `from=${from}&to=${today}`;
    const unasked = await list(range);
    expect(unasked.body.code, unasked.body.message).toBe(200);
    expect(unasked.body.data.items.length).toBe(20);
    expect(unasked.body.data.nextCursor).not.toBeNull();
    const fifty = await list(`${range}&pageSize=50`);
    expect(fifty.body.data.items.length).toBe(STORED);
    expect(fifty.body.data.nextCursor).toBeNull();
    expect((await list(`${range}&pageSize=100`)).body.data.items.length).toBe(STORED);

    const byTwenty = await all(range, 20);
    expect(byTwenty.length).toBe(STORED);
    expect(new Set(byTwenty.map((r) => r.recordKey)).size).toBe(STORED);
    expect(byTwenty.map((r) => r.recordKey)).toEqual(fifty.body.data.items.map((r) => r.recordKey));
  });

  it('refuses any other page size, naming the field, on both record lists', async () => {
    for (const path of ['/v1/passRecords', '/v1/blacklistRecords']) {
      for (const size of ['37', '200', '0', '-20', '20.5', 'abc']) {
        const answer = await list(`from=${from}&to=${today}&pageSize=${size}`, path);
        expect(answer.body.code, `${path} pageSize=${size}`).toBe(422);
        expect(answer.body.data.issues.map((i) => i.path)).toEqual(['pageSize']);
        expect(answer.body.data.issues[0]!.message).toMatch(/^Page size must be/);
        expect(answer.body.data.items).toBeUndefined();
      }
    }
    const german = await call<Answer>('GET', `/v1/passRecords?pageSize=37`, { token, locale: 'de_DE' });
    expect(german.body.data.issues[0]!.message).toBe('Einträge pro Seite muss 20, 50 oder 100 sein');
  });
});

describe('totals', () => {
  it('says on the first page how many records the filter matches, as many as are stored', async () => {
    const range = `from=${from}&to=${today}`;
    const first = await list(`${range}&pageSize=20`);
    expect(first.body.data.total).toBe(STORED);
    expect((await all(range, 100)).length).toBe(STORED);

    const refused = await list(`${range}&passState=refused`);
    const refusedStored = await all(`${range}&passState=refused`, 100);
    expect(refusedStored.length).toBe(sent.filter((r) => r.passState === 'refused').length);
    expect(refused.body.data.total).toBe(refusedStored.length);
    expect((await list(`${range}&type=stranger`)).body.data.total).toBe(STORED);
    expect((await list(`${range}&type=employee`)).body.data.total).toBe(0);
    expect((await list(`from=${today}&to=${today}`)).body.data.total).toBe(TODAY);
  });

  it('says none where the counters cannot tell, nor past the first page', async () => {
    const range = `from=${from}&to=${today}`;
    const next = (await list(range)).body.data.nextCursor!;
    const second = await list(`${range}&cursor=${encodeURIComponent(next)}`);
    expect(second.body.data.items.length).toBe(20);
    expect(second.body.data).not.toHaveProperty('total');
    expect((await list(`${range}&deviceKey=${deviceKey}`)).body.data).not.toHaveProperty('total');
    expect((await list(`${range}&keyword=nobody`)).body.data).not.toHaveProperty('total');
    expect((await list(`${range}&type=stranger&passState=refused`)).body.data).not.toHaveProperty('total');
  });

  it('starts the list at a day asked as `to`, that day’s latest record first, and counts from there', async () => {
    const day = addDays(today, -2);
    const jumped = await list(`from=${from}&to=${day}&pageSize=50`);
    expect(jumped.body.code, jumped.body.message).toBe(200);
    const newestThatDay = sent.filter((r) => dayOf(new Date(r.verifyTime), 'UTC') === day).sort((a, b) => b.verifyTime - a.verifyTime)[0]!;
    expect(jumped.body.data.items[0]!.recordKey).toBe(`${deviceKey}.${newestThatDay.recordId}`);
    expect(jumped.body.data.items.length).toBe(TWO_DAYS_AGO + FOUR_DAYS_AGO);
    expect(jumped.body.data.total).toBe(TWO_DAYS_AGO + FOUR_DAYS_AGO);
  });
});
