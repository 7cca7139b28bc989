import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { REPO_ROOT, startLocalStack } from '@passcloud/infra/local/stack';
import { freePort } from '@passcloud/infra/local/standins';
import { resetClients } from '@passcloud/functions/lib/aws';
import { adminToken, apiBench, fmt } from './api.ts';
import { initialJsKb, lighthouseScore } from './web.ts';
import { peopleBench } from './people.ts';

/** `npm run bench`: figures printed, not asserted. Needs the console built (`npm run build`). */
process.env.LOG_LEVEL = 'silent';
process.env.THROTTLE_ADDRESS_LIMIT = '100000';

const dataDir = mkdtempSync(join(tmpdir(), 'passcloud-bench-'));
const started = performance.now();
const stack = await startLocalStack({ port: 0, dataDir, inMemory: true, seed: true });
const first = await fetch(`${stack.url}/v1/systems/terms`);
if (first.status !== 200) throw new Error('the local stack did not answer');
const lines = [`start-up to first answer (DynamoDB Local, s3rver, SMTP sink, host, demo seed): ${fmt(performance.now() - started)}`];

// `npm run bench -- --people-only` or `-- --no-people` run one half.
const peopleOnly = process.argv.includes('--people-only');
try {
  if (!peopleOnly) {
    lines.push(...(await apiBench(stack)));
    for (const path of ['/login', '/entrance']) {
      const js = await initialJsKb(stack.url, path);
      lines.push(`initial JavaScript of ${path}: ${js.kb.toFixed(1)} KB gzip in ${js.files} files (budget 170 KB)`);
    }
    for (const path of ['/login', '/entrance']) {
      const desktop = await lighthouseScore(stack.url + path, 'desktop');
      const mobile = await lighthouseScore(stack.url + path, 'mobile');
      lines.push(`Lighthouse performance of ${path}: desktop ${desktop} (budget 95), mobile slow 4G ${mobile}`);
    }
  }
  if (!process.argv.includes('--no-people')) lines.push(...(await peopleInItsOwnHost()));
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
/**
 * The people figures run against a host of their own, started as `npm start` starts it, so the
 * memory measured is the host's alone.
 */
async function peopleInItsOwnHost(): Promise<string[]> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'passcloud-bench-people-'));
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'infra/local/main.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), DATA_DIR: dir, SEED_DEMO: '1', LOG_LEVEL: 'silent', THROTTLE_ADDRESS_LIMIT: '100000' },
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
    return await peopleBench(url, await adminToken(url), env.DEMO_TENANT!, child.pid!);
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(['', 'Pass Cloud benchmarks', ...lines.map((l) => `  ${l}`), ''].join('\n'));
