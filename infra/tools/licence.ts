import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generateLicenceKeys, issueLicenceCode, normalizeMac } from '@passcloud/functions/domain/licence';

/**
 * The operator's licence tool.
 *   npm run licence -- keygen [--key <file>]
 *   npm run licence -- issue --seats 50 --days 365 [--mac AA:BB:CC:DD:EE:FF] [--key <file>]
 * The private key file comes from --key or LICENCE_PRIVATE_KEY_FILE and must stay outside the
 * repository; the stack is given only the public key (`cdk deploy --context licencePublicKey=...`).
 */
const REPO_ROOT = resolve(import.meta.dirname, '../..');
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    key: { type: 'string', default: process.env.LICENCE_PRIVATE_KEY_FILE },
    seats: { type: 'string' },
    days: { type: 'string' },
    mac: { type: 'string' },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

const keyFile = values.key ? resolve(values.key) : fail('Name the private key file with --key or LICENCE_PRIVATE_KEY_FILE.');
const command = positionals[0];

if (command === 'keygen') {
  if (!relative(REPO_ROOT, keyFile).startsWith('..')) fail(`Keep the private key outside the repository: ${keyFile}`);
  if (existsSync(keyFile)) fail(`${keyFile} exists; a new key would orphan every code issued with it.`);
  const keys = generateLicenceKeys();
  mkdirSync(dirname(keyFile), { recursive: true });
  writeFileSync(keyFile, keys.privateKeyPem, { mode: 0o600 });
  console.log(`Private key written to ${keyFile} (keep it secret, keep a backup).`);
  console.log(`Public key: ${keys.publicKey}`);
  console.log(`Deploy with: npx cdk deploy --context licencePublicKey=${keys.publicKey}`);
} else if (command === 'issue') {
  const seats = Number(values.seats);
  const days = Number(values.days);
  if (!Number.isInteger(seats) || seats < 1 || seats > 100_000) fail('--seats must be a whole number from 1 to 100000');
  if (!Number.isInteger(days) || days < 1 || days > 3650) fail('--days must be a whole number from 1 to 3650');
  const mac = values.mac ? normalizeMac(values.mac) : undefined;
  if (mac && !/^([0-9A-F]{2}:){5}[0-9A-F]{2}$/.test(mac)) fail('--mac must be a MAC address such as 00:1A:2B:3C:4D:5E');
  if (!existsSync(keyFile)) fail(`No private key at ${keyFile}; run keygen first.`);
  const now = new Date();
  const code = issueLicenceCode(readFileSync(keyFile, 'utf8'), {
    id: randomUUID(),
    seats,
    expiresAt: new Date(now.getTime() + days * 86_400_000).toISOString(),
    ...(mac ? { mac } : {}),
    issuedAt: now.toISOString(),
  });
  console.log(code);
} else {
  fail('usage: npm run licence -- keygen | issue --seats N --days D [--mac MAC]   (--key FILE or LICENCE_PRIVATE_KEY_FILE)');
}
