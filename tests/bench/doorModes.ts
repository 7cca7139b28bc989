import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import type { DeviceAgent } from '@passcloud/device-shadow/agent';
import type { DoorMode } from '@passcloud/functions/contract/doorModes';
import { issueLicenceCode } from '@passcloud/functions/domain/licence';
import { adminSession, fmt, percentile, resultLines } from './api.ts';
import type { OwnHost } from './host.ts';
import { figure } from './figures.ts';

/**
 * A lockdown for 50 connected terminals (or `terminals`): the time from the `PUT /v1/doorModes` to
 * each terminal applying it (the reference agent's mode, as it refuses passes from then on), and
 * to the last of them, over several lockdowns each ended before the next; and how long the PUT
 * itself takes, which must stay within the API's 29 s (infra/aws/api.ts). Goal: every terminal
 * within 5 s.
 */

export const DOOR_MODE_TERMINALS = 50;
const ROUNDS = 10;
const GOAL_SECONDS = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with the time (performance.now) at which every agent holds `mode`, and each agent's own time. */
function applied(agents: DeviceAgent[], mode: DoorMode, timeoutMs = 60_000): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const at = new Map<DeviceAgent, number>();
    const started = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      for (const agent of agents) if (!at.has(agent) && agent.doorMode.mode === mode) at.set(agent, now);
      if (at.size === agents.length) {
        clearInterval(timer);
        resolve(agents.map((a) => at.get(a)!));
      } else if (now - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error(`${agents.length - at.size} terminals never applied ${mode}`));
      }
    }, 2);
  });
}

export async function doorModesBench(host: OwnHost, terminals = DOOR_MODE_TERMINALS): Promise<string[]> {
  const { url } = host;
  const session = await adminSession(url);
  const api = async <T>(method: string, path: string, body?: unknown, confirm = false): Promise<T> => {
    const res = await fetch(url + path, {
      method,
      headers: {
        authorization: `Bearer ${session.token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(confirm ? { 'x-confirm-password': await session.confirm() } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const envelope = (await res.json()) as { code: number; message: string; data: T };
    if (envelope.code >= 300) throw new Error(`${method} ${path}: ${envelope.code} ${envelope.message}`);
    return envelope.data;
  };
  const now = new Date();
  const terms = {
    id: randomUUID(),
    seats: terminals + 100,
    expiresAt: new Date(now.getTime() + 86_400_000).toISOString(),
    issuedAt: now.toISOString(),
  };
  await api('POST', '/v1/licences', { activationCode: issueLicenceCode(readFileSync(host.env.LICENCE_PRIVATE_KEY_FILE!, 'utf8'), terms) });

  const lines = resultLines();
  let fleet: Fleet | undefined;
  try {
    fleet = await startFleet({
      apiUrl: url,
      userCode: host.env.DEMO_USER_CODE!,
      count: terminals,
      prefix: `DOOR${Date.now().toString(36).toUpperCase()}`,
      heartbeatMs: 60_000,
      concurrency: 20,
    });
    const agents = fleet.agents;
    const scope = { deviceKeys: agents.map((a) => a.deviceKey!) };
    // Every terminal has read its shadow once (normal) before the first lockdown.
    await applied(agents, 'normal');
    await sleep(1000);
    const each: number[] = [];
    const last: number[] = [];
    const answered: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const start = performance.now();
      const done = applied(agents, 'lockdown');
      await api('PUT', '/v1/doorModes', { mode: 'lockdown', scope, reason: `Bench lockdown ${round + 1}` }, true);
      answered.push(performance.now() - start);
      const times = (await done).map((t) => t - start);
      each.push(...times);
      last.push(Math.max(...times));
      const ended = applied(agents, 'normal');
      await api('PUT', '/v1/doorModes', { mode: 'normal', scope, reason: `Bench lockdown ${round + 1} ended` }, true);
      await ended;
      await sleep(500);
    }
    const lastP95 = percentile(last, 95)!;
    lines.push(
      `door modes: PUT lockdown to ${terminals} terminals applying it, ${ROUNDS} rounds: each terminal p50 ${fmt(percentile(each, 50))}, p95 ${fmt(percentile(each, 95))}; every terminal (the last of ${terminals}) p50 ${fmt(percentile(last, 50))}, p95 ${fmt(lastP95)} (goal ${GOAL_SECONDS} s); the PUT answered p50 ${fmt(percentile(answered, 50))}, p95 ${fmt(percentile(answered, 95))}`,
    );
    figure({
      area: 'doorModes',
      name: `lockdown applied by all ${terminals} terminals p95`,
      value: lastP95 / 1000,
      unit: 's',
      goal: GOAL_SECONDS,
      kind: 'max',
      note: `from the PUT to the last terminal's mode, ${ROUNDS} rounds`,
    });
    figure({ area: 'doorModes', name: 'lockdown applied by one terminal p95', value: percentile(each, 95)! / 1000, unit: 's' });
    figure({ area: 'doorModes', name: `PUT lockdown of ${terminals} terminals answered p95`, value: percentile(answered, 95)! / 1000, unit: 's', goal: 29, kind: 'max' });
  } finally {
    await fleet?.stop();
  }
  return lines;
}
