import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import './synthOutput.ts';

/**
 * Synthesizes and bundles the stack once per test run, for every project that asks (the CDK
 * tests and the bundles test), in a process of its own that starts with the run: the tests that
 * read its output wait for it (`synthesized()`), the others go on meanwhile.
 */
interface Shared {
  dir: string;
  child: ChildProcess;
  exited: Promise<void>;
  users: number;
}
const key = Symbol.for('passcloud.tests.synth');
const registry = globalThis as unknown as Record<symbol, Shared | undefined>;
const REPO_ROOT = resolve(import.meta.dirname, '../..');

export function setup(project: TestProject): void {
  let shared = registry[key];
  if (!shared) {
    const dir = mkdtempSync(join(tmpdir(), 'passcloud-synth-'));
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'synthStack.ts'), dir], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    const exited = new Promise<void>((done) => child.on('exit', () => done()));
    shared = { dir, child, exited, users: 0 };
    registry[key] = shared;
  }
  shared.users++;
  project.provide('synthDir', shared.dir);
}

export async function teardown(): Promise<void> {
  const shared = registry[key];
  if (!shared || --shared.users > 0) return;
  registry[key] = undefined;
  if (shared.child.exitCode === null) shared.child.kill();
  await shared.exited;
  rmSync(shared.dir, { recursive: true, force: true });
}
