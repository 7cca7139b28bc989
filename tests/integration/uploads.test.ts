import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3 } from '@passcloud/functions/lib/aws';
import { bucketName, putObject } from '@passcloud/functions/lib/storage';
import { startHost, type Host } from '@passcloud/infra/local/host';
import { call, login, newCompany, unique } from '../support/api.ts';
import { GIF, makeJpeg, makePng } from '../support/images.ts';

let token: string;
let tenantId: string;
beforeAll(async () => {
  // A company of its own, with no face terminals: SPEC's rules hold (photoRules.test.ts has terminals that raise them).
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
});

const MB = 1024 * 1024;

function form(kind: string | undefined, file?: { bytes: Buffer; name: string; type?: string }): FormData {
  const data = new FormData();
  if (kind !== undefined) data.set('kind', kind);
  if (file) data.set('file', new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }), file.name);
  return data;
}

async function objectCount(bucket: 'photos' | 'packages' | 'imports', under = '', of = tenantId): Promise<number> {
  const listed = await (await s3()).client.send(new ListObjectsV2Command({ Bucket: bucketName(bucket), Prefix: `${of}/${under}` }));
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
    expect(answer.body.data.url).toContain(`${tenantId}/${answer.body.data.fileKey}`);
    expect(answer.body.data.url).toContain('X-Amz-Expires=900');
    const fetched = Buffer.from(await (await fetch(answer.body.data.url)).arrayBuffer());
    expect(fetched.equals(bytes)).toBe(true);
  });

  it('judges by the bytes: a JPEG named .png is stored as a JPEG', async () => {
    const answer = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form: form('capture', { bytes: makeJpeg(1920, 1080), name: 'photo.png' }) });
    expect(answer.body.code).toBe(201);
    expect(answer.body.data.fileKey).toMatch(/^capture\/.+\.jpg$/);
  });

  it('takes a file of 4 MB in the request and names that limit above it (Lambda takes 6 MB, base64)', async () => {
    // The noise travels in a tEXt chunk: 12 bytes of chunk and 6 of keyword around it.
    const heaviest = makePng(640, 480, 4 * MB - makePng(640, 480).length - 18);
    expect(heaviest.length).toBe(4 * MB);
    expect((await call('POST', '/v1/files/uploads', { token, form: form('avatar', { bytes: heaviest, name: 'heavy.png' }) })).body.code).toBe(201);
    await rejected('avatar', { bytes: makePng(640, 480, 4 * MB + 100), name: 'heavy.png' }, 'file', /4 MB/);
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
    const heavy = Buffer.concat([zip, Buffer.alloc(4 * MB)]);
    const tooBig = await call<{ issues: { path: string; message: string }[] }>('POST', '/v1/files/uploads', { token, form: form('package', { bytes: heavy, name: 'client.apk' }) });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.data.issues[0]).toMatchObject({ path: 'file', message: expect.stringMatching(/4 MB/) });
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

interface Presigned {
  uploadKey: string;
  upload: { url: string; method: string; headers: Record<string, string> };
}
type Issues = { issues: { path: string; message: string }[] };

const presign = (body: Record<string, unknown>, as = token) => call<Presigned>('POST', '/v1/files/uploads/presign', { token: as, body });
const complete = (uploadKey: string, as = token) => call<{ fileKey: string; url: string } & Issues>('POST', `/v1/files/uploads/${encodeURIComponent(uploadKey)}/complete`, { token: as });
const put = (upload: Presigned['upload'], bytes: Buffer) => fetch(upload.url, { method: upload.method, headers: upload.headers, body: new Uint8Array(bytes) });

/** Presigns a photo of these bytes and PUTs them: answers the upload key. */
async function staged(bytes: Buffer, contentType = 'image/png', as = token): Promise<string> {
  const answer = await presign({ kind: 'avatar', filename: 'face.png', size: bytes.length, contentType }, as);
  expect(answer.body.code).toBe(201);
  expect((await put(answer.body.data.upload, bytes)).status).toBe(200);
  return answer.body.data.uploadKey;
}

/**
 * Whether S3 would take this request on the presigned URL: the SigV4 check S3 makes, over the
 * headers the URL names as signed, computed here on its own so the test does not rest on the
 * local stand-in's gate (infra/local/s3gate.ts), which makes the same check.
 */
function s3Accepts(url: string, method: string, headers: Record<string, string>, secret = 'S3RVER'): boolean {
  const parsed = new URL(url);
  const query = parsed.searchParams;
  const rfc3986 = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = [...query]
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [rfc3986(name), rfc3986(value)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const signedHeaders = query.get('X-Amz-SignedHeaders')!;
  const sent: Record<string, string> = { host: parsed.host, ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])) };
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${(sent[name] ?? '').trim()}\n`)
    .join('');
  const canonicalRequest = [method, parsed.pathname, canonicalQuery, canonicalHeaders, signedHeaders, 'UNSIGNED-PAYLOAD'].join('\n');
  const [, date, region, service] = query.get('X-Amz-Credential')!.split('/');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', query.get('X-Amz-Date'), scope, createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const key = [date!, region!, service!, 'aws4_request'].reduce<Buffer | string>((k, part) => createHmac('sha256', k).update(part).digest(), `AWS4${secret}`);
  return createHmac('sha256', key).update(toSign).digest('hex') === query.get('X-Amz-Signature');
}

describe('photo uploads through a presigned link', () => {
  let groupKey: string;
  beforeAll(async () => {
    const group = await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: unique('Upload staff '), type: 'employee' } });
    groupKey = group.body.data.groupKey;
  });

  it('presign, PUT, complete: the photo is stored, the upload removed, and its key serves as an avatar', async () => {
    const bytes = makePng(800, 600);
    const answer = await presign({ kind: 'avatar', filename: 'face.png', size: bytes.length, contentType: 'image/png' });
    expect(answer.body.code).toBe(201);
    const { uploadKey, upload } = answer.body.data;
    expect(uploadKey).toMatch(/^avatar-[0-9a-z]{20}$/);
    expect(upload).toMatchObject({ method: 'PUT', headers: { 'content-type': 'image/png' } });
    // Straight to storage, under the tenant, to expire if never completed.
    expect(new URL(upload.url).pathname).toBe(`/${bucketName('imports')}/${tenantId}/staging/${uploadKey}`);
    expect(new URL(upload.url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect((await put(upload, bytes)).status).toBe(200);
    const photos = await objectCount('photos');

    const done = await complete(uploadKey);
    expect(done.body.code).toBe(201);
    expect(done.body.data.fileKey).toMatch(/^avatar\/\d{4}\/\d{2}\/[a-z0-9]+\.png$/);
    expect(done.body.data.url).toContain(`${tenantId}/${done.body.data.fileKey}`);
    expect(Buffer.from(await (await fetch(done.body.data.url)).arrayBuffer()).equals(bytes)).toBe(true);
    expect(await objectCount('photos')).toBe(photos + 1);
    expect(await objectCount('imports', `staging/${uploadKey}`)).toBe(0);
    expect((await complete(uploadKey)).status).toBe(404);

    const employee = await call<{ employeeKey: string; avatar: string; avatarUrl: string }>('POST', '/v1/employees', {
      token,
      body: { personId: unique('UP'), name: 'Ada Upload', role: 'Engineer', gender: 'female', groupKey, avatar: done.body.data.fileKey },
    });
    expect(employee.body.code).toBe(201);
    expect(employee.body.data.avatar).toBe(done.body.data.fileKey);
    expect((await fetch(employee.body.data.avatarUrl)).status).toBe(200);
  });

  it('judges the bytes, not the declared type: a JPEG declared as PNG is stored as a JPEG; a capture goes to its bucket', async () => {
    const bytes = makeJpeg(1920, 1080);
    const answer = await presign({ kind: 'capture', filename: 'shot.png', size: bytes.length, contentType: 'image/png' });
    expect((await put(answer.body.data.upload, bytes)).status).toBe(200);
    const done = await complete(answer.body.data.uploadKey);
    expect(done.body.code).toBe(201);
    expect(done.body.data.fileKey).toMatch(/^capture\/.+\.jpg$/);
    expect(done.body.data.url).toContain(`/${bucketName('captures')}/`);
  });

  it('signs the exact length and type: S3 refuses a PUT of another length or type', async () => {
    const bytes = makePng(640, 480);
    const { upload } = (await presign({ kind: 'avatar', filename: 'face.png', size: bytes.length, contentType: 'image/png' })).body.data;
    const exact = { ...upload.headers, 'content-length': String(bytes.length) };
    expect(s3Accepts(upload.url, 'PUT', exact)).toBe(true);
    expect(s3Accepts(upload.url, 'PUT', { ...exact, 'content-length': String(bytes.length + 1) })).toBe(false);
    expect(s3Accepts(upload.url, 'PUT', { ...exact, 'content-length': String(6 * MB) })).toBe(false);
    expect(s3Accepts(upload.url, 'PUT', { ...exact, 'content-type': 'image/jpeg' })).toBe(false);
  });

  it('refuses at complete what storage took anyway: larger than 5 MB, then removed', async () => {
    // Storage refuses a longer body than signed; should one be there anyway, complete refuses it too.
    const { uploadKey, upload } = (await presign({ kind: 'avatar', filename: 'face.png', size: 1000, contentType: 'image/png' })).body.data;
    const big = makePng(640, 480, 5 * MB);
    expect((await put(upload, big)).status).toBe(403);
    await putObject('imports', tenantId, `staging/${uploadKey}`, big, 'image/png');
    const photos = await objectCount('photos');
    const done = await complete(uploadKey);
    expect(done.status).toBe(422);
    expect(done.body.data.issues[0]).toMatchObject({ path: 'file', message: expect.stringMatching(/5 MB/) });
    expect(await objectCount('imports', `staging/${uploadKey}`)).toBe(0);
    expect(await objectCount('photos')).toBe(photos);
  });

  it('refuses a non-image or an image out of bounds at complete, naming file, and leaves no object behind', async () => {
    const cases: [Buffer, RegExp][] = [
      [Buffer.from('hello, not an image at all'), /JPG or PNG/],
      [GIF, /JPG or PNG/],
      [makePng(320, 240), /640 × 480.*320 × 240/],
      [makeJpeg(5000, 3000), /4096 × 2688.*5000 × 3000/],
    ];
    for (const [bytes, message] of cases) {
      const uploadKey = await staged(bytes);
      const photos = await objectCount('photos');
      const done = await complete(uploadKey);
      expect(done.status).toBe(422);
      expect(done.body.data.issues[0]).toMatchObject({ path: 'file', message: expect.stringMatching(message) });
      expect(await objectCount('imports', `staging/${uploadKey}`)).toBe(0);
      expect(await objectCount('photos')).toBe(photos);
    }
  });

  it('checks the type and size before handing out a link', async () => {
    const tooBig = await call<Issues>('POST', '/v1/files/uploads/presign', { token, body: { kind: 'avatar', filename: 'a.png', size: 5 * MB + 1, contentType: 'image/png' } });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.data.issues[0]).toMatchObject({ path: 'size', message: expect.stringMatching(/5 MB/) });
    const gif = await call<Issues>('POST', '/v1/files/uploads/presign', { token, body: { kind: 'avatar', filename: 'a.gif', size: 100, contentType: 'image/gif' } });
    expect(gif.status).toBe(422);
    expect(gif.body.data.issues[0]).toMatchObject({ path: 'contentType', message: expect.stringMatching(/JPG or PNG/) });
    const pkg = await call<Issues>('POST', '/v1/files/uploads/presign', { token, body: { kind: 'package', filename: 'a.apk', size: 100, contentType: 'image/png' } });
    expect(pkg.status).toBe(422);
    expect(pkg.body.data.issues[0]!.path).toBe('kind');
    expect((await call('POST', '/v1/files/uploads/presign', { body: { kind: 'avatar', filename: 'a.png', size: 100, contentType: 'image/png' } })).status).toBe(403);
  });

  it('completes only the caller’s own uploads: another tenant gets 404 and the upload stays', async () => {
    const stranger = await newCompany();
    const other = (await login(stranger.username, stranger.password)).token;
    const uploadKey = await staged(makePng(640, 480));
    const attempt = await complete(uploadKey, other);
    expect(attempt.status).toBe(404);
    expect(JSON.stringify(attempt.body)).not.toContain(tenantId);
    expect(await objectCount('imports', `staging/${uploadKey}`)).toBe(1);
    expect((await complete(uploadKey)).body.code).toBe(201);

    // The other tenant's own staging area holds nothing of it either.
    expect(await objectCount('imports', 'staging/', other.split('.')[0])).toBe(0);
    for (const key of ['../staging/x', 'avatar-short', `package-${'a'.repeat(20)}`, `${uploadKey}/..`, `AVATAR-${'a'.repeat(20)}`]) {
      expect((await complete(key)).status, key).toBe(404);
    }
  });
});

describe('what Lambda would refuse, the local host refuses', () => {
  it('answers 413 for a body over 6 MB as the event carries it (base64), and stores nothing', async () => {
    const photos = await objectCount('photos');
    // 4.6 MB of file is 6.1 MB in base64.
    const answer = await call('POST', '/v1/files/uploads', { token, form: form('avatar', { bytes: makePng(640, 480, 4.6 * MB), name: 'big.png' }) });
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe(413);
    expect(answer.body.message).toMatch(/too large/);
    expect(await objectCount('photos')).toBe(photos);
  });

  describe('against a host with stand-in handlers', () => {
    let host: Host;
    let webRoot: string;
    let calls = 0;
    let size = 0;
    beforeAll(async () => {
      webRoot = mkdtempSync(join(tmpdir(), 'passcloud-host-'));
      const files = async () => {
        calls++;
        return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: 200, message: 'Success', data: 'x'.repeat(size) }) };
      };
      host = await startHost({ port: 0, handlers: { files }, webRoot });
    });
    afterAll(async () => {
      await host?.close();
      rmSync(webRoot, { recursive: true, force: true });
    });
    const post = (body: Buffer | string, type: string) => fetch(`${host.url}/v1/files/uploads/presign`, { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : new Uint8Array(body) });

    it('hands the handler a binary body that fits once encoded, and refuses one that does not without calling it', async () => {
      size = 10;
      expect((await post(Buffer.alloc(4 * MB), 'application/octet-stream')).status).toBe(200);
      expect(calls).toBe(1);
      const refused = await post(Buffer.alloc(4.6 * MB), 'application/octet-stream');
      expect(refused.status).toBe(413);
      expect(await refused.json()).toMatchObject({ code: 413, data: null });
      // A JSON body travels as text: 5.9 MB fits, 6.1 MB does not.
      expect((await post(`"${'a'.repeat(5.9 * MB)}"`, 'application/json')).status).toBe(200);
      expect((await post(`"${'a'.repeat(6.1 * MB)}"`, 'application/json')).status).toBe(413);
      expect(calls).toBe(2);
    });

    it('turns a response over 6 MB into a 500, as API Gateway does when Lambda refuses it', async () => {
      size = 5.9 * MB;
      expect((await post('{}', 'application/json')).status).toBe(200);
      size = 6.1 * MB;
      const answer = await post('{}', 'application/json');
      expect(answer.status).toBe(500);
      expect(await answer.json()).toMatchObject({ code: 500, data: null });
    });
  });
});
