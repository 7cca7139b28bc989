import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { deviceAuthorization } from '@passcloud/functions/contract/protocol';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { makePng } from '../support/images.ts';
import { until } from '../support/wait.ts';

/**
 * Face-change numbers belong to one binding. A terminal that binds again (and so becomes a new
 * device) starts with an empty library and no cursor; a cursor kept from an earlier binding is
 * answered "start again", and the reference agent then pulls everything.
 */

let token: string;
let userCode: string;
let groupKey: string;
const agents: DeviceAgent[] = [];
const flash = mkdtempSync(join(tmpdir(), 'face-cursor-'));
const serial = unique('FC').toUpperCase();
const credentialsFile = join(flash, 'binding.json');
const facesFile = join(flash, 'binding.faces.json');

function terminal(): DeviceAgent {
  const agent = new DeviceAgent({ apiUrl: baseUrl(), userCode, info: simulatedInfo(serial, 1), heartbeatMs: 60_000, credentialsFile, approvalRetryMs: 300 });
  agents.push(agent);
  return agent;
}

async function employee(name: string): Promise<string> {
  const form = new FormData();
  form.set('kind', 'avatar');
  form.set('file', new Blob([new Uint8Array(makePng(800, 600))]), 'face.png');
  const avatar = (await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form })).body.data.fileKey;
  const answer = await call<{ employeeKey: string }>('POST', '/v1/employees', { token, body: { personId: unique('F'), name, role: 'Staff', gender: 'male', groupKey, avatar } });
  expect(answer.body.code).toBe(201);
  return answer.body.data.employeeKey;
}

const grant = async (personKeys: string[], deviceKey: string) =>
  expect((await call('POST', '/v1/authorities', { token, body: { setType: 0, personKeys, deviceKeys: [deviceKey], validity: { permanent: true } } })).body.code).toBe(201);

const held = (agent: DeviceAgent) => agent.faces.all().map((f) => f.personKey).sort();

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  await grantSeats(token, 5);
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Cursor '), type: 'employee' } })).body.data.groupKey;
});

afterAll(async () => {
  await Promise.allSettled(agents.map((a) => a.stop()));
});

describe('a terminal that binds again', () => {
  let second: DeviceAgent;
  let newcomer: string;

  it('starts with an empty library and pulls everything of its new binding', async () => {
    const first = terminal();
    await first.start();
    const old = [await employee('Old One'), await employee('Old Two'), await employee('Old Three')];
    await grant(old, first.deviceKey!);
    await until(() => held(first), (faces) => faces.length === 3);
    // The cursor is saved once the page's results are reported.
    await until(() => first.faces.position, (cursor) => cursor >= 3);
    await first.stop();

    // An administrator unbinds it; the terminal, still holding its binding, faces and cursor in flash, comes back.
    const device = (await call<{ version: number }>('GET', `/v1/devices/${first.deviceKey}`, { token })).body.data;
    expect((await call('DELETE', `/v1/devices/${first.deviceKey}?version=${device.version}`, { token })).body.code).toBe(204);
    second = terminal();
    expect(second.faces.size).toBe(3);
    // Told its device was deleted, it stops; the installer binds it again, and the company approves it back.
    await expect(second.start()).rejects.toMatchObject({ name: 'DeviceStoppedError', reason: 'deleted' });
    await second.bind();
    await second.start();
    expect(second.awaitingApproval).toBe(true);
    const [request] = (await call<{ items: { requestKey: string; version: number }[] }>('GET', '/v1/devices/requests', { token })).body.data.items;
    expect(request?.requestKey).toBe(second.deviceKey);
    expect((await call('POST', `/v1/devices/requests/${request!.requestKey}`, { token, body: { version: request!.version } })).body.code).toBe(201);
    await until(() => second.connected, (connected) => connected);
    expect(second.deviceKey).not.toBe(first.deviceKey);
    expect(second.binding?.resetCursor).toBe(true);
    newcomer = await employee('New One');
    await grant([newcomer], second.deviceKey!);
    // Its new device's changes start at 1: it holds exactly the new grant, nothing of the old binding.
    await until(() => held(second), (faces) => faces.length === 1 && faces[0] === newcomer);
    await until(() => second.faces.position, (cursor) => cursor === 1);
    // It emptied its library when it bound; it was never told to start again.
    const logs = (await call<{ items: { code: string }[] }>('GET', `/v1/devices/${second.deviceKey}/logs?pageSize=50`, { token })).body.data.items;
    expect(logs.map((l) => l.code)).not.toContain('faceCursorReset');
  });

  it('is told to start again when it asks with a cursor of an earlier binding, and pulls everything', async () => {
    const binding = second.binding!;
    const stale = await fetch(new URL('/v1/deviceSync/faces?cursor=600', baseUrl()), { headers: { authorization: deviceAuthorization(binding.thingName, binding.mqtt.password) } });
    expect(stale.status).toBe(409);
    const body = (await stale.json()) as { code: number; data: { reason: string; cursor: string } };
    expect(body).toMatchObject({ code: 409, data: { reason: 'startAgain', cursor: '0' } });

    // A terminal that kept such a cursor (and a face of the earlier binding) in flash.
    await second.stop();
    const kept = JSON.parse(readFileSync(facesFile, 'utf8')) as { cursor: number; faces: unknown[] };
    writeFileSync(facesFile, JSON.stringify({ cursor: 600, faces: [...kept.faces, { list: 'pass', personKey: 'zzzzzzzzzzzzzzzz', name: 'Gone', kind: 'employee', validFrom: null, validTo: null, photoBytes: 1 }] }));
    const third = terminal();
    expect(third.faces.position).toBe(600);
    await third.start();
    await until(() => held(third), (faces) => faces.length === 1 && faces[0] === newcomer);
    await until(() => third.faces.position, (cursor) => cursor === 1);
    const logs = await until(
      async () => (await call<{ items: { code: string }[] }>('GET', `/v1/devices/${third.deviceKey}/logs?pageSize=50`, { token })).body.data.items,
      (items) => items.some((l) => l.code === 'faceCursorReset'),
    );
    expect(logs.filter((l) => l.code === 'faceSyncFailed')).toEqual([]);
  });
});
