import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPublicKey } from 'node:crypto';
import { generateLicenceKeys } from '@passcloud/functions/domain/licence';

/**
 * The one-machine host issues its own licences: a demo key pair under the data folder stands in
 * for the operator's (on AWS the stack holds only the operator's public key).
 */
export function localLicenceKeys(dataDir: string): { privateKeyFile: string; publicKey: string } {
  const dir = join(dataDir, 'licence');
  const privateKeyFile = join(dir, 'demo-private.pem');
  if (!existsSync(privateKeyFile)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(privateKeyFile, generateLicenceKeys().privateKeyPem, { mode: 0o600 });
  }
  const publicKey = (createPublicKey(readFileSync(privateKeyFile, 'utf8')).export({ type: 'spki', format: 'der' }) as Buffer).toString('base64');
  return { privateKeyFile, publicKey };
}
