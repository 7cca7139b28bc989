import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onDynamoClient, resetClients } from '@passcloud/functions/lib/aws';
import { resetIotClients } from '@passcloud/functions/lib/iot';
import { newLocalKey } from '@passcloud/functions/lib/secretBox';
import { clockOffset, setClockOffset } from '@passcloud/functions/lib/clock';
import { localWorkDone } from '@passcloud/functions/lib/localWork';
import { asFunction, enforceLocalRoles } from '@passcloud/functions/lib/localRole';
import { fieldError } from '@passcloud/functions/lib/errors';
import { startFleet, type Fleet } from '@passcloud/device-shadow/fleet';
import { startIot, type IotStandIn } from './iot.ts';
import { createTables, dataPaths, startDynamo, startS3, startSmtpSink, type CapturedMail } from './standins.ts';
import { startHost, type Host } from './host.ts';
import { journalWrites, partitionsOf } from './writeJournal.ts';
import { StackRoles, synthesizeRoles } from './roles.ts';
import type { Traffic } from '@passcloud/device-shadow/traffic';
import { startDemo } from './demo.ts';
import { startDemoIntercoms, type DemoIntercoms } from './demoIntercom.ts';
import type { IntercomFleet } from '@passcloud/device-shadow/intercomFleet';
import { seedDemo, type DemoTenant } from './seed.ts';
import { localLicenceKeys } from './licence.ts';
import { buildId } from '../buildId.ts';

export const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

export interface LocalStackOptions {
  port?: number;
  host?: string;
  /** Where DynamoDB and S3 keep their files; DynamoDB runs in memory when `inMemory` is set. */
  dataDir: string;
  inMemory?: boolean;
  seed?: boolean;
  webRoot?: string;
  /** Simulated face terminals started for the demo tenant (0 for none). */
  simulateDevices?: number;
  /** MQTT port of the IoT stand-in; any free port when unset. */
  mqttPort?: number;
  /**
   * The demo company's people and authorizations (infra/local/demo.ts), made in the background
   * after start, and the simulated terminals' passes a minute (0 for none).
   */
  demoData?: { trafficPerMinute: number };
  /** Simulated intercoms of the demo tenant (infra/local/demoIntercom.ts), and their calls a minute. */
  simulateIntercoms?: { doorStations: number; monitors: number; callsPerMinute: number };
  /**
   * The tests' hooks, never for a host people use: loopback callers may move the clock the
   * time-dependent rules read (`POST /_local/clock` with `{ offsetMs }`, read back by GET,
   * functions/lib/clock.ts) and
   * read which partitions of a company the host wrote (`GET /_local/partitions?tenant=`,
   * infra/local/writeJournal.ts), and wait until no background work is due or running
   * (`GET /_local/idle`, functions/lib/localWork.ts).
   */
  testHooks?: boolean;
  /**
   * Check every AWS call a function makes against that function's role as `cdk synth` writes it,
   * and refuse it as AWS would (infra/local/roles.ts). On unless `LOCAL_IAM=off`: the stack is
   * synthesized at start, which takes a few seconds.
   */
  enforceRoles?: boolean;
}

export interface LocalStack {
  url: string;
  host: Host;
  mails: CapturedMail[];
  demo?: DemoTenant;
  iot: IotStandIn;
  fleet?: Fleet;
  /** The demo tenant's simulated door stations and indoor monitors. */
  intercoms?: IntercomFleet;
  env: Record<string, string>;
  /** Settles when the demo data is ready and the traffic runs (or failed, which is reported). */
  demoReady?: Promise<void>;
  stop(): Promise<void>;
}

/** The test hook that moves the clock (`testHooks`): `{ offsetMs }` from the system clock, a whole number of milliseconds within a year. */
function moveClock(body: unknown): { offsetMs: number } {
  const offsetMs = (body as { offsetMs?: unknown } | null)?.offsetMs;
  if (typeof offsetMs !== 'number' || !Number.isInteger(offsetMs) || Math.abs(offsetMs) > 366 * 86_400_000) throw fieldError('offsetMs', 'issue.invalid', { field: 'offsetMs' });
  setClockOffset(offsetMs);
  return { offsetMs };
}

/**
 * Starts everything `npm start` runs on one machine: DynamoDB Local, s3rver, the SMTP sink and
 * the HTTP host over the route table. The handlers reach the stand-ins through the same
 * environment variables a Lambda gets, plus the `*_ENDPOINT` overrides.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const paths = dataPaths(options.dataDir);
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const enforceRoles = options.enforceRoles ?? process.env.LOCAL_IAM !== 'off';
  // Synthesized beside the stand-ins' start; awaited before any function runs.
  const synthesizing = enforceRoles ? synthesizeRoles(region) : undefined;
  synthesizing?.catch(() => undefined);
  const [dynamo, s3, smtp] = await Promise.all([startDynamo(options.inMemory ? undefined : paths.dynamo), startS3(paths.s3), startSmtpSink()]);
  Object.assign(process.env, { AWS_REGION: process.env.AWS_REGION ?? 'us-east-1', DYNAMODB_ENDPOINT: dynamo.endpoint, S3_ENDPOINT: s3.endpoint });
  resetClients();
  // The broker keeps its ports between runs, as IoT Core keeps its endpoint: terminals that kept
  // their binding (with the broker's address) connect again after a restart.
  const portsFile = join(options.dataDir, 'iot', 'ports.json');
  const saved = options.inMemory ? {} : await reusablePorts(portsFile, options.host ?? '127.0.0.1');
  const iot = await startIot({
    ...(options.host ? { host: options.host } : {}),
    ...((options.mqttPort ?? saved.mqtt) ? { mqttPort: options.mqttPort ?? saved.mqtt } : {}),
    ...(saved.ws ? { wsPort: saved.ws } : {}),
    ...(options.inMemory ? {} : { shadowFile: join(options.dataDir, 'iot', 'shadows.json') }),
  });
  if (!options.inMemory) {
    mkdirSync(dirname(portsFile), { recursive: true });
    writeFileSync(portsFile, JSON.stringify({ mqtt: new URL(iot.mqttUrl).port, ws: new URL(iot.wsUrl).port }));
  }
  const licenceKeys = localLicenceKeys(options.dataDir);
  const settingsKeyFile = localSettingsKey(options.dataDir);
  const env: Record<string, string> = {
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    LICENCE_PUBLIC_KEY: licenceKeys.publicKey,
    // Where the demo key is, for `npm run licence -- issue` and the tests on this machine.
    LICENCE_PRIVATE_KEY_FILE: licenceKeys.privateKeyFile,
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    S3_ENDPOINT: s3.endpoint,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
    // Secrets in settings (the SMTP password) are sealed with this key, where AWS uses KMS.
    SETTINGS_KEY_FILE: settingsKeyFile,
    IOT_DATA_ENDPOINT: iot.dataEndpoint,
    IOT_DATA_ACCESS_KEY_ID: iot.credentials.accessKeyId,
    IOT_DATA_SECRET_ACCESS_KEY: iot.credentials.secretAccessKey,
    IOT_MQTT_URL: iot.mqttUrl,
    IOT_WS_URL: iot.wsUrl,
    BUILD_ID: buildId(REPO_ROOT),
    // Every success's `data` is held to its route's declared answer (lib/http.ts): a drift from the
    // published document fails here, where AWS would only serve it.
    ANSWER_CHECK: '1',
  };
  Object.assign(process.env, env);
  resetClients();
  if (options.testHooks) onDynamoClient(journalWrites);
  resetIotClients();
  await createTables(dynamo.endpoint);
  // From here on every AWS call a function makes is checked against its role; clients made
  // before (the tables' creation) are dropped, so each function's calls go through the check.
  if (synthesizing) {
    enforceLocalRoles(new StackRoles(await synthesizing, region, (name) => process.env[name]));
    resetClients();
    resetIotClients();
  }
  const handlers = Object.fromEntries(
    Object.entries((await import('@passcloud/functions/resources/index')).handlers).map(([resource, handler]) => [resource, asFunction(`resources/${resource}`, handler)]),
  );
  // Background imports, grants (and a grant's pieces) and client package notices run in this process, where AWS would invoke the worker functions.
  const [{ runImportsInProcess, runInProcess }, { runImport }, { runGrant }, { runGrantPiece }, { sendPackageNotices }] = await Promise.all([
    import('@passcloud/functions/lib/jobs'),
    import('@passcloud/functions/jobs/imports'),
    import('@passcloud/functions/jobs/grants'),
    import('@passcloud/functions/jobs/grantPieces'),
    import('@passcloud/functions/jobs/packageNotices'),
  ]);
  runImportsInProcess(runImport);
  runInProcess('GRANT_WORKER_FUNCTION', runGrant);
  runInProcess('GRANT_PIECE_FUNCTION', runGrantPiece);
  runInProcess('PACKAGE_NOTICE_FUNCTION', async (notice: { tenantId: string; packageKey: string }) => void (await sendPackageNotices(notice)));
  // Webhook deliveries go through an in-process queue with the rules of the SQS queue on AWS.
  const [{ consumeWebhooksInProcess, stopLocalWebhookQueue }, { processDelivery }, { markWorkerFailed }] = await Promise.all([
    import('@passcloud/functions/lib/webhookQueue'),
    import('@passcloud/functions/jobs/webhookSender'),
    import('@passcloud/functions/data/webhookDeliveries'),
  ]);
  // Audit entries are added by their writer's code, with its role, where AWS queues them for it.
  const [{ addAuditInProcess }, { appendAudit }] = await Promise.all([import('@passcloud/functions/lib/audit'), import('@passcloud/functions/data/auditLog')]);
  addAuditInProcess(appendAudit);
  consumeWebhooksInProcess(
    asFunction('jobs/webhookSender', processDelivery),
    asFunction('jobs/webhookSender', (message) => markWorkerFailed(message.tenantId, message.webhookKey, message.eventId, message.event)),
  );
  // Mails that failed for a while are tried again here, where AWS runs the retry function every minute.
  const { retryDueMails } = await import('@passcloud/functions/lib/mail');
  const mailRetries = setInterval(() => {
    asFunction('jobs/mailRetry', retryDueMails)().catch((error: unknown) => console.warn(`mail retry failed: ${String(error)}`));
  }, Number(process.env.MAIL_RETRY_INTERVAL_MS ?? 60_000));
  mailRetries.unref();
  // The daily retention sweep (a scheduled function on AWS) runs in this process too.
  const { sweepRetention } = await import('@passcloud/functions/jobs/retention');
  const sweeper = setInterval(() => void asFunction('jobs/retention', sweepRetention)().catch((error: unknown) => console.error('retention sweep failed', error)), 24 * 3600_000);
  sweeper.unref();
  // DynamoDB Local keeps items past their TTL; the host deletes them every hour, as DynamoDB does on AWS.
  const { reapExpired } = await import('./ttlReaper.ts');
  const reaper = setInterval(() => void reapExpired().catch((error: unknown) => console.error('TTL reaper failed', error)), 3600_000);
  reaper.unref();
  // So do the licence reminders, once at start and then daily.
  const { sendLicenceReminders } = await import('@passcloud/functions/jobs/licenceReminders');
  const remind = () => void asFunction('jobs/licenceReminders', sendLicenceReminders)().catch((error: unknown) => console.error('licence reminders failed', error));
  const reminders = setInterval(remind, 24 * 3600_000);
  reminders.unref();
  // Attendance days close every hour, as each group's day ends in its own time zone.
  const { closeAttendanceDays } = await import('@passcloud/functions/jobs/attendanceClose');
  const closeDays = setInterval(() => void asFunction('jobs/attendanceClose', closeAttendanceDays)().catch((error: unknown) => console.error('attendance day close failed', error)), 3600_000);
  closeDays.unref();
  // The daily attendance summaries go at each company's own time of day.
  const { sendAttendanceSummaries } = await import('@passcloud/functions/jobs/attendanceMail');
  const summaries = setInterval(() => void asFunction('jobs/attendanceMail', sendAttendanceSummaries)().catch((error: unknown) => console.error('attendance summaries failed', error)), 5 * 60_000);
  summaries.unref();
  const seeded: { demo?: DemoTenant } = {};
  let open = (): void => undefined;
  const ready = new Promise<void>((resolvePromise) => (open = resolvePromise));
  const host = await startHost({
    ready,
    port: options.port ?? 3000,
    ...(options.host ? { host: options.host } : {}),
    handlers,
    webRoot: options.webRoot ?? resolve(REPO_ROOT, 'web/dist'),
    // Tools on this machine (benchmarks) reach the stand-ins directly through these endpoints.
    // The data plane's secret stays in this process: what holds it may open any door.
    local: {
      // `?to=` keeps the mails to one address (what a test reads its codes from).
      mails: (query) => {
        const to = query.get('to');
        return to ? smtp.mails.filter((mail) => mail.to.includes(to)) : smtp.mails;
      },
      ...(options.testHooks
        ? {
            partitions: (query: URLSearchParams) => partitionsOf(query.get('tenant') ?? ''),
            clock: () => ({ offsetMs: clockOffset() }),
            // Answers once no background work of this host is due or running (functions/lib/localWork.ts),
            // or says it is still busy after a minute: work that never ends is a failure to see, not to wait on.
            idle: async () => ({ idle: await localWorkDone(60_000) }),
          }
        : {}),
      env: () => {
        const { IOT_DATA_SECRET_ACCESS_KEY: _secret, ...shown } = env;
        return { ...shown, ...(seeded.demo ? { DEMO_TENANT: seeded.demo.tenantId, DEMO_USER_CODE: seeded.demo.userCode } : {}) };
      },
    },
    ...(options.testHooks ? { localActions: { clock: moveClock } } : {}),
  });
  // System settings name the API as devices and integrators reach it.
  env.API_BASE_URL = `${host.url}/v1`;
  process.env.API_BASE_URL = env.API_BASE_URL;
  // Links in mails (invitations) lead to the console: this host, unless CONSOLE_URL names another address.
  env.CONSOLE_URL = process.env.CONSOLE_URL || host.url;
  process.env.CONSOLE_URL = env.CONSOLE_URL;
  try {
    if (options.seed) seeded.demo = await seedDemo(licenceKeys.privateKeyFile);
  } finally {
    // The API answers from now on: the demo company can log in.
    open();
  }
  remind();
  const { demo } = seeded;
  const fleet =
    demo && options.simulateDevices
      ? await startFleet({
          apiUrl: host.url,
          userCode: demo.userCode,
          count: options.simulateDevices,
          prefix: 'DEMO',
          // Always this run's broker, even if the last run's ports were taken by something else.
          brokerUrl: iot.mqttUrl,
          // The terminals keep their bindings like real ones; a restart connects without binding again.
          ...(options.inMemory ? {} : { stateDir: join(options.dataDir, 'devices') }),
        })
      : undefined;
  const intercoms: DemoIntercoms | undefined =
    demo && options.simulateIntercoms && options.simulateIntercoms.doorStations + options.simulateIntercoms.monitors > 0
      ? await startDemoIntercoms({
          apiUrl: host.url,
          tenantId: demo.tenantId,
          userCode: demo.userCode,
          brokerUrl: iot.mqttUrl,
          ...options.simulateIntercoms,
          ...(options.inMemory ? {} : { stateDir: join(options.dataDir, 'devices') }),
        })
      : undefined;
  let traffic: Traffic | undefined;
  let stopped = false;
  const demoReady =
    demo && options.demoData
      ? startDemo(demo.tenantId, fleet, options.demoData.trafficPerMinute).then(
          (started) => {
            traffic = started;
            if (stopped) traffic?.stop();
          },
          (error: unknown) => console.error('demo data could not be prepared', error),
        )
      : undefined;
  return {
    url: host.url,
    host,
    mails: smtp.mails,
    ...(demo ? { demo } : {}),
    iot,
    ...(fleet ? { fleet } : {}),
    ...(intercoms ? { intercoms: intercoms.fleet } : {}),
    env,
    ...(demoReady ? { demoReady } : {}),
    async stop() {
      if (stopped) return;
      stopped = true;
      traffic?.stop();
      clearInterval(mailRetries);
      clearInterval(sweeper);
      clearInterval(closeDays);
      clearInterval(summaries);
      stopLocalWebhookQueue();
      await fleet?.stop();
      await intercoms?.stop();
      await iot.stop();
      await host.close();
      await Promise.allSettled([smtp.stop(), s3.stop(), dynamo.stop()]);
      enforceLocalRoles(undefined);
    },
  };
}

/** The local key that seals secrets in settings: made once in the data folder, readable by its owner only. */
function localSettingsKey(dataDir: string): string {
  const dir = join(dataDir, 'keys');
  const file = join(dir, 'settings.key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(file, newLocalKey(), { mode: 0o600, flag: 'wx' });
  }
  return file;
}

const portFree = (port: number, host: string) =>
  new Promise<boolean>((resolvePromise) => {
    const probe = createServer();
    probe.once('error', () => resolvePromise(false));
    probe.listen(port, host, () => probe.close(() => resolvePromise(true)));
  });

/** The broker ports of the last run, each only if it is still free. */
async function reusablePorts(file: string, host: string): Promise<{ mqtt?: number; ws?: number }> {
  if (!existsSync(file)) return {};
  try {
    const ports = JSON.parse(readFileSync(file, 'utf8')) as { mqtt?: unknown; ws?: unknown };
    const out: { mqtt?: number; ws?: number } = {};
    for (const name of ['mqtt', 'ws'] as const) {
      const port = Number(ports[name]);
      if (Number.isInteger(port) && port > 0 && (await portFree(port, host))) out[name] = port;
    }
    return out;
  } catch {
    return {};
  }
}
