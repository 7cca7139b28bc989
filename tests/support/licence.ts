import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { issueLicenceCode, type LicenceTerms } from '@passcloud/functions/domain/licence';
import { call } from './api.ts';

/** An activation code signed with the local stack's demo key, as the operator's tool issues it. */
export function licenceCode(terms: Partial<LicenceTerms> = {}): string {
  const now = new Date();
  return issueLicenceCode(readFileSync(inject('localEnv').LICENCE_PRIVATE_KEY_FILE!, 'utf8'), {
    id: randomUUID(),
    seats: 50,
    expiresAt: new Date(now.getTime() + 365 * 86_400_000).toISOString(),
    issuedAt: now.toISOString(),
    ...terms,
  });
}

/** Activates a licence for the caller's company, so it can bind terminals. */
export async function grantSeats(token: string, seats = 50): Promise<void> {
  const answer = await call('POST', '/v1/licences', { token, body: { activationCode: licenceCode({ seats }) } });
  if (answer.body.code !== 201) throw new Error(`licence activation answered ${answer.status}: ${answer.body.message}`);
}
