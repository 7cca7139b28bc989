import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import { LIVE_CLIENTS_PER_SESSION, liveClientPrefix, liveConnection, type LiveConnection, type LiveMessage } from '@passcloud/functions/contract/live';
import type { PassRecordItem } from '@passcloud/functions/contract/passRecords';
import { createAccount, openSession, releaseLiveClient, requireAccount } from '@passcloud/functions/data/identity';
import { sessions } from '@passcloud/functions/data/sessions';
import { accounts } from '@passcloud/functions/data/accounts';
import { newRsaKeyPair, sha256 } from '@passcloud/functions/lib/crypto';
import { connectMqtt, MqttRefused, type MqttConnection } from '../../web/src/app/live/mqtt.ts';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { sleep, until } from '../support/wait.ts';

/**
 * The console's live channel (functions/contract/live.ts), driven with the console's own MQTT
 * client over the broker's WebSocket: a session hears its company's passes as they are stored,
 * never another company's; its rights choose the topics; logging out or logging in elsewhere ends
 * the connection; a session holds at most LIVE_CLIENTS_PER_SESSION connections, racing or not.
 */

interface Company {
  token: string;
  tenantId: string;
  username: string;
  password: string;
  device: DeviceAgent;
}

const open: MqttConnection[] = [];

async function company(): Promise<Company> {
  const owner = await newCompany();
  const { token } = await login(owner.username, owner.password);
  await grantSeats(token, 1);
  const device = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('LV').toUpperCase(), 1), heartbeatMs: 60_000 });
  await device.start();
  return { token, tenantId: token.split('.')[0]!, username: owner.username, password: owner.password, device };
}

async function liveOf(token: string): Promise<LiveConnection> {
  const answer = await call<LiveConnection>('GET', '/v1/systems/live', { token });
  expect(answer.body.code, answer.body.message).toBe(200);
  return answer.body.data;
}

let tabs = 0;
async function connect(token: string, info: LiveConnection, clientId = `${info.clientPrefix}t${++tabs}`): Promise<MqttConnection> {
  const connection = await connectMqtt({ url: info.url, username: info.username, password: token, clientId, WebSocket: WebSocket as never, connectTimeoutMs: 5000 });
  open.push(connection);
  return connection;
}

/** What a connection hears, per topic. */
function hear(connection: MqttConnection): { items: Map<string, PassRecordItem[]>; closed: () => boolean } {
  const items = new Map<string, PassRecordItem[]>();
  let closed = false;
  connection.onMessage = (topic, payload) => {
    const message = JSON.parse(Buffer.from(payload).toString('utf8')) as LiveMessage;
    items.set(topic, [...(items.get(topic) ?? []), ...message.items]);
  };
  connection.onClose = () => (closed = true);
  return { items, closed: () => closed };
}

const refusal = async (attempt: Promise<unknown>): Promise<number | string> =>
  attempt.then(
    () => 'connected',
    (error: unknown) => (error instanceof MqttRefused ? error.returnCode : String(error)),
  );

let a: Company;
let b: Company;

beforeAll(async () => {
  [a, b] = await Promise.all([company(), company()]);
});

afterAll(async () => {
  for (const connection of open) connection.close();
  await Promise.all([a?.device.stop(), b?.device.stop()]);
});

describe('the live channel', () => {
  it('carries a company’s new passes to its console within a second, and another company’s never', async () => {
    const info = await liveOf(a.token);
    expect(info.topics).toEqual({ passes: `console/${a.tenantId}/passes`, blacklist: `console/${a.tenantId}/blacklist`, questionnaires: `console/${a.tenantId}/questionnaires` });
    expect(info.username).toBe('console');
    const mine = await connect(a.token, info);
    const heardA = hear(mine);
    expect(await mine.subscribe([info.topics.passes!, info.topics.blacklist!])).toEqual([0, 0]);
    // Company B's topics, and every company's at once, are refused to A's session.
    const other = await liveOf(b.token);
    expect(await mine.subscribe([other.topics.passes!])).toEqual([0x80]);
    expect(await mine.subscribe(['console/+/passes'])).toEqual([0x80]);
    expect(await mine.subscribe(['#'])).toEqual([0x80]);

    const theirs = await connect(b.token, other);
    const heardB = hear(theirs);
    expect(await theirs.subscribe([other.topics.passes!])).toEqual([0]);

    const record = newPassRecord({ name: 'Live Stranger', temperature: 36.5 });
    const sent = Date.now();
    a.device.records.add(record);
    const items = await until(
      () => heardA.items.get(info.topics.passes!) ?? [],
      (list) => list.length > 0,
      5000,
    );
    const latency = Date.now() - sent;
    expect(latency).toBeLessThan(1000);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ type: 'stranger', name: 'Live Stranger', deviceKey: a.device.deviceKey, temperature: 36.5 });
    // A stranger is not a blacklist pass.
    expect(heardA.items.get(info.topics.blacklist!)).toBeUndefined();

    // B's pass reaches B and nobody else.
    b.device.records.add(newPassRecord({ name: 'Other Company' }));
    await until(
      () => heardB.items.get(other.topics.passes!) ?? [],
      (list) => list.length === 1,
      5000,
    );
    await sleep(300);
    expect([...heardA.items.values()].flat().map((r) => r.name)).toEqual(['Live Stranger']);

    // A record the terminal sends again is stored once and announced once.
    a.device.records.add(record);
    await until(
      () => a.device.records.pending,
      (n) => n === 0,
      5000,
    );
    await sleep(300);
    expect(heardA.items.get(info.topics.passes!)).toHaveLength(1);
  });

  it('names the authorizer in the MQTT username only, never in the WebSocket address, and connects so', async () => {
    const info = await liveOf(a.token);
    expect(new URL(info.url).search).toBe('');
    // The answer as the deployed systems function builds it, where IOT_AUTHORIZER_NAME is set: IoT
    // Core reads a query string on the WebSocket address as credentials for the upgrade, and calls
    // the authorizer then without the MQTT username and password.
    const onAws = liveConnection({ wsUrl: info.url, authorizerName: 'PassCloudDeviceAuthorizer', tenantId: a.tenantId, tokenHash: 'f'.repeat(64), topics: info.topics });
    expect(onAws.url).toBe(info.url);
    expect(new URL(onAws.url).search).toBe('');
    expect(onAws.username).toBe('console?x-amz-customauthorizer-name=PassCloudDeviceAuthorizer');
    // The same session connects with the username as AWS is given it.
    const tab = await connect(a.token, { ...info, username: onAws.username });
    expect(await tab.subscribe([info.topics.passes!])).toEqual([0]);
  });

  it('admits a session only with its own token, under its own client ids, to the topics its rights open', async () => {
    const info = await liveOf(a.token);
    const other = await liveOf(b.token);
    // Another session's client ids, a made-up token, a client id without a tab: refused (5, not authorized).
    expect(await refusal(connect(a.token, info, `${other.clientPrefix}x1`))).toBe(5);
    expect(await refusal(connect(`${a.tenantId}.${'A'.repeat(43)}`, info))).toBe(5);
    expect(await refusal(connect(a.token, info, info.clientPrefix))).toBe(5);
    expect(await refusal(connect(a.token, { ...info, username: 'someone' }))).toBe(5);

    // An account that sees only blacklist records hears only the blacklist topic.
    const username = unique('blk');
    await createAccount(a.tenantId, { username, password: 'Str0ng!Passw0rd', authCodes: ['pass:blacklist'], nickname: 'Blacklist only' });
    const watcher = (await login(username, 'Str0ng!Passw0rd')).token;
    const own = await liveOf(watcher);
    expect(own.topics).toEqual({ blacklist: `console/${a.tenantId}/blacklist` });
    const connection = await connect(watcher, own);
    expect(await connection.subscribe([`console/${a.tenantId}/passes`])).toEqual([0x80]);
    expect(await connection.subscribe([own.topics.blacklist!])).toEqual([0]);

    // An account without any of those rights gets neither the address nor a connection.
    const plain = unique('ppl');
    await createAccount(a.tenantId, { username: plain, password: 'Str0ng!Passw0rd', authCodes: ['pass:employee'], nickname: 'People only' });
    const peopleOnly = (await login(plain, 'Str0ng!Passw0rd')).token;
    expect((await call('GET', '/v1/systems/live', { token: peopleOnly })).status).toBe(401);
    const prefix = `console-${a.tenantId}-`;
    const ownPrefix = (await call<LiveConnection>('GET', '/v1/systems/live', { token: watcher })).body.data.clientPrefix;
    expect(ownPrefix.startsWith(prefix)).toBe(true);
    expect(await refusal(connect(peopleOnly, info, `${prefix}${'0'.repeat(16)}-x`))).toBe(5);
  });

  it('admits exactly the sessions the HTTP API serves: not one that must first enrol in two-factor login, nor one that must change its password', async () => {
    const info = await liveOf(a.token);
    const keys = await newRsaKeyPair();
    // A password alone, in a company that requires two-factor login, of an account that never enrolled.
    const username = unique('nofa');
    const accountId = await createAccount(a.tenantId, { username, password: 'Str0ng!Passw0rd', authCodes: ['pass:dashboard', 'pass:record'], nickname: 'No second factor' });
    const account = await requireAccount(a.tenantId, accountId);
    const enrolling = await openSession(account, keys, { enrolTwoFactor: true });
    expect((await call('GET', '/v1/systems/live', { token: enrolling })).status).toBe(401);
    // The client id can be worked out from the token; the broker refuses it all the same.
    const clientId = `${liveClientPrefix(a.tenantId, sha256(enrolling))}t1`;
    expect(await refusal(connect(enrolling, info, clientId))).toBe(5);
    // A session the requirement does not hold connects: the refusal above was the requirement's.
    const enrolled = await openSession(account, keys);
    expect(await refusal(connect(enrolled, info, `${liveClientPrefix(a.tenantId, sha256(enrolled))}t1`))).toBe('connected');
    // A password someone else chose: only changing it is open, over HTTP and here alike.
    await accounts().patch({ tenantId: a.tenantId, accountId }).set({ mustChangePassword: true }).go();
    const changing = await openSession(await requireAccount(a.tenantId, accountId), keys);
    expect((await call('GET', '/v1/systems/live', { token: changing })).status).toBe(401);
    expect(await refusal(connect(changing, info, `${liveClientPrefix(a.tenantId, sha256(changing))}t1`))).toBe(5);
  });

  it('holds at most LIVE_CLIENTS_PER_SESSION connections of a session, however many race, and frees a place when one leaves', async () => {
    const username = unique('tabs');
    await createAccount(a.tenantId, { username, password: 'Str0ng!Passw0rd', authCodes: ['pass:dashboard'], nickname: 'Many tabs' });
    const token = (await login(username, 'Str0ng!Passw0rd')).token;
    const info = await liveOf(token);
    const attempts = await Promise.allSettled(Array.from({ length: LIVE_CLIENTS_PER_SESSION + 6 }, () => connect(token, info)));
    const admitted = attempts.filter((r): r is PromiseFulfilledResult<MqttConnection> => r.status === 'fulfilled').map((r) => r.value);
    expect(admitted).toHaveLength(LIVE_CLIENTS_PER_SESSION);
    expect(attempts.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof MqttRefused)).toBe(true);
    // One tab closes: the broker's presence event frees its place.
    admitted[0]!.close();
    const again = await until(
      () => refusal(connect(token, info)),
      (result) => result === 'connected',
      5000,
    );
    expect(again).toBe('connected');
  });

  it('ends the connections of a session that logs out, and of one a new login replaced', async () => {
    const username = unique('out');
    await createAccount(a.tenantId, { username, password: 'Str0ng!Passw0rd', authCodes: ['pass:dashboard'], nickname: 'Leaving' });
    const first = (await login(username, 'Str0ng!Passw0rd')).token;
    const info = await liveOf(first);
    const connection = await connect(first, info);
    const heard = hear(connection);
    expect(await connection.subscribe([info.topics.passes!])).toEqual([0]);

    // A second login of the account ends the first session: its connection closes at once.
    const second = (await login(username, 'Str0ng!Passw0rd')).token;
    await until(heard.closed, (closed) => closed, 3000);
    expect(await refusal(connect(first, info))).toBe(5);

    const secondInfo = await liveOf(second);
    const next = await connect(second, secondInfo);
    const heardNext = hear(next);
    expect((await call('POST', '/v1/systems/logout', { token: second })).body.code).toBe(204);
    await until(heardNext.closed, (closed) => closed, 3000);
    expect(await refusal(connect(second, secondInfo))).toBe(5);
  });
  it('ends the connections of an account that is disabled, loses its rights or is deleted, at once', async () => {
    const ends = async (change: (accountKey: string) => Promise<unknown>) => {
      const username = unique('ended');
      const accountKey = await createAccount(a.tenantId, { username, password: 'Str0ng!Passw0rd', authCodes: ['pass:dashboard'], nickname: 'Ended' });
      const token = (await login(username, 'Str0ng!Passw0rd')).token;
      const info = await liveOf(token);
      const heard = hear(await connect(token, info));
      await change(accountKey);
      await until(heard.closed, (closed) => closed, 3000);
      expect(await refusal(connect(token, info))).toBe(5);
      expect((await call('GET', '/v1/systems/me', { token })).body.code).toBe(661);
    };
    const version = async (accountKey: string) => (await call<{ version: number }>('GET', `/v1/accounts/${accountKey}`, { token: a.token })).body.data.version;
    await ends(async (key) => expect((await call('PATCH', `/v1/accounts/${key}`, { token: a.token, body: { disabled: true, version: await version(key) } })).body.code).toBe(201));
    await ends(async (key) => expect((await call('PATCH', `/v1/accounts/${key}`, { token: a.token, body: { authCodes: ['pass:visitor'], version: await version(key) } })).body.code).toBe(201));
    await ends(async (key) => expect((await call('DELETE', `/v1/accounts/${key}?version=${await version(key)}`, { token: a.token, confirm: true })).body.code).toBe(204));
  });

  it('keeps a tab that reconnects under its own client id in its session’s list, so logging out ends the new connection', async () => {
    const username = unique('again');
    await createAccount(a.tenantId, { username, password: 'Str0ng!Passw0rd', authCodes: ['pass:dashboard'], nickname: 'Reconnects' });
    const token = (await login(username, 'Str0ng!Passw0rd')).token;
    const info = await liveOf(token);
    const clientId = `${info.clientPrefix}same`;
    const heardOld = hear(await connect(token, info, clientId));
    // The tab connects again under its id; the broker closes the older connection (DUPLICATE_CLIENTID).
    const heardNew = hear(await connect(token, info, clientId));
    await until(heardOld.closed, (closed) => closed, 3000);
    // The broker's report of the older connection's end has been taken by now.
    await sleep(500);
    const session = async () => (await sessions().get({ tenantId: a.tenantId, tokenHash: sha256(token) }).go()).data!;
    expect((await session()).liveClients).toContain(clientId);
    // A report of a disconnect from before the latest admission (lifecycle events come out of order) leaves it too.
    await releaseLiveClient(clientId, (await session()).liveAdmittedAt! - 1, 'CONNECTION_LOST');
    expect((await session()).liveClients).toContain(clientId);
    expect((await call('POST', '/v1/systems/logout', { token })).body.code).toBe(204);
    await until(heardNew.closed, (closed) => closed, 3000);
  });
});
