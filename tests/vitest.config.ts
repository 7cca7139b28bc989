import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default'],
    projects: [
      {
        test: { name: 'unit', include: ['unit/**/*.test.ts'], environment: 'node', env: { LOG_LEVEL: 'silent' } },
      },
      {
        test: {
          name: 'integration',
          include: ['integration/**/*.test.ts', 'security/**/*.test.ts'],
          globalSetup: ['support/localStack.ts'],
          setupFiles: ['support/localEnv.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // One local stack serves every file; scrypt is CPU-bound, so files run one at a time.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          expect: { poll: { timeout: 10_000, interval: 100 } },
          globalSetup: ['support/localStack.ts'],
          setupFiles: ['support/localEnv.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: { name: 'cdk', include: ['cdk/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 180_000 },
      },
    ],
  },
});
