import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KMSClient } from '@aws-sdk/client-kms';
import { env } from './env.ts';

/**
 * Secrets kept in records (the SMTP password of the email settings): on AWS encrypted with the
 * stack's KMS key (`SETTINGS_KMS_KEY_ID`), on one machine with AES-256-GCM under the key file the
 * local host creates in its data folder (`SETTINGS_KEY_FILE`). Either way the tenant id is bound
 * to the ciphertext (KMS encryption context, GCM additional data), so a sealed value copied into
 * another tenant's record does not open.
 */

export type SecretContext = { tenantId: string; purpose: string };

/** The KMS client and commands, loaded when a secret is first sealed or opened with KMS (only the email settings hold one). */
let kmsClient: KMSClient | undefined;
async function kms() {
  const sdk = await import('@aws-sdk/client-kms');
  kmsClient ??= new sdk.KMSClient({ region: env('AWS_REGION') ?? 'us-east-1' });
  return { client: kmsClient, sdk };
}

/** Drops the cached client, for tests. */
export function resetSecretBox(): void {
  kmsClient = undefined;
}

function localKey(): Buffer {
  const file = env('SETTINGS_KEY_FILE');
  if (!file) throw new Error('Neither SETTINGS_KMS_KEY_ID nor SETTINGS_KEY_FILE is set: secrets cannot be stored');
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error('SETTINGS_KEY_FILE must hold a base64 AES-256 key');
  return key;
}

const aad = (context: SecretContext): Buffer => Buffer.from(`${context.tenantId}\u0000${context.purpose}`);

export async function sealSecret(plain: string, context: SecretContext): Promise<string> {
  const keyId = env('SETTINGS_KMS_KEY_ID');
  if (keyId) {
    const { client, sdk } = await kms();
    const out = await client.send(new sdk.EncryptCommand({ KeyId: keyId, Plaintext: Buffer.from(plain, 'utf8'), EncryptionContext: context }));
    return `kms:${Buffer.from(out.CiphertextBlob!).toString('base64')}`;
  }
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', localKey(), iv).setAAD(aad(context));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `gcm:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
}

export async function openSecret(sealed: string, context: SecretContext): Promise<string> {
  const [scheme, data] = [sealed.slice(0, 4), Buffer.from(sealed.slice(4), 'base64')];
  if (scheme === 'kms:') {
    const { client, sdk } = await kms();
    const out = await client.send(new sdk.DecryptCommand({ CiphertextBlob: data, EncryptionContext: context }));
    return Buffer.from(out.Plaintext!).toString('utf8');
  }
  if (scheme !== 'gcm:') throw new Error('unknown secret scheme');
  const decipher = createDecipheriv('aes-256-gcm', localKey(), data.subarray(0, 12)).setAAD(aad(context));
  decipher.setAuthTag(data.subarray(12, 28));
  return Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8');
}

/** A new local key file's content (base64 of 32 random bytes). */
export const newLocalKey = (): string => randomBytes(32).toString('base64');
