import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { env } from './env.ts';
import { guardClient } from './localRole.ts';

/**
 * AWS clients. On AWS they use the function's role; on the local host the `*_ENDPOINT`
 * variables point them at the stand-ins (DynamoDB Local, s3rver).
 */
const region = env('AWS_REGION') ?? 'us-east-1';
const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

let documentClient: DynamoDBDocumentClient | undefined;
/** What the local host does with each new DynamoDB client (infra/local/writeJournal.ts); nothing on AWS. */
let onNewDynamo: ((client: DynamoDBDocumentClient) => void) | undefined;
export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    const endpoint = env('DYNAMODB_ENDPOINT');
    const client = new DynamoDBClient(endpoint ? { region, endpoint, credentials: localCredentials } : { region });
    guardClient(client, 'dynamodb');
    documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    onNewDynamo?.(documentClient);
  }
  return documentClient;
}

/** Hands every DynamoDB client this process makes from now on to `hook` (the local host and its tests). */
export function onDynamoClient(hook: (client: DynamoDBDocumentClient) => void): void {
  onNewDynamo = hook;
  documentClient = undefined;
}

/**
 * Checksums only where S3 requires them: otherwise a presigned PUT carries the checksum of an
 * empty body and S3 refuses the browser's or the device's upload. The same on AWS and locally.
 */
const checksums = { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } as const;

/** The S3 client and its commands, loaded when a function first touches a bucket (lib/storage.ts). */
let s3Client: S3Client | undefined;
export async function s3() {
  const sdk = await import('@aws-sdk/client-s3');
  if (!s3Client) {
    const endpoint = env('S3_ENDPOINT');
    s3Client = endpoint
      ? new sdk.S3Client({
          region,
          endpoint,
          // s3rver accepts only its built-in key pair.
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
          forcePathStyle: true,
          ...checksums,
        })
      : new sdk.S3Client({ region, ...checksums });
    guardClient(s3Client, 's3');
  }
  return { client: s3Client, sdk };
}

/**
 * The SES client and its commands, loaded when the first mail is sent: a function that may send
 * mail (a verification code, an alert) does not load SES at start.
 */
let sesClient: SESv2Client | undefined;
export async function ses() {
  const sdk = await import('@aws-sdk/client-sesv2');
  sesClient ??= new sdk.SESv2Client({ region });
  return { client: sesClient, sdk };
}

/** The SQS client and its commands, loaded when a function first queues a message (webhook deliveries, audit entries). */
let sqsClient: SQSClient | undefined;
export async function sqs() {
  const sdk = await import('@aws-sdk/client-sqs');
  sqsClient ??= new sdk.SQSClient({ region });
  return { client: sqsClient, sdk };
}

/** Drops cached clients, for tests that change the endpoints. */
export function resetClients(): void {
  documentClient = undefined;
  s3Client = undefined;
  sesClient = undefined;
}
