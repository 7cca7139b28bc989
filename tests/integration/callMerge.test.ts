import '../support/localEnv.ts';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallPage, IntercomItem } from '@passcloud/functions/contract/intercom';
import type { RecordExportJob } from '@passcloud/functions/contract/passRecords';
import { storeCallEnd } from '@passcloud/functions/data/intercomCalls';
import { readFirstSheet } from '@passcloud/functions/lib/xlsx';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { sleep, until } from '../support/wait.ts';
import { ackFor, bindIntercom, ended, ringing, type Intercom } from '../support/intercoms.ts';

/**
 * Both ends of a call report it under one call id (docs/device-protocol.md): the cloud keeps one
 * call with each end's report in it, whatever order the reports come in, and lists, filters and
 * exports one row per call.
 */

let token: string;
let tenantId: string;
let userCode: string;
let door: Intercom;
let monitor: Intercom;
const clients: MqttClient[] = [];

const calls = async (query = '') => (await call<CallPage>('GET', `/v1/intercom/calls?pageSize=200${query}`, { token })).body.data.items;

async function setNumber(deviceKey: string, number: string) {
  const current = await call<IntercomItem>('GET', `/v1/intercom/devices/${deviceKey}`, { token });
  const answer = await call('PATCH', `/v1/intercom/devices/${deviceKey}`, { token, body: { number, version: current.body.data.version } });
  expect(answer.body.code).toBe(201);
}

beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.slice(0, token.indexOf('.'));
  await grantSeats(token, 5);
  door = await bindIntercom(userCode, 'doorStation', clients);
  monitor = await bindIntercom(userCode, 'indoorMonitor', clients);
  await setNumber(door.deviceKey, '01');
  await setNumber(monitor.deviceKey, '101');
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
});

describe('one call, both ends', () => {
  it('keeps one call with both ends whichever end reports first, or both at once, and a repeat changes nothing', async () => {
    for (const order of ['door first', 'monitor first', 'at once'] as const) {
      const callId = unique('both');
      const d = ended(ringing(callId, 'door'));
      const m = ended(ringing(callId, 'monitor', d.startTime), { recording: { contentType: 'audio/wav', size: 100 } });
      if (order === 'at once') {
        door.send([d]);
        monitor.send([m]);
      } else {
        const [first, second] = order === 'door first' ? [door, monitor] : [monitor, door];
        first.send([first === door ? d : m]);
        await ackFor(first, callId);
        second.send([second === door ? d : m]);
      }
      await ackFor(door, callId);
      await ackFor(monitor, callId);
      const rows = (await calls()).filter((c) => c.callId === callId);
      expect(rows, order).toHaveLength(1);
      expect(
        rows[0]!.ends.map((e) => e.deviceKey),
        order,
      ).toEqual([door.deviceKey, monitor.deviceKey]);
      expect(rows[0]!.recording.state, order).toBe('pending');
      // Either end's key names the call (its recording is on its way); a key of no end names nothing.
      const recording = (deviceKey: string) => call('GET', `/v1/intercom/calls/${deviceKey}.${callId}/recording`, { token });
      const [byDoor, byMonitor, byNobody] = await Promise.all([recording(door.deviceKey), recording(monitor.deviceKey), recording('zzzzzzzz')]);
      expect([byDoor.status, byMonitor.status, byNobody.status], order).toEqual([404, 404, 404]);
      expect(byDoor.body.message, order).toBe(byMonitor.body.message);
      expect(byNobody.body.message, order).not.toBe(byDoor.body.message);
      // The same reports again: still that one row, unchanged.
      door.send([d]);
      monitor.send([m]);
      await until(
        () => door.acks.flatMap((a) => a.stored).filter((s) => s.callId === callId),
        (found) => found.length >= 2,
      );
      await sleep(300);
      const again = (await calls()).filter((c) => c.callId === callId);
      expect(again, order).toEqual(rows);
    }
  });

  it('stores both ends once when their reports race, and refuses a third intercom claiming a taken end, changing nothing', async () => {
    const now = Date.now();
    const ttl = Math.floor(now / 1000) + 86_400;
    const callId = unique('race');
    const end = (deviceKey: string, direction: 'incoming' | 'outgoing', live: boolean) => ({
      deviceKey,
      direction,
      status: (direction === 'incoming' ? 1 : 2) as 1 | 2,
      startTime: new Date(now - 20_000).toISOString(),
      answerTime: new Date(now - 15_000).toISOString(),
      ...(live ? {} : { endTime: new Date(now - 5000).toISOString(), duration: 10 }),
      live,
      peerNumber: direction === 'incoming' ? '01' : '101',
      time: new Date(now).toISOString(),
    });
    const reports = [
      end(door.deviceKey, 'outgoing', true),
      end(monitor.deviceKey, 'incoming', true),
      end(door.deviceKey, 'outgoing', false),
      end(monitor.deviceKey, 'incoming', false),
    ];
    const outcomes = await Promise.all([...reports, ...reports].map((e) => storeCallEnd({ tenantId, callId, end: e, answeredStatus: 1, ttl })));
    expect(outcomes.filter((o) => o.stored === 'new')).toHaveLength(1);
    const [row] = (await calls()).filter((c) => c.callId === callId);
    expect(row!.ends.map((e) => [e.deviceKey, e.live])).toEqual([
      [door.deviceKey, false],
      [monitor.deviceKey, false],
    ]);
    expect((await calls()).filter((c) => c.callId === callId)).toHaveLength(1);
    // A third intercom reporting the same call as its caller is refused; the call stays as it was.
    const intruder = await bindIntercom(userCode, 'doorStation', clients);
    intruder.send([ended(ringing(callId, 'door'))]);
    const [refusal] = await ackFor(intruder, callId);
    expect(refusal).toMatchObject({ refused: true });
    expect((refusal as { reason: string }).reason).toMatch(/^callId: another intercom already reported this call/);
    expect((await calls()).filter((c) => c.callId === callId)).toEqual([row]);
  });

  it('counts and exports one row per call, the filter by intercom finding it from either end', async () => {
    const callId = unique('export');
    const d = ended(ringing(callId, 'door'));
    door.send([d]);
    monitor.send([ended(ringing(callId, 'monitor', d.startTime))]);
    await ackFor(door, callId);
    await ackFor(monitor, callId);
    const everything = await calls();
    expect(new Set(everything.map((c) => c.callId)).size).toBe(everything.length);
    const ofDoor = await calls(`&deviceKey=${door.deviceKey}`);
    const ofMonitor = await calls(`&deviceKey=${monitor.deviceKey}`);
    expect(ofDoor.filter((c) => c.callId === callId)).toHaveLength(1);
    expect(ofMonitor.filter((c) => c.callId === callId).map((c) => c.callKey)).toEqual(ofDoor.filter((c) => c.callId === callId).map((c) => c.callKey));
    const started = await call<{ jobKey: string }>('POST', '/v1/intercom/calls/exports', { token, body: {} });
    expect(started.body.code).toBe(202);
    const job = await until(
      async () => (await call<RecordExportJob>('GET', `/v1/intercom/calls/exports/${started.body.data.jobKey}`, { token })).body.data,
      (j) => j.state === 'done' || j.state === 'failed',
    );
    expect(job.state).toBe('done');
    const sheet = await readFirstSheet(Buffer.from(await (await fetch(job.url!)).arrayBuffer()));
    expect(sheet.length - 1).toBe((await calls()).length);
  });
});
