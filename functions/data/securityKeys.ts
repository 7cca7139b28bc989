import { Entity } from 'electrodb';
import { MAIN_TABLE, SYSTEM_SCOPE } from './tables.ts';
import { entityConfig, epochSeconds, lazy, SERVICE, tenantPartition } from './entity.ts';
import { SECURITY_KEY } from './keys/main.ts';
import { newId, type RsaKeyPair } from '#lib/crypto';

/** Login keys handed out by `POST /v1/systems/security`, kept 5 minutes, used once. */
export const securityKeys = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'securityKey', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          securityId: { type: 'string', required: true },
          publicKey: { type: 'string', required: true },
          privateKey: { type: 'string', required: true },
          expiresAt: { type: 'number', required: true },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['securityId'], template: SECURITY_KEY.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

// Login keys

export const SECURITY_KEY_TTL_MS = 5 * 60_000;

export async function storeSecurityKey(pair: RsaKeyPair): Promise<string> {
  const securityId = newId(24);
  const expiresAt = Date.now() + SECURITY_KEY_TTL_MS;
  await securityKeys()
    .create({ tenantId: SYSTEM_SCOPE, securityId, ...pair, expiresAt, ttl: epochSeconds(new Date(expiresAt)) + 60 })
    .go();
  return securityId;
}

/**
 * Takes a login key for one use: it is deleted as it is read, so parallel requests with the same
 * key get it once, and a failed attempt needs a new key.
 */
export async function takeSecurityKey(securityId: string): Promise<RsaKeyPair | undefined> {
  const key = (await securityKeys().delete({ tenantId: SYSTEM_SCOPE, securityId }).go({ response: 'all_old' })).data;
  if (!key || key.expiresAt < Date.now()) return undefined;
  return { publicKey: key.publicKey, privateKey: key.privateKey };
}
