import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, createHmac, randomBytes, type Hash, type Hmac } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import mqtt, { type MqttClient } from 'mqtt';
import { IoTDataPlaneClient, PublishCommand } from '@aws-sdk/client-iot-data-plane';
import { SignatureV4 } from '@smithy/signature-v4';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { deviceTopics } from '@passcloud/functions/contract/protocol';
import { publish, resetIotClients } from '@passcloud/functions/lib/iot';
import { startIot } from '@passcloud/infra/local/iot';
import { baseUrl, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';

/**
 * The IoT stand-in's data plane (`/topics/...`, `/things/.../shadow`) can open any door, so it
 * answers only requests signed with the credentials the stand-in made up, and only on loopback.
 * A device subscribed to its commands topic shows what got through.
 */

type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (d: Data) =>
  typeof d === 'string' ? Buffer.from(d) : ArrayBuffer.isView(d) ? Buffer.from(d.buffer, d.byteOffset, d.byteLength) : Buffer.from(d);
class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

const env = () => ({
  endpoint: new URL(process.env.IOT_DATA_ENDPOINT!),
  credentials: { accessKeyId: process.env.IOT_DATA_ACCESS_KEY_ID!, secretAccessKey: process.env.IOT_DATA_SECRET_ACCESS_KEY! },
});

interface Reply {
  status: number;
  errorType: string | undefined;
  body: string;
}

/** One raw HTTP request to the data plane (fetch may not set `host`, which the signature covers). */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer | string): Promise<Reply> {
  const { endpoint } = env();
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: endpoint.hostname, port: endpoint.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, errorType: res.headers['x-amzn-errortype'] as string | undefined, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Signs like `@aws-sdk/client-iot-data-plane` does; `tamper` changes the request after signing. */
async function signed(
  method: string,
  path: string,
  body: string,
  options: { credentials?: { accessKeyId: string; secretAccessKey: string }; date?: Date; tamper?: (r: { path: string; body: string }) => void } = {},
): Promise<Reply> {
  const { endpoint, credentials } = env();
  const signer = new SignatureV4({
    credentials: options.credentials ?? credentials,
    region: process.env.AWS_REGION ?? 'us-east-1',
    service: 'iotdata',
    sha256: Sha256,
  });
  const [pathname, search] = path.split('?') as [string, string?];
  const request = await signer.sign(
    {
      method,
      protocol: 'http:',
      hostname: endpoint.hostname,
      port: Number(endpoint.port),
      path: pathname,
      query: Object.fromEntries(new URLSearchParams(search ?? '')),
      headers: { host: endpoint.host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      body,
    },
    options.date ? { signingDate: options.date } : {},
  );
  const sent = { path, body };
  options.tamper?.(sent);
  const headers = { ...(request.headers as Record<string, string>), 'content-length': String(Buffer.byteLength(sent.body)) };
  return send(method, sent.path, headers, sent.body);
}

let agent: DeviceAgent;
let device: MqttClient;
let commandsTopic: string;
const received: { marker?: string }[] = [];
const topicPath = (topic: string) => `/topics/${encodeURIComponent(topic)}?qos=1`;
const command = (marker: string) => JSON.stringify({ commandKey: marker, type: 'openDoor', issuedAt: Date.now(), marker });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  const owner = await newCompany();
  await grantSeats((await login(owner.username, owner.password)).token, 1);
  agent = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('DP').toUpperCase(), 1) });
  const binding = await agent.bind();
  commandsTopic = deviceTopics(binding.thingName).commands;
  const { url, ...credentials } = binding.mqtt;
  device = await mqtt.connectAsync(url, { ...credentials, reconnectPeriod: 0, connectTimeout: 5000 });
  await device.subscribeAsync(commandsTopic, { qos: 1 });
  device.on('message', (topic, payload) => {
    if (topic === commandsTopic) received.push(JSON.parse(payload.toString()) as { marker?: string });
  });
  resetIotClients();
});

afterAll(async () => {
  await device?.endAsync(true);
});

describe('the IoT data plane', () => {
  it('refuses unsigned and wrongly signed requests with 403, and delivers none of them', async () => {
    const unsigned = await send('POST', topicPath(commandsTopic), { 'content-type': 'application/json' }, command('unsigned'));
    expect(unsigned).toMatchObject({ status: 403, errorType: 'ForbiddenException' });
    expect(JSON.parse(unsigned.body)).toMatchObject({ message: 'Missing Authentication Token' });
    // A browser page can send this one to 127.0.0.1 without a preflight.
    const simple = await send('POST', topicPath(commandsTopic), { 'content-type': 'text/plain' }, command('simple'));
    expect(simple.status).toBe(403);
    const forged = await send(
      'POST',
      topicPath(commandsTopic),
      {
        authorization: `AWS4-HMAC-SHA256 Credential=${env().credentials.accessKeyId}/20250101/us-east-1/iotdata/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
      },
      command('forged'),
    );
    expect(forged.status).toBe(403);

    // Someone else's credentials, through the SDK as the cloud side would use it.
    const { endpoint } = env();
    const stranger = new IoTDataPlaneClient({
      region: 'us-east-1',
      endpoint: endpoint.origin,
      credentials: { accessKeyId: 'AKIA' + randomBytes(8).toString('hex').toUpperCase(), secretAccessKey: randomBytes(30).toString('base64') },
    });
    const payload = new TextEncoder().encode(command('stranger'));
    await expect(stranger.send(new PublishCommand({ topic: commandsTopic, qos: 1, payload }))).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
      $metadata: { httpStatusCode: 403 },
    });
    // The right access key with a wrong secret.
    const wrongSecret = new IoTDataPlaneClient({
      region: 'us-east-1',
      endpoint: endpoint.origin,
      credentials: { accessKeyId: env().credentials.accessKeyId, secretAccessKey: randomBytes(30).toString('base64') },
    });
    await expect(
      wrongSecret.send(new PublishCommand({ topic: commandsTopic, qos: 1, payload: new TextEncoder().encode(command('wrongSecret')) })),
    ).rejects.toMatchObject({
      name: 'ForbiddenException',
      $metadata: { httpStatusCode: 403 },
    });

    // Correctly signed, then changed on the way, or too old.
    const tamperedBody = await signed('POST', topicPath(commandsTopic), command('signedBody'), { tamper: (r) => (r.body = command('tamperedBody')) });
    expect(tamperedBody.status).toBe(403);
    const otherTopic = await signed('POST', topicPath(`${commandsTopic}/x`), command('signedTopic'), { tamper: (r) => (r.path = topicPath(commandsTopic)) });
    expect(otherTopic.status).toBe(403);
    const stale = await signed('POST', topicPath(commandsTopic), command('stale'), { date: new Date(Date.now() - 10 * 60_000) });
    expect(stale).toMatchObject({ status: 403, errorType: 'ForbiddenException' });
    expect(stale.body).toMatch(/expired/i);

    // Reads need a signature too.
    expect((await send('GET', `/things/${agent.binding!.thingName}/shadow`, {})).status).toBe(403);

    await sleep(500);
    expect(received).toEqual([]);
  });

  it('delivers a correctly signed publish, as the cloud side sends it', async () => {
    await publish(commandsTopic, { commandKey: 'cloud', type: 'openDoor', issuedAt: Date.now(), marker: 'cloud' });
    const manual = await signed('POST', topicPath(commandsTopic), command('manual'));
    expect(manual.status).toBe(200);
    const started = Date.now();
    while (received.length < 2 && Date.now() - started < 5000) await sleep(20);
    expect(received.map((m) => m.marker)).toEqual(['cloud', 'manual']);
  });

  it('refuses a body over 128 KB with 413 and delivers nothing', async () => {
    const before = received.length;
    const big = JSON.stringify({ marker: 'big', pad: 'x'.repeat(128 * 1024) });
    const answer = await signed('POST', topicPath(commandsTopic), big);
    expect(answer).toMatchObject({ status: 413, errorType: 'RequestEntityTooLargeException' });
    const fits = await signed('POST', topicPath(commandsTopic), JSON.stringify({ marker: 'fits', pad: 'x'.repeat(120 * 1024) }));
    expect(fits.status).toBe(200);
    const started = Date.now();
    while (received.length < before + 1 && Date.now() - started < 5000) await sleep(20);
    await sleep(200);
    expect(received.slice(before).map((m) => m.marker)).toEqual(['fits']);
  });

  it('still takes devices over MQTT on WebSocket', async () => {
    const { clientId, username, password } = agent.binding!.mqtt;
    const client = await mqtt.connectAsync(process.env.IOT_WS_URL!, { clientId, username, password, reconnectPeriod: 0, connectTimeout: 5000 });
    expect(client.connected).toBe(true);
    await client.endAsync(true);
  });
});

describe('where the data plane listens', () => {
  /** Whether a TCP connection to address:port is accepted. */
  const reachable = (host: string, port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = netConnect({ host, port, timeout: 2000 });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });

  it('stays on 127.0.0.1 when the stand-in is asked to listen on 0.0.0.0, while MQTT follows', async () => {
    const iot = await startIot({ host: '0.0.0.0' });
    try {
      const data = new URL(iot.dataEndpoint);
      const ws = new URL(iot.wsUrl);
      expect(data.hostname).toBe('127.0.0.1');
      expect(ws.port).not.toBe(data.port);
      expect(await reachable('127.0.0.1', Number(data.port))).toBe(true);
      // Linux routes all of 127/8 to loopback: a socket bound to 0.0.0.0 answers on 127.0.0.2,
      // one bound to 127.0.0.1 does not. The WebSocket endpoint (on 0.0.0.0) shows the probe works.
      const other = '127.0.0.2';
      if (process.platform === 'linux') expect(await reachable(other, Number(ws.port))).toBe(true);
      if (await reachable(other, Number(ws.port))) expect(await reachable(other, Number(data.port))).toBe(false);
      expect(iot.credentials.accessKeyId).not.toBe(env().credentials.accessKeyId);
    } finally {
      await iot.stop();
    }
  });
});
