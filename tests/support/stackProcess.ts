import { startLocalStack } from '@passcloud/infra/local/stack';

/**
 * The test stack in a process of its own (started by tests/support/localStack.ts): its event loop
 * serves the API, the broker and the in-process workers alone, so the test runner's own work
 * (transforming modules for each test file, reporting) never holds a request up. It tells its
 * parent where it listens, and stops when the parent says so or goes away.
 */
const dataDir = process.argv[2];
if (!dataDir || !process.send) throw new Error('usage: started by tests/support/localStack.ts with a data folder and an IPC channel');
const stack = await startLocalStack({ port: 0, dataDir, inMemory: true, seed: true, testHooks: true });
process.send({ url: stack.url, env: stack.env, demo: stack.demo });
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await stack.stop();
  process.exit(0);
};
process.on('message', (message) => {
  if (message === 'stop') void stop();
});
process.on('disconnect', () => void stop());
