import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FacePerson } from '@passcloud/functions/data/authorities';
import { deviceAuthorities, dropDeviceAuthorities } from '@passcloud/functions/data/authorities';
import { grantPairs } from '@passcloud/functions/data/authorityGrants';
import { UnfinishedBatchError } from '@passcloud/functions/data/entity';
import { createGrantJob, findGrantJob } from '@passcloud/functions/data/grantJobs';
import { resolveSelection } from '@passcloud/functions/data/grantSelection';
import { runGrant } from '@passcloud/functions/jobs/grants';
import { runGrantPiece } from '@passcloud/functions/jobs/grantPieces';
import { runInProcess } from '@passcloud/functions/lib/jobs';
import { dynamo } from '@passcloud/functions/lib/aws';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { until } from '../support/wait.ts';

/**
 * DynamoDB may leave part of a batch unprocessed, and ElectroDB hands that part back without
 * trying it again. Here the data layer's client (in this process) lets DynamoDB process only part
 * of each batch, or none of it: reads and writes of grants, people and device removals still
 * finish, and a background grant that cannot finish says failed.
 */

type Mode = 'half' | 'none' | 'off';
let mode: Mode = 'off';
let cut = 0;

/** Lets the real DynamoDB process the first half of each batch (at least one item) and answers the rest unprocessed; `none` processes nothing. */
function install(client: DynamoDBDocumentClient): void {
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  (client as unknown as { send: (command: unknown) => Promise<unknown> }).send = async (command: unknown) => {
    if (mode === 'off') return send(command);
    if (command instanceof BatchWriteCommand || (command as { constructor: { name: string } }).constructor.name === 'BatchWriteCommand') {
      const input = (command as BatchWriteCommand).input;
      const [table, requests] = Object.entries(input.RequestItems ?? {})[0]!;
      const keep = mode === 'none' ? 0 : Math.max(1, Math.floor(requests.length / 2));
      cut += requests.length - keep;
      const answer =
        keep > 0
          ? ((await send(new BatchWriteCommand({ ...input, RequestItems: { [table]: requests.slice(0, keep) } }))) as {
              UnprocessedItems?: Record<string, unknown[]>;
            })
          : {};
      const left = [...(answer.UnprocessedItems?.[table] ?? []), ...requests.slice(keep)];
      return { UnprocessedItems: left.length ? { [table]: left } : {} };
    }
    if (command instanceof BatchGetCommand || (command as { constructor: { name: string } }).constructor.name === 'BatchGetCommand') {
      const input = (command as BatchGetCommand).input;
      const [table, request] = Object.entries(input.RequestItems ?? {})[0]!;
      const keys = request.Keys ?? [];
      const keep = mode === 'none' ? 0 : Math.max(1, Math.floor(keys.length / 2));
      cut += keys.length - keep;
      const answer =
        keep > 0
          ? ((await send(new BatchGetCommand({ ...input, RequestItems: { [table]: { ...request, Keys: keys.slice(0, keep) } } }))) as {
              Responses?: Record<string, unknown[]>;
              UnprocessedKeys?: Record<string, { Keys?: unknown[] }>;
            })
          : {};
      const left = [...(answer.UnprocessedKeys?.[table]?.Keys ?? []), ...keys.slice(keep)];
      return { Responses: { [table]: answer.Responses?.[table] ?? [] }, UnprocessedKeys: left.length ? { [table]: { ...request, Keys: left } } : {} };
    }
    return send(command);
  };
}

let token: string;
let tenantId: string;
let deviceKey: string;
let groupKey: string;
const personKeys: string[] = [];

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  await grantSeats(token, 5);
  const device = new DeviceAgent({ apiUrl: baseUrl(), userCode: owner.userCode, info: simulatedInfo(unique('UB').toUpperCase(), 1), heartbeatMs: 60_000 });
  await device.bind();
  deviceKey = device.deviceKey!;
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Batch staff '), type: 'employee' } })).body.data.groupKey;
  for (let i = 0; i < 12; i++) {
    const made = await call<{ employeeKey: string }>('POST', '/v1/employees', {
      token,
      body: { personId: unique('UB'), name: `Batch ${i}`, role: 'Staff', gender: 'male', groupKey },
    });
    personKeys.push(made.body.data.employeeKey);
  }
  install(dynamo());
});

afterEach(() => {
  mode = 'off';
});

describe('batches DynamoDB did not finish', () => {
  it('are finished: people read, authorizations read and written, a device’s authorizations removed', async () => {
    mode = 'half';
    cut = 0;
    const { persons } = await resolveSelection(tenantId, { personKeys, personGroupKeys: [], departmentKeys: [], deviceKeys: [deviceKey], deviceGroupKeys: [] });
    expect(persons.map((p: FacePerson) => p.personKey).sort()).toEqual([...personKeys].sort());
    const { count } = await grantPairs(tenantId, 0, persons, [deviceKey], {});
    expect(count).toBe(12);
    expect(cut).toBeGreaterThan(0);
    mode = 'off';
    expect((await deviceAuthorities(tenantId, deviceKey)).map((a) => a.personKey).sort()).toEqual([...personKeys].sort());

    mode = 'half';
    cut = 0;
    await dropDeviceAuthorities(tenantId, deviceKey);
    expect(cut).toBeGreaterThan(0);
    mode = 'off';
    expect(await deviceAuthorities(tenantId, deviceKey)).toEqual([]);
  });

  it('that stay unfinished fail loudly, and a background grant says failed, not done', async () => {
    mode = 'none';
    const { persons } = {
      persons: personKeys.map((personKey, i) => ({ personKey, kind: 'employee' as const, name: `Batch ${i}`, personId: `x${i}`, active: true })),
    };
    await expect(grantPairs(tenantId, 0, persons, [deviceKey], {})).rejects.toBeInstanceOf(UnfinishedBatchError);

    mode = 'off';
    const jobKey = unique('job');
    await createGrantJob({
      tenantId,
      jobKey,
      body: {
        setType: 0,
        personKeys: [],
        personGroupKeys: [groupKey],
        departmentKeys: [],
        deviceKeys: [deviceKey],
        deviceGroupKeys: [],
        validity: { permanent: true },
      },
      bounds: {},
      total: 12,
    });
    // The job's one piece runs in this process, as on the local host; every run of it meets batches that stay unfinished.
    runInProcess('GRANT_PIECE_FUNCTION', runGrantPiece);
    mode = 'none';
    await runGrant({ tenantId, jobKey });
    const settled = await until(
      async () => (await findGrantJob(tenantId, jobKey))!,
      (job) => job.state === 'done' || job.state === 'failed',
      30_000,
    );
    mode = 'off';
    expect(settled).toMatchObject({ state: 'failed', failure: 'stopped' });
  }, 60_000);
});
