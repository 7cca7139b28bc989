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

let stack: LocalStack | undefined;
let dataDir: string | undefined;

/** One local stack (in-memory DynamoDB, s3rver and the SMTP sink in a temp folder) for the integration run. */
export async function setup(project: TestProject): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  // Every test logs in from 127.0.0.1; the per-address limit is covered by the unit tests.
  process.env.THROTTLE_ADDRESS_LIMIT ??= '1000';
  dataDir = mkdtempSync(join(tmpdir(), 'passcloud-test-'));
  stack = await startLocalStack({ port: 0, dataDir, inMemory: true, seed: true });
  project.provide('baseUrl', stack.url);
  project.provide('localEnv', stack.env);
  project.provide('demo', stack.demo!);
}

export async function teardown(): Promise<void> {
  await stack?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
