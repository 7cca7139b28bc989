import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { issueLicenceCode } from '@passcloud/functions/domain/licence';
import type { DeviceAgent } from '@passcloud/device-shadow/agent';
import { adminToken, fmt, percentile, resultLines } from './api.ts';
import { mb, rssOf, type OwnHost } from './host.ts';
import { figure } from './figures.ts';

/**
 * Simulated face terminals against one local host, at 20 and then 200 devices: how long a
 * console PATCH takes to reach the device and to show as confirmed, how fast presence shows,
 * and what the host (API, broker, shadow service and rules in one process) holds in memory.
 */

interface Device {
  deviceKey: string;
  settings: { volume: number };
  online: boolean;
  pending: string[];
  version: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function devicesBench(host: OwnHost): Promise<string[]> {
  const { url, pid } = host;
  const token = await adminToken(url);
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const envelope = (await res.json()) as { code: number; message: string; data: T };
    if (envelope.code >= 300) throw new Error(`${method} ${path}: ${envelope.code} ${envelope.message}`);
    return envelope.data;
  };
  const read = (key: string) => api<Device>('GET', `/v1/devices/${key}`);
  const waitFor = async (key: string, check: (d: Device) => boolean) => {
    for (let i = 0; i < 2000; i++) {
      if (check(await read(key))) return;
      await sleep(10);
    }
    throw new Error(`device ${key} never reached the expected state`);
  };

  // 200 terminals need more than the demo licence's 100 seats: the local demo key issues more.
  const now = new Date();
  const terms = { id: randomUUID(), seats: 500, expiresAt: new Date(now.getTime() + 86_400_000).toISOString(), issuedAt: now.toISOString() };
  await api('POST', '/v1/licences', { activationCode: issueLicenceCode(readFileSync(host.env.LICENCE_PRIVATE_KEY_FILE!, 'utf8'), terms) });

  const lines = resultLines();
  await sleep(1000);
  const idle = rssOf(pid);
  lines.push(`devices: host RSS with no device connected ${mb(idle)}`);
  const fleets: Fleet[] = [];
  let agents: DeviceAgent[] = [];
  let volume = 10;
  try {
    for (const [count, prefix] of [
      [20, 'BENCH-A'],
      [180, 'BENCH-B'],
    ] as const) {
      const t0 = performance.now();
      const fleet = await startFleet({ apiUrl: url, userCode: host.env.DEMO_USER_CODE!, count, prefix, heartbeatMs: 10_000, concurrency: 20 });
      fleets.push(fleet);
      agents = [...agents, ...fleet.agents];
      for (let i = 0; i < 3000; i++) {
        const list = await api<{ online: number }>('GET', '/v1/devices?pageSize=1');
        if (list.online >= agents.length) break;
        await sleep(20);
      }
      const connectMs = performance.now() - t0;
      await sleep(1500);
      const rss = rssOf(pid);

      // One PATCH at a time: until the device applies it, and until the API shows it confirmed.
      const applied: number[] = [];
      const confirmed: number[] = [];
      for (let i = 0; i < 40; i++) {
        const agent = agents[(i * 7) % agents.length]!;
        const key = agent.deviceKey!;
        const current = await read(key);
        // Always a value the device does not have yet, or no delta would reach it.
        volume = (volume + 7) % 100;
        const target = volume === current.settings.volume ? (volume + 1) % 100 : volume;
        const appliedAt = new Promise<number>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`device ${key} never applied volume ${target}`)), 30_000);
          const off = agent.on((event) => {
            if (event.type === 'applied' && event.settings.volume === target) {
              clearTimeout(timer);
              off();
              resolve(performance.now());
            }
          });
        });
        const start = performance.now();
        await api('PATCH', `/v1/devices/${key}`, { settings: { volume: target }, version: current.version });
        applied.push((await appliedAt) - start);
        await waitFor(key, (d) => d.pending.length === 0);
        confirmed.push(performance.now() - start);
      }

      // One batch to every device.
      volume = (volume + 7) % 100;
      const batchTarget = volume;
      const batchStart = performance.now();
      const allApplied = Promise.all(
        agents.map(
          (agent) =>
            new Promise<void>((resolve) => {
              if (agent.settings.volume === batchTarget) return resolve();
              const off = agent.on((event) => {
                if (event.type === 'applied' && event.settings.volume === batchTarget) {
                  off();
                  resolve();
                }
              });
            }),
        ),
      );
      for (let i = 0; i < agents.length; i += 500) {
        await api('POST', '/v1/devices/batchSettings', { deviceKeys: agents.slice(i, i + 500).map((a) => a.deviceKey), settings: { volume: batchTarget } });
      }
      const batchAnsweredMs = performance.now() - batchStart;
      await allApplied;
      const batchAppliedMs = performance.now() - batchStart;

      // Presence: disconnect and reconnect a device, until the API shows it.
      const offline: number[] = [];
      const online: number[] = [];
      for (let i = 0; i < 10; i++) {
        const agent = agents[(i * 13) % agents.length]!;
        const key = agent.deviceKey!;
        let start = performance.now();
        await agent.stop();
        await waitFor(key, (d) => !d.online);
        offline.push(performance.now() - start);
        start = performance.now();
        await agent.start();
        await waitFor(key, (d) => d.online);
        online.push(performance.now() - start);
      }

      const n = agents.length;
      const pct = (values: number[]) => `p50 ${fmt(percentile(values, 50))}, p95 ${fmt(percentile(values, 95))}`;
      figure({ area: 'devices', name: `PATCH to device applied p95, ${n} devices`, value: percentile(applied, 95)!, unit: 'ms' });
      figure({ area: 'devices', name: `PATCH to shown confirmed p95, ${n} devices`, value: percentile(confirmed, 95)!, unit: 'ms' });
      figure({ area: 'devices', name: `presence offline p95, ${n} devices`, value: percentile(offline, 95)!, unit: 'ms' });
      figure({ area: 'devices', name: `host RSS per device, ${n} devices`, value: (rss - idle) / n / 1024, unit: 'KB' });
      lines.push(
        `devices (${n} connected): bound and online in ${(connectMs / 1000).toFixed(1)} s; host RSS ${mb(rss)} (+${mb(rss - idle)} over none, ${((rss - idle) / n / 1024).toFixed(0)} KB per device)`,
        `devices (${n}): console PATCH -> device applied ${pct(applied)}; -> shown confirmed in the API ${pct(confirmed)}`,
        `devices (${n}): one batch to all ${n}: answered in ${fmt(batchAnsweredMs)}, applied on every device in ${fmt(batchAppliedMs)}`,
        `devices (${n}): presence shown offline after disconnect ${pct(offline)}; online after connect ${pct(online)}`,
      );
    }
  } finally {
    await Promise.allSettled(fleets.map((f) => f.stop()));
  }
  return lines;
}
