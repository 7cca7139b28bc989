import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '@passcloud/infra/local/stack';

/**
 * Benchmarks of the local stack, printed (not asserted): start-up to first answer, login
 * latency (RSA-OAEP + scrypt), and the authenticated read path under concurrency.
 */
process.env.LOG_LEVEL = 'silent';
process.env.THROTTLE_ADDRESS_LIMIT = '100000';

const percentile = (values: number[], p: number): number => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

async function encrypt(publicKey: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('spki', Buffer.from(publicKey, 'base64'), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['encrypt']);
  return Buffer.from(await crypto.subtle.encrypt({ name: 'RSA-OAEP' }, key, new TextEncoder().encode(text))).toString('base64');
}

const dataDir = mkdtempSync(join(tmpdir(), 'passcloud-bench-'));
const started = performance.now();
const stack = await startLocalStack({ port: 0, dataDir, inMemory: true, seed: true });
const firstAnswer = await fetch(`${stack.url}/v1/systems/terms`);
const startMs = performance.now() - started;
if (firstAnswer.status !== 200) throw new Error('the local stack did not answer');

async function login(): Promise<{ token: string; ms: number }> {
  const t0 = performance.now();
  const security = (await (await fetch(`${stack.url}/v1/systems/security`, { method: 'POST' })).json()) as { data: { securityId: string; publicKey: string } };
  const { securityId, publicKey } = security.data;
  const res = await fetch(`${stack.url}/v1/systems/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ securityId, account: await encrypt(publicKey, 'admin'), password: await encrypt(publicKey, 'admin12345') }),
  });
  const body = (await res.json()) as { data: { token: string } };
  return { token: body.data.token, ms: performance.now() - t0 };
}

const logins: number[] = [];
let token = '';
for (let i = 0; i < 20; i++) {
  const result = await login();
  logins.push(result.ms);
  token = result.token;
}

const reads: number[] = [];
const total = 2000;
const concurrency = 16;
let next = 0;
const readStarted = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < total) {
      next++;
      const t0 = performance.now();
      const res = await fetch(`${stack.url}/v1/systems/me`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`me answered ${res.status}`);
      reads.push(performance.now() - t0);
    }
  }),
);
const readSeconds = (performance.now() - readStarted) / 1000;

console.log('\nPass Cloud local stack benchmarks');
console.log(`  start-up to first answer (DynamoDB Local, s3rver, SMTP sink, host, demo seed): ${fmt(startMs)}`);
console.log(`  login (security key + RSA-OAEP + scrypt N=2^17), ${logins.length} runs: p50 ${fmt(percentile(logins, 50))}, p95 ${fmt(percentile(logins, 95))}`);
console.log(
  `  GET /v1/systems/me, ${total} requests, ${concurrency} at a time: ${(total / readSeconds).toFixed(0)} req/s, p50 ${fmt(percentile(reads, 50))}, p95 ${fmt(percentile(reads, 95))}`,
);
console.log(`  host process peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);

await stack.stop();
rmSync(dataDir, { recursive: true, force: true });
