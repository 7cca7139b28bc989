import { constants, createHash, generateKeyPair, privateDecrypt, randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { env } from './env.ts';

const generateKeyPairAsync = promisify(generateKeyPair);
const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

export interface RsaKeyPair {
  /** Base64 DER SPKI, as WebCrypto's `importKey('spki', ...)` takes it. */
  publicKey: string;
  /** PKCS#8 PEM. */
  privateKey: string;
}

export async function newRsaKeyPair(): Promise<RsaKeyPair> {
  const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey: (publicKey as Buffer).toString('base64'), privateKey: privateKey as string };
}

/** Key pairs made ahead of need, so a login key is usually handed out without waiting for one. */
const SPARE_KEY_PAIRS = 2;
const spareKeyPairs: Promise<RsaKeyPair>[] = [];

/** The next login key pair: a spare one when there is one; the spares are refilled in the background. */
export async function nextRsaKeyPair(): Promise<RsaKeyPair> {
  const next = spareKeyPairs.shift();
  while (spareKeyPairs.length < SPARE_KEY_PAIRS) {
    const spare = newRsaKeyPair();
    // A failed spare is simply not used: the caller who takes it makes a fresh one.
    spare.catch(() => undefined);
    spareKeyPairs.push(spare);
  }
  if (next) {
    try {
      return await next;
    } catch {
      // fall through to a fresh key pair
    }
  }
  return newRsaKeyPair();
}

/**
 * Decrypts base64 RSA-OAEP (SHA-256) ciphertext, as produced by WebCrypto; undefined when it does
 * not decrypt. A text longer than one block (190 bytes) comes as blocks joined by `:`.
 */
export function rsaDecrypt(privateKeyPem: string, ciphertext: string): string | undefined {
  try {
    const blocks = ciphertext.split(':').map((block) =>
      privateDecrypt({ key: privateKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, Buffer.from(block, 'base64')),
    );
    return Buffer.concat(blocks).toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * scrypt with N=2^17, r=8, p=1 (128 MiB, a few hundred ms): costly for guessing, bounded for one
 * login. The local setting PASSWORD_HASH_COST (log2 of N) lowers it for the test stack only; the
 * stack never sets it, so a deployed function always hashes at this cost.
 */
export const PRODUCTION_HASH_COST = 17;
const SCRYPT = { r: 8, p: 1, maxmem: 256 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** log2 of scrypt's N for new hashes: the production cost unless the local setting names a valid lower one. */
export function passwordHashCost(): number {
  const set = Number(env('PASSWORD_HASH_COST'));
  return Number.isInteger(set) && set >= 1 && set <= PRODUCTION_HASH_COST ? set : PRODUCTION_HASH_COST;
}

/** A stored hash records its own parameters (`scrypt$logN$r$p$salt$key`), so hashes of any cost verify. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const logN = passwordHashCost();
  const key = await scryptAsync(password.normalize('NFKC'), salt, KEY_LENGTH, { N: 2 ** logN, ...SCRYPT });
  return ['scrypt', logN, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(password.normalize('NFKC'), Buffer.from(salt, 'base64'), expected.length, {
    N: 2 ** Number(logN),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(expected, actual);
}

let decoyHash: Promise<string> | undefined;
/** A hash to verify against when the user does not exist, so both answers take the same time. */
export function decoyPasswordHash(): Promise<string> {
  decoyHash ??= hashPassword(randomBytes(16).toString('hex'));
  return decoyHash;
}

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');

const ID_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** A short random id (Crockford base32, 80 bits by default). */
export function newId(length = 16): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ID_ALPHABET[b & 31];
  return out;
}

/** A device binding code: 8 characters without look-alikes (no 0/O, 1/I/L). */
export function newUserCode(): string {
  const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
  let out = '';
  for (let i = 0; i < 8; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export const sixDigitCode = (): string => String(randomInt(0, 1_000_000)).padStart(6, '0');

export function safeEqualText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A key that sorts by creation time (10 characters of milliseconds, then 8 random). */
export function newTimeId(now = Date.now()): string {
  let time = '';
  for (let n = now, i = 0; i < 10; i++, n = Math.floor(n / 32)) time = ID_ALPHABET[n % 32] + time;
  return time + newId(8);
}
