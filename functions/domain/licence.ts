import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/**
 * Licence activation codes: `PCL1.<payload>.<signature>`, both base64url. The payload is JSON
 * `{ id, seats, expiresAt, mac?, issuedAt }`; the signature is Ed25519 over `PCL1.<payload>` with
 * the operator's private key, which never enters the repository or the stack. The stack holds
 * only the public key (`LICENCE_PUBLIC_KEY`, base64 SPKI DER).
 */
export const LICENCE_PREFIX = 'PCL1';
/** Days before expiry from which a licence shows as expiring. */
export const DEFAULT_REMINDER_DAYS = 30;

/**
 * The free trial: a licence of TRIAL_SEATS seats for TRIAL_DAYS days that a company gets once, when
 * it registers (or, for a company without one, when its owner starts it under Settings > Licences).
 * It is held under the fixed id TRIAL_LICENCE_ID, so a second grant is refused by the key itself.
 * When it ends its seats end as any licence's do: devices already bound keep working, no new one binds.
 */
export const TRIAL_SEATS = 5;
export const TRIAL_DAYS = 30;
export const TRIAL_LICENCE_ID = 'trial';

export interface LicenceTerms {
  /** Unique per code: a code activates one tenant, once. */
  id: string;
  seats: number;
  /** ISO time after which the licence no longer counts. */
  expiresAt: string;
  /** A licence bound to one terminal's MAC address gives its seats to that terminal only. */
  mac?: string;
  issuedAt: string;
}

export type LicenceState = 'valid' | 'expiring' | 'expired';

const MAC = /^([0-9A-F]{2}:){5}[0-9A-F]{2}$/;
export const normalizeMac = (mac: string): string => mac.trim().toUpperCase().replace(/-/g, ':');

export function generateLicenceKeys(): { privateKeyPem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicKey: (publicKey.export({ type: 'spki', format: 'der' }) as Buffer).toString('base64'),
  };
}

/** The operator's side: signs the terms into an activation code. */
export function issueLicenceCode(privateKeyPem: string, terms: LicenceTerms): string {
  const payload = Buffer.from(JSON.stringify(terms)).toString('base64url');
  const signed = `${LICENCE_PREFIX}.${payload}`;
  const signature = sign(null, Buffer.from(signed), createPrivateKey(privateKeyPem)).toString('base64url');
  return `${signed}.${signature}`;
}

export type LicenceProblem = 'licence.malformed' | 'licence.forged' | 'licence.expired';

/** Reads and checks a code against the public key; answers the terms or what is wrong with it. */
export function readLicenceCode(code: string, publicKey: string, now: number): { terms: LicenceTerms } | { problem: LicenceProblem } {
  const parts = code.trim().split('.');
  if (parts.length !== 3 || parts[0] !== LICENCE_PREFIX) return { problem: 'licence.malformed' };
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new Error('LICENCE_PUBLIC_KEY is not an Ed25519 public key (base64 SPKI DER)');
  }
  const valid = verify(null, Buffer.from(`${parts[0]}.${parts[1]}`), key, Buffer.from(parts[2]!, 'base64url'));
  if (!valid) return { problem: 'licence.forged' };
  let terms: LicenceTerms;
  try {
    terms = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as LicenceTerms;
  } catch {
    return { problem: 'licence.malformed' };
  }
  const wellFormed =
    typeof terms.id === 'string' &&
    /^[0-9A-Za-z-]{8,64}$/.test(terms.id) &&
    Number.isInteger(terms.seats) &&
    terms.seats > 0 &&
    terms.seats <= 100_000 &&
    !Number.isNaN(Date.parse(terms.expiresAt)) &&
    (terms.mac === undefined || MAC.test(normalizeMac(terms.mac)));
  if (!wellFormed) return { problem: 'licence.malformed' };
  if (Date.parse(terms.expiresAt) <= now) return { problem: 'licence.expired' };
  return { terms: { ...terms, ...(terms.mac ? { mac: normalizeMac(terms.mac) } : {}) } };
}

export function licenceState(expiresAt: string, now: number, reminderDays = DEFAULT_REMINDER_DAYS): LicenceState {
  const end = Date.parse(expiresAt);
  if (end <= now) return 'expired';
  return end - now <= reminderDays * 86_400_000 ? 'expiring' : 'valid';
}

/** The code as lists show it: enough to recognise, not to reuse. */
export const shortCode = (code: string): string => (code.length > 24 ? `${code.slice(0, 12)}…${code.slice(-8)}` : code);

export interface SeatSource {
  licenceId: string;
  seats: number;
  used: number;
  expiresAt: string;
  mac?: string;
}

/**
 * Where a new terminal's seat comes from: a licence bound to its MAC address first, then the
 * general licence that expires soonest, among those still valid with a seat left.
 */
export function chooseSeat(licences: SeatSource[], mac: string, now: number): SeatSource | undefined {
  const open = licences.filter((l) => Date.parse(l.expiresAt) > now && l.used < l.seats);
  const own = open.find((l) => l.mac === normalizeMac(mac));
  if (own) return own;
  return open.filter((l) => !l.mac).sort((a, b) => Date.parse(a.expiresAt) - Date.parse(b.expiresAt))[0];
}
