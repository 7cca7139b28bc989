import { describe, expect, it } from 'vitest';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { s3 } from '@passcloud/functions/lib/aws';
import { bucketName, objectExists, presignedGet, presignedPut } from '@passcloud/functions/lib/storage';
import { unique } from '../support/api.ts';

/**
 * The local S3 is as strict as S3 about presigned requests: a link signed over a size and a type
 * takes only a body of that size and type, a changed or expired link is refused, and nothing is
 * stored when it is.
 */
const tenant = 'gatetest0000001';
const put = (url: string, body: Buffer, type: string) => fetch(url, { method: 'PUT', headers: { 'content-type': type }, body: new Uint8Array(body) });

describe('presigned requests at the local S3', () => {
  it('stores a body of the signed size and type, and refuses any other without storing it', async () => {
    const body = Buffer.alloc(2048, 7);
    const key = `capture/${unique('g')}.jpg`;
    const url = await presignedPut('captures', tenant, key, 'image/jpeg', 120, { contentLength: body.length });
    expect((await put(url, Buffer.alloc(4096, 7), 'image/jpeg')).status).toBe(403);
    expect((await put(url, body, 'image/png')).status).toBe(403);
    expect(await objectExists('captures', tenant, key)).toBe(false);
    expect((await put(url, body, 'image/jpeg')).status).toBe(200);
    expect(await objectExists('captures', tenant, key)).toBe(true);
    const read = await fetch(await presignedGet('captures', tenant, key));
    expect(Buffer.from(await read.arrayBuffer()).equals(body)).toBe(true);
  });

  it('refuses a link whose signature or key was changed, and one that has expired', async () => {
    const key = `capture/${unique('g')}.jpg`;
    const url = new URL(await presignedPut('captures', tenant, key, 'image/jpeg', 120, { contentLength: 3 }));
    const forged = new URL(url);
    forged.pathname = forged.pathname.replace(key, `capture/${unique('other')}.jpg`);
    expect((await put(forged.toString(), Buffer.from('abc'), 'image/jpeg')).status).toBe(403);
    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await put(tampered.toString(), Buffer.from('abc'), 'image/jpeg')).status).toBe(403);
    const stale = await getSignedUrl((await s3()).client, new PutObjectCommand({ Bucket: bucketName('captures'), Key: `${tenant}/${key}` }), { expiresIn: 1, signingDate: new Date(Date.now() - 60_000) });
    const answer = await put(stale, Buffer.from('abc'), 'image/jpeg');
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain('Request has expired');
    expect(await objectExists('captures', tenant, key)).toBe(false);
  });
});
