import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3 } from './aws.ts';

/** The buckets, by what they hold. Names come from the environment (the stack sets them). */
export const BUCKETS = {
  photos: { env: 'PHOTOS_BUCKET', defaultName: 'passcloud-photos' },
  captures: { env: 'CAPTURES_BUCKET', defaultName: 'passcloud-captures' },
  recordings: { env: 'RECORDINGS_BUCKET', defaultName: 'passcloud-recordings' },
  packages: { env: 'PACKAGES_BUCKET', defaultName: 'passcloud-packages' },
} as const;
export type BucketName = keyof typeof BUCKETS;

export const bucketName = (bucket: BucketName): string => process.env[BUCKETS[bucket].env] ?? BUCKETS[bucket].defaultName;

/** Object keys always start with the tenant id; callers only ever name the part after it. */
export const objectKey = (tenantId: string, fileKey: string): string => `${tenantId}/${fileKey}`;

export const PRESIGN_SECONDS = 900;

export async function putObject(bucket: BucketName, tenantId: string, fileKey: string, body: Buffer, contentType: string): Promise<void> {
  await s3().send(new PutObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey), Body: body, ContentType: contentType }));
}

export async function deleteObject(bucket: BucketName, tenantId: string, fileKey: string): Promise<void> {
  await s3().send(new DeleteObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey) }));
}

/** A short-lived link to read one of the tenant's objects. */
export function presignedGet(bucket: BucketName, tenantId: string, fileKey: string): Promise<string> {
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey) }), { expiresIn: PRESIGN_SECONDS });
}

/** True when the tenant has an object at `fileKey` in the bucket. */
export async function objectExists(bucket: BucketName, tenantId: string, fileKey: string): Promise<boolean> {
  try {
    await s3().send(new HeadObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey) }));
    return true;
  } catch (error) {
    const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    if (status === 404 || (error as { name?: string }).name === 'NotFound') return false;
    throw error;
  }
}

/** A short-lived link through which a device uploads one object (a captured photo). */
export function presignedPut(bucket: BucketName, tenantId: string, fileKey: string, contentType: string, expiresIn = 120): Promise<string> {
  return getSignedUrl(s3(), new PutObjectCommand({ Bucket: bucketName(bucket), Key: objectKey(tenantId, fileKey), ContentType: contentType }), { expiresIn });
}
