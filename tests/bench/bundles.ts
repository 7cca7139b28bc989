import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { PassCloudStack } from '@passcloud/infra/aws/stack';
import { HandlerFunction } from '@passcloud/infra/aws/api';
import { bundleHandler, bundleSize, functionName } from '@passcloud/infra/aws/bundle';
import { BUNDLE_BUDGETS_KB } from '@passcloud/infra/aws/bundleBudgets';
import { loadMillis } from '../support/bundles.ts';
import { figure } from './figures.ts';

/** The module load goal of every function, in a fresh Node process. */
const LOAD_GOAL_MS = 100;

/**
 * Function bundles: every function of the stack is bundled as the stack bundles it
 * (infra/aws/bundle.ts), its size at start (`index.mjs` and the chunks it imports statically,
 * KB minified) set beside its budget (infra/aws/bundleBudgets.ts), and its module load time
 * measured in fresh Node processes (median of 5).
 */
export async function bundlesBench(): Promise<string[]> {
  // The stack's functions, built without bundling; each entry is then bundled here.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new PassCloudStack(app, 'PassCloudBundleBench', { mailFrom: 'no-reply@example.com', env: { account: '123456789012', region: 'eu-west-1' } });
  const entries = [...new Set(stack.node.findAll().filter((c): c is HandlerFunction => c instanceof HandlerFunction).map((fn) => fn.entry))];
  const dir = mkdtempSync(join(tmpdir(), 'passcloud-bundle-bench-'));
  const lines: string[] = [];
  const loads: { name: string; ms: number }[] = [];
  const sizes: { name: string; kb: number }[] = [];
  try {
    for (const entry of entries.sort()) {
      const name = functionName(entry);
      const out = join(dir, name.replace(/\//g, '-'));
      bundleHandler(entry, out);
      const size = bundleSize(out);
      const kb = size.startBytes / 1024;
      const ms = await loadMillis(join(out, 'index.mjs'), 5);
      loads.push({ name, ms });
      sizes.push({ name, kb });
      figure({ area: 'bundles', name: `${name} size`, value: kb, unit: 'KB', goal: BUNDLE_BUDGETS_KB[name] ?? 0, kind: 'max', note: `at start; +${(size.lazyBytes / 1024).toFixed(0)} KB loaded on use` });
      figure({ area: 'bundles', name: `${name} load`, value: ms, unit: 'ms', goal: LOAD_GOAL_MS, kind: 'max', note: 'import in a fresh Node process, median of 5' });
      lines.push(`bundles: ${name.padEnd(28)} ${kb.toFixed(0).padStart(5)} KB at start (budget ${BUNDLE_BUDGETS_KB[name] ?? 'none'}), ${(size.lazyBytes / 1024).toFixed(0).padStart(5)} KB on use, load ${ms.toFixed(1)} ms`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // The aim of a function bundle: 150 KB at start where the clients it needs allow (they do not yet: see infra/aws/bundleBudgets.ts).
  const largest = sizes.reduce((a, b) => (b.kb > a.kb ? b : a));
  figure({ area: 'bundles', name: 'largest bundle at start', value: largest.kb, unit: 'KB', goal: 150, kind: 'max', note: largest.name });
  const slowest = loads.reduce((a, b) => (b.ms > a.ms ? b : a));
  figure({ area: 'bundles', name: 'largest load time', value: slowest.ms, unit: 'ms', goal: LOAD_GOAL_MS, kind: 'max', note: slowest.name });
  lines.push(`bundles: slowest load ${slowest.name} ${slowest.ms.toFixed(1)} ms (goal ${LOAD_GOAL_MS} ms)`);
  return lines;
}
