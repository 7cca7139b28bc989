import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { s3 } from './aws.ts';
import { env } from './env.ts';

/** The buckets, by what they hold. Names come from the environment (the stack sets them). */
export const BUCKETS = {
  photos: { env: 'PHOTOS_BUCKET', defaultName: 'passcloud-photos' },
  captures: { env: 'CAPTURES_BUCKET', defaultName: 'passcloud-captures' },
  recordings: { env: 'RECORDINGS_BUCKET', defaultName: 'passcloud-recordings' },
  packages: { env: 'PACKAGES_BUCKET', defaultName: 'passcloud-packages' },
  /** Files uploaded for a background import; the worker removes each when done, the bucket expires the rest. */
  imports: { env: 'IMPORTS_BUCKET', defaultName: 'passcloud-imports' },
} as const;
export type BucketName = keyof typeof BUCKETS;

export const bucketName = (bucket: BucketName): string => env(BUCKETS[bucket].env) ?? BUCKETS[bucket].defaultName;

/** Object keys always start with the tenant id; callers only ever name the part after it. */
export const objectKey = (tenantId: string, fileKey: string): string => `${tenantId}/${fileKey}`;

export const PRESIGN_SECONDS = 900;

/**
 * The S3 client and commands, and the URL presigner, are loaded on the first object a function
 * touches: most requests of most functions reach no bucket, so no function loads them at start.
 */
const presigner = () => import('@aws-sdk/s3-request-presigner');

export async function putObject(bucket: BucketName, tenantId: string, fileKey: string, body: Buffer, contentType: string): Promise<void> {
  const { client, sdk } = await s3();
  await client.send(new sdk.PutObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey), Body: body, ContentType: contentType }));
}

/**
 * Writes `body` only where the key holds no object (S3's conditional write, `If-None-Match: *`);
 * false when one is there. https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html
 */
export async function putObjectIfAbsent(bucket: BucketName, tenantId: string, fileKey: string, body: Buffer, contentType: string): Promise<boolean> {
  const { client, sdk } = await s3();
  try {
    await client.send(new sdk.PutObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey), Body: body, ContentType: contentType, IfNoneMatch: '*' }));
    return true;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    // 412: an object is there; 409: a write of the same key raced this one and landed first.
    if (status === 412 || status === 409) return false;
    throw error;
  }
}

export async function deleteObject(bucket: BucketName, tenantId: string, fileKey: string): Promise<void> {
  const { client, sdk } = await s3();
  await client.send(new sdk.DeleteObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey) }));
}

/**
 * A short-lived link to read one of the tenant's objects. `downloadAs` makes the browser save it
 * under that file name instead of showing it (S3 answers with that Content-Disposition).
 */
export async function presignedGet(bucket: BucketName, tenantId: string, fileKey: string, expiresIn = PRESIGN_SECONDS, options: { downloadAs?: string } = {}): Promise<string> {
  const { client, sdk } = await s3();
  const disposition = options.downloadAs ? { ResponseContentDisposition: `attachment; filename="${options.downloadAs.replace(/[^\w.-]/g, '_')}"` } : {};
  const { getSignedUrl } = await presigner();
  return getSignedUrl(client, new sdk.GetObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey), ...disposition }), { expiresIn });
}

/** The size in bytes of the tenant's object at `fileKey`, or undefined when there is none. */
export async function objectSize(bucket: BucketName, tenantId: string, fileKey: string): Promise<number | undefined> {
  const { client, sdk } = await s3();
  try {
    const head = await client.send(new sdk.HeadObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey) }));
    return head.ContentLength ?? 0;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404 || (error as { name?: string }).name === 'NotFound') return undefined;
    throw error;
  }
}

/** True when the tenant has an object at `fileKey` in the bucket. */
export async function objectExists(bucket: BucketName, tenantId: string, fileKey: string): Promise<boolean> {
  return (await objectSize(bucket, tenantId, fileKey)) !== undefined;
}

/** The whole object in memory: for small files (a workbook of at most 2 MB). */
export async function getObjectBytes(bucket: BucketName, tenantId: string, fileKey: string): Promise<Buffer> {
  const { client, sdk } = await s3();
  const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey) }));
  return Buffer.from(await out.Body!.transformToByteArray());
}

/** Streams the object to a local file, so a large archive never sits in memory whole. */
export async function saveObjectTo(bucket: BucketName, tenantId: string, fileKey: string, path: string): Promise<void> {
  const { client, sdk } = await s3();
  const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey) }));
  await pipeline(out.Body as Readable, createWriteStream(path));
}

/**
 * Reads the object once as a stream: its SHA-256 (hex), its size and its first bytes, so a
 * package of hundreds of megabytes is checked without ever being in memory whole.
 */
export async function digestObject(bucket: BucketName, tenantId: string, fileKey: string, headBytes = 4): Promise<{ sha256: string; size: number; head: Buffer }> {
  const { client, sdk } = await s3();
  const out = await client.send(new sdk.GetObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey) }));
  const hash = createHash('sha256');
  let size = 0;
  const head: Buffer[] = [];
  let headLength = 0;
  for await (const chunk of out.Body as Readable) {
    const bytes = chunk as Buffer;
    hash.update(bytes);
    size += bytes.length;
    if (headLength < headBytes) {
      head.push(bytes.subarray(0, headBytes - headLength));
      headLength += Math.min(bytes.length, headBytes - headLength);
    }
  }
  return { sha256: hash.digest('hex'), size, head: Buffer.concat(head) };
}

export interface ListedObject {
  /** The whole key, tenant id first. */
  key: string;
  lastModified: Date;
  /** Bytes; 0 for a placeholder (a capture key an erasure closed). */
  size: number;
}

/** Every object of a bucket, or of the keys under `prefix`, page by page. */
export async function* listObjects(bucket: BucketName, prefix?: string): AsyncGenerator<ListedObject[]> {
  const { client, sdk } = await s3();
  let token: string | undefined;
  do {
    const page = await client.send(new sdk.ListObjectsV2Command({ Bucket: bucketName(bucket), ...(prefix ? { Prefix: prefix } : {}), ...(token ? { ContinuationToken: token } : {}) }));
    yield (page.Contents ?? []).filter((o) => o.Key && o.LastModified).map((o) => ({ key: o.Key!, lastModified: o.LastModified!, size: o.Size ?? 0 }));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

/** The next level of "folders" under `prefix` (`<prefix><name>/`), as S3 groups keys by `/`. */
export async function* listPrefixes(bucket: BucketName, prefix = ''): AsyncGenerator<string[]> {
  const { client, sdk } = await s3();
  let token: string | undefined;
  do {
    const page = await client.send(
      new sdk.ListObjectsV2Command({ Bucket: bucketName(bucket), Prefix: prefix, Delimiter: '/', ...(token ? { ContinuationToken: token } : {}) }),
    );
    yield (page.CommonPrefixes ?? []).map((p) => p.Prefix!).filter(Boolean);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

/** Deletes whole keys (at most 1,000 per request). */
export async function deleteKeys(bucket: BucketName, keys: string[]): Promise<void> {
  const { client, sdk } = await s3();
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000);
    await client.send(new sdk.DeleteObjectsCommand({ Bucket: bucketName(bucket), Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
  }
}

export interface PresignedPutOptions {
  /**
   * The exact size of the body in bytes. With it the link is signed over Content-Length and
   * Content-Type, so S3 refuses a body of any other size or type (SignatureDoesNotMatch).
   */
  contentLength?: number;
  /**
   * Only where the key holds no object yet: the link is signed over `If-None-Match: *`, so once an
   * object is there (the upload, or the placeholder an erasure leaves) S3 refuses it with 412.
   */
  onlyIfAbsent?: boolean;
}

/** A short-lived link through which a device uploads one object (a captured photo) or the console a file. */
export async function presignedPut(
  bucket: BucketName,
  tenantId: string,
  fileKey: string,
  contentType: string,
  expiresIn = 120,
  options: PresignedPutOptions = {},
): Promise<string> {
  const { client, sdk } = await s3();
  const { contentLength, onlyIfAbsent } = options;
  const command = new sdk.PutObjectCommand({
    Bucket: bucketName(bucket),
    Key: objectKey(tenantId, fileKey),
    ContentType: contentType,
    ...(contentLength !== undefined ? { ContentLength: contentLength } : {}),
    ...(onlyIfAbsent ? { IfNoneMatch: '*' } : {}),
  });
  // Content-Length is signed whenever it is given; Content-Type only when asked for.
  const { getSignedUrl } = await presigner();
  return getSignedUrl(client, command, { expiresIn, ...(contentLength !== undefined ? { signableHeaders: new Set(['content-type']) } : {}) });
}
