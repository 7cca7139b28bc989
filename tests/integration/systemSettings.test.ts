import '../support/localEnv.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { deviceTopics } from '@passcloud/functions/contract/protocol';
import { publish, resetIotClients } from '@passcloud/functions/lib/iot';
import { findPackage } from '@passcloud/functions/data/settings';
import { objectExists } from '@passcloud/functions/lib/storage';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { zip } from '../support/files.ts';
import { grantSeats } from '../support/licence.ts';

interface SystemInfo {
  apiBaseUrl: string;
  mqtt: { endpoint: string; tcpPort: number; wsPort: number; wsPath: string };
  database: { endpoint: string; port: number };
  version: string;
  buildId: string;
  client: { version: string; size: number; sha256: string; uploadTime: string } | null;
}
interface Presigned {
  packageKey: string;
  upload: { url: string; method: string; headers: Record<string, string> };
}
type Issues = { issues: { path: string; message: string }[] };

/** `GET /v1/settings/system` as a browser that reached the console by `host`. */
function systemInfoAs(host: string): Promise<SystemInfo> {
  const url = new URL('/v1/settings/system', baseUrl());
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { host, authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { code: number; data: SystemInfo };
        if (body.code !== 200) reject(new Error(`answered ${body.code}`));
        else resolve(body.data);
      });
    });
    req.on('error', reject);
    req.end();
  });
}

let token: string;
let tenantId: string;
let userCode: string;
const agents: DeviceAgent[] = [];

async function until<T>(get: () => Promise<T>, check: (value: T) => boolean, ms = 8000): Promise<T> {
  const started = Date.now();
  let value = await get();
  while (!check(value)) {
    if (Date.now() - started > ms) throw new Error(`condition not met within ${ms} ms; last: ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 50));
    value = await get();
  }
  return value;
}

const presign = (body: unknown, as = token) => call<Presigned>('POST', '/v1/settings/system/packages', { token: as, body });
const complete = (packageKey: string, as = token) => call<Record<string, unknown>>('POST', `/v1/settings/system/packages/${packageKey}/complete`, { token: as });
async function put(answer: Presigned, bytes: Buffer): Promise<Response> {
  return fetch(answer.upload.url, { method: 'PUT', headers: answer.upload.headers, body: new Uint8Array(bytes) });
}
const apk = () => zip([{ name: 'AndroidManifest.xml', data: Buffer.from(`<manifest package="com.passcloud.terminal" n="${unique('m')}"/>`) }]);

beforeAll(async () => {
  resetIotClients();
  const owner = await newCompany();
  userCode = owner.userCode;
  const me = await login(owner.username, owner.password);
  token = me.token;
  tenantId = token.slice(0, token.indexOf('.'));
  await grantSeats(token, 10);
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('system settings', () => {
  it('names the API, the broker and its ports, the code version and the build', async () => {
    const answer = await call<SystemInfo>('GET', '/v1/settings/system', { token });
    expect(answer.body.code).toBe(200);
    const info = answer.body.data;
    expect(info.apiBaseUrl).toBe(`${baseUrl()}/v1`);
    expect(info.version).toBe('3.2.0');
    expect(info.buildId).toMatch(/^([0-9a-f]{7,40}|dev|.+)$/);
    expect(info.buildId.length).toBeGreaterThan(0);
    // The broker listens on loopback here: it is named as this client reached the console.
    expect(info.mqtt.endpoint).toBe(new URL(baseUrl()).hostname);
    for (const p of [info.mqtt.tcpPort, info.mqtt.wsPort]) {
      expect(Number.isInteger(p)).toBe(true);
      expect(p).toBeGreaterThanOrEqual(1);
      expect(p).toBeLessThanOrEqual(65535);
    }
    expect(info.mqtt.tcpPort).not.toBe(info.mqtt.wsPort);
    expect(info.mqtt.wsPath).toBe('/mqtt');
    expect(info.client).toBeNull();
    // SPEC §3's database port: the one the service's DynamoDB listens on (DynamoDB Local's here).
    expect(info.database).toEqual({ endpoint: new URL(process.env.DYNAMODB_ENDPOINT!).hostname, port: Number(new URL(process.env.DYNAMODB_ENDPOINT!).port) });
  });

  it('tells a browser on another machine the broker at the address it reached the console by', async () => {
    // The broker listens where the console does (127.0.0.1 in the tests): a browser that came by
    // another name is told that name, the ports unchanged.
    const viaName = await systemInfoAs('pass-cloud.example.test:8443');
    expect(viaName.mqtt.endpoint).toBe('pass-cloud.example.test');
    const local = (await call<SystemInfo>('GET', '/v1/settings/system', { token })).body.data;
    expect(viaName.mqtt).toEqual({ ...local.mqtt, endpoint: 'pass-cloud.example.test' });
    expect((await systemInfoAs('192.168.10.20:3000')).mqtt.endpoint).toBe('192.168.10.20');
    expect((await systemInfoAs('[fd00::5]:3000')).mqtt.endpoint).toBe('fd00::5');
  });

  it('uploads a client package through a presigned PUT; an online terminal downloads it, checks it and reports the new version', async () => {
    const device = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('U').toUpperCase(), 1), heartbeatMs: 60_000 });
    agents.push(device);
    await device.start();
    const deviceKey = device.deviceKey!;
    await until(
      async () => (await call<{ online: boolean }>('GET', `/v1/devices/${deviceKey}`, { token })).body.data.online,
      (online) => online,
    );

    const bytes = await apk();
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const presigned = await presign({ version: '3.2.1', filename: 'terminal-3.2.1.apk', size: bytes.length });
    expect(presigned.body.code).toBe(201);
    expect(presigned.body.data.upload).toMatchObject({ method: 'PUT', headers: { 'content-type': 'application/vnd.android.package-archive' } });
    expect((await put(presigned.body.data, bytes)).ok).toBe(true);

    const done = await complete(presigned.body.data.packageKey);
    expect(done.body.code).toBe(201);
    expect(done.body.data).toMatchObject({ version: '3.2.1', size: bytes.length, sha256, notified: 1 });

    const info = (await call<SystemInfo>('GET', '/v1/settings/system', { token })).body.data;
    expect(info.client).toMatchObject({ version: '3.2.1', size: bytes.length, sha256 });

    // The notice goes out from a worker after the answer; the terminal downloads the package,
    // checks size and hash, and reports the new version at once (given time on a busy machine).
    const listed = await until(
      async () => (await call<{ items: { deviceKey: string; appVersion: string }[] }>('GET', '/v1/devices', { token })).body.data.items,
      (items) => items.some((d) => d.deviceKey === deviceKey && d.appVersion === '3.2.1'),
      30_000,
    );
    expect(listed.find((d) => d.deviceKey === deviceKey)?.appVersion).toBe('3.2.1');
    const logs = await until(
      async () => (await call<{ items: { code: string; params: Record<string, string> }[] }>('GET', `/v1/devices/${deviceKey}/logs`, { token })).body.data.items,
      (items) => items.some((l) => l.code === 'appUpdated'),
    );
    expect(logs.find((l) => l.code === 'appUpdated')?.params).toEqual({ version: '3.2.1' });
    const commands = await until(
      async () => (await call<{ items: { type: string; state: string }[] }>('GET', `/v1/devices/${deviceKey}/commands`, { token })).body.data.items,
      (items) => items.some((c) => c.type === 'updateApp' && c.state === 'succeeded'),
    );
    expect(commands[0]).toMatchObject({ type: 'updateApp', state: 'succeeded' });

    // A package completes once.
    expect((await complete(presigned.body.data.packageKey)).body.code).toBe(404);

    // The notices go out from a worker; one run late, after a newer package was released, announces nothing.
    const newer = await apk();
    const second = await presign({ version: '3.2.9', filename: 'terminal-3.2.9.apk', size: newer.length });
    expect((await put(second.body.data, newer)).ok).toBe(true);
    expect((await complete(second.body.data.packageKey)).body.code).toBe(201);
    const { sendPackageNotices } = await import('@passcloud/functions/jobs/packageNotices');
    expect(await sendPackageNotices({ tenantId, packageKey: presigned.body.data.packageKey })).toBe(0);
    expect(await sendPackageNotices({ tenantId, packageKey: 'pkgnotapackage000000' })).toBe(0);
  });

  it('a terminal refuses a package whose hash does not match, keeps its version and logs why', async () => {
    const device = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('H').toUpperCase(), 1), heartbeatMs: 60_000 });
    agents.push(device);
    await device.start();
    const deviceKey = device.deviceKey!;
    const bytes = await apk();
    const presigned = await presign({ version: '3.2.2', filename: 'terminal.apk', size: bytes.length });
    await put(presigned.body.data, bytes);
    // The same package's link, announced with a wrong hash.
    const { presignedGet } = await import('@passcloud/functions/lib/storage');
    const url = await presignedGet('packages', tenantId, `client/${presigned.body.data.packageKey}.apk`);
    await publish(deviceTopics(device.binding!.thingName).commands, {
      commandKey: 'wronghash0001',
      type: 'updateApp',
      issuedAt: Date.now(),
      app: { version: '9.9.9', url, sha256: '0'.repeat(64), size: bytes.length },
    });
    const logs = await until(
      async () => (await call<{ items: { code: string; params: Record<string, string> }[] }>('GET', `/v1/devices/${deviceKey}/logs`, { token })).body.data.items,
      (items) => items.some((l) => l.code === 'appUpdateFailed'),
    );
    expect(logs.find((l) => l.code === 'appUpdateFailed')?.params).toMatchObject({ version: '9.9.9', error: expect.stringContaining('SHA-256') });
    expect(device.options.info.appVersion).not.toBe('9.9.9');
  });

  it('refuses a file that is not an .apk, one over 200 MB, a bad version, and content that is not a package, leaving nothing behind', async () => {
    const tooBig = await presign({ version: '3.2.1', filename: 'big.apk', size: 200 * 1024 * 1024 + 1 });
    expect(tooBig.body.code).toBe(422);
    expect((tooBig.body.data as unknown as Issues).issues).toEqual([{ path: 'size', message: 'Must be at most 200 MB' }]);
    expect(tooBig.body.message).toContain('200 MB');
    const atLimit = await presign({ version: '3.2.1', filename: 'big.apk', size: 200 * 1024 * 1024 });
    expect(atLimit.body.code).toBe(201);

    const wrongType = await presign({ version: '3.2.1', filename: 'terminal.exe', size: 100 });
    expect(wrongType.body.code).toBe(422);
    expect((wrongType.body.data as unknown as Issues).issues[0]).toMatchObject({ path: 'filename' });
    expect(wrongType.body.message).toContain('.apk');

    const badVersion = await presign({ version: '3.2', filename: 'terminal.apk', size: 100 });
    expect(badVersion.body.code).toBe(422);
    expect((badVersion.body.data as unknown as Issues).issues[0]).toMatchObject({ path: 'version' });
    expect(badVersion.body.message).toContain('3.2.1');

    // Bytes that are not a zip/apk: refused at completion, the object and the announcement removed.
    const junk = Buffer.from('MZ this is not an android package at all');
    const presigned = await presign({ version: '3.3.0', filename: 'junk.apk', size: junk.length });
    await put(presigned.body.data, junk);
    const refused = await complete(presigned.body.data.packageKey);
    expect(refused.body.code).toBe(422);
    expect((refused.body.data as unknown as Issues).issues[0]).toMatchObject({ path: 'file' });
    expect(await objectExists('packages', tenantId, `client/${presigned.body.data.packageKey}.apk`)).toBe(false);
    expect(await findPackage(tenantId, presigned.body.data.packageKey)).toBeUndefined();
    const info = (await call<SystemInfo>('GET', '/v1/settings/system', { token })).body.data;
    expect(info.client?.version).not.toBe('3.3.0');

    // A body of another length than announced: S3 refuses it (signed length); either way complete refuses.
    const bytes = await apk();
    const other = await presign({ version: '3.3.1', filename: 'terminal.apk', size: bytes.length + 10 });
    await put(other.body.data, bytes);
    const mismatch = await complete(other.body.data.packageKey);
    expect(mismatch.body.code).toBe(422);
    expect((mismatch.body.data as unknown as Issues).issues[0]).toMatchObject({ path: 'file' });
  });
});
