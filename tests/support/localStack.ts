import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork, type ChildProcess } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import type { DemoTenant } from '@passcloud/infra/local/seed';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    localEnv: Record<string, string>;
    demo: { tenantId: string; userCode: string; username: string; password: string };
  }
}

/**
 * One local stack (in-memory DynamoDB, s3rver and the SMTP sink in a temp folder) shared by every
 * project that asks for it, run in a process of its own (tests/support/stackProcess.ts) with the
 * settings below in its environment.
 */
interface Started {
  url: string;
  env: Record<string, string>;
  demo: DemoTenant;
}
interface Shared {
  started: Promise<Started>;
  child: ChildProcess;
  dataDir: string;
  users: number;
}
const key = Symbol.for('passcloud.tests.localStack');
const registry = globalThis as unknown as Record<symbol, Shared | undefined>;

export async function setup(project: TestProject): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  // Every test calls from 127.0.0.1, so the per-address limits are raised; tests of those limits
  // read the counters (tests/integration/throttles.test.ts).
  process.env.THROTTLE_ADDRESS_LIMIT ??= '1000';
  process.env.THROTTLE_KEYS_LIMIT ??= '100000';
  process.env.THROTTLE_CODEMAILS_LIMIT ??= '10000';
  process.env.THROTTLE_SURVEYLINKS_LIMIT ??= '10000';
  // Webhook replays a company may make in an hour: 40 here, so tests/integration/webhooks.test.ts reaches the limit with a few deliveries.
  process.env.THROTTLE_WEBHOOKREPLAYS_LIMIT ??= '40';
  // Requests an API key may make in a minute: 300 here, enough for the sweep's walk of the route table with one key, and few enough for tests/integration/apiKeys.test.ts to pass it.
  process.env.THROTTLE_APIKEY_LIMIT ??= '300';
  // Grants of more than 50 pairs go to the background worker, so tests reach it with a few people.
  process.env.GRANT_INLINE_PAIRS ??= '50';
  // And grants of more than 150 pairs are refused (tests/integration/passageGuards.test.ts).
  process.env.GRANT_MAX_PAIRS ??= '150';
  // A keyword list counts up to 300 people before it answers "at least", so tests reach that with a few hundred (tests/integration/peopleSearch.test.ts).
  process.env.PEOPLE_COUNT_LIMIT ??= '300';
  // Mails that failed for a while are tried again within a second or two, not minutes (tests/integration/mailRecords.test.ts).
  process.env.MAIL_RETRY_BASE_MS ??= '400';
  process.env.MAIL_RETRY_INTERVAL_MS ??= '200';
  // The companies' SMTP servers of the tests listen on 127.0.0.1 on any port, with a self-signed
  // certificate (tests/support/smtp.ts); the refusal of such servers is tested with the switch off
  // in the test processes (tests/integration/mailSettings.test.ts).
  process.env.SMTP_ALLOW_PRIVATE ??= '1';
  // Webhook retries wait tenths of seconds instead of minutes, and their 24-hour window shrinks alike (tests/integration/webhooks.test.ts).
  process.env.WEBHOOK_RETRY_UNIT_MS ??= '100';
  // Passwords are hashed at a low scrypt cost (N=2^10, 1 MiB) instead of production's 2^17: the
  // stack never sets this, and hashes record their cost, so one made at production's still verifies
  // (tests/integration/passwordCost.test.ts).
  process.env.PASSWORD_HASH_COST ??= '10';
  let shared = registry[key];
  if (!shared) {
    const dataDir = mkdtempSync(join(tmpdir(), 'passcloud-test-'));
    const child = fork(join(import.meta.dirname, 'stackProcess.ts'), [dataDir], { execArgv: ['--import', 'tsx'], env: process.env, stdio: 'inherit' });
    const started = new Promise<Started>((resolve, reject) => {
      child.once('message', (message) => resolve(message as Started));
      child.once('exit', (code) => reject(new Error(`the local stack stopped before it started (exit ${code})`)));
    });
    shared = { started, child, dataDir, users: 0 };
    registry[key] = shared;
  }
  shared.users++;
  const stack = await shared.started;
  project.provide('baseUrl', stack.url);
  project.provide('localEnv', { ...stack.env, PASSWORD_HASH_COST: process.env.PASSWORD_HASH_COST! });
  project.provide('demo', stack.demo);
}

export async function teardown(): Promise<void> {
  const shared = registry[key];
  if (!shared || --shared.users > 0) return;
  registry[key] = undefined;
  const { child, dataDir } = shared;
  if (child.exitCode === null) {
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.send('stop');
    await Promise.race([exited, new Promise((done) => setTimeout(done, 15_000).unref())]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  rmSync(dataDir, { recursive: true, force: true });
}
