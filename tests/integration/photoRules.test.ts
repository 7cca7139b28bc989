import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { PhotoRulesView } from '@passcloud/functions/contract/files';
import { s3 } from '@passcloud/functions/lib/aws';
import { bucketName } from '@passcloud/functions/lib/storage';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { zip } from '../support/files.ts';
import { makePng } from '../support/images.ts';
import { grantSeats } from '../support/licence.ts';
import { until } from '../support/wait.ts';

/**
 * A person's photo is held to what the company's face terminals report they need to enrol a face
 * (`info.enrolment`), so a photo the console takes is one they enrol: a smaller one is refused
 * before it is stored, naming the field and the terminals that could not enrol it. A company whose
 * terminals report nothing keeps SPEC's 640 × 480.
 */

type Issues = { issues: { path: string; message: string }[] };
const agents: DeviceAgent[] = [];

async function company() {
  const owner = await newCompany();
  const token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 3);
  return { owner, token, tenantId: token.split('.')[0]! };
}

async function terminal(userCode: string, reportsEnrolment = true): Promise<DeviceAgent> {
  const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(unique('PHR').toUpperCase(), 1), heartbeatMs: 60_000, reportsEnrolment });
  agents.push(agent);
  await agent.start();
  return agent;
}

const rulesOf = async (token: string) => (await call<PhotoRulesView>('GET', '/v1/files/photoRules', { token })).body.data;

/** A photo through the console's path: presign, PUT to storage, complete. */
async function presigned(token: string, bytes: Buffer) {
  const presign = await call<{ uploadKey: string; upload: { url: string; headers: Record<string, string> } }>('POST', '/v1/files/uploads/presign', {
    token,
    body: { kind: 'avatar', filename: 'face.png', size: bytes.length, contentType: 'image/png' },
  });
  expect(presign.body.code).toBe(201);
  const put = await fetch(presign.body.data.upload.url, { method: 'PUT', headers: presign.body.data.upload.headers, body: new Uint8Array(bytes) });
  expect(put.status).toBe(200);
  const { uploadKey } = presign.body.data;
  return { uploadKey, answer: await call<{ fileKey: string } & Issues>('POST', `/v1/files/uploads/${uploadKey}/complete`, { token }) };
}

/** A photo sent in the request itself. */
function inRequest(token: string, bytes: Buffer) {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(bytes)]), 'face.png');
  return call<{ fileKey: string } & Issues>('POST', '/v1/files/uploads', { token, form });
}

async function photoCount(tenantId: string): Promise<number> {
  const listed = await (await s3()).client.send(new ListObjectsV2Command({ Bucket: bucketName('photos'), Prefix: `${tenantId}/` }));
  return listed.KeyCount ?? 0;
}

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('a company whose terminals report nothing', () => {
  it('keeps SPEC’s 640 × 480, with an older terminal bound too', async () => {
    const { owner, token } = await company();
    expect(await rulesOf(token)).toEqual({
      minWidth: 640,
      minHeight: 480,
      maxWidth: 4096,
      maxHeight: 2688,
      maxBytes: 5 * 1024 * 1024,
      terminals: [],
      terminalCount: 0,
    });
    await terminal(owner.userCode, false);
    expect(await rulesOf(token)).toMatchObject({ minWidth: 640, minHeight: 480, terminals: [], terminalCount: 0 });
    expect((await presigned(token, makePng(640, 480))).answer.body.code).toBe(201);
    const small = await inRequest(token, makePng(600, 450));
    expect(small.status).toBe(422);
    expect(small.body.data.issues[0]).toMatchObject({ path: 'file', message: expect.stringMatching(/640 × 480.*600 × 450/) });
  });
});

describe('a company whose terminal needs 800 × 600', () => {
  let token: string;
  let tenantId: string;
  let agent: DeviceAgent;
  let name: string;
  let employeeKey: string;
  let avatar: string;
  let personId: string;

  beforeAll(async () => {
    const made = await company();
    ({ token, tenantId } = made);
    agent = await terminal(made.owner.userCode);
    await terminal(made.owner.userCode, false);
    name = (await call<{ name: string }>('GET', `/v1/devices/${agent.deviceKey}`, { token })).body.data.name;
    const groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Photo staff '), type: 'employee' } })).body.data
      .groupKey;
    avatar = (await presigned(token, makePng(800, 600))).answer.body.data.fileKey;
    personId = unique('PH');
    const employee = await call<{ employeeKey: string }>('POST', '/v1/employees', {
      token,
      body: { personId, name: 'Photo Person', role: 'Staff', gender: 'female', groupKey, avatar },
    });
    expect(employee.body.code).toBe(201);
    employeeKey = employee.body.data.employeeKey;
  });

  const avatarNow = async () => (await call<{ avatar: string | null }>('GET', `/v1/employees/${employeeKey}`, { token })).body.data.avatar;

  it('answers the raised minimum and the terminal that raises it', async () => {
    expect(await rulesOf(token)).toMatchObject({
      minWidth: 800,
      minHeight: 600,
      terminals: [{ deviceKey: agent.deviceKey, name, minWidth: 800, minHeight: 600 }],
      terminalCount: 1,
    });
  });

  it('refuses a smaller photo naming the field and the terminal, and stores nothing', async () => {
    const before = await photoCount(tenantId);
    const { uploadKey, answer } = await presigned(token, makePng(700, 525));
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues).toHaveLength(1);
    expect(answer.body.data.issues[0]!.path).toBe('file');
    expect(answer.body.data.issues[0]!.message).toContain(name);
    expect(answer.body.data.issues[0]!.message).toMatch(/800 × 600.*700 × 525/);
    // The staged upload is gone with the refusal: completing it again finds nothing.
    expect((await call('POST', `/v1/files/uploads/${uploadKey}/complete`, { token })).status).toBe(404);
    // Below SPEC's minimum too, the terminal is named; in the caller's language as well.
    const tiny = await inRequest(token, makePng(640, 480));
    expect(tiny.status).toBe(422);
    expect(tiny.body.data.issues[0]).toMatchObject({ path: 'file', message: expect.stringContaining(name) });
    const form = new FormData();
    form.set('kind', 'avatar');
    form.set('file', new Blob([new Uint8Array(makePng(700, 525))]), 'face.png');
    const japanese = await call<Issues>('POST', '/v1/files/uploads', { token, form, locale: 'ja_JP' });
    expect(japanese.body.data.issues[0]!.message).toContain(`端末 ${name}`);
    expect(await photoCount(tenantId)).toBe(before);
    expect(await avatarNow()).toBe(avatar);
  });

  it('takes a photo as large as the terminal needs, in either orientation', async () => {
    expect((await presigned(token, makePng(800, 600))).answer.body.code).toBe(201);
    expect((await inRequest(token, makePng(600, 800))).body.code).toBe(201);
  });

  it('judges the photo archive import by the same rules', async () => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(await zip([{ name: `photo/${personId}.png`, data: makePng(700, 525) }]))]), 'photos.zip');
    const answer = await call<{ imported: number; entries: { name: string; status: string; reason?: string }[] }>('POST', '/v1/employees/imports/avatars', {
      token,
      form,
    });
    expect(answer.body.code).toBe(201);
    expect(answer.body.data.imported).toBe(0);
    expect(answer.body.data.entries[0]).toMatchObject({ status: 'skipped', reason: expect.stringContaining(name) });
    expect(await avatarNow()).toBe(avatar);
  });

  it('falls back to SPEC’s minimum once the terminal stops reporting its needs', async () => {
    (agent.options as { reportsEnrolment?: boolean }).reportsEnrolment = false;
    agent.sendHeartbeat();
    await until(
      () => rulesOf(token),
      (rules) => rules.minWidth === 640 && rules.terminalCount === 0,
    );
    expect((await inRequest(token, makePng(700, 525))).body.code).toBe(201);
  });
});
