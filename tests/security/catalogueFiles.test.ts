import { beforeAll, describe, expect, it } from 'vitest';
import { createGzip, gzipSync } from 'node:zlib';
import { baseUrl, call, login, newCompany, unique } from '../support/api.ts';
import { makeJpeg } from '../support/images.ts';
import { zip } from '../support/files.ts';
import { partition } from '../support/tenantItems.ts';
import { MAIN_TABLE } from '@passcloud/functions/data/tables';

/**
 * The security catalogue, files (OWASP ASVS 5.0 V5): what an upload is is judged by its bytes,
 * images are sized before anything decodes them, archives are judged before anything is
 * unpacked, served files are downloads, and compressed request bodies are refused.
 * tests/integration/uploads.test.ts and peopleImport.test.ts hold the same rules in more detail.
 */

let token: string;
let tenantId: string;
let groupKey: string;

beforeAll(async () => {
  const owner = await newCompany();
  token = (await login(owner.username, owner.password)).token;
  tenantId = token.split('.')[0]!;
  groupKey = (await call<{ groupKey: string }>('POST', '/v1/groups', { token, body: { name: 'Files', type: 'employee' } })).body.data.groupKey;
});

function form(kind: string, bytes: Buffer, name: string, type = 'application/octet-stream'): FormData {
  const data = new FormData();
  data.set('kind', kind);
  data.set('file', new Blob([new Uint8Array(bytes)], { type }), name);
  return data;
}
const upload = (bytes: Buffer, name: string, type?: string) =>
  call<{ issues: { path: string; message: string }[] }>('POST', '/v1/files/uploads', { token, form: form('avatar', bytes, name, type) });

/** A PNG that is only a header: its IHDR says `width` × `height`, and no pixel follows. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.set([8, 6, 0, 0, 0], 16);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr, Buffer.alloc(64)]);
}

describe('V5.2 file upload and content', () => {
  it('V5.2.2 judges the magic bytes, not the name or the declared type: text named .jpg and a GIF are refused', async () => {
    for (const [bytes, name, type] of [
      [Buffer.from('just some text, not a picture'), 'face.jpg', 'image/jpeg'],
      [Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'binary'), 'face.png', 'image/png'],
    ] as const) {
      const answer = await upload(bytes, name, type);
      expect(answer.status, name).toBe(422);
      expect(answer.body.data.issues[0]!.path).toBe('file');
    }
    const jpeg = await call<{ fileKey: string }>('POST', '/v1/files/uploads', { token, form: form('avatar', makeJpeg(800, 600), 'face.png', 'image/png') });
    expect(jpeg.body.data.fileKey).toMatch(/\.jpg$/);
  });

  it('V5.2.2 refuses SVG and HTML, uploaded or presigned', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="800" height="600"/></svg>');
    const html = Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>');
    for (const [bytes, name, type] of [
      [svg, 'face.svg', 'image/svg+xml'],
      [html, 'face.html', 'text/html'],
      [html, 'face.png', 'image/png'],
    ] as const) {
      expect((await upload(bytes, name, type)).status, name).toBe(422);
    }
    for (const [filename, contentType] of [
      ['face.svg', 'image/svg+xml'],
      ['face.html', 'text/html'],
    ]) {
      const presign = await call('POST', '/v1/files/uploads/presign', { token, body: { kind: 'avatar', filename, size: 1000, contentType } });
      expect(presign.status, filename).toBe(422);
    }
  });

  it('V5.2.6 refuses a pixel flood from its header, before any decoding', async () => {
    // 60,000 × 60,000 pixels: 14 GB once decoded, 97 bytes as sent.
    const flood = pngHeader(60_000, 60_000);
    const started = performance.now();
    const answer = await upload(flood, 'flood.png', 'image/png');
    expect(answer.status).toBe(422);
    expect(answer.body.data.issues[0]!.message).toMatch(/4096/);
    expect(performance.now() - started).toBeLessThan(5000);
    // A presigned upload of the same is refused at complete.
    const presign = await call<{ uploadKey: string; upload: { url: string; method: string; headers: Record<string, string> } }>(
      'POST',
      '/v1/files/uploads/presign',
      {
        token,
        body: { kind: 'avatar', filename: 'flood.png', size: flood.length, contentType: 'image/png' },
      },
    );
    expect(presign.body.code).toBe(201);
    const { upload: target, uploadKey } = presign.body.data;
    expect((await fetch(target.url, { method: target.method, headers: target.headers, body: new Uint8Array(flood) })).ok).toBe(true);
    expect((await call('POST', `/v1/files/uploads/${uploadKey}/complete`, { token, body: {} })).status).toBe(422);
  });

  it('V5.2.3 refuses an archive that declares more than it may unpack, and more entries than it may hold, before unpacking', async () => {
    const bomb = await zip([{ name: 'photo/E1.jpg', data: makeJpeg(800, 600) }]);
    const central = bomb.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    bomb.writeUInt32LE(3_000_000_000, central + 24);
    const form1 = new FormData();
    form1.set('file', new Blob([new Uint8Array(bomb)]), 'bomb.zip');
    const refused = await call<{ issues: { message: string }[] }>('POST', '/v1/employees/imports/avatars', { token, form: form1 });
    expect(refused.status).toBe(422);
    const many = await zip(Array.from({ length: 10_001 }, (_, i) => ({ name: `photo/x${i}.jpg`, data: Buffer.alloc(0) })));
    const form2 = new FormData();
    form2.set('file', new Blob([new Uint8Array(many)]), 'many.zip');
    expect((await call('POST', '/v1/employees/imports/avatars', { token, form: form2 })).status).toBe(422);
  });

  it('V5.2.3 / V5.2.5 / V5.3.3 an entry that lies about its size, climbs out, starts at a root or is a link is skipped, and nothing of it is stored', async () => {
    const ids = ['LIE', 'CLIMB', 'ROOT', 'LINK'].map((p) => unique(p));
    for (const personId of ids) {
      const made = await call('POST', '/v1/employees', { token, body: { personId, name: personId, role: 'Staff', gender: 'female', groupKey } });
      expect(made.body.code).toBe(201);
    }
    const [lie, climb, root, link] = ids as [string, string, string, string];
    const archive = await zip([
      // 40 MB of zeros, compressed to a few kilobytes, declaring 1 KB.
      { name: `photo/${lie}.jpg`, data: Buffer.alloc(40 * 1024 * 1024) },
      { name: `XX/${climb}.jpg`, data: makeJpeg(800, 600) },
      { name: `YYYYYY${root}.jpg`, data: makeJpeg(800, 600) },
      { name: `photo/${link}.jpg`, data: Buffer.from('/etc/passwd'), mode: 0o120777 },
    ]);
    // Zip writers refuse such names and lies, so they are put in afterwards, as an attacker would.
    const replace = (from: string, to: string) => {
      for (let at = archive.indexOf(from); at !== -1; at = archive.indexOf(from, at + 1)) archive.write(to, at);
    };
    replace(`XX/${climb}.jpg`, `../${climb}.jpg`);
    replace(`YYYYYY${root}.jpg`, `/photo/${root}.jpg`);
    for (const [signature, sizeAt] of [
      [0x04034b50, 22],
      [0x02014b50, 24],
    ] as const) {
      const at = archive.indexOf(Buffer.from(new Uint32Array([signature]).buffer));
      archive.writeUInt32LE(1024, at + sizeAt);
    }
    const data = new FormData();
    data.set('file', new Blob([new Uint8Array(archive)]), 'photos.zip');
    const answer = await call<{ imported: number; entries: { name: string; status: string }[] }>('POST', '/v1/employees/imports/avatars', {
      token,
      form: data,
    });
    expect(answer.body.code, answer.body.message).toBe(201);
    expect(answer.body.data.imported).toBe(0);
    expect(answer.body.data.entries.map((e) => e.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped']);
    const people = (await partition(MAIN_TABLE, tenantId)).filter((item) => ids.includes(String(item.personId)));
    expect(people).toHaveLength(4);
    for (const person of people) expect(person.avatar).toBeUndefined();
  });
});

describe('V5.4 file download', () => {
  it('V5.4.1 an export answers as an attachment with its own name, its type and nosniff', async () => {
    const res = await fetch(`${baseUrl()}/v1/audit/export`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="[\w.-]+\.xlsx"$/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-type')).toMatch(/spreadsheetml/);
  });

  it('V5.4.1 a background export’s link makes storage answer it as an attachment', async () => {
    const started = await call<{ jobKey: string }>('POST', '/v1/passRecords/exports', { token, body: {} });
    expect(started.body.code, started.body.message).toBe(202);
    let url: string | null = null;
    for (let i = 0; i < 600 && !url; i++) {
      const job = await call<{ state: string; url: string | null }>('GET', `/v1/passRecords/exports/${started.body.data.jobKey}`, { token });
      url = job.body.data.url;
      if (!url) await new Promise((r) => setTimeout(r, 50));
    }
    expect(url).toBeTruthy();
    expect(new URL(url!).searchParams.get('response-content-disposition')).toMatch(/^attachment; filename="[\w.-]+\.xlsx"$/);
    const res = await fetch(url!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/);
  });

  it.todo(
    'V5.4.1 photos and captures served through presigned GETs carry X-Content-Type-Options: nosniff (gap: S3 cannot add that header to a presigned GET; their type is fixed from the magic bytes when stored)',
  );
});

describe('compressed request bodies (V5.2.3 applied to request bodies)', () => {
  it('refuses a body with Content-Encoding: gzip with 415 and changes nothing', async () => {
    const before = JSON.stringify(await partition(MAIN_TABLE, tenantId));
    const res = await fetch(`${baseUrl()}/v1/groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(gzipSync(JSON.stringify({ name: 'Zipped', type: 'employee' }))),
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { message: string }).message).toMatch(/Content-Encoding/);
    const after = JSON.stringify(await partition(MAIN_TABLE, tenantId));
    expect(after.replace(/"lastSeenAt":\d+/g, '')).toBe(before.replace(/"lastSeenAt":\d+/g, ''));
  });

  it('refuses a gzip bomb (512 MB of zeros in half a megabyte) at once, on JSON and multipart routes alike', async () => {
    const chunks: Buffer[] = [];
    const gzip = createGzip({ level: 9 });
    gzip.on('data', (c: Buffer) => chunks.push(c));
    const done = new Promise((resolve) => gzip.on('end', resolve));
    const zeros = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 512; i++) if (!gzip.write(zeros)) await new Promise((r) => gzip.once('drain', r));
    gzip.end();
    await done;
    const bomb = Buffer.concat(chunks);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    for (const [path, type] of [
      ['/v1/groups', 'application/json'],
      ['/v1/files/uploads', 'multipart/form-data; boundary=x'],
      ['/v1/employees/imports', 'multipart/form-data; boundary=x'],
    ]) {
      const started = performance.now();
      const res = await fetch(`${baseUrl()}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': type!, 'content-encoding': 'gzip' },
        body: new Uint8Array(bomb),
      });
      expect(res.status, path).toBe(415);
      expect(performance.now() - started).toBeLessThan(5000);
    }
  });

  it('takes a body without Content-Encoding, or with identity, as before', async () => {
    const res = await fetch(`${baseUrl()}/v1/groups`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-encoding': 'identity' },
      body: JSON.stringify({ name: unique('Plain'), type: 'employee' }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { code: number }).code).toBe(201);
  });
});
