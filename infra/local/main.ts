import { resolve } from 'node:path';
import { REPO_ROOT, startLocalStack } from './stack.ts';

/** `npm start`: the whole product on one machine. */
const started = Date.now();
const port = Number(process.env.PORT ?? 3000);
const dataDir = resolve(REPO_ROOT, process.env.DATA_DIR ?? '.data');
const seed = process.env.SEED_DEMO !== '0';

process.env.LOG_LEVEL ??= 'warn';
const stack = await startLocalStack({ port, dataDir, seed, ...(process.env.HOST ? { host: process.env.HOST } : {}) });

const lines = [
  '',
  `  Pass Cloud is running at ${stack.url}  (ready in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
  `  Data directory: ${dataDir}`,
  `  Captured mails: ${stack.url}/_local/mails`,
];
if (stack.demo) {
  lines.push(`  Demo tenant "Demo Company": username ${stack.demo.username}  password ${stack.demo.password}  device binding code ${stack.demo.userCode}`);
}
lines.push('  Press Ctrl-C to stop.', '');
console.log(lines.join('\n'));

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('\n  Stopping...');
    stack.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
