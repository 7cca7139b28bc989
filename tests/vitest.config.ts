import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import babel from '@rolldown/plugin-babel';
import { getConfig as linguiConfig } from '@lingui/conf';
import { lingui } from '@lingui/vite-plugin';
import RunOrder from './support/runOrder.ts';

/**
 * Integration, security and browser files run side by side against the one local stack: each
 * makes its own company (tests/support/api.ts `newCompany`), and the host waits on DynamoDB Local,
 * S3, MQTT and the browsers far more than it computes. The files below change something the
 * others share; they run after the rest, each for the reason given: those of AFTER two at a time
 * (none of them uses what another of them changes), then those of ALONE one at a time.
 */
export const AFTER: Record<string, string> = {
  'integration/bundles.test.ts': 'runs the scheduled functions (retention, attendance close, reminders, mail retries) over every company',
  'e2e/twoFactor.test.ts': 'moves the host’s clock',
  'e2e/settings.test.ts': 'logs in as the demo owner, which ends that account’s other sessions, to show what only the owner sees',
};
export const ALONE: Record<string, string> = {
  'integration/auth.test.ts': 'logs in as the demo owner, which ends that account’s other sessions, and compares answer times',
  'integration/register.test.ts': 'compares the answer times of known and unknown names, and counts every mail the host captured',
  'integration/throttles.test.ts': 'counts the failures of the address every test calls from',
  'integration/attendanceDays.test.ts': 'runs the nightly close of attendance days over every company',
  'integration/twoFactor.test.ts': 'moves the host’s clock',
  'security/catalogueAuthentication.test.ts': 'drives the throttle of the address every test calls from to its limit, and compares answer times',
};

const under = (list: Record<string, string>, folders: string[]) => Object.keys(list).filter((file) => folders.some((folder) => file.startsWith(`${folder}/`)));

/** Workers for the files that run side by side: two cores are kept busy by four files waiting on I/O. */
const PARALLEL_WORKERS = 4;

const integration = {
  globalSetup: ['support/localStack.ts', 'support/synth.ts'],
  setupFiles: ['support/localEnv.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

/** The console's own lingui config: its catalogs (the English one the component tests activate) and its macros. */
const WEB_LINGUI = new URL('../web/lingui.config.ts', import.meta.url).pathname;

const e2e = {
  // A poll that succeeds ends at once; the bound is for a page whose answers come slowly while other files run beside it.
  expect: { poll: { timeout: 20_000, interval: 100 } },
  globalSetup: ['support/localStack.ts'],
  setupFiles: ['support/localEnv.ts'],
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    reporters: ['default'],
    sequence: { sequencer: RunOrder },
    projects: [
      {
        test: { name: 'unit', include: ['unit/**/*.test.ts'], environment: 'node', env: { LOG_LEVEL: 'silent' }, maxWorkers: PARALLEL_WORKERS },
      },
      {
        // Console components rendered in jsdom as the app renders them: the console's JSX, Lingui macros and catalogs.
        plugins: [
          react(),
          babel({ plugins: [['@lingui/babel-plugin-lingui-macro', { linguiConfig: linguiConfig({ configPath: WEB_LINGUI }) }]] }),
          lingui({ configPath: WEB_LINGUI }),
        ],
        test: {
          name: 'component',
          include: ['component/**/*.test.tsx'],
          environment: 'jsdom',
          setupFiles: ['component/setup.tsx'],
          // The projects that run side by side share one worker count (vitest refuses a group whose counts differ).
          maxWorkers: PARALLEL_WORKERS,
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'cdk',
          include: ['cdk/**/*.test.ts'],
          globalSetup: ['support/synth.ts'],
          testTimeout: 600_000,
          hookTimeout: 600_000,
          maxWorkers: PARALLEL_WORKERS,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['integration/**/*.test.ts', 'security/**/*.test.ts'],
          exclude: [...under(AFTER, ['integration', 'security']), ...under(ALONE, ['integration', 'security'])],
          maxWorkers: PARALLEL_WORKERS,
          ...integration,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['e2e/**/*.test.ts'],
          exclude: [...under(AFTER, ['e2e']), ...under(ALONE, ['e2e'])],
          maxWorkers: PARALLEL_WORKERS,
          ...e2e,
        },
      },
      {
        test: { name: 'integration-after', include: under(AFTER, ['integration', 'security']), maxWorkers: 2, sequence: { groupOrder: 1 }, ...integration },
      },
      {
        test: { name: 'e2e-after', include: under(AFTER, ['e2e']), maxWorkers: 2, sequence: { groupOrder: 1 }, ...e2e },
      },
      {
        test: { name: 'integration-alone', include: under(ALONE, ['integration', 'security']), maxWorkers: 1, sequence: { groupOrder: 2 }, ...integration },
      },
    ],
  },
});
