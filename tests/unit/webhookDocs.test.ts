import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  DELIVERY_KEY,
  RETRY_STEPS,
  RETRY_UNIT_MS,
  SIGNATURE_TOLERANCE_SECONDS,
  TEST_EVENT_TYPE,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  eventEnvelope,
  type AnyEventType,
} from '@passcloud/functions/contract/webhooks';
import { signature, verifySignature } from '@passcloud/functions/domain/webhookSignature';
import { ALL_EVENT_TYPES, DOC_FILE, EXAMPLE_EVENTS, NODE_EXAMPLE, PYTHON_EXAMPLE, SIGNING_EXAMPLE, webhookDocsText } from '@passcloud/infra/tools/webhookDocs';

/**
 * docs/webhooks.md is written from functions/contract/webhooks.ts by `npm run webhook-docs`
 * (infra/tools/webhookDocs.ts). It must be what the generator makes now, document every event
 * type with the contract's schema and an example body that schema takes, and embed the Node and
 * Python verification examples, which must accept what the sender signs and refuse the rest.
 */

const published = readFileSync(DOC_FILE, 'utf8');
const everyType: AnyEventType[] = [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE];

/** The part of the document under `### <type>`, up to the next heading of that level or above. */
function section(type: string): string {
  const start = published.indexOf(`\n### ${type}\n`);
  if (start < 0) return '';
  const end = published.slice(start + 1).search(/\n#{2,3} /);
  return end < 0 ? published.slice(start) : published.slice(start, start + 1 + end);
}
const jsonBlocks = (text: string): unknown[] => [...text.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]!) as unknown);

/** zod's JSON Schema of a body, without the pattern it writes beside `format: date-time`. */
function contractSchema(type: AnyEventType): unknown {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (!value || typeof value !== 'object') return value;
    const entries = Object.entries(value).filter(([key]) => !(key === 'pattern' && (value as { format?: string }).format === 'date-time'));
    return Object.fromEntries(entries.map(([key, inner]) => [key, strip(inner)]));
  };
  return strip(z.toJSONSchema(eventEnvelope(type)));
}

describe('docs/webhooks.md', () => {
  it('is what the generator makes from the contract and the examples (npm run webhook-docs writes it)', () => {
    expect(published === webhookDocsText(), 'docs/webhooks.md is stale: run `npm run webhook-docs`').toBe(true);
  });

  it('documents every event type a subscription may choose, and the test event', () => {
    expect([...ALL_EVENT_TYPES]).toEqual(everyType);
    expect(Object.keys(EXAMPLE_EVENTS).sort()).toEqual([...everyType].sort());
    for (const type of everyType) {
      expect(section(type), type).not.toBe('');
      expect(published, type).toContain(`[\`${type}\`](#`);
    }
  });

  it.each(everyType)('%s: its schema is the contract’s, and its example body is one the schema takes', (type) => {
    const blocks = jsonBlocks(section(type));
    expect(blocks).toHaveLength(2);
    const [example, schema] = blocks as [Record<string, unknown>, unknown];
    expect(schema).toEqual(contractSchema(type));
    expect(eventEnvelope(type).parse(example)).toEqual(example);
    expect(example).toEqual(EXAMPLE_EVENTS[type]);
    const id = String(example.id);
    expect(id).toMatch(DELIVERY_KEY);
    expect(Number(id.slice(4, 17))).toBe(Date.parse(String(example.created)));
  });

  it('names every header the sender sets, and has the retry schedule of the contract', () => {
    for (const header of Object.values(WEBHOOK_HEADERS)) expect(published).toContain(`| \`${header}\` |`);
    const rows = [...published.matchAll(/^\| (\d+) \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$/gm)];
    expect(rows.map((r) => Number(r[1]))).toEqual(Array.from({ length: RETRY_STEPS.length + 1 }, (_, i) => i + 1));
    const seconds = (text: string) =>
      [...text.matchAll(/(\d+) (h|min|s)\b/g)].reduce((sum, [, n, unit]) => sum + Number(n) * (unit === 'h' ? 3600 : unit === 'min' ? 60 : 1), 0);
    RETRY_STEPS.forEach((step, i) => {
      const row = rows[i + 1]!;
      expect(seconds(row[2]!) * 1000, `attempt ${i + 2}`).toBe(step * RETRY_UNIT_MS);
      const [low, high] = row[3]!.split(' to ');
      expect(seconds(low!) * 1000).toBe(Math.round(step * RETRY_UNIT_MS * 0.9));
      expect(seconds(high!) * 1000).toBe(Math.round(step * RETRY_UNIT_MS * 1.1));
    });
  });

  it('embeds both verification examples as they are, and its worked example verifies', () => {
    expect(published).toContain(readFileSync(NODE_EXAMPLE, 'utf8'));
    expect(published).toContain(readFileSync(PYTHON_EXAMPLE, 'utf8'));
    const ex = SIGNING_EXAMPLE;
    expect(published).toContain(`${WEBHOOK_HEADERS.signature}: ${ex.signature}\n`);
    expect(published).toContain(`${WEBHOOK_HEADERS.signature}: ${ex.rotationSignature}\n`);
    expect(published).toContain(`\`\`\`json\n${ex.body}\n\`\`\``);
    expect(verifySignature(ex.secret, ex.signature, String(ex.timestamp), ex.body, ex.timestamp)).toBe(true);
    expect(verifySignature(ex.previousSecret, ex.rotationSignature, String(ex.timestamp), ex.body, ex.timestamp)).toBe(true);
    expect(readFileSync(PYTHON_EXAMPLE, 'utf8')).toContain(`TOLERANCE_SECONDS = ${SIGNATURE_TOLERANCE_SECONDS}\n`);
  });
});

// The verification examples, against what the sender signs.

interface Case {
  name: string;
  secret: string;
  signature: string;
  timestamp: string;
  body: string;
  now: number;
  valid: boolean;
}

const secret = 'whsec_3pQ8vZk1YwR7nL2cT9xFb4hJ6mS0aDeGiKoUqWrYt5E';
const replaced = 'whsec_Nf7Hc2Lx9Vb4Qz1Mk8Rw3Tp6Yd0Gs5Ja_Eu-Io7Xh2C';
const t = 1_768_388_401;
/** A real body, with a name outside ASCII: the signature is over the UTF-8 bytes. */
const body = JSON.stringify(
  eventEnvelope('pass.record').parse({
    ...EXAMPLE_EVENTS['pass.record'],
    data: { ...EXAMPLE_EVENTS['pass.record'].data, person: { personKey: 'p8w2n5c7j3k9m4qa', kind: 'employee', name: 'Zoë Åkesson 王芳' } },
  }),
);
const signed = signature([secret], t, body);
const rotated = signature([secret, replaced], t, body);

const cases: Case[] = [
  { name: 'a signature by the sender', secret, signature: signed, timestamp: String(t), body, now: t, valid: true },
  { name: 'the new secret during a rotation', secret, signature: rotated, timestamp: String(t), body, now: t, valid: true },
  { name: 'the replaced secret during a rotation', secret: replaced, signature: rotated, timestamp: String(t), body, now: t, valid: true },
  { name: 'entries of another scheme beside v1', secret, signature: `v0=${'0'.repeat(64)}, ${signed}`, timestamp: String(t), body, now: t, valid: true },
  { name: 'a timestamp 300 s old', secret, signature: signed, timestamp: String(t), body, now: t + SIGNATURE_TOLERANCE_SECONDS, valid: true },
  { name: 'a tampered body', secret, signature: signed, timestamp: String(t), body: body.replace('"fever":false', '"fever":true'), now: t, valid: false },
  { name: 'a body with one more byte', secret, signature: signed, timestamp: String(t), body: `${body}\n`, now: t, valid: false },
  { name: 'a wrong secret', secret: `${secret}x`, signature: signed, timestamp: String(t), body, now: t, valid: false },
  { name: 'a secret the rotation did not involve', secret: 'whsec_other', signature: rotated, timestamp: String(t), body, now: t, valid: false },
  { name: 'a timestamp 301 s old', secret, signature: signed, timestamp: String(t), body, now: t + SIGNATURE_TOLERANCE_SECONDS + 1, valid: false },
  { name: 'a timestamp 301 s ahead', secret, signature: signed, timestamp: String(t), body, now: t - SIGNATURE_TOLERANCE_SECONDS - 1, valid: false },
  { name: 'a timestamp other than the one signed', secret, signature: signed, timestamp: String(t + 1), body, now: t, valid: false },
  { name: 'a timestamp that is not a number', secret, signature: signed, timestamp: `${t}.5`, body, now: t, valid: false },
  { name: 'no signature', secret, signature: '', timestamp: String(t), body, now: t, valid: false },
  { name: 'a truncated signature', secret, signature: signed.slice(0, -2), timestamp: String(t), body, now: t, valid: false },
];

const workedExample: Case = {
  name: 'the worked example of the document',
  secret: SIGNING_EXAMPLE.secret,
  signature: SIGNING_EXAMPLE.signature,
  timestamp: String(SIGNING_EXAMPLE.timestamp),
  body: SIGNING_EXAMPLE.body,
  now: SIGNING_EXAMPLE.timestamp,
  valid: true,
};
const allCases = [...cases, workedExample];

/** Runs an example's command line with a case on standard input. */
function run(command: string, file: string, c: Case): { out: string; status: number | null; error: string } {
  const { name: _name, valid: _valid, ...args } = c;
  const result = spawnSync(command, [file], { input: JSON.stringify(args), encoding: 'utf8', timeout: 20_000 });
  if (result.error) throw result.error;
  return { out: result.stdout.trim(), status: result.status, error: result.stderr };
}

describe('the sender’s own check agrees with the cases', () => {
  it.each(allCases)('$name', (c) => {
    expect(verifySignature(c.secret, c.signature, c.timestamp, c.body, c.now)).toBe(c.valid);
  });
});

describe('docs/examples/verify-webhook.mjs', () => {
  let verify: (secret: string, header: unknown, timestamp: unknown, rawBody: string | Buffer, now?: number) => boolean;
  beforeAll(async () => {
    const mod = (await import(pathToFileURL(NODE_EXAMPLE).href)) as { verify: typeof verify; TOLERANCE_SECONDS: number };
    verify = mod.verify;
    expect(mod.TOLERANCE_SECONDS).toBe(SIGNATURE_TOLERANCE_SECONDS);
  });

  it.each(allCases)('verify(): $name', (c) => {
    expect(verify(c.secret, c.signature, c.timestamp, c.body, c.now)).toBe(c.valid);
  });

  it('takes the body as a Buffer, and refuses headers given as arrays', () => {
    expect(verify(secret, signed, String(t), Buffer.from(body, 'utf8'), t)).toBe(true);
    expect(verify(secret, [signed], String(t), body, t)).toBe(false);
    expect(verify(secret, signed, [String(t)], body, t)).toBe(false);
  });

  it('uses the clock when no time is given', () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verify(secret, signature([secret], now, body), String(now), body)).toBe(true);
    expect(verify(secret, signature([secret], now - 3600, body), String(now - 3600), body)).toBe(false);
  });

  it.each(allCases)('command line: $name', (c) => {
    const { out, status, error } = run(process.execPath, NODE_EXAMPLE, c);
    expect(error).toBe('');
    expect(out).toBe(c.valid ? 'valid' : 'invalid');
    expect(status).toBe(c.valid ? 0 : 1);
  });
});

describe('docs/examples/verify_webhook.py', () => {
  it('runs with python3', () => {
    const result = spawnSync('python3', ['--version'], { encoding: 'utf8' });
    expect(result.error, 'python3 is needed to test the Python example').toBeUndefined();
    expect(`${result.stdout}${result.stderr}`).toMatch(/^Python 3\./);
  });

  it.each(allCases)('command line: $name', (c) => {
    const { out, status, error } = run('python3', PYTHON_EXAMPLE, c);
    expect(error).toBe('');
    expect(out).toBe(c.valid ? 'valid' : 'invalid');
    expect(status).toBe(c.valid ? 0 : 1);
  });

  it('uses the clock when no time is given', () => {
    const now = Math.floor(Date.now() / 1000);
    const fresh = { name: 'now', secret, signature: signature([secret], now, body), timestamp: String(now), body, valid: true };
    const script = `import json, sys\nsys.path.insert(0, ${JSON.stringify(PYTHON_EXAMPLE.replace(/\/[^/]+$/, ''))})\nfrom verify_webhook import verify\nc = json.load(sys.stdin)\nprint(verify(c["secret"], c["signature"], c["timestamp"], c["body"].encode("utf-8")))\n`;
    const result = spawnSync('python3', ['-c', script], { input: JSON.stringify(fresh), encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('True');
  });
});
