import '../support/localEnv.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import { deviceAuthorization, deviceTopics, type BindResult, type FaceChangesPage } from '@passcloud/functions/contract/protocol';
import {
  WEBHOOK_HEADERS,
  WEBHOOK_LIMIT,
  eventEnvelope,
  type WebhookCreated,
  type WebhookDeliveryJson,
  type WebhookDeliveryPage,
  type WebhookJson,
  type WebhookSecret,
} from '@passcloud/functions/contract/webhooks';
import { addDelivery, deliverySk, deliveryTtl, findDelivery, newDelivery } from '@passcloud/functions/data/webhookDeliveries';
import { EVENTS_TABLE, MAIN_TABLE, tableName } from '@passcloud/functions/data/tables';
import { verifySignature } from '@passcloud/functions/domain/webhookSignature';
import { dynamo } from '@passcloud/functions/lib/aws';
import { eventBody, eventId } from '@passcloud/functions/lib/webhookEvents';
import { processDelivery } from '@passcloud/functions/jobs/webhookSender';
import { webhooks } from '@passcloud/functions/resources/webhooks';
import { startHost, type Host } from '@passcloud/infra/local/host';
import { baseUrl, call, login, mailsTo, newCompany, unique, hostIdle } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { startWebhookReceiver, type Received, type WebhookReceiver } from '../support/webhookReceiver.ts';
import { until } from '../support/wait.ts';

/**
 * Webhooks through their real entry points: subscriptions over the HTTP API, events made by
 * terminals over MQTT and by "send a test event", delivered by the sender to a receiver on
 * loopback (allowed by the test stack's local switch), and refused addresses with the switch off.
 */

type Issues = { issues: { path: string; message: string }[] };

let owner: Awaited<ReturnType<typeof newCompany>>;
let token: string;
let tenantId: string;
let otherToken: string;
let receiver: WebhookReceiver;
const agents: DeviceAgent[] = [];
const clients: MqttClient[] = [];

/** Tokens whose password was confirmed (it covers the session for 5 minutes). */
const confirmed = new Set<string>();
async function create(body: Record<string, unknown>, as = token) {
  const confirm = !confirmed.has(as);
  const answer = await call<WebhookCreated & Issues>('POST', '/v1/webhooks', { token: as, body: { events: ['pass.record'], ...body }, confirm });
  if (confirm && answer.status !== 401) confirmed.add(as);
  return answer;
}
/** A new subscription of the test company to the receiver, at a path of its own; the oldest goes when the company is at its limit. */
async function made(body: Record<string, unknown> = {}) {
  const items = await listed();
  if (items.length >= WEBHOOK_LIMIT) {
    const oldest = items[0]!;
    expect((await call('DELETE', `/v1/webhooks/${oldest.webhookKey}?version=${oldest.version}`, { token })).body.code).toBe(204);
  }
  const answer = await create({ url: receiver.url(`/${unique('h')}`), ...body });
  expect(answer.body.code, answer.body.message).toBe(201);
  return answer.body.data;
}
const listed = async (as = token) => (await call<{ items: WebhookJson[] }>('GET', '/v1/webhooks', { token: as })).body.data.items;
async function deliveries(webhookKey: string, query = '', as = token) {
  return call<WebhookDeliveryPage & Issues>('GET', `/v1/webhooks/${webhookKey}/deliveries${query}`, { token: as });
}
async function delivery(webhookKey: string, deliveryKey: string): Promise<WebhookDeliveryJson | undefined> {
  return (await deliveries(webhookKey, '?pageSize=100')).body.data.items.find((d) => d.deliveryKey === deliveryKey);
}
async function settled(webhookKey: string, deliveryKey: string, ms = 20_000): Promise<WebhookDeliveryJson> {
  const found = await until(() => delivery(webhookKey, deliveryKey), (d) => d?.status === 'delivered' || d?.status === 'dead', ms);
  expect(found, 'the delivery ended').toBeDefined();
  return found!;
}
async function testEvent(webhookKey: string): Promise<string> {
  const sent = await call<{ deliveryKey: string }>('POST', `/v1/webhooks/${webhookKey}/test`, { token });
  expect(sent.body.code, sent.body.message).toBe(202);
  return sent.body.data.deliveryKey;
}
const at = (path: string): Received[] => receiver.received.filter((r) => r.path === path);
const header = (r: Received, name: string): string => String(r.headers[name] ?? '');
const pathOf = (url: string): string => new URL(url).pathname;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.slice(0, token.indexOf('.'));
  const other = await newCompany();
  otherToken = (await login(other.username, other.password)).token;
});

afterAll(async () => {
  for (const client of clients) await client.endAsync().catch(() => undefined);
  for (const agent of agents) await agent.stop().catch(() => undefined);
  await receiver?.stop();
});

describe('subscriptions', () => {
  it('create one with its secret shown once; no later answer holds it, and it is stored only sealed', async () => {
    const url = receiver.url('/shown-once');
    const answer = await create({ url, events: ['stranger.detected', 'pass.record', 'pass.record'], description: '  Front desk  ' });
    expect(answer.body.code, answer.body.message).toBe(201);
    const { webhook, secret } = answer.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(webhook).toMatchObject({ url, events: ['pass.record', 'stranger.detected'], description: 'Front desk', enabled: true, disabledReason: null, version: 1 });
    const read = await call<WebhookJson>('GET', `/v1/webhooks/${webhook.webhookKey}`, { token });
    expect(read.body.data).toEqual(webhook);
    const everything = JSON.stringify([read.body, await listed()]);
    expect(everything).not.toContain(secret);
    expect(everything).not.toMatch(/sealed|whsec_/i);
    const item = (await dynamo().send(new GetCommand({ TableName: tableName(MAIN_TABLE), Key: { pk: tenantId, sk: `webhook#${webhook.webhookKey}` } }))).Item!;
    expect(JSON.stringify(item)).not.toContain(secret.slice(6));
  });

  it('refuse an address that is not https, holds credentials or is not an address, and events that are none, naming the field; nothing is created', async () => {
    const before = await listed();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ url: 'http://example.com/hook' }, 'url', 'webhook.urlNotHttps'],
      [{ url: `https://user:secret@localhost:${receiver.port}/hook` }, 'url', 'webhook.urlCredentials'],
      [{ url: 'not a url' }, 'url', 'webhook.urlInvalid'],
      [{ url: 'https://nothing.invalid/hook' }, 'url', 'webhook.urlNotFound'],
      [{ url: receiver.url(), events: [] }, 'events', 'webhook.eventsRequired'],
      [{ url: receiver.url(), events: ['pass.record', 'tenant.secrets'] }, 'events', ''],
      [{ url: receiver.url(), description: 'x'.repeat(201) }, 'description', ''],
    ];
    for (const [body, path, message] of cases) {
      const answer = await create(body);
      expect(answer.status, JSON.stringify(body)).toBe(422);
      const issue = answer.body.data.issues.find((i) => i.path.startsWith(path));
      expect(issue, `${JSON.stringify(body)}: ${JSON.stringify(answer.body.data.issues)}`).toBeDefined();
      if (message) expect(answer.body.message).toMatch(/./);
      if (message === 'webhook.urlNotHttps') expect(answer.body.message).toContain('https://');
    }
    expect(await listed()).toEqual(before);
  });

  it('asks for the password again before creating one, and creates nothing without it', async () => {
    const fresh = await newCompany();
    const freshToken = (await login(fresh.username, fresh.password)).token;
    const answer = await call<{ reauth: string }>('POST', '/v1/webhooks', { token: freshToken, body: { url: receiver.url(), events: ['pass.record'] } });
    expect(answer.status).toBe(401);
    expect(answer.body.data.reauth).toBe('required');
    expect(await listed(freshToken)).toEqual([]);
    // Made with the password, then a new session: changing its address or its secret asks again, and changes nothing.
    const { webhook } = (await create({ url: receiver.url('/reauth') }, freshToken)).body.data;
    const next = (await login(fresh.username, fresh.password)).token;
    for (const [method, path, body] of [
      ['PATCH', `/v1/webhooks/${webhook.webhookKey}`, { url: 'https://example.com/elsewhere', version: 1 }],
      ['POST', `/v1/webhooks/${webhook.webhookKey}/secret`, { version: 1 }],
    ] as const) {
      const refused = await call<{ reauth: string }>(method, path, { token: next, body });
      expect(refused.status, path).toBe(401);
      expect(refused.body.data.reauth).toBe('required');
    }
    expect(await listed(next)).toEqual([webhook]);
  });

  it(`hold at most ${WEBHOOK_LIMIT} per company under parallel requests, and give a place back on delete`, async () => {
    const company = await newCompany();
    const as = (await login(company.username, company.password)).token;
    expect((await create({ url: receiver.url('/limit-first') }, as)).body.code).toBe(201);
    const answers = await Promise.all(Array.from({ length: WEBHOOK_LIMIT + 3 }, (_, i) => create({ url: receiver.url(`/limit-${i}`) }, as)));
    const codes = answers.map((a) => a.body.code);
    expect(codes.filter((c) => c === 201)).toHaveLength(WEBHOOK_LIMIT - 1);
    for (const refused of answers.filter((a) => a.body.code !== 201)) {
      expect(refused.status).toBe(422);
      expect(refused.body.data.issues[0]).toMatchObject({ path: 'url', message: expect.stringContaining(String(WEBHOOK_LIMIT)) });
    }
    const items = await listed(as);
    expect(items).toHaveLength(WEBHOOK_LIMIT);
    const gone = await call('DELETE', `/v1/webhooks/${items[0]!.webhookKey}?version=${items[0]!.version}`, { token: as });
    expect(gone.body.code).toBe(204);
    expect((await create({ url: receiver.url('/limit-again') }, as)).body.code).toBe(201);
    expect(await listed(as)).toHaveLength(WEBHOOK_LIMIT);
  });

  it('change one at its version only, and keep it from other companies', async () => {
    const { webhook } = await made();
    const changed = await call<WebhookJson>('PATCH', `/v1/webhooks/${webhook.webhookKey}`, { token, body: { description: 'Changed', enabled: false, version: 1 } });
    expect(changed.body.code, changed.body.message).toBe(201);
    expect(changed.body.data).toMatchObject({ description: 'Changed', enabled: false, version: 2 });
    const stale = await call('PATCH', `/v1/webhooks/${webhook.webhookKey}`, { token, body: { description: 'Stale', version: 1 } });
    expect(stale.body.code).toBe(409);
    const refused = await call<Issues>('PATCH', `/v1/webhooks/${webhook.webhookKey}`, { token, body: { url: 'http://example.com/', version: 2 } });
    expect(refused.status).toBe(422);
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/${webhook.webhookKey}`, undefined],
      ['PATCH', `/v1/webhooks/${webhook.webhookKey}`, { description: 'Theirs', version: 2 }],
      ['DELETE', `/v1/webhooks/${webhook.webhookKey}?version=2`, undefined],
      ['POST', `/v1/webhooks/${webhook.webhookKey}/test`, undefined],
      ['GET', `/v1/webhooks/${webhook.webhookKey}/deliveries`, undefined],
      ['POST', `/v1/webhooks/${webhook.webhookKey}/secret`, { version: 2 }],
    ] as const) {
      const answer = await call(method, path, { token: otherToken, body, confirm: method === 'PATCH' || path.endsWith('/secret') });
      expect(answer.body.code, `${method} ${path}`).toBe(404);
    }
    const still = await call<WebhookJson>('GET', `/v1/webhooks/${webhook.webhookKey}`, { token });
    expect(still.body.data).toMatchObject({ description: 'Changed', enabled: false, version: 2 });
    // Off, it takes no test event.
    expect((await call('POST', `/v1/webhooks/${webhook.webhookKey}/test`, { token })).body.code).toBe(409);
  });
});

describe('delivery', () => {
  it('try a receiver failing three times again until it takes the event: one delivery, the same id and a valid signature each time', async () => {
    const { webhook, secret } = await made();
    const path = pathOf(webhook.url);
    receiver.answer({ status: 503, times: 2 }, { status: 429, times: 1, headers: { 'retry-after': '1' } });
    const key = await testEvent(webhook.webhookKey);
    const done = await settled(webhook.webhookKey, key);
    expect(done).toMatchObject({ status: 'delivered', attempts: 4, responseCode: 200, error: null, eventType: 'webhook.test' });
    const got = at(path);
    expect(got.map((r) => r.status)).toEqual([503, 503, 429, 200]);
    expect(new Set(got.map((r) => header(r, WEBHOOK_HEADERS.id)))).toEqual(new Set([key]));
    expect(new Set(got.map((r) => r.body)).size).toBe(1);
    // Retry-After: the last wait was at least the second it asked for.
    expect(got[3]!.at - got[2]!.at).toBeGreaterThanOrEqual(950);
    for (const r of got) {
      expect(verifySignature(secret, header(r, WEBHOOK_HEADERS.signature), header(r, WEBHOOK_HEADERS.timestamp), r.body)).toBe(true);
      expect(verifySignature('whsec_wrong', header(r, WEBHOOK_HEADERS.signature), header(r, WEBHOOK_HEADERS.timestamp), r.body)).toBe(false);
      expect(r.headers['content-type']).toBe('application/json');
    }
    const body = eventEnvelope('webhook.test').parse(JSON.parse(got[0]!.body));
    expect(body).toMatchObject({ id: key, type: 'webhook.test' });
    expect(got[0]!.body).not.toContain(tenantId);
    expect(done.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('end a delivery at a 4xx, keep it as a dead letter with the answer, and replay it under the same id', async () => {
    const { webhook } = await made();
    const path = pathOf(webhook.url);
    receiver.answer({ status: 400, times: 1, body: `refused: ${'y'.repeat(2000)}` });
    const key = await testEvent(webhook.webhookKey);
    const dead = await settled(webhook.webhookKey, key);
    expect(dead).toMatchObject({ status: 'dead', attempts: 1, responseCode: 400, error: 'status' });
    expect(dead.excerpt).toMatch(/^refused: y+$/);
    expect(dead.excerpt!.length).toBe(500);
    const letters = await deliveries(webhook.webhookKey, '?status=dead');
    expect(letters.body.data.items.map((d) => d.deliveryKey)).toEqual([key]);
    const replay = await call('POST', `/v1/webhooks/${webhook.webhookKey}/deliveries/${key}/replay`, { token });
    expect(replay.body.code, replay.body.message).toBe(202);
    const again = await settled(webhook.webhookKey, key);
    expect(again).toMatchObject({ status: 'delivered', attempts: 2, replays: 1, responseCode: 200 });
    expect(at(path).map((r) => header(r, WEBHOOK_HEADERS.id))).toEqual([key, key]);
    // A delivered one may be replayed too; one waiting may not (the receiver takes its time, so the
    // first replay is still waiting when the second arrives, however busy the machine is).
    receiver.answer({ status: 200, times: 1, delayMs: 3000 });
    const twice = await Promise.all([1, 2].map(() => call('POST', `/v1/webhooks/${webhook.webhookKey}/deliveries/${key}/replay`, { token })));
    expect(twice.map((a) => a.body.code).sort()).toEqual([202, 409]);
    await until(() => at(path).length, (n) => n === 3);
  });

  it('replay the dead letters of a time range, and only those', async () => {
    const { webhook } = await made();
    const from = new Date(Date.now() - 1000).toISOString();
    receiver.answer({ status: 404, times: 2 });
    const keys = [await testEvent(webhook.webhookKey), await testEvent(webhook.webhookKey)];
    for (const key of keys) expect((await settled(webhook.webhookKey, key)).status).toBe('dead');
    const fine = await testEvent(webhook.webhookKey);
    expect((await settled(webhook.webhookKey, fine)).status).toBe('delivered');
    const answer = await call<{ replayed: number; more: boolean }>('POST', `/v1/webhooks/${webhook.webhookKey}/replay`, { token, body: { from, to: new Date(Date.now() + 1000).toISOString() } });
    expect(answer.body.code, answer.body.message).toBe(202);
    expect(answer.body.data).toMatchObject({ replayed: 2, more: false });
    for (const key of keys) expect(await settled(webhook.webhookKey, key)).toMatchObject({ status: 'delivered', replays: 1 });
    expect((await delivery(webhook.webhookKey, fine))!.replays).toBe(0);
    const reversed = await call<Issues>('POST', `/v1/webhooks/${webhook.webhookKey}/replay`, { token, body: { from: new Date().toISOString(), to: from } });
    expect(reversed.status).toBe(422);
    expect(reversed.body.data.issues[0]!.path).toBe('to');
  });

  it('show a delivery whose message was lost as a dead letter of the worker, and replay it', async () => {
    const { webhook } = await made();
    const long = Date.now() - 40 * 60_000;
    const created = new Date(long).toISOString();
    const id = eventId(tenantId, 'webhook.test', unique('lost'), created);
    await addDelivery({ ...newDelivery(tenantId, webhook.webhookKey, id, { type: 'webhook.test', created, body: eventBody(id, 'webhook.test', created, { message: 'lost' }) }, long), status: 'retrying', attempts: 1 });
    expect(await delivery(webhook.webhookKey, id)).toMatchObject({ status: 'dead', error: 'workerFailed', nextAttemptTime: null });
    const answer = await call<{ replayed: number }>('POST', `/v1/webhooks/${webhook.webhookKey}/replay`, { token, body: { from: new Date(long - 1000).toISOString(), to: new Date().toISOString() } });
    expect(answer.body.data.replayed).toBe(1);
    expect(await settled(webhook.webhookKey, id)).toMatchObject({ status: 'delivered', attempts: 2, replays: 1 });
    expect(at(pathOf(webhook.url)).map((r) => header(r, WEBHOOK_HEADERS.id))).toEqual([id]);
  });

  it('give a replay of a delivery that used every attempt a schedule of its own: a failure is tried again', async () => {
    const { webhook } = await made();
    const now = Date.now();
    const created = new Date(now - 60_000).toISOString();
    const id = eventId(tenantId, 'webhook.test', unique('spent'), created);
    const spent = newDelivery(tenantId, webhook.webhookKey, id, { type: 'webhook.test', created, body: eventBody(id, 'webhook.test', created, { message: 'spent' }) }, now - 60_000);
    delete spent.nextAttemptAt;
    await addDelivery({ ...spent, status: 'dead', attempts: 9, responseCode: 503, error: 'status' });
    receiver.answer({ status: 503, times: 2 });
    const replay = await call('POST', `/v1/webhooks/${webhook.webhookKey}/deliveries/${id}/replay`, { token });
    expect(replay.body.code, replay.body.message).toBe(202);
    expect(await settled(webhook.webhookKey, id)).toMatchObject({ status: 'delivered', attempts: 12, replays: 1, responseCode: 200 });
    expect(at(pathOf(webhook.url)).map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('send at most 60 test events a company an hour, under parallel requests', async () => {
    const company = await newCompany();
    const as = (await login(company.username, company.password)).token;
    const made = await create({ url: receiver.url('/limit-tests') }, as);
    const key = made.body.data.webhook.webhookKey;
    const answers = await Promise.all(Array.from({ length: 64 }, () => call<{ deliveryKey: string }>('POST', `/v1/webhooks/${key}/test`, { token: as })));
    expect(answers.filter((a) => a.body.code === 202)).toHaveLength(60);
    const refused = answers.filter((a) => a.body.code !== 202);
    for (const a of refused) expect(a.status).toBe(429);
    await until(() => at('/limit-tests').length, (n) => n >= 60);
    await hostIdle();
    expect(at('/limit-tests')).toHaveLength(60);
  });

  it('replay at most THROTTLE_WEBHOOKREPLAYS_LIMIT deliveries a company an hour, one by one or by range, under parallel requests', async () => {
    // The test stack sets the limit to 40 (tests/support/localStack.ts); on AWS it is 1,000.
    const company = await newCompany();
    const as = (await login(company.username, company.password)).token;
    const made = await create({ url: receiver.url('/limit-replays') }, as);
    const key = made.body.data.webhook.webhookKey;
    const since = Date.now() - 60_000;
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const created = new Date(since + i * 10).toISOString();
      const id = eventId(company.tenantId, 'webhook.test', unique('replay'), created);
      ids.push(id);
      await addDelivery({ ...newDelivery(company.tenantId, key, id, { type: 'webhook.test', created, body: eventBody(id, 'webhook.test', created, { message: 'replay' }) }, since), status: 'delivered', attempts: 1, responseCode: 200 });
    }
    const range = { from: new Date(since - 1000).toISOString(), to: new Date().toISOString(), status: 'delivered' };
    // Two ranges of 30 at once: only one fits in the 40 of the hour; the other sends nothing.
    const both = await Promise.all([1, 2].map(() => call<{ replayed: number }>('POST', `/v1/webhooks/${key}/replay`, { token: as, body: range })));
    const sent = both.filter((a) => a.body.code === 202);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.data.replayed).toBe(30);
    const refused = both.find((a) => a.body.code !== 202)!;
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/40/);
    // It says when to come back: the header, and the same wait in `data`.
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(3600);
    expect((refused.body.data as unknown as { retryAfterSeconds: number }).retryAfterSeconds).toBe(wait);
    await until(() => at('/limit-replays').length, (n) => n >= 30);
    await hostIdle();
    // Ten more one by one fit; the eleventh does not, and nothing more reaches the receiver.
    for (const id of ids.slice(0, 10)) expect((await call('POST', `/v1/webhooks/${key}/deliveries/${id}/replay`, { token: as })).body.code).toBe(202);
    await hostIdle();
    const over = await call('POST', `/v1/webhooks/${key}/deliveries/${ids[10]}/replay`, { token: as });
    expect(over.status).toBe(429);
    await hostIdle();
    expect(at('/limit-replays')).toHaveLength(40);
  });

  it('follow no redirect (here to the metadata address): the delivery ends after one request', async () => {
    const { webhook } = await made();
    const path = pathOf(webhook.url);
    receiver.answer({ status: 302, times: 1, headers: { location: 'http://169.254.169.254/latest/meta-data/iam/security-credentials/' } });
    const key = await testEvent(webhook.webhookKey);
    expect(await settled(webhook.webhookKey, key)).toMatchObject({ status: 'dead', attempts: 1, responseCode: 302, error: 'redirect' });
    expect(at(path)).toHaveLength(1);
  });

  it('cut off a receiver that answers after 10 seconds, and try it again', async () => {
    const { webhook } = await made();
    // Only this webhook's first delivery is slow: a late delivery of an earlier test does not take the rule.
    receiver.answer({ status: 200, times: 1, delayMs: 11_000, path: pathOf(webhook.url) });
    const key = await testEvent(webhook.webhookKey);
    const first = await until(() => delivery(webhook.webhookKey, key), (d) => (d?.attempts ?? 0) >= 1, 15_000);
    expect(first).toMatchObject({ error: 'timeout', responseCode: null });
    expect(first!.latencyMs).toBeGreaterThanOrEqual(9_900);
    expect(first!.latencyMs).toBeLessThan(11_000);
    expect(await settled(webhook.webhookKey, key, 30_000)).toMatchObject({ status: 'delivered', attempts: 2 });
  }, 45_000);

  it('sign with both secrets for a day after a rotation', async () => {
    const { webhook, secret: old } = await made();
    const rotated = await call<WebhookSecret>('POST', `/v1/webhooks/${webhook.webhookKey}/secret`, { token, body: { version: webhook.version } });
    expect(rotated.body.code, rotated.body.message).toBe(201);
    const { secret } = rotated.body.data;
    expect(secret).not.toBe(old);
    expect(Date.parse(rotated.body.data.previousSecretUntil) - Date.now()).toBeGreaterThan(23.9 * 3_600_000);
    const key = await testEvent(webhook.webhookKey);
    await settled(webhook.webhookKey, key);
    const [r] = at(pathOf(webhook.url));
    const signature = header(r!, WEBHOOK_HEADERS.signature);
    expect(signature.split(',')).toHaveLength(2);
    for (const s of [old, secret]) expect(verifySignature(s, signature, header(r!, WEBHOOK_HEADERS.timestamp), r!.body)).toBe(true);
    const stale = await call('POST', `/v1/webhooks/${webhook.webhookKey}/secret`, { token, body: { version: webhook.version } });
    expect(stale.body.code).toBe(409);
  });

  it('turn off a subscription failing for three days, once, and mail its owner', async () => {
    const { webhook } = await made();
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(MAIN_TABLE),
        Key: { pk: tenantId, sk: `webhook#${webhook.webhookKey}` },
        UpdateExpression: 'SET failingSince = :since',
        ExpressionAttributeValues: { ':since': new Date(Date.now() - 3 * 86_400_000 - 60_000).toISOString() },
      }),
    );
    receiver.answer({ status: 500, times: 1 });
    const key = await testEvent(webhook.webhookKey);
    const off = await until(
      async () => (await call<WebhookJson>('GET', `/v1/webhooks/${webhook.webhookKey}`, { token })).body.data,
      (w) => !w.enabled,
    );
    expect(off).toMatchObject({ enabled: false, disabledReason: 'failing' });
    // The retry that was queued finds it off and ends.
    expect(await settled(webhook.webhookKey, key)).toMatchObject({ status: 'dead', error: 'disabled', attempts: 1 });
    const mails = await until(() => mailsTo(owner.email), (m) => m.some((x) => x.text.includes(webhook.url)));
    expect(mails.filter((m) => m.text.includes(webhook.url))).toHaveLength(1);
    // Turned on again, it no longer fails since then.
    const on = await call<WebhookJson>('PATCH', `/v1/webhooks/${webhook.webhookKey}`, { token, body: { enabled: true, version: off.version } });
    expect(on.body.data).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
  });

  it('filter the log by status and event, page it by cursor, and refuse a cursor of another list', async () => {
    const { webhook } = await made();
    const keys: string[] = [];
    for (let i = 0; i < 5; i++) keys.push(await testEvent(webhook.webhookKey));
    for (const key of keys) await settled(webhook.webhookKey, key);
    const first = await deliveries(webhook.webhookKey, '?pageSize=2');
    expect(first.body.data.items).toHaveLength(2);
    const second = await deliveries(webhook.webhookKey, `?pageSize=2&cursor=${first.body.data.nextCursor}`);
    const third = await deliveries(webhook.webhookKey, `?pageSize=2&cursor=${second.body.data.nextCursor}`);
    const all = [...first.body.data.items, ...second.body.data.items, ...third.body.data.items].map((d) => d.deliveryKey);
    expect(all).toEqual([...keys].reverse());
    expect((await deliveries(webhook.webhookKey, '?event=pass.record')).body.data.items).toEqual([]);
    expect((await deliveries(webhook.webhookKey, '?status=delivered&event=webhook.test')).body.data.items).toHaveLength(5);
    const { webhook: other } = await made();
    const foreign = await deliveries(other.webhookKey, `?cursor=${first.body.data.nextCursor}`);
    expect(foreign.status).toBe(422);
    expect(foreign.body.data.issues[0]!.path).toBe('cursor');
  });
});

describe('events of the modules', () => {
  it('give a terminal’s pass records once each, with what they raise, and never an internal key', async () => {
    await grantSeats(token, 5);
    const { webhook } = await made({ events: ['pass.record', 'stranger.detected', 'fever.detected', 'device.online'] });
    const path = pathOf(webhook.url);
    const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('W').toUpperCase(), 1), heartbeatMs: 60_000 });
    agents.push(agent);
    await agent.bind();
    const m = agent.binding!.mqtt;
    const client = await mqtt.connectAsync(m.url, { clientId: m.clientId, username: m.username, password: m.password, reconnectPeriod: 0, connectTimeout: 5000 });
    clients.push(client);
    const records = [newPassRecord({ recordId: 'hook-1', temperature: 38.4 }), newPassRecord({ recordId: 'hook-2', temperature: 36.5 })];
    const topic = deviceTopics(agent.binding!.thingName).records;
    await client.publishAsync(topic, JSON.stringify({ records }), { qos: 1 });
    const bodies = async () => at(path).map((r) => JSON.parse(r.body) as { id: string; type: string; data: Record<string, unknown> });
    const got = await until(bodies, (b) => b.filter((x) => x.type !== 'device.online').length >= 5);
    const byType = (type: string) => got.filter((b) => b.type === type);
    expect(byType('pass.record')).toHaveLength(2);
    expect(byType('stranger.detected')).toHaveLength(2);
    expect(byType('fever.detected')).toHaveLength(1);
    const fever = byType('fever.detected')[0]!;
    expect(fever.data).toMatchObject({ recordKey: `${agent.deviceKey}.hook-1`, type: 'stranger', person: null, temperature: 38.4, fever: true, device: { deviceKey: agent.deviceKey } });
    for (const b of got) eventEnvelope(b.type as 'pass.record').parse(b);
    const raw = at(path).map((r) => r.body).join('\n');
    for (const internal of [tenantId, '"pk"', '"sk"', 'tenantId', 'captureKey', 'avatarKey']) expect(raw).not.toContain(internal);
    // The terminal sends the same records again: nothing new goes out.
    const count = at(path).length;
    await client.publishAsync(topic, JSON.stringify({ records }), { qos: 1 });
    await hostIdle();
    expect(at(path).filter((r) => !header(r, WEBHOOK_HEADERS.type).startsWith('device.')).length).toBe(count - byType('device.online').length);
  });
});

describe('events of the other modules', () => {
  type Body = { id: string; type: string; created: string; data: Record<string, unknown> };
  const bodiesAt = (path: string): Body[] => at(path).map((r) => JSON.parse(r.body) as Body);
  async function bound(kind?: 'doorStation') {
    const { serial, ...info } = simulatedInfo(unique('WH').toUpperCase(), 1);
    const answer = await call<BindResult>('POST', '/v1/devices/bind', { body: { userCode: owner.userCode, serial, info, ...(kind ? { kind } : {}) } });
    expect(answer.body.code, answer.body.message).toBe(201);
    return answer.body.data;
  }
  const asDevice = (b: BindResult, path: string, body: unknown) => call<Record<string, unknown>>('POST', path, { headers: { authorization: deviceAuthorization(b.thingName, b.mqtt.password) }, body });

  it('give a device going on and off line, an ended call, an abnormal answer and a face a terminal could not enrol, each once', async () => {
    await grantSeats(token, 5);
    const { webhook } = await made({ events: ['device.online', 'device.offline', 'call.record', 'questionnaire.abnormal', 'authorization.syncFailed'] });
    const path = pathOf(webhook.url);
    const terminal = await bound();
    const door = await bound('doorStation');

    // On and off line: the broker's presence events.
    const client = await mqtt.connectAsync(door.mqtt.url, { clientId: door.mqtt.clientId, username: door.mqtt.username, password: door.mqtt.password, reconnectPeriod: 0, connectTimeout: 5000 });
    await until(() => bodiesAt(path), (b) => b.some((x) => x.type === 'device.online'));
    // An ended call of the door station, sent twice.
    const start = Date.now() - 20_000;
    const ended = { callId: unique('whcall'), direction: 'outgoing', status: 2, peer: { number: '101' }, startTime: start, answerTime: start + 4000, endTime: start + 14_000, duration: 10 };
    for (let i = 0; i < 2; i++) await client.publishAsync(deviceTopics(door.thingName).calls, JSON.stringify({ calls: [ended] }), { qos: 1 });
    await until(() => bodiesAt(path), (b) => b.some((x) => x.type === 'call.record'));
    await client.endAsync();
    await until(() => bodiesAt(path), (b) => b.some((x) => x.type === 'device.offline'));

    // A face the terminal could not enrol, reported twice.
    const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Hook staff '), type: 'employee' } })).body.data.groupKey;
    const person = await call<{ employeeKey: string }>('POST', '/v1/employees', { token, body: { personId: unique('H'), name: 'Hook Person', role: 'Staff', gender: 'female', groupKey } });
    const employeeKey = person.body.data.employeeKey;
    const granted = await call('POST', '/v1/authorities', { token, body: { setType: 0, personKeys: [employeeKey], deviceKeys: [terminal.deviceKey], validity: { permanent: true } } });
    expect(granted.body.code, granted.body.message).toBe(201);
    const faces = await call<FaceChangesPage>('GET', '/v1/deviceSync/faces?cursor=0&limit=200', { headers: { authorization: deviceAuthorization(terminal.thingName, terminal.mqtt.password) } });
    const change = faces.body.data.changes.find((c) => c.personKey === employeeKey)!;
    const failed = { results: [{ list: 'pass', personKey: employeeKey, seq: change.seq, state: 'failed', reason: 'photoRejected', detail: 'no face found' }] };
    for (let i = 0; i < 2; i++) expect((await asDevice(terminal, '/v1/deviceSync/results', failed)).body.code).toBe(201);
    // A result for a change the terminal was not sent is no news.
    expect((await asDevice(terminal, '/v1/deviceSync/results', { results: [{ ...failed.results[0], personKey: 'nobody0000000001' }] })).body.code).toBe(201);

    // An abnormal answer on the terminal's screen.
    const survey = await call<{ questionnaireKey: string; version: number }>('POST', '/v1/questionnaires', {
      token,
      body: { title: 'Hook survey', mode: 'screen', displaySeconds: 30, scope: { deviceKeys: [terminal.deviceKey], groupKeys: [] }, questions: [{ text: 'Fever?', type: 'single', mandatory: true, options: [{ text: 'No' }, { text: 'Yes', alarm: true }] }] },
    });
    expect(survey.body.code, survey.body.message).toBe(201);
    const open = await call('POST', `/v1/questionnaires/${survey.body.data.questionnaireKey}/open`, { token, body: { version: survey.body.data.version } });
    expect(open.body.code, open.body.message).toBe(201);
    const answered = await asDevice(terminal, '/v1/deviceSync/questionnaireAnswers', { answerId: 'hook-1', questionnaireKey: survey.body.data.questionnaireKey, revision: 1, answeredAt: Date.now(), answers: [{ choices: [1] }] });
    expect(answered.body.data).toMatchObject({ result: 'abnormal' });

    const all = await until(() => bodiesAt(path), (b) => ['authorization.syncFailed', 'questionnaire.abnormal'].every((t) => b.some((x) => x.type === t)));
    await hostIdle();
    const count = (type: string) => bodiesAt(path).filter((b) => b.type === type).length;
    expect({ online: count('device.online'), offline: count('device.offline'), call: count('call.record'), sync: count('authorization.syncFailed'), abnormal: count('questionnaire.abnormal') }).toEqual({ online: 1, offline: 1, call: 1, sync: 1, abnormal: 1 });
    const byType = (type: string) => all.find((b) => b.type === type)!;
    expect(byType('device.online').data).toMatchObject({ online: true, device: { deviceKey: door.deviceKey, serial: expect.any(String) } });
    // The call's status: a door station's answered call is an incoming one (a visitor calling in), whichever end reported it.
    expect(byType('call.record').data).toMatchObject({ callKey: `${door.deviceKey}.${ended.callId}`, direction: 'outgoing', status: 1, duration: 10, called: { number: '101' } });
    expect(byType('authorization.syncFailed').data).toMatchObject({ list: 'pass', reason: 'photoRejected', detail: 'no face found', person: { personKey: employeeKey, kind: 'employee', name: 'Hook Person' }, device: { deviceKey: terminal.deviceKey } });
    expect(byType('questionnaire.abnormal').data).toMatchObject({ title: 'Hook survey', answers: [{ question: 'Fever?', choices: ['Yes'], alarm: true }], device: { deviceKey: terminal.deviceKey } });
    for (const b of bodiesAt(path)) eventEnvelope(b.type as 'call.record').parse(b);
  });
});

describe('with the local switch off, as deployed', () => {
  let host: Host;
  let hostUrl: string;
  let switched: string | undefined;
  beforeAll(async () => {
    switched = process.env.SMTP_ALLOW_PRIVATE;
    delete process.env.SMTP_ALLOW_PRIVATE;
    host = await startHost({ port: 0, handlers: { webhooks: webhooks.handler }, webRoot: mkdtempSync(join(tmpdir(), 'webhook-web-')) });
    hostUrl = host.url;
  });
  afterAll(async () => {
    if (switched !== undefined) process.env.SMTP_ALLOW_PRIVATE = switched;
    await host?.close();
  });

  const refused = ['localhost', '127.0.0.1', '127.1', '10.0.0.5', '172.16.3.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '[::1]', '[fd00::1]', '[fe80::1]', '[::ffff:169.254.169.254]', '224.0.0.1'];
  it.each(refused)('refuse a receiver at %s, naming the field, and create nothing', async (host) => {
    const before = await listed();
    const res = await fetch(`${hostUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `https://${host}:${receiver.port}/hooks`, events: ['pass.record'] }),
    });
    const answer = (await res.json()) as { code: number; data: Issues };
    expect(answer.code, host).toBe(422);
    expect(answer.data.issues[0]).toMatchObject({ path: 'url' });
    expect(await listed()).toEqual(before);
  });

  it('send nothing to a name that resolves into the service’s network at the time of sending', async () => {
    // Saved while the name still led somewhere allowed (here: with the switch on, in the test stack).
    const { webhook } = await made();
    const id = eventId(tenantId, 'webhook.test', unique('ssrf'), new Date().toISOString());
    const now = Date.now();
    const created = new Date(now).toISOString();
    await addDelivery({
      pk: tenantId,
      sk: deliverySk(webhook.webhookKey, id),
      webhookKey: webhook.webhookKey,
      eventId: id,
      eventType: 'webhook.test',
      created,
      body: eventBody(id, 'webhook.test', created, { message: 'ssrf' }),
      status: 'pending',
      attempts: 0,
      windowStart: now,
      nextAttemptAt: now,
      replays: 0,
      ttl: deliveryTtl(now),
    });
    await processDelivery({ tenantId, webhookKey: webhook.webhookKey, eventId: id });
    const stored = await findDelivery(tenantId, webhook.webhookKey, id);
    expect(stored).toMatchObject({ status: 'dead', attempts: 1, error: 'addressRefused' });
    expect(at(pathOf(webhook.url))).toHaveLength(0);
    const raw = (await dynamo().send(new GetCommand({ TableName: tableName(EVENTS_TABLE), Key: { pk: tenantId, sk: deliverySk(webhook.webhookKey, id) } }))).Item;
    expect(raw?.ttl).toBeGreaterThan(Date.now() / 1000);
  });
});
