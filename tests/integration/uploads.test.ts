import { beforeAll, describe, expect, it, inject } from 'vitest';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3 } from '@passcloud/functions/lib/aws';
import { bucketName } from '@passcloud/functions/lib/storage';
import { call, login } from '../support/api.ts';
import { GIF, makeJpeg, makePng } from '../support/images.ts';

let token: string;
beforeAll(async () => {
  token = (await login(inject('demo').username, inject('demo').password)).token;
});

function form(kind: string | undefined, file?: { bytes: Buffer; name: string; type?: string }): FormData {
  const data = new FormData();
  if (kind !== undefined) data.set('kind', kind);
  if (file) data.set('file', new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }), file.name);
  return data;
}

async function objectCount(bucket: 'photos' | 'packages'): Promise<number> {
  const listed = await s3().send(new ListObjectsV2Command({ Bucket: bucketName(bucket), Prefix: `${inject('demo').tenantId}/` }));
  return listed.KeyCount ?? 0;
}

async function rejected(kind: string | undefined, file: { bytes: Buffer; name: string } | undefined, field: string, pattern: RegExp) {
  const before = await objectCount('photos');
  const answer = await call<{ issues: { path: string; message: string }[] }>('POST', '/v1/files/uploads', { token, form: form(kind, file) });
  expect(answer.status).toBe(422);
  expect(answer.body.data.issues[0]!.path).toBe(field);
  expect(answer.body.data.issues[0]!.message).toMatch(pattern);
  expect(await objectCount('photos')).toBe(before);
}

describe('uploads', () => {
  it('stores a PNG avatar under the tenant and answers its key and a working short-lived URL', async () => {
    const bytes = makePng(640, 480);
    const answer = await call<{ fileKey: string; url: string }>('POST', '/v1/files/uploads', { token, form: form('avatar', { bytes, name: 'face.png', type: 'image/png' }) });
    expect(answer.body.code).toBe(201);
    expect(answer.body.data.fileKey).toMatch(/^avatar\/\d{4}\/\d{2}\/[a-z0-9]+\.png$/);
    expect(answer.body.data.url).toContain(`${inject('demo').tenantId}/${answer.body.data.fileKey}`);
    expect(answer.body.data.url).toContain('X-Amz-Expires=900');
    const fetched = Buffer.from(await (await fetch(answer.body.data.url)).arrayBuffer());
    expect(fetched.equals(bytes)).toBe(true);
  });

  it('judges by the bytes: a JPEG named .png is stored as a JPEG', async () => {
    const answer = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form: form('capture', { bytes: makeJpeg(1920, 1080), name: 'photo.png' }) });
    expect(answer.body.code).toBe(201);
    expect(answer.body.data.fileKey).toMatch(/^capture\/.+\.jpg$/);
  });

  it('accepts the largest allowed size, portrait too', async () => {
    expect((await call('POST', '/v1/files/uploads', { token, form: form('avatar', { bytes: makeJpeg(4096, 2688), name: 'a.jpg' }) })).body.code).toBe(201);
    expect((await call('POST', '/v1/files/uploads', { token, form: form('avatar', { bytes: makeJpeg(480, 640), name: 'a.jpg' }) })).body.code).toBe(201);
  });

  it('refuses a GIF, text named .jpg, and an image too small or too large', async () => {
    await rejected('avatar', { bytes: GIF, name: 'face.gif' }, 'file', /JPG or PNG/);
    await rejected('avatar', { bytes: Buffer.from('hello, not an image'), name: 'face.jpg' }, 'file', /JPG or PNG/);
    await rejected('avatar', { bytes: makePng(320, 240), name: 'small.png' }, 'file', /640 × 480.*320 × 240/);
    await rejected('avatar', { bytes: makeJpeg(5000, 3000), name: 'big.jpg' }, 'file', /4096 × 2688.*5000 × 3000/);
  });

  it('refuses a file over 5 MB', async () => {
    await rejected('avatar', { bytes: makePng(640, 480, 5 * 1024 * 1024), name: 'heavy.png' }, 'file', /5 MB/);
  });

  it('names the missing file and an unknown kind', async () => {
    await rejected('avatar', undefined, 'file', /Choose a file/);
    await rejected('spreadsheet', { bytes: makePng(640, 480), name: 'x.png' }, 'kind', /.+/);
  });

  it('takes a zip or apk as a package and refuses anything else', async () => {
    const zip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(100)]);
    const before = await objectCount('packages');
    const ok = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form: form('package', { bytes: zip, name: 'client-3.2.0.apk' }) });
    expect(ok.body.code).toBe(201);
    expect(ok.body.data.fileKey).toMatch(/^package\/.+\.apk$/);
    expect(await objectCount('packages')).toBe(before + 1);
    const bad = await call<{ issues: { path: string }[] }>('POST', '/v1/files/uploads', { token, form: form('package', { bytes: makePng(640, 480), name: 'client.apk' }) });
    expect(bad.status).toBe(422);
    expect(await objectCount('packages')).toBe(before + 1);
  });

  it('refuses a body that is not multipart', async () => {
    const answer = await call<{ issues: { path: string }[] }>('POST', '/v1/files/uploads', { token, body: { kind: 'avatar' } });
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.path).toBe('file');
  });

  it('needs a session', async () => {
    expect((await call('POST', '/v1/files/uploads', { form: form('avatar', { bytes: makePng(640, 480), name: 'x.png' }) })).status).toBe(403);
  });
});
