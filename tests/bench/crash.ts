import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceAgent } from '@passcloud/device-shadow/agent';
import { simulatedInfo } from '@passcloud/device-shadow/fleet';
import { newPassRecord } from '@passcloud/device-shadow/records';
import type { PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { REPO_ROOT } from '@passcloud/infra/local/stack';
import { freePort } from '@passcloud/infra/local/standins';
import { adminToken } from './api.ts';
import { figure } from './figures.ts';

/**
 * The host killed with SIGKILL in the middle of an ingest, then started again on the same data:
 * every record the host had acknowledged to the terminal before it died must be there, and the
 * terminal, which keeps unacknowledged records in flash and sends them until acknowledged, must
 * end with every record stored exactly once.
 */
const RECORDS = 3000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function recordsCrashBench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'passcloud-crash-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const start = (): ChildProcess =>
    spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'infra/local/main.ts')], {
      cwd: REPO_ROOT,
      env: { ...process.env, PORT: String(port), DATA_DIR: join(dir, 'host'), SEED_DEMO: '1', SIMULATE_DEVICES: '0', LOG_LEVEL: 'silent', THROTTLE_ADDRESS_LIMIT: '100000', THROTTLE_KEYS_LIMIT: '100000' },
      stdio: 'ignore',
      // Its own process group: the kill takes DynamoDB Local and everything else the host started.
      detached: true,
    });
  const ready = async (): Promise<Record<string, string>> => {
    for (let i = 0; i < 900; i++) {
      try {
        const env = ((await (await fetch(`${url}/_local/env`)).json()) as { data: Record<string, string> }).data;
        if (env.DEMO_USER_CODE) return env;
      } catch {
        // not up yet
      }
      await sleep(200);
    }
    throw new Error('the host did not start');
  };
  const kill = (child: ChildProcess) => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };

  let host = start();
  let agent: DeviceAgent | undefined;
  try {
    const env = await ready();
    agent = new DeviceAgent({ apiUrl: url, userCode: env.DEMO_USER_CODE!, info: simulatedInfo('CRASH', 1), credentialsFile: join(dir, 'terminal', 'CRASH.json'), heartbeatMs: 60_000 });
    await agent.start();
    const ids = Array.from({ length: RECORDS }, (_, i) => `crash${String(i).padStart(5, '0')}`);
    for (const recordId of ids) agent.records.add(newPassRecord({ recordId, temperature: 36.5 }));
    while (agent.records.pending > (RECORDS * 2) / 3) await sleep(10);
    kill(host);
    const waiting = agent.records.pendingIds();
    const acknowledged = ids.filter((id) => !waiting.has(id));
    await sleep(1000);

    const restarted = performance.now();
    host = start();
    await ready();
    while (agent.records.pending > 0) {
      if (performance.now() - restarted > 15 * 60_000) throw new Error(`${agent.records.pending} records still unacknowledged`);
      await sleep(100);
    }
    const caughtUpMs = performance.now() - restarted;

    const token = await adminToken(url);
    const seen = new Map<string, number>();
    let cursor: string | null = null;
    do {
      const res: Response = await fetch(`${url}/v1/passRecords?pageSize=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
      const page: PassRecordPage = ((await res.json()) as { data: PassRecordPage }).data;
      for (const item of page.items) {
        const recordId = item.recordKey.split('.').at(-1)!;
        seen.set(recordId, (seen.get(recordId) ?? 0) + 1);
      }
      cursor = page.nextCursor;
    } while (cursor);
    const lost = acknowledged.filter((id) => !seen.has(id)).length;
    const missing = ids.filter((id) => !seen.has(id)).length;
    const duplicated = [...seen.values()].filter((n) => n > 1).length;
    figure({ area: 'records', name: 'acknowledged records lost after kill -9', value: lost, unit: '', goal: 0, kind: 'max' });
    figure({ area: 'records', name: 'records duplicated after kill -9', value: duplicated, unit: '', goal: 0, kind: 'max' });
    figure({ area: 'records', name: 'records missing after the resend', value: missing, unit: '', goal: 0, kind: 'max' });
    return [
      `crash: host killed with SIGKILL after ${acknowledged.length} of ${RECORDS} records were acknowledged; ${lost} of them lost after the restart (budget 0)`,
      `crash: the terminal resent the rest; ${RECORDS - missing} of ${RECORDS} stored, ${duplicated} duplicated, caught up ${(caughtUpMs / 1000).toFixed(1)} s after the restart`,
    ];
  } finally {
    await agent?.stop();
    kill(host);
    await sleep(500);
    rmSync(dir, { recursive: true, force: true });
  }
}
