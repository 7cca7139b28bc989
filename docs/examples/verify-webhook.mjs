// Verifies a Pass Cloud webhook delivery with Node.js 18 or later and no dependencies.
//
//   import { verify } from './verify-webhook.mjs';
//   const ok = verify(secret, req.headers['passcloud-signature'], req.headers['passcloud-timestamp'], rawBody);
//
// `rawBody` is the request body exactly as received (a Buffer or a string), before any JSON
// parser has seen it. As a command: a JSON object { secret, signature, timestamp, body, now? }
// on standard input; prints `valid` (exit code 0) or `invalid` (exit code 1).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Deliveries signed further than this from the receiver's clock are refused. */
export const TOLERANCE_SECONDS = 300;

export function verify(secret, signatureHeader, timestampHeader, rawBody, now = Math.floor(Date.now() / 1000)) {
  if (typeof signatureHeader !== 'string' || typeof timestampHeader !== 'string') return false;
  if (!/^[0-9]{1,12}$/.test(timestampHeader)) return false;
  if (Math.abs(now - Number(timestampHeader)) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${timestampHeader}.`).update(rawBody).digest();
  let valid = false;
  for (const entry of signatureHeader.split(',')) {
    const [scheme, hex] = entry.trim().split('=', 2);
    if (scheme !== 'v1' || !/^[0-9a-f]{64}$/.test(hex ?? '')) continue;
    // Every entry is compared, in constant time, so the answer's timing says nothing about which matched.
    if (timingSafeEqual(Buffer.from(hex, 'hex'), expected)) valid = true;
  }
  return valid;
}

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const args = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const ok = verify(args.secret, args.signature, args.timestamp, args.body, args.now ?? undefined);
  console.log(ok ? 'valid' : 'invalid');
  process.exitCode = ok ? 0 : 1;
}

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
