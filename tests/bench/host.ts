import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { REPO_ROOT } from '@passcloud/infra/local/stack';
import { freePort } from '@passcloud/infra/local/standins';
import { resetClients } from '@passcloud/functions/lib/aws';

export const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Resident memory of a process, from /proc. */
export function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** Samples a process's resident memory while `work` runs. */
export async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peak: number }> {
  let peak = rssOf(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 50);
  try {
    const result = await work();
    return { result, peak };
  } finally {
    clearInterval(timer);
  }
}

export interface OwnHost {
  url: string;
  pid: number;
  /** The stand-ins' endpoints and the demo tenant, from `/_local/env`. */
  env: Record<string, string>;
}

/**
 * Runs `work` against a host of its own, started as `npm start` starts it (no simulated
 * devices), so the memory measured is the host's alone.
 */
export async function withOwnHost<T>(work: (host: OwnHost) => Promise<T>): Promise<T> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'passcloud-bench-host-'));
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'infra/local/main.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dir, SEED_DEMO: '1', SIMULATE_DEVICES: '0', LOG_LEVEL: 'silent', THROTTLE_ADDRESS_LIMIT: '100000', THROTTLE_KEYS_LIMIT: '100000', THROTTLE_CODEMAILS_LIMIT: '100000' },
    stdio: 'ignore',
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 600; i++) {
      const ready = await fetch(`${url}/v1/systems/terms`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    let env: Record<string, string> = {};
    // The host answers before the demo tenant is seeded; wait for it.
    for (let i = 0; i < 600 && !env.DEMO_TENANT; i++) {
      env = ((await (await fetch(`${url}/_local/env`)).json()) as { data: Record<string, string> }).data;
      if (!env.DEMO_TENANT) await new Promise((r) => setTimeout(r, 200));
    }
    Object.assign(process.env, { DYNAMODB_ENDPOINT: env.DYNAMODB_ENDPOINT, S3_ENDPOINT: env.S3_ENDPOINT });
    resetClients();
    return await work({ url, pid: child.pid!, env });
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}
