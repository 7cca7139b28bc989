import mqtt, { type MqttClient } from 'mqtt';
import { expect } from 'vitest';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { deviceTopics, type BindResult, type CallUp, type CallsAckMessage, type CommandMessage } from '@passcloud/functions/contract/protocol';
import { call, unique } from './api.ts';
import { until } from './wait.ts';

/** An intercom spoken for by hand: bound through the API, connected on its credentials, collecting what the cloud sends it. */
export interface Intercom {
  deviceKey: string;
  thing: string;
  client: MqttClient;
  acks: CallsAckMessage[];
  commands: CommandMessage[];
  send(calls: unknown[]): void;
}

/** Binds a device of `kind` with the company's binding code and connects it; `clients` collects the connections to end. */
export async function bindIntercom(code: string, kind: 'doorStation' | 'indoorMonitor' | 'faceTerminal', clients: MqttClient[]): Promise<Intercom> {
  const { serial, ...info } = simulatedInfo(unique('IC').toUpperCase(), 1);
  const answer = await call<BindResult>('POST', '/v1/devices/bind', { body: { kind, userCode: code, serial, info } });
  expect(answer.body.code, answer.body.message).toBe(201);
  const m = answer.body.data.mqtt;
  const client = await mqtt.connectAsync(m.url, { clientId: m.clientId, username: m.username, password: m.password, reconnectPeriod: 0, connectTimeout: 5000 });
  clients.push(client);
  const thing = answer.body.data.thingName;
  const acks: CallsAckMessage[] = [];
  const commands: CommandMessage[] = [];
  await client.subscribeAsync([deviceTopics(thing).callsAck, deviceTopics(thing).commands], { qos: 1 });
  client.on('message', (topic, payload) => {
    const message = JSON.parse(payload.toString()) as unknown;
    if (topic === deviceTopics(thing).callsAck) acks.push(message as CallsAckMessage);
    else commands.push(message as CommandMessage);
  });
  return {
    deviceKey: answer.body.data.deviceKey,
    thing,
    client,
    acks,
    commands,
    send: (calls) => client.publish(deviceTopics(thing).calls, JSON.stringify({ calls }), { qos: 1 }),
  };
}

/** The acks that name a call, once there is one. */
export const ackFor = (device: Intercom, callId: string) =>
  until(
    () => device.acks.flatMap((a) => [...a.stored, ...a.refused.map((r) => ({ ...r, refused: true as const }))]).filter((s) => s.callId === callId),
    (found) => found.length > 0,
  );

/** A call as both ends report it: the door station (number 01) calls monitor 101. */
export function ringing(callId: string, side: 'door' | 'monitor', start = Date.now() - 20_000): CallUp {
  return side === 'door'
    ? { callId, direction: 'outgoing', status: 3, peer: { number: '101' }, startTime: start }
    : { callId, direction: 'incoming', status: 3, peer: { number: '01' }, startTime: start };
}
export const answered = (c: CallUp): CallUp => ({ ...c, status: c.direction === 'incoming' ? 1 : 2, answerTime: c.startTime + 4000 });
export const ended = (c: CallUp, extra: Partial<CallUp> = {}): CallUp => ({ ...answered(c), endTime: c.startTime + 14_000, duration: 10, ...extra });
