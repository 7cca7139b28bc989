import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { deviceTopics, shadowTopics, type BindResult } from '@passcloud/functions/contract/protocol';
import { devicePolicy, policyDocuments } from '@passcloud/functions/iot/policy';
import { startIot, type IotStandIn } from '@passcloud/infra/local/iot';
import { MAX_CLIENT_ID_BYTES, MAX_PAYLOAD_BYTES } from '@passcloud/infra/local/iotLimits';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { sleep, until } from '../support/wait.ts';

/**
 * The local broker refuses what IoT Core refuses (infra/local/iotLimits.ts), over real MQTT
 * connections: a message over 128 KB or on a topic with more than 7 slashes ends the connection,
 * a client id over 128 bytes is refused at CONNECT, an authorizer answer that breaks one of IoT
 * Core's rules refuses the connection, and publishes past 100 a second are discarded. A bound
 * device still connects and works. The rules the policy could hide are shown on a broker of the
 * test's own, whose authorizer answers a policy that allows what the rule refuses.
 */

interface LogEntry {
  code: string;
}

let token: string;
let userCode: string;
const agents: DeviceAgent[] = [];
const clients: MqttClient[] = [];

async function bound(): Promise<BindResult> {
  const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('LM').toUpperCase(), 1), heartbeatMs: 60_000 });
  agents.push(agent);
  await agent.bind();
  return agent.binding!;
}

async function connect(url: string, options: IClientOptions): Promise<MqttClient> {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...options });
  clients.push(client);
  return client;
}

/** How a connection attempt ends: `connected`, or the CONNACK return code that refused it. */
async function attempt(url: string, options: IClientOptions): Promise<'connected' | number | string> {
  try {
    await connect(url, options);
    return 'connected';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === 'number' ? code : String(error);
  }
}

const closed = (client: MqttClient) =>
  new Promise<boolean>((resolve) => {
    if (client.disconnected || !client.connected) return resolve(true);
    const timer = setTimeout(() => resolve(false), 5000);
    client.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

/** The return codes a SUBACK gives the filters, in order (128: refused). */
async function subscribe(client: MqttClient, filters: string[]): Promise<number[]> {
  try {
    return (await client.subscribeAsync(filters, { qos: 1 })).map((g) => g.qos);
  } catch (error) {
    const granted = (error as { packet?: { granted?: (number | { qos: number })[] } }).packet?.granted;
    if (!granted) throw error;
    return granted.map((g) => (typeof g === 'number' ? g : g.qos));
  }
}

const logs = async (deviceKey: string) => (await call<{ items: LogEntry[] }>('GET', `/v1/devices/${deviceKey}/logs?pageSize=100`, { token })).body.data.items;

beforeAll(async () => {
  const owner = await newCompany();
  ({ token } = await login(owner.username, owner.password));
  userCode = owner.userCode;
  await grantSeats(token, 8);
});

afterAll(async () => {
  for (const client of clients) client.end(true);
  await Promise.all(agents.map((a) => a.stop()));
});

describe('the local broker holds clients to IoT Core’s limits', () => {
  it('lets a bound device connect, publish, and hear the cloud', async () => {
    const binding = await bound();
    const m = binding.mqtt;
    const client = await connect(m.url, { clientId: m.clientId, username: m.username, password: m.password });
    const own = deviceTopics(binding.thingName);
    const shadow = shadowTopics(binding.thingName);
    const heard: string[] = [];
    client.on('message', (topic) => heard.push(topic));
    await client.subscribeAsync([own.commands, own.recordsAck, shadow.getAccepted, shadow.getRejected], { qos: 1 });
    await client.publishAsync(own.logs, JSON.stringify({ entries: [{ time: Date.now(), level: 'info', code: 'connected' }] }), { qos: 1 });
    await client.publishAsync(shadow.get, '{}', { qos: 1 });
    await until(
      () => heard,
      (topics) => topics.some((t) => t === shadow.getAccepted || t === shadow.getRejected),
      5000,
    );
    await until(
      () => logs(binding.deviceKey),
      (entries) => entries.some((e) => e.code === 'connected'),
      10_000,
    );
    expect(client.connected).toBe(true);
  });

  it('closes the connection of a device that publishes a payload over 128 KB, and takes one of 128 KB', async () => {
    const binding = await bound();
    const m = binding.mqtt;
    const client = await connect(m.url, { clientId: m.clientId, username: m.username, password: m.password });
    const topic = deviceTopics(binding.thingName).logs;
    await client.publishAsync(topic, Buffer.alloc(MAX_PAYLOAD_BYTES, 0x20), { qos: 1 });
    expect(client.connected).toBe(true);
    void client.publishAsync(topic, Buffer.alloc(MAX_PAYLOAD_BYTES + 1, 0x20), { qos: 1 }).catch(() => undefined);
    expect(await closed(client)).toBe(true);
  });

  it('refuses at CONNECT a client id over 128 bytes (identifier rejected)', async () => {
    const binding = await bound();
    const m = binding.mqtt;
    const long = `${m.clientId}${'x'.repeat(MAX_CLIENT_ID_BYTES + 1 - m.clientId.length)}`;
    expect(Buffer.byteLength(long)).toBe(MAX_CLIENT_ID_BYTES + 1);
    expect(await attempt(m.url, { clientId: long, username: m.username, password: m.password })).toBe(2);
    expect(await attempt(m.url, { clientId: m.clientId, username: m.username, password: m.password })).toBe('connected');
  });
});

describe('the local broker reads the authorizer’s answer as IoT Core does', () => {
  let iot: IotStandIn;
  let answer: unknown;
  const thing = 'a1234567_b1234567';
  const prefix = 'arn:aws:iot:eu-west-1:123456789012';
  /** The device policy, and `test/<thing>` and below, topics no topic rule takes, to publish, subscribe to and receive at any depth. */
  const policy = () => {
    const device = devicePolicy(thing, prefix);
    return {
      ...device,
      Statement: [
        ...device.Statement,
        { Effect: 'Allow' as const, Action: ['iot:Publish', 'iot:Receive'], Resource: [`${prefix}:topic/test/${thing}`, `${prefix}:topic/test/${thing}/*`] },
        { Effect: 'Allow' as const, Action: ['iot:Subscribe'], Resource: [`${prefix}:topicfilter/test/${thing}`, `${prefix}:topicfilter/test/${thing}/*`] },
      ],
    };
  };
  const good = () => ({ isAuthenticated: true, principalId: 'b1234567', refreshAfterInSeconds: 300, disconnectAfterInSeconds: 86_400, policyDocuments: policyDocuments(policy()) });

  beforeAll(async () => {
    const previous = process.env.IOT_POLICY_PREFIX;
    process.env.IOT_POLICY_PREFIX = prefix;
    try {
      iot = await startIot({ authorizer: () => Promise.resolve(answer) });
    } finally {
      if (previous === undefined) delete process.env.IOT_POLICY_PREFIX;
      else process.env.IOT_POLICY_PREFIX = previous;
    }
  });
  afterAll(async () => {
    await iot?.stop();
  });

  const tryWith = (value: unknown) => {
    answer = value;
    return attempt(iot.mqttUrl, { clientId: thing, username: thing, password: 'secret' });
  };

  it('admits a valid answer and holds the client to the policy in its documents', async () => {
    expect(await tryWith(good())).toBe('connected');
    expect(await subscribe(clients.at(-1)!, [deviceTopics(thing).commands, deviceTopics('c1234567_d1234567').commands])).toEqual([1, 128]);
  });

  it('refuses (not authorized) an answer that breaks a rule', async () => {
    const long = JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['iot:Receive'], Resource: [`${prefix}:topic/${'x'.repeat(2048)}`] }] });
    const broken = [
      { ...good(), policyDocuments: [long] },
      { ...good(), policyDocuments: Array<string>(11).fill(good().policyDocuments[0]!) },
      { ...good(), policyDocuments: [JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['s3:*'], Resource: ['*'] }] })] },
      { ...good(), refreshAfterInSeconds: 60 },
      { ...good(), disconnectAfterInSeconds: 100_000 },
      { ...good(), principalId: 'device-1' },
      { ...good(), isAuthenticated: 'yes' },
    ];
    for (const value of broken) expect(await tryWith(value), JSON.stringify(value).slice(0, 160)).toBe(5);
  });

  it('reads the policy from policyDocuments only', async () => {
    // Parsed policies carried beside the documents are not IoT Core's to read.
    expect(await tryWith({ ...good(), policyDocuments: [], policies: [policy()] })).toBe('connected');
    expect(await subscribe(clients.at(-1)!, [deviceTopics(thing).commands])).toEqual([128]);
  });

  it('refuses a subscription to a filter with 8 slashes, though the policy allows it, and takes one with 7', async () => {
    expect(await tryWith(good())).toBe('connected');
    const seven = `test/${thing}/a/b/c/d/e/#`;
    const eight = `test/${thing}/a/b/c/d/e/f/#`;
    expect([seven, eight].map((t) => t.split('/').length - 1)).toEqual([7, 8]);
    expect(await subscribe(clients.at(-1)!, [eight, seven])).toEqual([128, 1]);
  });

  it('closes the connection of a client that publishes on a topic with 8 slashes, though the policy allows it', async () => {
    expect(await tryWith(good())).toBe('connected');
    const client = clients.at(-1)!;
    await client.publishAsync(`test/${thing}/a/b/c/d/e/f`, '{}', { qos: 1 });
    expect(client.connected).toBe(true);
    void client.publishAsync(`test/${thing}/a/b/c/d/e/f/g`, '{}', { qos: 1 }).catch(() => undefined);
    expect(await closed(client)).toBe(true);
  });

  it('discards a connection’s publishes past 100 a second and keeps the connection', async () => {
    expect(await tryWith(good())).toBe('connected');
    const client = clients.at(-1)!;
    const topic = `test/${thing}`;
    let heard = 0;
    client.on('message', () => heard++);
    expect((await client.subscribeAsync(topic, { qos: 0 }))[0]!.qos).toBe(0);
    for (let i = 0; i < 150; i++) client.publish(topic, String(i), { qos: 0 });
    await sleep(700);
    expect(heard).toBe(100);
    expect(client.connected).toBe(true);
    // A second later it may publish again.
    await sleep(1000);
    await client.publishAsync(topic, 'again', { qos: 1 });
    await until(
      () => heard,
      (n) => n === 101,
      3000,
    );
  });
});
