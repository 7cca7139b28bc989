import '../support/localEnv.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { EVENTS_TABLE, tableName } from '@passcloud/functions/data/tables';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { GrantBody } from '@passcloud/functions/contract/authorities';
import { listAuthorities } from '@passcloud/functions/data/authorityLists';
import { createGrantJob, findGrantJob, grantPieceDone, updateGrantJob, type GrantJob } from '@passcloud/functions/data/grantJobs';
import { takeJobSlot } from '@passcloud/functions/data/jobSlots';
import { runGrant } from '@passcloud/functions/jobs/grants';
import { runGrantPiece } from '@passcloud/functions/jobs/grantPieces';
import { dynamo } from '@passcloud/functions/lib/aws';
import { runInProcess } from '@passcloud/functions/lib/jobs';
import { newId } from '@passcloud/functions/lib/crypto';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { until } from '../support/wait.ts';

/**
 * A large grant is cut into one piece per device (jobs/grants.ts, jobs/grantPieces.ts): each piece
 * short, run again when it fails, counted once however often it runs, and the job done when the
 * last piece is. Here the job is started as its worker starts it, in this process, where the
 * pieces go through the in-process queue as they do on the local host.
 */

const PEOPLE = 12;
let token: string;
let tenantId: string;
let group: string;
const devices: DeviceAgent[] = [];

beforeAll(async () => {
  runInProcess('GRANT_PIECE_FUNCTION', runGrantPiece);
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  await grantSeats(token, 10);
  group = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Pieces '), type: 'employee' } })).body.data.groupKey;
  for (let i = 0; i < PEOPLE; i++) {
    const answer = await call('POST', '/v1/employees', {
      token,
      body: { personId: unique('P'), name: `Piece ${i}`, role: 'Staff', gender: 'male', groupKey: group },
    });
    expect(answer.body.code).toBe(201);
  }
  for (let i = 0; i < 4; i++) {
    const device = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('GP').toUpperCase(), 1), heartbeatMs: 60_000 });
    await device.bind();
    devices.push(device);
  }
});

afterAll(async () => {
  await Promise.allSettled(devices.map((d) => d.stop()));
});

/** Fails the next `times` transactions, as a worker dying mid-share or DynamoDB failing would. */
let original: ((command: unknown) => Promise<unknown>) | undefined;
function failNextTransactions(times: number): void {
  const client = dynamo() as unknown as { send: (command: unknown) => Promise<unknown> };
  original ??= client.send.bind(client);
  let left = times;
  client.send = async (command: unknown) => {
    if (command instanceof TransactWriteCommand && left > 0) {
      left--;
      throw Object.assign(new Error('injected failure'), { name: 'InternalServerError' });
    }
    return original!(command);
  };
}
afterEach(() => {
  if (original) (dynamo() as unknown as { send: unknown }).send = original;
});

async function newJob(deviceKeys: string[]): Promise<GrantJob> {
  const body: GrantBody = {
    setType: 0,
    personKeys: [],
    personGroupKeys: [group],
    departmentKeys: [],
    deviceKeys,
    deviceGroupKeys: [],
    validity: { permanent: true },
  };
  const jobKey = newId();
  const createdAt = new Date().toISOString();
  await takeJobSlot(tenantId, 'grant', jobKey, createdAt);
  return createGrantJob({ tenantId, jobKey, body, bounds: {}, total: PEOPLE * deviceKeys.length }, createdAt);
}

const settled = (jobKey: string) =>
  until(
    async () => (await findGrantJob(tenantId, jobKey))!,
    (job) => job.state === 'done' || job.state === 'failed',
    60_000,
  );

async function heldBy(deviceKey: string): Promise<{ personKey: string; version: number }[]> {
  const page = await listAuthorities(tenantId, { setType: 0, deviceKey }, 200);
  return page.items.map((a) => ({ personKey: a.personKey, version: a.version }));
}

const slotHeld = async (jobKey: string) => {
  const view = await call<{ state: string }>('GET', `/v1/authorities/jobs/${jobKey}`, { token });
  return view.body.data.state;
};

describe('a large grant in pieces', () => {
  it('writes one piece per device, counts each once, and is done when the last is', async () => {
    const keys = devices.map((d) => d.deviceKey!);
    const job = await newJob(keys);
    await runGrant({ tenantId, jobKey: job.jobKey });
    const done = await settled(job.jobKey);
    expect(done).toMatchObject({ state: 'done', done: PEOPLE * keys.length, pieces: keys.length, piecesDone: keys.length });
    for (const key of keys) {
      expect(await grantPieceDone(tenantId, job.jobKey, key)).toBe(true);
      expect(await heldBy(key)).toHaveLength(PEOPLE);
    }
    expect(await slotHeld(job.jobKey)).toBe('done');
    // The worker's start and a piece run again after all is done change nothing.
    const before = await heldBy(keys[0]!);
    await runGrant({ tenantId, jobKey: job.jobKey });
    await runGrantPiece({ tenantId, jobKey: job.jobKey, deviceKey: keys[0]! });
    expect(await heldBy(keys[0]!)).toEqual(before);
    expect(await findGrantJob(tenantId, job.jobKey)).toMatchObject({ done: PEOPLE * keys.length, piecesDone: keys.length });
  });

  it('runs a failed piece again and still counts every pair once', async () => {
    const keys = devices.map((d) => d.deviceKey!);
    const job = await newJob(keys);
    failNextTransactions(2);
    await runGrant({ tenantId, jobKey: job.jobKey });
    const done = await settled(job.jobKey);
    expect(done).toMatchObject({ state: 'done', done: PEOPLE * keys.length, piecesDone: keys.length });
    for (const key of keys) expect(await heldBy(key)).toHaveLength(PEOPLE);
  });

  it('counts a piece run twice at once once', async () => {
    const keys = devices.slice(0, 2).map((d) => d.deviceKey!);
    const job = await newJob(keys);
    await updateGrantJob(tenantId, job.jobKey, { state: 'running', startedAt: new Date().toISOString(), pieces: keys.length }, 'queued');
    const piece = { tenantId, jobKey: job.jobKey, deviceKey: keys[0]! };
    await Promise.all([runGrantPiece(piece), runGrantPiece(piece), runGrantPiece(piece)]);
    expect(await findGrantJob(tenantId, job.jobKey)).toMatchObject({ state: 'running', done: PEOPLE, piecesDone: 1 });
    await runGrantPiece({ ...piece, deviceKey: keys[1]! });
    expect(await findGrantJob(tenantId, job.jobKey)).toMatchObject({ state: 'done', done: PEOPLE * 2, piecesDone: 2 });
  });

  it('resumes an interrupted grant: started again, it runs only the pieces not finished', async () => {
    const keys = devices.map((d) => d.deviceKey!);
    const job = await newJob(keys);
    // The first start wrote two pieces and then stopped.
    await updateGrantJob(tenantId, job.jobKey, { state: 'running', startedAt: new Date().toISOString(), pieces: keys.length }, 'queued');
    await runGrantPiece({ tenantId, jobKey: job.jobKey, deviceKey: keys[0]! });
    await runGrantPiece({ tenantId, jobKey: job.jobKey, deviceKey: keys[1]! });
    const first = await heldBy(keys[0]!);
    await runGrant({ tenantId, jobKey: job.jobKey });
    const done = await settled(job.jobKey);
    expect(done).toMatchObject({ state: 'done', done: PEOPLE * keys.length, piecesDone: keys.length });
    // The finished pieces were not written again.
    expect(await heldBy(keys[0]!)).toEqual(first);
    for (const key of keys) expect(await heldBy(key)).toHaveLength(PEOPLE);
  });

  it('fails the job when a piece fails every run and gives its slot back', async () => {
    const keys = devices.slice(0, 1).map((d) => d.deviceKey!);
    const job = await newJob(keys);
    failNextTransactions(1000);
    await runGrant({ tenantId, jobKey: job.jobKey });
    const failed = await settled(job.jobKey);
    expect(failed).toMatchObject({ state: 'failed', failure: 'stopped' });
    expect(await grantPieceDone(tenantId, job.jobKey, keys[0]!)).toBe(false);
    (dynamo() as unknown as { send: unknown }).send = original;
    // The slot is given back right after the job is marked failed (functions/data/grantJobs.ts).
    const held = async () => {
      const slots = await dynamo().send(
        new GetCommand({ TableName: tableName(EVENTS_TABLE), Key: { pk: tenantId, sk: 'jobSlots#grant' }, ConsistentRead: true }),
      );
      return [...((slots.Item?.jobs as Set<string> | undefined) ?? [])].some((s) => s.endsWith(job.jobKey));
    };
    expect(await until(held, (holding) => !holding, 10_000)).toBe(false);
    const next = await newJob(keys);
    await runGrant({ tenantId, jobKey: next.jobKey });
    expect(await settled(next.jobKey)).toMatchObject({ state: 'done', done: PEOPLE });
  });
});
