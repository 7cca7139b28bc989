import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The S3 client reads its region and endpoint when created; each test builds a fresh one.
async function storage() {
  vi.resetModules();
  const aws = await import('@passcloud/functions/lib/aws');
  aws.resetClients();
  return { ...(await import('@passcloud/functions/lib/storage')), resetClients: aws.resetClients };
}

describe('the S3 client on AWS (no S3_ENDPOINT)', () => {
  beforeEach(() => {
    vi.stubEnv('S3_ENDPOINT', undefined);
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAIOSFODNN7EXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
    vi.stubEnv('AWS_SESSION_TOKEN', undefined);
    vi.stubEnv('AWS_PROFILE', undefined);
    vi.stubEnv('PHOTOS_BUCKET', 'photos-bucket');
  });
  afterEach(async () => {
    (await import('@passcloud/functions/lib/aws')).resetClients();
    vi.unstubAllEnvs();
  });

  it('signs a presigned PUT without a checksum of an empty body, like the local client', async () => {
    const { presignedPut, resetClients } = await storage();
    const url = new URL(await presignedPut('photos', 'tenant1', 'avatar/abc.jpg', 'image/jpeg'));
    resetClients();
    expect(url.hostname).toBe('photos-bucket.s3.eu-west-1.amazonaws.com');
    expect(url.pathname).toBe('/tenant1/avatar/abc.jpg');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(/^AKIAIOSFODNN7EXAMPLE\//);
    const names = [...url.searchParams.keys()].map((name) => name.toLowerCase());
    expect(names).not.toContain('x-amz-checksum-crc32');
    expect(names).not.toContain('x-amz-sdk-checksum-algorithm');
    expect(names.filter((name) => name.startsWith('x-amz-checksum'))).toEqual([]);
  });
});
