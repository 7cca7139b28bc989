import '../support/localEnv.ts';
import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import type { CallItem, CallPage, IntercomItem, IntercomPage, RecordingLink } from '@passcloud/functions/contract/intercom';
import { RECORDING_MAX_BYTES, deviceTopics } from '@passcloud/functions/contract/protocol';
import type { RecordExportJob } from '@passcloud/functions/contract/passRecords';
import { storeCallEnd } from '@passcloud/functions/data/intercomCalls';
import { presignedGet } from '@passcloud/functions/lib/storage';
import { readFirstSheet } from '@passcloud/functions/lib/xlsx';
import { call, login, newCompany, unique } from '../support/api.ts';
import { grantSeats } from '../support/licence.ts';
import { sleep, until } from '../support/wait.ts';
import { ackFor, answered, bindIntercom, ended, ringing, type Intercom } from '../support/intercoms.ts';

type Issues = { issues: { path: string; message: string }[] };

let token: string;
let tenantId: string;
let userCode: string;
let other: { token: string; userCode: string };
let door: Intercom;
let monitor: Intercom;
const clients: MqttClient[] = [];

const bind = (code: string, kind: 'doorStation' | 'indoorMonitor' | 'faceTerminal') => bindIntercom(code, kind, clients);

async function detail(deviceKey: string, as = token) {
  return call<IntercomItem & Issues>('GET', `/v1/intercom/devices/${deviceKey}`, { token: as });
}

async function setNumber(deviceKey: string, number: string | null) {
  const current = await detail(deviceKey);
  return call<IntercomItem & Issues>('PATCH', `/v1/intercom/devices/${deviceKey}`, { token, body: { number, version: current.body.data.version } });
}

async function calls(query = '', as = token) {
  return call<CallPage & Issues>('GET', `/v1/intercom/calls?pageSize=200${query}`, { token: as });
}
const callOf = async (deviceKey: string, callId: string) => (await calls(`&deviceKey=${deviceKey}`)).body.data.items.find((c) => c.callId === callId);
beforeAll(async () => {
  const owner = await newCompany();
  userCode = owner.userCode;
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.slice(0, token.indexOf('.'));
  await grantSeats(token, 20);
  const second = await newCompany();
  other = { token: (await login(second.username, second.password)).token, userCode: second.userCode };
  await grantSeats(other.token, 5);
  door = await bind(userCode, 'doorStation');
  monitor = await bind(userCode, 'indoorMonitor');
  expect((await setNumber(door.deviceKey, '01')).body.code).toBe(201);
  expect((await setNumber(monitor.deviceKey, '101')).body.code).toBe(201);
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.endAsync(true)));
});

describe('intercom devices', () => {
  it('lists intercoms apart from face terminals, each platform finding only its own', async () => {
    const terminal = await bind(userCode, 'faceTerminal');
    const list = await call<IntercomPage>('GET', '/v1/intercom/devices?pageSize=50', { token });
    expect(list.body.code).toBe(200);
    expect(list.body.data.items.map((d) => d.deviceKey).sort()).toEqual([door.deviceKey, monitor.deviceKey].sort());
    expect(list.body.data.total).toBe(2);
    expect(list.body.data.online + list.body.data.offline).toBe(2);
    const stations = await call<IntercomPage>('GET', '/v1/intercom/devices?kind=doorStation', { token });
    expect(stations.body.data.items.map((d) => d.deviceKey)).toEqual([door.deviceKey]);
    const byNumber = await call<IntercomPage>('GET', '/v1/intercom/devices?keyword=101', { token });
    expect(byNumber.body.data.items.map((d) => d.deviceKey)).toEqual([monitor.deviceKey]);
    const terminals = await call<{ items: { deviceKey: string }[] }>('GET', '/v1/devices?pageSize=50', { token });
    expect(terminals.body.data.items.map((d) => d.deviceKey)).toEqual([terminal.deviceKey]);
    expect((await call('GET', `/v1/devices/${door.deviceKey}`, { token })).status).toBe(404);
    expect((await detail(terminal.deviceKey)).status).toBe(404);
    const picked = await call<{ items: { deviceKey: string }[] }>('GET', '/v1/pickers/devices?pageSize=50', { token });
    expect(picked.body.data.items.map((d) => d.deviceKey)).toEqual([terminal.deviceKey]);
  });

  it('shows what a heartbeat reports: signal, client name, network access time', async () => {
    const { serial: _serial, ...info } = simulatedInfo('HB', 1);
    door.client.publish(deviceTopics(door.thing).heartbeat, JSON.stringify({ info: { ...info, signal: -61, clientName: 'PassTalk Door 2' } }), { qos: 1 });
    const shown = await until(
      () => detail(door.deviceKey),
      (a) => a.body.data.signal === -61,
    );
    expect(shown.body.data).toMatchObject({ kind: 'doorStation', number: '01', signal: -61, clientName: 'PassTalk Door 2', online: true });
    expect(shown.body.data.networkTime).not.toBeNull();
  });

  it('refuses a malformed number and a number another intercom has, changing nothing', async () => {
    const before = (await detail(monitor.deviceKey)).body.data;
    const bad = await call<Issues>('PATCH', `/v1/intercom/devices/${monitor.deviceKey}`, { token, body: { number: '1 0/1', version: before.version } });
    expect(bad.status).toBe(422);
    expect(bad.body.data.issues[0]!.path).toBe('number');
    const taken = await call<Issues & { field?: string }>('PATCH', `/v1/intercom/devices/${monitor.deviceKey}`, {
      token,
      body: { number: '01', version: before.version },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toContain('01');
    expect((await detail(monitor.deviceKey)).body.data).toEqual(before);
  });

  it('gives one number to one of two intercoms asking for it at once', async () => {
    const [a, b] = await Promise.all([bind(userCode, 'indoorMonitor'), bind(userCode, 'indoorMonitor')]);
    const answers = await Promise.all([setNumber(a.deviceKey, '555'), setNumber(b.deviceKey, '555')]);
    expect(answers.map((x) => x.body.code).sort()).toEqual([201, 409]);
    const holders = (await call<IntercomPage>('GET', '/v1/intercom/devices?keyword=555', { token })).body.data.items;
    expect(holders).toHaveLength(1);
    // Deleting the holder frees the number for the other.
    const holder = holders[0]!;
    expect((await call('DELETE', `/v1/intercom/devices/${holder.deviceKey}?version=${holder.version}`, { token })).body.code).toBe(204);
    const loser = holder.deviceKey === a.deviceKey ? b : a;
    expect((await setNumber(loser.deviceKey, '555')).body.code).toBe(201);
    expect((await detail(holder.deviceKey)).status).toBe(404);
  });
});

describe('calls', () => {
  it('stores each end’s report once, live then answered then ended, whatever is sent again', async () => {
    const callId = unique('call');
    const d = ringing(callId, 'door');
    const m = ringing(callId, 'monitor', d.startTime);
    door.send([d]);
    monitor.send([m]);
    await ackFor(door, callId);
    await ackFor(monitor, callId);
    let shown = await until(
      () => callOf(monitor.deviceKey, callId),
      (c) => !!c,
    );
    expect(shown).toMatchObject({
      live: true,
      status: 3,
      canOpenDoor: false,
      calling: { deviceKey: door.deviceKey, number: '01' },
      called: { deviceKey: monitor.deviceKey, number: '101' },
    });
    monitor.send([answered(m)]);
    // A ringing report arriving late changes nothing.
    monitor.send([m]);
    shown = await until(
      () => callOf(monitor.deviceKey, callId),
      (c) => c?.status === 1,
    );
    expect(shown).toMatchObject({ live: true, canOpenDoor: true, answerTime: new Date(m.startTime + 4000).toISOString() });
    for (let i = 0; i < 3; i++) monitor.send([ended(m)]);
    door.send([ended(d), ended(d)]);
    shown = await until(
      () => callOf(monitor.deviceKey, callId),
      (c) => c?.live === false,
    );
    await sleep(300);
    // One row for the call, with both ends' own reports.
    const all = (await calls()).body.data.items.filter((c) => c.callId === callId);
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      status: 1,
      duration: 10,
      live: false,
      recording: { state: 'none' },
      calling: { deviceKey: door.deviceKey },
      called: { deviceKey: monitor.deviceKey },
    });
    expect(all[0]!.ends).toHaveLength(2);
    expect(all[0]!.ends[0]).toMatchObject({ deviceKey: door.deviceKey, direction: 'outgoing', status: 2, duration: 10, live: false, peerNumber: '101' });
    expect(all[0]!.ends[1]).toMatchObject({ deviceKey: monitor.deviceKey, direction: 'incoming', status: 1, duration: 10, live: false, peerNumber: '01' });
    // Both intercoms' lists show that row.
    expect((await callOf(door.deviceKey, callId))!.callKey).toBe(all[0]!.callKey);
  });

  it('opens the door of the station when the answering monitor asks, and the call says when', async () => {
    const callId = unique('open');
    const m = answered(ringing(callId, 'monitor'));
    door.send([answered(ringing(callId, 'door', m.startTime))]);
    monitor.send([m]);
    await ackFor(door, callId);
    await ackFor(monitor, callId);
    monitor.client.publish(deviceTopics(monitor.thing).callOpenDoor, JSON.stringify({ callId }), { qos: 1 });
    const commands = await until(
      () => door.commands.filter((c) => c.callId === callId),
      (found) => found.length > 0,
    );
    expect(commands[0]).toMatchObject({ type: 'openDoor', callId });
    door.client.publish(deviceTopics(door.thing).commandResult, JSON.stringify({ commandKey: commands[0]!.commandKey, ok: true }), { qos: 1 });
    const opened = await until(
      () => callOf(monitor.deviceKey, callId),
      (c) => !!c?.doorOpenedAt,
    );
    expect(opened!.doorOpenedAt).not.toBeNull();
    expect((await callOf(door.deviceKey, callId))!.doorOpenedAt).toBe(opened!.doorOpenedAt);
  });

  it('opens it from the console during a live answered call, and refuses once the call has ended', async () => {
    const callId = unique('console');
    const m = answered(ringing(callId, 'monitor'));
    monitor.send([m]);
    await ackFor(monitor, callId);
    const row = (await until(
      () => callOf(monitor.deviceKey, callId),
      (c) => !!c,
    ))!;
    const sent = await call<{ commandKey: string }>('POST', `/v1/intercom/calls/${row.callKey}/openDoor`, { token });
    expect(sent.body.code).toBe(202);
    const command = await until(
      () => door.commands.find((c) => c.commandKey === sent.body.data.commandKey),
      (c) => !!c,
    );
    expect(command).toMatchObject({ type: 'openDoor', callId });
    // Another company cannot.
    expect((await call('POST', `/v1/intercom/calls/${row.callKey}/openDoor`, { token: other.token })).status).toBe(404);
    monitor.send([ended(m)]);
    await until(
      () => callOf(monitor.deviceKey, callId),
      (c) => c?.live === false,
    );
    const late = await call('POST', `/v1/intercom/calls/${row.callKey}/openDoor`, { token });
    expect(late.status).toBe(409);
  });

  it('opens no door the station’s own record does not show answered by that monitor', async () => {
    const refusals = async () =>
      (await call<{ items: { code: string; params: { error?: string } }[] }>('GET', `/v1/intercom/devices/${monitor.deviceKey}/logs?pageSize=50`, { token })).body.data.items
        .filter((l) => l.code === 'messageRefused')
        .map((l) => l.params.error ?? '');
    const ask = async (callId: string) => {
      const before = (await refusals()).length;
      monitor.client.publish(deviceTopics(monitor.thing).callOpenDoor, JSON.stringify({ callId }), { qos: 1 });
      const after = await until(refusals, (found) => found.length > before);
      return after[0];
    };
    const commandsBefore = door.commands.length;
    // The monitor claims a live, answered call from station 01 that never rang it.
    const forged = unique('forged');
    monitor.send([answered(ringing(forged, 'monitor'))]);
    await ackFor(monitor, forged);
    expect(await ask(forged)).toMatch(/door station reports no live call with this monitor/);
    // The station rang, but nobody answered at its end.
    const ringingOnly = unique('ringonly');
    door.send([ringing(ringingOnly, 'door')]);
    monitor.send([answered(ringing(ringingOnly, 'monitor'))]);
    await ackFor(door, ringingOnly);
    await ackFor(monitor, ringingOnly);
    expect(await ask(ringingOnly)).toMatch(/door station reports no live call with this monitor/);
    // The station's call was answered at another number.
    const elsewhere = unique('elsewhere');
    door.send([{ ...answered(ringing(elsewhere, 'door')), peer: { number: '999' } }]);
    monitor.send([answered(ringing(elsewhere, 'monitor'))]);
    await ackFor(door, elsewhere);
    await ackFor(monitor, elsewhere);
    expect(await ask(elsewhere)).toMatch(/door station reports no live call with this monitor/);
    expect(door.commands.length).toBe(commandsBefore);
  });

  it('a monitor asking for a door outside an answered call opens nothing', async () => {
    const callId = unique('nodoor');
    monitor.send([ringing(callId, 'monitor')]);
    await ackFor(monitor, callId);
    const before = door.commands.length;
    monitor.client.publish(deviceTopics(monitor.thing).callOpenDoor, JSON.stringify({ callId }), { qos: 1 });
    await sleep(1000);
    expect(door.commands.length).toBe(before);
  });

  it('takes a recording once through its presigned upload, and plays it only for its company', async () => {
    const callId = unique('rec');
    const bytes = Buffer.alloc(4000, 7);
    const report = ended(ringing(callId, 'monitor'), { recording: { contentType: 'audio/wav', size: bytes.length } });
    monitor.send([report]);
    const [ack] = await ackFor(monitor, callId);
    expect(ack).toMatchObject({ upload: { headers: { 'content-type': 'audio/wav', 'content-length': String(bytes.length) } } });
    const upload = (ack as { upload: { url: string; headers: Record<string, string> } }).upload;
    expect(upload.url).toMatch(new RegExp(`${tenantId}/recording/\\d{4}-\\d{2}-\\d{2}/${monitor.deviceKey}/`));
    const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: bytes });
    expect(put.status).toBe(200);
    const row = (await until(
      () => callOf(monitor.deviceKey, callId),
      (c) => c?.recording.state === 'ready',
    ))!;
    expect(row.recording).toEqual({ state: 'ready', contentType: 'audio/wav', size: bytes.length });
    const link = await call<RecordingLink>('GET', `/v1/intercom/calls/${row.callKey}/recording`, { token });
    expect(link.body.data).toMatchObject({ contentType: 'audio/wav', size: bytes.length, duration: 10 });
    expect(new URL(link.body.data.url).searchParams.get('X-Amz-Expires')).toBe('300');
    const played = await fetch(link.body.data.url);
    expect(Buffer.from(await played.arrayBuffer()).equals(bytes)).toBe(true);
    const download = await call<RecordingLink>('GET', `/v1/intercom/calls/${row.callKey}/recording?download=true`, { token });
    expect(new URL(download.body.data.url).searchParams.get('response-content-disposition')).toMatch(/^attachment; filename="recording-.*\.wav"$/);
    // Another company gets no link to it, by its key or by guessing.
    expect((await call('GET', `/v1/intercom/calls/${row.callKey}/recording`, { token: other.token })).status).toBe(404);
    // Sent again, the call is answered as stored with its recording.
    monitor.acks.length = 0;
    monitor.send([report]);
    const [again] = await ackFor(monitor, callId);
    expect(again).toEqual({ callId, recordingStored: true });
    expect((await calls(`&deviceKey=${monitor.deviceKey}`)).body.data.items.filter((c) => c.callId === callId)).toHaveLength(1);
  });

  it('a playback link stops working when it expires', async () => {
    const url = await presignedGet('recordings', tenantId, `recording/${monitor.deviceKey}/none.wav`, 1);
    await sleep(2100);
    const answer = await fetch(url);
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain('expired');
  });

  it('refuses a recording over the bound or of another type, and a body one byte over the signed size', async () => {
    const over = unique('over');
    const wrong = unique('mp3');
    const atBound = unique('bound');
    const missed = unique('missed');
    const base = (id: string) => ringing(id, 'monitor');
    monitor.send([
      ended(base(over), { recording: { contentType: 'audio/wav', size: RECORDING_MAX_BYTES + 1 } }),
      ended(base(wrong), { recording: { contentType: 'audio/mpeg', size: 1000 } }),
      ended(base(atBound), { recording: { contentType: 'audio/ogg', size: RECORDING_MAX_BYTES } }),
      { ...base(missed), endTime: Date.now() - 1000, recording: { contentType: 'audio/wav', size: 100 } },
    ]);
    const answers = await until(
      () => monitor.acks.flatMap((a) => a.stored).filter((s) => [over, wrong, atBound, missed].includes(s.callId)),
      (found) => found.length === 4,
    );
    const of = (id: string) => answers.find((a) => a.callId === id)!;
    expect(of(over).upload).toBeUndefined();
    expect(of(over).recordingRefused).toContain('recording.size');
    expect(of(wrong).upload).toBeUndefined();
    expect(of(wrong).recordingRefused).toContain('recording.contentType');
    expect(of(missed).upload).toBeUndefined();
    expect(of(missed).recordingRefused).toMatch(/not connected/);
    const link = of(atBound).upload!;
    expect(link.headers['content-length']).toBe(String(RECORDING_MAX_BYTES));
    const tooBig = await fetch(link.url, {
      method: 'PUT',
      headers: { ...link.headers, 'content-length': String(RECORDING_MAX_BYTES + 1) },
      body: Buffer.alloc(RECORDING_MAX_BYTES + 1),
    });
    expect(tooBig.status).toBe(403);
    const row = (await callOf(monitor.deviceKey, atBound))!;
    expect(row.recording.state).toBe('pending');
    expect((await call<Issues>('GET', `/v1/intercom/calls/${row.callKey}/recording`, { token })).status).toBe(404);
    expect((await callOf(monitor.deviceKey, over))!.recording.state).toBe('none');
  });

  it('shows an expired recording as expired and gives no link to it', async () => {
    const callId = unique('old');
    const start = Date.now() - 3 * 86_400_000;
    await storeCallEnd({
      tenantId,
      callId,
      answeredStatus: 1,
      ttl: Math.floor(Date.now() / 1000) + 86_400,
      end: {
        deviceKey: monitor.deviceKey,
        direction: 'incoming',
        status: 1,
        startTime: new Date(start).toISOString(),
        answerTime: new Date(start + 3000).toISOString(),
        endTime: new Date(start + 9000).toISOString(),
        duration: 6,
        live: false,
        peerNumber: '01',
        peerKey: door.deviceKey,
        recordingKey: `recording/${monitor.deviceKey}/${callId}.wav`,
        recordingType: 'audio/wav',
        recordingSize: 100,
        recordingUntil: new Date(Date.now() - 1000).toISOString(),
        time: new Date(start).toISOString(),
      },
    });
    const day = new Date(start).toISOString().slice(0, 10);
    const row = (await calls(`&from=${day}&to=${day}`)).body.data.items.find((c) => c.callId === callId)!;
    expect(row.recording.state).toBe('expired');
    const answer = await call('GET', `/v1/intercom/calls/${row.callKey}/recording`, { token });
    expect(answer.status).toBe(404);
  });

  it('refuses malformed calls by id and drops calls of devices that are not intercoms', async () => {
    const bad = unique('bad');
    monitor.send([{ callId: bad, direction: 'incoming', status: 2, peer: { number: '01' }, startTime: Date.now(), answerTime: Date.now() }]);
    const [refusal] = await ackFor(monitor, bad);
    expect(refusal).toMatchObject({ refused: true });
    expect((refusal as { reason: string }).reason).toContain('status');
    const terminal = await bind(userCode, 'faceTerminal');
    const dropped = unique('terminal');
    terminal.send([ringing(dropped, 'door')]);
    await sleep(1000);
    expect(terminal.acks).toEqual([]);
    expect((await calls()).body.data.items.some((c) => c.callId === dropped || c.callId === bad)).toBe(false);
    // Nor does an intercom's pass record become one.
    door.client.publish(
      deviceTopics(door.thing).records,
      JSON.stringify({ records: [{ recordId: unique('rec'), passState: 'passed', source: 'face', verifyTime: Date.now() }] }),
      { qos: 1 },
    );
    await sleep(1000);
    const passes = await call<{ items: unknown[] }>('GET', `/v1/passRecords?deviceKey=${door.deviceKey}`, { token });
    expect(passes.body.data.items).toEqual([]);
  });

  it('never resolves a number to another company’s intercom', async () => {
    const foreign = await bind(other.userCode, 'indoorMonitor');
    const current = await call<IntercomItem>('GET', `/v1/intercom/devices/${foreign.deviceKey}`, { token: other.token });
    expect(
      (await call('PATCH', `/v1/intercom/devices/${foreign.deviceKey}`, { token: other.token, body: { number: '777', version: current.body.data.version } }))
        .body.code,
    ).toBe(201);
    const callId = unique('foreign');
    door.send([{ ...ringing(callId, 'door'), peer: { number: '777' } }]);
    await ackFor(door, callId);
    const row = (await until(
      () => callOf(door.deviceKey, callId),
      (c) => !!c,
    ))!;
    expect(row.called).toEqual({ deviceKey: null, name: null, kind: null, number: '777' });
  });

  it('filters by status and device, pages with a cursor, and exports the list', async () => {
    const missed = (await calls('&status=3')).body.data.items;
    expect(missed.length).toBeGreaterThan(0);
    expect(missed.every((c: CallItem) => c.status === 3)).toBe(true);
    const bad = await call<Issues>('GET', '/v1/intercom/calls?status=9', { token });
    expect(bad.status).toBe(422);
    expect(bad.body.data.issues[0]!.path).toBe('status');
    const everything = (await calls()).body.data.items;
    const first = await call<CallPage>('GET', '/v1/intercom/calls?pageSize=2', { token });
    const second = await call<CallPage>('GET', `/v1/intercom/calls?pageSize=2&cursor=${encodeURIComponent(first.body.data.nextCursor!)}`, { token });
    expect([...first.body.data.items, ...second.body.data.items].map((c) => c.callKey)).toEqual(everything.slice(0, 4).map((c) => c.callKey));
    const started = await call<{ jobKey: string }>('POST', '/v1/intercom/calls/exports', { token, body: { deviceKey: door.deviceKey } });
    expect(started.body.code).toBe(202);
    const job = await until(
      async () => (await call<RecordExportJob>('GET', `/v1/intercom/calls/exports/${started.body.data.jobKey}`, { token })).body.data,
      (j) => j.state === 'done' || j.state === 'failed',
    );
    expect(job.state).toBe('done');
    const sheet = await readFirstSheet(Buffer.from(await (await fetch(job.url!)).arrayBuffer()));
    const ofDoor = (await calls(`&deviceKey=${door.deviceKey}`)).body.data.items;
    expect(sheet.length - 1).toBe(ofDoor.length);
    expect(sheet[0]).toContain('Call time');
    expect((await call('GET', `/v1/intercom/calls/exports/${started.body.data.jobKey}`, { token: other.token })).status).toBe(404);
  });
});
