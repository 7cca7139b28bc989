import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startLocalStack, type LocalStack } from '@passcloud/infra/local/stack';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    localEnv: Record<string, string>;
    demo: { tenantId: string; userCode: string; username: string; password: string };
  }
}

/**
 * One local stack (in-memory DynamoDB, s3rver and the SMTP sink in a temp folder) shared by every
 * project that asks for it: the handlers read their endpoints from the process environment, so
 * two stacks in one process would cross their wires.
 */
interface Shared {
  started: Promise<{ stack: LocalStack; dataDir: string }>;
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
  let shared = registry[key];
  if (!shared) {
    const dataDir = mkdtempSync(join(tmpdir(), 'passcloud-test-'));
    shared = { started: startLocalStack({ port: 0, dataDir, inMemory: true, seed: true }).then((stack) => ({ stack, dataDir })), users: 0 };
    registry[key] = shared;
  }
  shared.users++;
  const { stack } = await shared.started;
  project.provide('baseUrl', stack.url);
  project.provide('localEnv', stack.env);
  project.provide('demo', stack.demo!);
}

export async function teardown(): Promise<void> {
  const shared = registry[key];
  if (!shared || --shared.users > 0) return;
  registry[key] = undefined;
  const { stack, dataDir } = await shared.started;
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
