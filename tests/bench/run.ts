import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '@passcloud/infra/local/stack';
import { adminToken, apiBench, fmt } from './api.ts';
import { dashboardChunk, initialJsKb, lighthouseScore } from './web.ts';
import { captureToScreenBench } from './dashboard.ts';
import { attendanceBench, monthlyPageBench } from './attendance.ts';
import { peopleBench } from './people.ts';
import { devicesBench } from './devices.ts';
import { withOwnHost } from './host.ts';
import { recordsIngestBench, recordsListBench } from './records.ts';
import { faceSyncBench } from './faceSync.ts';
import { recordsCrashBench } from './crash.ts';
import { fleetBench, FLEET_TERMINALS } from './fleet.ts';
import { bundlesBench } from './bundles.ts';
import { webhooksBench } from './webhooks.ts';
import { DOOR_MODE_TERMINALS, doorModesBench } from './doorModes.ts';
import { figure, figures, missed, table, writeFigures, FIGURES_FILE, CHECK_TOLERANCE } from './figures.ts';

/**
 * `npm run bench`: every budget measured, printed as it comes, then as one table of goals and
 * figures, also written to tests/.artifacts/bench.json. `--check` exits non-zero when a goal is
 * missed by more than 10%. Needs the console built (`npm run build`).
 */
process.env.LOG_LEVEL = 'silent';
process.env.THROTTLE_ADDRESS_LIMIT = '100000';
process.env.THROTTLE_KEYS_LIMIT = '100000';
process.env.THROTTLE_CODEMAILS_LIMIT = '100000';

const dataDir = mkdtempSync(join(tmpdir(), 'passcloud-bench-'));
const started = performance.now();
const stack = await startLocalStack({ port: 0, dataDir, inMemory: true, seed: true });
const first = await fetch(`${stack.url}/v1/systems/terms`);
if (first.status !== 200) throw new Error('the local stack did not answer');
const startUpMs = performance.now() - started;
figure({ area: 'start', name: 'start-up to first answer', value: startUpMs / 1000, unit: 's', note: 'DynamoDB Local, s3rver, SMTP sink, host, demo seed' });
const lines = [`start-up to first answer (DynamoDB Local, s3rver, SMTP sink, host, demo seed): ${fmt(startUpMs)}`];

// `npm run bench -- --people-only`, `--devices-only`, `--no-people` or `--no-devices` run a part.
const peopleOnly = process.argv.includes('--people-only');
const devicesOnly = process.argv.includes('--devices-only');
// `--records-only` and `--no-records` likewise for pass records.
const recordsOnly = process.argv.includes('--records-only');
// `--sync-only` and `--no-sync` for face sync.
const syncOnly = process.argv.includes('--sync-only');
// `--crash-only` and `--no-crash` for the host killed during an ingest.
const crashOnly = process.argv.includes('--crash-only');
// `--dashboard-only` and `--no-dashboard` for the dashboard's capture feed and chunk.
const dashboardOnly = process.argv.includes('--dashboard-only');
// `--attendance-only` and `--no-attendance` for the attendance engine.
const attendanceOnly = process.argv.includes('--attendance-only');
// `--fleet-only` and `--no-fleet` for a thousand terminals at the stated traffic (`--fleet=N` for another count).
const fleetOnly = process.argv.includes('--fleet-only');
const fleetSize = Number(process.argv.find((a) => a.startsWith('--fleet='))?.slice('--fleet='.length) ?? FLEET_TERMINALS);
// `--bundles-only` and `--no-bundles` for the functions' bundle sizes and load times.
const bundlesOnly = process.argv.includes('--bundles-only');
// `--webhooks-only` and `--no-webhooks` for webhook delivery latency and ingest with webhooks on.
const webhooksOnly = process.argv.includes('--webhooks-only');
// `--web-only` and `--no-web` for the public pages' first load: initial JavaScript and Lighthouse.
const webOnly = process.argv.includes('--web-only');
// `--door-modes-only` and `--no-door-modes` for a lockdown reaching 50 terminals (`--door-modes=N` for another count).
const doorModesOnly = process.argv.includes('--door-modes-only');
const doorModeTerminals = Number(process.argv.find((a) => a.startsWith('--door-modes='))?.slice('--door-modes='.length) ?? DOOR_MODE_TERMINALS);
const only =
  peopleOnly ||
  devicesOnly ||
  recordsOnly ||
  syncOnly ||
  crashOnly ||
  dashboardOnly ||
  attendanceOnly ||
  fleetOnly ||
  bundlesOnly ||
  webhooksOnly ||
  webOnly ||
  doorModesOnly;
try {
  if (!only) lines.push(...(await apiBench(stack)));
  if (!process.argv.includes('--no-web') && (!only || webOnly)) {
    for (const path of ['/login', '/entrance']) {
      const js = await initialJsKb(stack.url, path);
      figure({
        area: 'web',
        name: `initial JavaScript of ${path}`,
        value: js.kb,
        unit: 'KB',
        goal: 170,
        kind: 'max',
        note: `gzip, ${js.files} files, until usable`,
      });
      lines.push(`initial JavaScript of ${path}: ${js.kb.toFixed(1)} KB gzip in ${js.files} files until usable (budget 170 KB)`);
    }
    for (const path of ['/login', '/entrance']) {
      const desktop = await lighthouseScore(stack.url + path, 'desktop');
      const mobile = await lighthouseScore(stack.url + path, 'mobile');
      figure({ area: 'web', name: `Lighthouse performance of ${path}, desktop`, value: desktop, unit: '', goal: 95, kind: 'min' });
      figure({ area: 'web', name: `Lighthouse performance of ${path}, mobile slow 4G`, value: mobile, unit: '' });
      lines.push(`Lighthouse performance of ${path}: desktop ${desktop} (budget 95), mobile slow 4G ${mobile}`);
    }
  }
  if (!process.argv.includes('--no-people') && (!only || peopleOnly)) {
    lines.push(...(await withOwnHost(async (host) => peopleBench(host.url, await adminToken(host.url), host.env.DEMO_TENANT!, host.pid))));
  }
  if (!process.argv.includes('--no-devices') && (!only || devicesOnly)) lines.push(...(await withOwnHost((host) => devicesBench(host))));
  if (!process.argv.includes('--no-door-modes') && (!only || doorModesOnly)) lines.push(...(await withOwnHost((host) => doorModesBench(host, doorModeTerminals))));
  if (!process.argv.includes('--no-records') && (!only || recordsOnly)) {
    lines.push(...(await withOwnHost((host) => recordsIngestBench(host))));
    lines.push(...(await recordsListBench(stack)));
  }
  if (!process.argv.includes('--no-sync') && (!only || syncOnly)) lines.push(...(await withOwnHost((host) => faceSyncBench(host))));
  if (!process.argv.includes('--no-crash') && (!only || crashOnly)) lines.push(...(await recordsCrashBench()));
  if (!process.argv.includes('--no-dashboard') && (!only || dashboardOnly)) {
    const chunk = dashboardChunk();
    figure({ area: 'dashboard', name: 'dashboard chunk', value: chunk.kb, unit: 'KB', note: 'gzip, loaded after login' });
    lines.push(`dashboard chunk: ${chunk.kb.toFixed(1)} KB gzip (${chunk.file}); nivo in ${chunk.nivoIn.length} chunk(s): ${chunk.nivoIn.join(', ')}`);
    const login = await initialJsKb(stack.url, '/login');
    lines.push(`initial JavaScript of /login beside the dashboard: ${login.kb.toFixed(1)} KB gzip in ${login.files} files (173.5 KB before the dashboard)`);
    lines.push(...(await withOwnHost((host) => captureToScreenBench(host))));
  }
  if (!process.argv.includes('--no-bundles') && (!only || bundlesOnly)) lines.push(...(await bundlesBench()));
  if (!process.argv.includes('--no-webhooks') && (!only || webhooksOnly)) lines.push(...(await webhooksBench()));
  if (!process.argv.includes('--no-fleet') && (!only || fleetOnly)) lines.push(...(await withOwnHost((host) => fleetBench(host, fleetSize))));
  if (!process.argv.includes('--no-attendance') && (!only || attendanceOnly)) {
    lines.push(...attendanceBench());
    lines.push(...(await monthlyPageBench(stack)));
  }
} catch (error) {
  // What was measured before the failure is still printed below; the run fails.
  console.error(error);
  process.exitCode = 1;
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
console.log(['', 'Pass Cloud benchmarks', ...lines.map((l) => `  ${l}`), ''].join('\n'));
console.log(table());
writeFigures();
console.log(`\nfigures written to ${FIGURES_FILE}`);
// `--check`: a goal missed by more than the tolerance fails the run.
if (process.argv.includes('--check')) {
  const failing = missed();
  if (failing.length) {
    console.error(`\n${failing.length} goal(s) missed by more than ${CHECK_TOLERANCE * 100}%: ${failing.map((f) => f.name).join('; ')}`);
    process.exitCode = 1;
  } else console.log(`\nevery goal met within ${CHECK_TOLERANCE * 100}% (${figures.filter((f) => f.goal !== undefined).length} goals)`);
}
