import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulateCalls } from '@passcloud/device-shadow/callTraffic';
import { CallOutbox } from '@passcloud/device-shadow/calls';
import { Intercom } from '@passcloud/device-shadow/intercom';
import { intercomInfo } from '@passcloud/device-shadow/intercomFleet';
import { readWav, speechWav, speechWavSize } from '@passcloud/device-shadow/speech';
import type { IntercomKind } from '@passcloud/functions/contract/devices';
import {
  RECORDING_MAX_BYTES,
  callUp,
  callsAckMessage,
  callsMessage,
  deviceTopics,
  type BindResult,
  type CallUp,
  type CallsAckMessage,
  type CallsMessage,
  type CommandMessage,
  type CommandResultMessage,
} from '@passcloud/functions/contract/protocol';

/**
 * The simulated intercoms: the recordings they make are real WAV files of the length of the talk;
 * their calls stay until acknowledged, one report of a call on its way at a time, with the
 * recording uploaded to the link of the ack with exactly its headers; and a door station's call
 * played end to end against a cloud stand-in in memory (acks, the door opened through the
 * monitor's request) reports what the protocol asks.
 */

describe('speechWav', () => {
  it('writes a canonical RIFF/WAVE header of 16-bit mono PCM, and samples for exactly the duration', () => {
    for (const [seconds, sampleRate] of [
      [3, 8000],
      [7.5, 8000],
      [12, 16000],
    ] as const) {
      const wav = speechWav(seconds, { sampleRate, seed: 'call-1' });
      const samples = Math.round(seconds * sampleRate);
      expect(wav.length).toBe(44 + samples * 2);
      expect(wav.length).toBe(speechWavSize(seconds, sampleRate));
      expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
      expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
      expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
      expect(wav.readUInt32LE(16)).toBe(16);
      expect(wav.readUInt16LE(20)).toBe(1);
      expect(wav.readUInt16LE(22)).toBe(1);
      expect(wav.readUInt32LE(24)).toBe(sampleRate);
      expect(wav.readUInt32LE(28)).toBe(sampleRate * 2);
      expect(wav.readUInt16LE(32)).toBe(2);
      expect(wav.readUInt16LE(34)).toBe(16);
      expect(wav.toString('ascii', 36, 40)).toBe('data');
      expect(wav.readUInt32LE(40)).toBe(samples * 2);
      expect(readWav(wav)).toEqual({ format: 1, channels: 1, sampleRate, bitsPerSample: 16, samples, seconds: samples / sampleRate, dataOffset: 44 });
    }
  });

  it('is the same for the same seed, and sounds (not silence, not clipped, with pauses)', () => {
    const wav = speechWav(8, { seed: 'c-1' });
    expect(speechWav(8, { seed: 'c-1' }).equals(wav)).toBe(true);
    expect(speechWav(8, { seed: 'c-2' }).equals(wav)).toBe(false);
    const samples = new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) / 2);
    const peak = samples.reduce((m, s) => Math.max(m, Math.abs(s)), 0);
    expect(peak).toBeGreaterThan(10_000);
    expect(peak).toBeLessThan(32_767);
    // Loud 50 ms windows (syllables) and quiet ones (pauses) both.
    const window = 400;
    const levels = [];
    for (let at = 0; at + window <= samples.length; at += window) {
      let energy = 0;
      for (let i = at; i < at + window; i++) energy += samples[i]! ** 2;
      levels.push(Math.sqrt(energy / window));
    }
    expect(levels.filter((l) => l > 2000).length).toBeGreaterThan(levels.length / 5);
    expect(levels.filter((l) => l < 300).length).toBeGreaterThan(levels.length / 10);
  });

  it('stays far below the largest recording the cloud takes for the demo lengths', () => {
    expect(speechWavSize(12, 16000)).toBeLessThan(RECORDING_MAX_BYTES / 10);
    expect(readWav(Buffer.from('RIFF0000WAVE'))).toBeUndefined();
    expect(readWav(Buffer.from('not a wav file at all'))).toBeUndefined();
  });
});

// A cloud stand-in: intercoms whose MQTT client hands every publish to it.

interface Published {
  from: string;
  topic: string;
  message: unknown;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A storage stand-in: takes PUTs, answering `statuses` in turn (then 200), and keeps what came. */
async function storage(
  statuses: number[] = [],
): Promise<{ url: string; puts: { path: string; headers: Record<string, string | string[] | undefined>; body: Buffer }[] }> {
  const puts: { path: string; headers: Record<string, string | string[] | undefined>; body: Buffer }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      puts.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(statuses.shift() ?? 200).end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, puts };
}

let published: Published[];
beforeEach(() => {
  published = [];
});

/** An intercom bound and "connected" without a broker: what it publishes lands in `published`, or goes to `cloud`. */
function intercom(kind: IntercomKind, n: number, cloud?: (from: DeviceAgent, topic: string, message: unknown) => void): DeviceAgent {
  const agent = new DeviceAgent({ kind, apiUrl: 'http://127.0.0.1:9', userCode: 'ABCD2345', info: intercomInfo('UNIT', kind, n) });
  const deviceKey = `${kind === 'doorStation' ? 'door' : 'flat'}${String(n).padStart(12, '0')}`;
  agent.binding = { state: 'bound', resetCursor: true, deviceKey, thingName: `tenant000000001_${deviceKey}` } as BindResult;
  const client = {
    connected: true,
    publish(topic: string, payload: string) {
      const message: unknown = JSON.parse(payload);
      published.push({ from: deviceKey, topic, message });
      cloud?.(agent, topic, message);
    },
  };
  agent.client = client as unknown as MqttClient;
  return agent;
}

const topics = (agent: DeviceAgent) => deviceTopics(agent.binding!.thingName);
const sent = (agent: DeviceAgent, topic = topics(agent).calls) =>
  published.filter((p) => p.from === agent.deviceKey && p.topic === topic).map((p) => p.message);
const callsSent = (agent: DeviceAgent): CallUp[] => sent(agent).flatMap((m) => (m as CallsMessage).calls);
const logged = (agent: DeviceAgent) => agent.log.map((e) => (e.params ? `${e.code} ${JSON.stringify(e.params)}` : e.code));
const stored = (...calls: (string | Partial<CallsAckMessage['stored'][number]>)[]): CallsAckMessage => ({
  stored: calls.map((c) => (typeof c === 'string' ? { callId: c } : (c as CallsAckMessage['stored'][number]))),
  refused: [],
});

const START = 1_741_940_112_000;
const ringing = (callId: string, fields: Partial<CallUp> = {}): CallUp => ({
  callId,
  direction: 'outgoing',
  status: 3,
  peer: { number: '101' },
  startTime: START,
  ...fields,
});
const answered = (callId: string): CallUp => ringing(callId, { status: 2, answerTime: START + 4000 });
const ended = (callId: string, fields: Partial<CallUp> = {}): CallUp => ({ ...answered(callId), endTime: START + 19_000, duration: 15, ...fields });

describe('CallOutbox', () => {
  it('keeps a call until an ack names it, and sends it again after resendMs and after a reconnect', async () => {
    const agent = intercom('doorStation', 1);
    const outbox = new CallOutbox(agent, { resendMs: 20 });
    outbox.report(ringing('c-1'));
    expect(callsSent(agent)).toEqual([ringing('c-1')]);
    outbox.flush();
    expect(callsSent(agent)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 30));
    outbox.flush();
    expect(callsSent(agent)).toEqual([ringing('c-1'), ringing('c-1')]);
    outbox.onConnect();
    expect(callsSent(agent)).toHaveLength(3);
    outbox.stop();
    const delivered = outbox.delivered('c-1');
    outbox.onAck(stored('c-1'));
    await expect(delivered).resolves.toBe(true);
    expect(outbox.pending).toBe(0);
    await new Promise((r) => setTimeout(r, 30));
    outbox.flush();
    expect(callsSent(agent)).toHaveLength(3);
    expect(outbox.acknowledged).toBe(1);
  });

  it('has one report of a call on its way at a time: the next goes once the one before is acknowledged', () => {
    const agent = intercom('doorStation', 1);
    const outbox = new CallOutbox(agent, { resendMs: 60_000 });
    outbox.report(ringing('c-1'));
    outbox.report(answered('c-1'));
    outbox.report(ringing('c-2'));
    expect(callsSent(agent)).toEqual([ringing('c-1'), ringing('c-2')]);
    expect(outbox.find('c-1')).toEqual(answered('c-1'));
    outbox.onAck(stored('c-1'));
    expect(callsSent(agent).at(-1)).toEqual(answered('c-1'));
    // A late second answer to the ringing report is taken for the answered one: nothing is lost but a resend.
    outbox.report(ended('c-1'));
    outbox.onAck(stored('c-1'));
    expect(callsSent(agent).at(-1)).toEqual(ended('c-1'));
    outbox.onAck(stored('c-1', 'c-2'));
    expect(outbox.pending).toBe(0);
  });

  it('sends the newest report instead of one that went unacknowledged', async () => {
    const agent = intercom('doorStation', 1);
    const outbox = new CallOutbox(agent, { resendMs: 20 });
    outbox.report(ringing('c-1'));
    outbox.report(answered('c-1'));
    outbox.report(ended('c-1'));
    expect(callsSent(agent)).toEqual([ringing('c-1')]);
    await new Promise((r) => setTimeout(r, 30));
    outbox.flush();
    expect(callsSent(agent)).toEqual([ringing('c-1'), ended('c-1')]);
    outbox.onAck(stored('c-1'));
    expect(outbox.pending).toBe(0);
  });

  it('sends at most CALLS_PER_MESSAGE calls in a message', () => {
    const agent = intercom('indoorMonitor', 1);
    const outbox = new CallOutbox(agent);
    agent.client = { connected: false, publish: () => undefined } as unknown as MqttClient;
    for (let i = 0; i < 45; i++) outbox.report(ringing(`c-${i}`));
    agent.client = {
      connected: true,
      publish: (topic: string, payload: string) => published.push({ from: agent.deviceKey!, topic, message: JSON.parse(payload) }),
    } as unknown as MqttClient;
    outbox.flush();
    expect(sent(agent).map((m) => (m as CallsMessage).calls.length)).toEqual([20, 20, 5]);
    for (const message of sent(agent)) expect(callsMessage.safeParse(message).success).toBe(true);
  });

  it('uploads the recording to the link of the ack with exactly its headers, and logs it', async () => {
    const store = await storage();
    const agent = intercom('indoorMonitor', 1);
    const outbox = new CallOutbox(agent);
    const wav = speechWav(3, { seed: 'c-1' });
    outbox.report(ended('c-1', { direction: 'incoming', status: 1, peer: { number: '01' } }), wav);
    const announced = callsSent(agent)[0]!;
    expect(announced.recording).toEqual({ contentType: 'audio/wav', size: wav.length });
    expect(callUp.safeParse(announced).success).toBe(true);
    const headers = { 'content-type': 'audio/wav', 'content-length': String(wav.length) };
    outbox.onAck(stored({ callId: 'c-1', upload: { url: `${store.url}/recording/c-1.wav?X-Amz-Signature=abc`, headers } }));
    await outbox.settled();
    expect(store.puts).toHaveLength(1);
    expect(store.puts[0]!.path).toBe('/recording/c-1.wav?X-Amz-Signature=abc');
    expect(store.puts[0]!.headers['content-type']).toBe('audio/wav');
    expect(store.puts[0]!.headers['content-length']).toBe(String(wav.length));
    expect(store.puts[0]!.body.equals(wav)).toBe(true);
    expect(outbox.uploadCounts).toEqual({ ok: 1, failed: 0 });
    expect(logged(agent)).toContain('recordingUploaded');
    expect(outbox.pending).toBe(0);
  });

  it('passes over one answer that says nothing of an announced recording (a late answer to an earlier report)', () => {
    const agent = intercom('indoorMonitor', 1);
    const outbox = new CallOutbox(agent, { resendMs: 60_000 });
    outbox.report(ended('c-1'), speechWav(1));
    outbox.onAck(stored('c-1'));
    expect(outbox.pending).toBe(1);
    outbox.onAck(stored({ callId: 'c-1', recordingStored: true }));
    expect(outbox.pending).toBe(0);
  });

  it('announces a recording again for a fresh link when its upload fails, and gives up after two tries more', async () => {
    const store = await storage([403, 403, 403]);
    const agent = intercom('indoorMonitor', 1);
    const outbox = new CallOutbox(agent);
    const wav = speechWav(1);
    outbox.report(ended('c-1'), wav);
    const headers = { 'content-type': 'audio/wav', 'content-length': String(wav.length) };
    for (let round = 1; round <= 3; round++) {
      expect(callsSent(agent)).toHaveLength(round);
      outbox.onAck(stored({ callId: 'c-1', upload: { url: `${store.url}/r${round}`, headers } }));
      await outbox.settled();
    }
    expect(store.puts.map((p) => p.path)).toEqual(['/r1', '/r2', '/r3']);
    expect(callsSent(agent)).toHaveLength(3);
    expect(outbox.uploadCounts).toEqual({ ok: 0, failed: 1 });
    expect(logged(agent).at(-1)).toBe(`recordingFailed ${JSON.stringify({ error: 'call c-1: recording upload answered 403' })}`);
    expect(outbox.pending).toBe(0);
  });

  it('lets refused calls go with their reason, and notes refused recordings', () => {
    const agent = intercom('indoorMonitor', 1);
    const outbox = new CallOutbox(agent);
    outbox.report(ringing('c-1'));
    outbox.report(ended('c-2', { status: 3, answerTime: undefined, duration: undefined }), speechWav(1));
    outbox.onAck({
      stored: [{ callId: 'c-2', recordingRefused: 'recording: a call that was not connected has no recording' }],
      refused: [{ callId: 'c-1', reason: 'status: must be 1 for an incoming call and 2 for an outgoing one, or 3' }],
    });
    expect(outbox.pending).toBe(0);
    expect(outbox.refused).toEqual([{ callId: 'c-1', reason: 'status: must be 1 for an incoming call and 2 for an outgoing one, or 3' }]);
    expect(outbox.recordingsRefused).toEqual([{ callId: 'c-2', reason: 'recording: a call that was not connected has no recording' }]);
    expect(logged(agent)).toContain(
      `recordingFailed ${JSON.stringify({ error: 'call c-2: refused: recording: a call that was not connected has no recording' })}`,
    );
  });
});

describe('Intercom', () => {
  it('reports each end of a call live when it rings and when answered, then ended, as the protocol has it', () => {
    const door = Intercom.of(intercom('doorStation', 1));
    const flat = Intercom.of(intercom('indoorMonitor', 1));
    expect(Intercom.of(door.agent)).toBe(door);
    expect(() => new Intercom(new DeviceAgent({ apiUrl: 'http://127.0.0.1:9', userCode: 'ABCD2345', info: intercomInfo('UNIT', 'doorStation', 9) }))).toThrow(
      /not an intercom/,
    );
    const call = door.ring('101', { at: START });
    flat.ring('01', { callId: call.callId, direction: 'incoming', at: START });
    expect(door.busy && flat.busy).toBe(true);
    flat.answer(call.callId, START + 4000);
    door.answer(call.callId, START + 4000);
    door.agent.calls.onAck(stored(call.callId));
    flat.agent.calls.onAck(stored(call.callId));
    door.end(call.callId, { at: START + 19_400 });
    flat.end(call.callId, { at: START + 19_400, recording: true });
    door.agent.calls.onAck(stored(call.callId));
    flat.agent.calls.onAck(stored({ callId: call.callId, recordingStored: true }));
    const base = { callId: call.callId, startTime: START };
    expect(callsSent(door.agent)).toEqual([
      { ...base, direction: 'outgoing', status: 3, peer: { number: '101' } },
      { ...base, direction: 'outgoing', status: 2, peer: { number: '101' }, answerTime: START + 4000 },
      { ...base, direction: 'outgoing', status: 2, peer: { number: '101' }, answerTime: START + 4000, endTime: START + 19_400, duration: 15 },
    ]);
    expect(callsSent(flat.agent)).toEqual([
      { ...base, direction: 'incoming', status: 3, peer: { number: '01' } },
      { ...base, direction: 'incoming', status: 1, peer: { number: '01' }, answerTime: START + 4000 },
      {
        ...base,
        direction: 'incoming',
        status: 1,
        peer: { number: '01' },
        answerTime: START + 4000,
        endTime: START + 19_400,
        duration: 15,
        recording: { contentType: 'audio/wav', size: speechWavSize(15) },
      },
    ]);
    expect(door.busy || flat.busy).toBe(false);
    expect(logged(flat.agent)).toEqual([`callStarted ${JSON.stringify({ number: '01' })}`, `callEnded ${JSON.stringify({ number: '01', count: 15 })}`]);
    expect(() => door.end(call.callId)).toThrow(/has ended/);
  });

  it('reports a call nobody answered not connected', async () => {
    const door = Intercom.of(intercom('doorStation', 1));
    const call = door.ring('102', { at: START });
    await expect(door.openDoor(call.callId)).rejects.toThrow(/indoor monitor/);
    door.miss(call.callId, START + 30_000);
    expect(door.find(call.callId)).toEqual({
      callId: call.callId,
      direction: 'outgoing',
      status: 3,
      peer: { number: '102' },
      startTime: START,
      endTime: START + 30_000,
    });
    expect(logged(door.agent).at(-1)).toBe(`callMissed ${JSON.stringify({ number: '102' })}`);
  });
});

describe('simulateCalls', () => {
  /**
   * The cloud as far as the intercoms see it: it acks every call (with an upload link for an
   * announced recording), and turns a monitor's request for the door into an `openDoor` command
   * with the call's id for the door station whose number the monitor's call names.
   */
  function cloud(storageUrl: string, directory: Map<string, string>, agents: () => DeviceAgent[]) {
    const results: CommandResultMessage[] = [];
    const deliver = (agent: DeviceAgent, topic: string, message: unknown) =>
      setImmediate(() => (agent as unknown as { onMessage(topic: string, payload: Buffer): void }).onMessage(topic, Buffer.from(JSON.stringify(message))));
    const handle = (from: DeviceAgent, topic: string, message: unknown) => {
      const own = topics(from);
      if (topic === own.calls) {
        const calls = (message as CallsMessage).calls;
        const ack: CallsAckMessage = {
          stored: calls.map((c) => ({
            callId: c.callId,
            ...(c.recording && c.endTime
              ? {
                  upload: {
                    url: `${storageUrl}/${c.callId}.wav`,
                    headers: { 'content-type': c.recording.contentType, 'content-length': String(c.recording.size) },
                  },
                }
              : {}),
          })),
          refused: [],
        };
        deliver(from, own.callsAck, ack);
      } else if (topic === own.callOpenDoor) {
        const { callId } = message as { callId: string };
        const number = from.calls.find(callId)?.peer.number ?? Intercom.of(from).find(callId)?.peer.number;
        const station = agents().find((a) => directory.get(a.deviceKey!) === number)!;
        deliver(station, topics(station).commands, {
          commandKey: 'cmd00000000000001',
          type: 'openDoor',
          issuedAt: Date.now(),
          callId,
        } satisfies CommandMessage);
      } else if (topic === own.commandResult) {
        results.push(message as CommandResultMessage);
      }
    };
    return { handle, results };
  }

  it('plays a door station call end to end: ringing, answered, the door opened through the monitor, ended with a recording uploaded', async () => {
    const store = await storage();
    const directory = new Map<string, string>();
    const agents: DeviceAgent[] = [];
    const stand = cloud(store.url, directory, () => agents);
    const door = intercom('doorStation', 1, (...a) => stand.handle(...a));
    const flat = intercom('indoorMonitor', 1, (...a) => stand.handle(...a));
    agents.push(door, flat);
    directory.set(door.deviceKey!, '01').set(flat.deviceKey!, '101');
    const traffic = simulateCalls([door], [flat], directory, { perMinute: 0.0001 });
    const result = await traffic.callOnce({ answered: true, ringSeconds: 0.05, talkSeconds: 1.3, openDoorAfter: 0.1 });
    traffic.stop();
    expect(result).toMatchObject({ answered: true, doorAsked: true, aborted: false });
    await Promise.all([door.calls.delivered(result!.callId), flat.calls.delivered(result!.callId)]);
    await flat.calls.settled();
    const doorEnd = callsSent(door).at(-1)!;
    const flatEnd = callsSent(flat).at(-1)!;
    // About 1.3 s of talk, however the timers ran.
    const duration = Math.round((doorEnd.endTime! - doorEnd.answerTime!) / 1000);
    expect(duration).toBeGreaterThanOrEqual(1);
    expect(callsSent(door).map((c) => c.status)).toEqual([3, 2, 2]);
    expect(callsSent(flat).map((c) => c.status)).toEqual([3, 1, 1]);
    expect(doorEnd).toMatchObject({ callId: result!.callId, direction: 'outgoing', peer: { number: '101' }, duration });
    expect(flatEnd).toMatchObject({
      callId: result!.callId,
      direction: 'incoming',
      peer: { number: '01' },
      duration,
      recording: { contentType: 'audio/wav', size: speechWavSize(duration) },
    });
    expect(doorEnd.doorOpenedAt).toBeGreaterThanOrEqual(doorEnd.answerTime!);
    expect(doorEnd.doorOpenedAt).toBeLessThanOrEqual(doorEnd.endTime!);
    for (const call of [...callsSent(door), ...callsSent(flat)]) expect(callUp.safeParse(call).success).toBe(true);
    expect(sent(flat, topics(flat).callOpenDoor)).toEqual([{ callId: result!.callId }]);
    expect(stand.results).toEqual([{ commandKey: 'cmd00000000000001', ok: true }]);
    expect(logged(door)).toEqual([
      `callStarted ${JSON.stringify({ number: '101' })}`,
      'doorOpened',
      `callEnded ${JSON.stringify({ number: '101', count: duration })}`,
    ]);
    expect(store.puts).toHaveLength(1);
    expect(readWav(store.puts[0]!.body)).toMatchObject({ sampleRate: 8000, seconds: duration });
    expect(logged(flat)).toContain('recordingUploaded');
    expect(door.calls.pending + flat.calls.pending).toBe(0);
  });

  it('leaves out intercoms without a number, misses unanswered calls, and ends calls under way when stopped', async () => {
    const store = await storage();
    const directory = new Map<string, string>();
    const agents: DeviceAgent[] = [];
    const stand = cloud(store.url, directory, () => agents);
    const door = intercom('doorStation', 1, (...a) => stand.handle(...a));
    const flats = [1, 2].map((n) => intercom('indoorMonitor', n, (...a) => stand.handle(...a)));
    agents.push(door, ...flats);
    const traffic = simulateCalls([door], flats, directory, { perMinute: 0.0001 });
    await expect(traffic.callOnce()).resolves.toBeUndefined();
    directory.set(door.deviceKey!, '01').set(flats[0]!.deviceKey!, '101');
    const missed = await traffic.callOnce({ answered: false, ringSeconds: 0.05 });
    expect(missed).toMatchObject({ answered: false, aborted: false });
    expect(missed!.callee.agent).toBe(flats[0]);
    expect(callsSent(door).at(-1)).toMatchObject({ status: 3, endTime: expect.any(Number) });
    expect(logged(flats[0]!).at(-1)).toBe(`callMissed ${JSON.stringify({ number: '01' })}`);
    directory.set(flats[1]!.deviceKey!, '102');
    const internal = traffic.callOnce({ internal: true, answered: true, ringSeconds: 0.05, talkSeconds: 30 });
    await new Promise((r) => setTimeout(r, 200));
    expect(traffic.active).toBe(1);
    traffic.stop();
    const cut = await internal;
    expect(cut).toMatchObject({ answered: true, aborted: true, doorAsked: false });
    expect(cut!.caller.kind).toBe('indoorMonitor');
    const last = callsSent(cut!.callee.agent).at(-1)!;
    expect(last).toMatchObject({ status: 1, duration: 0 });
    expect(last.recording).toBeUndefined();
    expect(traffic.count).toBe(2);
    await expect(traffic.callOnce()).resolves.toBeUndefined();
  });
});

describe('docs/device-protocol.md, intercoms', () => {
  const doc = readFileSync(new URL('../../docs/device-protocol.md', import.meta.url), 'utf8');
  const blocks = (tag: string) =>
    [...doc.matchAll(new RegExp(`^\`\`\`json example=${tag}\\n([\\s\\S]*?)^\`\`\``, 'gm'))].map((m) => JSON.parse(m[1]!) as unknown);

  it('shows calls the cloud would take, and acks that fit them', () => {
    const calls = blocks('callsMessage').flatMap((m) => callsMessage.parse(m).calls.map((c) => callUp.parse(c)));
    expect(calls.length).toBeGreaterThanOrEqual(4);
    const announced = new Map(calls.filter((c) => c.recording).map((c) => [c.callId, c.recording!]));
    for (const recording of announced.values()) {
      expect(recording.size).toBeLessThanOrEqual(RECORDING_MAX_BYTES);
      if (recording.contentType === 'audio/wav') expect((recording.size - 44) % 2).toBe(0);
    }
    const acks = blocks('callsAckMessage').map((m) => callsAckMessage.parse(m));
    expect(acks.length).toBeGreaterThanOrEqual(2);
    for (const ack of acks) {
      for (const answer of ack.stored) {
        expect(calls.some((c) => c.callId === answer.callId)).toBe(true);
        if (!answer.upload) continue;
        const recording = announced.get(answer.callId)!;
        expect(answer.upload.headers).toEqual({ 'content-type': recording.contentType, 'content-length': String(recording.size) });
      }
    }
  });
});
