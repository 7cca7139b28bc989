import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resetClients } from '@passcloud/functions/lib/aws';
import { createTables, dataPaths, startDynamo, startS3, startSmtpSink, type CapturedMail } from './standins.ts';
import { startHost, type Host } from './host.ts';
import { seedDemo, type DemoTenant } from './seed.ts';

export const REPO_ROOT = resolve(fileURLToPath(import.meta.url), '../../..');

export interface LocalStackOptions {
  port?: number;
  host?: string;
  /** Where DynamoDB and S3 keep their files; DynamoDB runs in memory when `inMemory` is set. */
  dataDir: string;
  inMemory?: boolean;
  seed?: boolean;
  webRoot?: string;
}

export interface LocalStack {
  url: string;
  host: Host;
  mails: CapturedMail[];
  demo?: DemoTenant;
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * Starts everything `npm start` runs on one machine: DynamoDB Local, s3rver, the SMTP sink and
 * the HTTP host over the route table. The handlers reach the stand-ins through the same
 * environment variables a Lambda gets, plus the `*_ENDPOINT` overrides.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  const paths = dataPaths(options.dataDir);
  const [dynamo, s3, smtp] = await Promise.all([startDynamo(options.inMemory ? undefined : paths.dynamo), startS3(paths.s3), startSmtpSink()]);
  const env: Record<string, string> = {
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    DYNAMODB_ENDPOINT: dynamo.endpoint,
    S3_ENDPOINT: s3.endpoint,
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: String(smtp.port),
  };
  Object.assign(process.env, env);
  resetClients();
  await createTables(dynamo.endpoint);
  const { handlers } = await import('@passcloud/functions/resources/index');
  const seeded: { demo?: DemoTenant } = {};
  const host = await startHost({
    port: options.port ?? 3000,
    ...(options.host ? { host: options.host } : {}),
    handlers,
    webRoot: options.webRoot ?? resolve(REPO_ROOT, 'web/dist'),
    // Tools on this machine (benchmarks) reach the stand-ins directly through these endpoints.
    local: { mails: () => smtp.mails, env: () => ({ ...env, ...(seeded.demo ? { DEMO_TENANT: seeded.demo.tenantId } : {}) }) },
  });
  if (options.seed) seeded.demo = await seedDemo();
  const { demo } = seeded;
  let stopped = false;
  return {
    url: host.url,
    host,
    mails: smtp.mails,
    ...(demo ? { demo } : {}),
    env,
    async stop() {
      if (stopped) return;
      stopped = true;
      await host.close();
      await Promise.allSettled([smtp.stop(), s3.stop(), dynamo.stop()]);
    },
  };
}
