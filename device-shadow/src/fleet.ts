import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { DeviceInfo } from '@passcloud/functions/contract/devices';
import { DeviceAgent, DeviceStoppedError } from './agent.ts';

/** A simulated fleet of face terminals: stable identities, and with `stateDir` the bindings they keep across restarts. */
export interface FleetOptions {
  apiUrl: string;
  userCode: string;
  count: number;
  /** Serial numbers are `<prefix>-<n>`; a prefix per tenant keeps fleets apart. */
  prefix?: string;
  heartbeatMs?: number;
  brokerUrl?: string;
  /** How many devices bind and connect at once. */
  concurrency?: number;
  /** Where each terminal keeps its binding (`<serial>.json`), so a restart reuses it; in memory when unset. */
  stateDir?: string;
}

export function simulatedInfo(prefix: string, n: number): DeviceInfo {
  const hash = createHash('sha256').update(`${prefix}-${n}`).digest();
  const mac = ['02', ...Array.from(hash.subarray(0, 5), (b) => b.toString(16).padStart(2, '0'))].join(':').toUpperCase();
  return {
    serial: `${prefix}-${String(n).padStart(4, '0')}`,
    mac,
    ip: `10.${hash[5]! % 250}.${Math.floor(n / 250) % 250}.${(n % 250) + 2}`,
    model: 'PC-F7',
    firmware: 'FT7-2.4.1',
    appVersion: '3.2.0',
    storage: { freeBytes: 11_600_000_000 - (hash[6]! % 100) * 10_000_000, totalBytes: 32_000_000_000 },
    timezone: 'UTC',
    cameraResolution: '1920x1080',
    previewResolution: '1280x720',
  };
}

export interface Fleet {
  agents: DeviceAgent[];
  stop(): Promise<void>;
}

export async function startFleet(options: FleetOptions): Promise<Fleet> {
  const prefix = options.prefix ?? 'SIM';
  const agents = Array.from(
    { length: options.count },
    (_, i) =>
      new DeviceAgent({
        apiUrl: options.apiUrl,
        userCode: options.userCode,
        info: simulatedInfo(prefix, i + 1),
        ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
        ...(options.brokerUrl ? { brokerUrl: options.brokerUrl } : {}),
        ...(options.stateDir ? { credentialsFile: join(options.stateDir, `${simulatedInfo(prefix, i + 1).serial}.json`) } : {}),
      }),
  );
  await startAgents(agents, options.concurrency ?? 10);
  return { agents, stop: () => stopAgents(agents) };
}

/**
 * Starts agents, `concurrency` at a time. A device that was deleted or replaced stays stopped and
 * the others run; any other failure stops them all and is thrown.
 */
export async function startAgents(agents: DeviceAgent[], concurrency = 10): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, agents.length) }, async () => {
    while (next < agents.length) {
      await agents[next++]!.start().catch((error: unknown) => {
        if (!(error instanceof DeviceStoppedError)) throw error;
      });
    }
  });
  const results = await Promise.allSettled(workers);
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    await stopAgents(agents);
    throw failure.reason;
  }
}

export const stopAgents = async (agents: DeviceAgent[]): Promise<void> => void (await Promise.allSettled(agents.map((a) => a.stop())));
