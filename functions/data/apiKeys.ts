import { randomBytes } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { API_KEY_LIMIT, API_KEY_PATTERN, type ApiKeyJson } from '#contract/apiKeys';
import type { AuthCode } from '#contract/menu';
import { dynamo } from '#lib/aws';
import { newId, sha256 } from '#lib/crypto';
import { ConflictError, NotFoundError, ValidationError } from '#lib/errors';
import { MAIN_TABLE, tableName } from './tables.ts';
import { deleteCounted, fewItems, isConditionFailure, putCounted } from './entity.ts';
import { API_KEY, API_KEY_COUNT_SK } from './keys/main.ts';

/**
 * A company's API keys (main table, `apiKey#<apiKeyKey>`, with the count of them in `apiKeyCount`).
 * The key is stored only as the SHA-256 of the whole key: its secret is 256 random bits, so a
 * fast hash cannot be turned back, as with session tokens. Each request of a key counts against
 * the key's own window on the same item (`windowEndsAt`, `windowCount`), in the one write that
 * also notes when it was last used.
 */

export interface ApiKeyItem {
  pk: string;
  sk: string;
  apiKeyKey: string;
  name: string;
  authCodes: AuthCode[];
  keyHash: string;
  createdBy: string;
  createdAt: string;
  secretRotatedAt?: string;
  lastUsedAt?: string;
  expiresAt?: string;
  windowEndsAt?: number;
  windowCount?: number;
  version: number;
}

const main = () => tableName(MAIN_TABLE);
const apiKeySk = (apiKeyKey: string) => API_KEY.of(apiKeyKey);
const COUNT_SK = API_KEY_COUNT_SK;

/** A new key of the company: `pck_<tenantId>_<apiKeyKey>_<43 characters of secret>`. */
function newKey(tenantId: string, apiKeyKey: string): string {
  return `pck_${tenantId}_${apiKeyKey}_${randomBytes(32).toString('base64url')}`;
}

/** The part of a key that names it: shown in lists, never enough to use it. */
export const keyPrefix = (tenantId: string, apiKeyKey: string): string => `pck_${tenantId}_${apiKeyKey}`;

/** A presented key's company, item and hash, when it has a key's form. */
export function parseApiKey(presented: string): { tenantId: string; apiKeyKey: string; keyHash: string } | undefined {
  const match = API_KEY_PATTERN.exec(presented);
  if (!match) return undefined;
  return { tenantId: match[1]!, apiKeyKey: match[2]!, keyHash: sha256(presented) };
}

export const isExpired = (item: Pick<ApiKeyItem, 'expiresAt'>, now = Date.now()): boolean => !!item.expiresAt && Date.parse(item.expiresAt) <= now;

export function apiKeyJson(item: ApiKeyItem, now = Date.now()): ApiKeyJson {
  return {
    apiKeyKey: item.apiKeyKey,
    name: item.name,
    prefix: keyPrefix(item.pk, item.apiKeyKey),
    authCodes: item.authCodes,
    createdBy: item.createdBy,
    createTime: item.createdAt,
    secretRotateTime: item.secretRotatedAt ?? null,
    lastUsedTime: item.lastUsedAt ?? null,
    expireTime: item.expiresAt ?? null,
    expired: isExpired(item, now),
    version: item.version,
  };
}

export async function findApiKey(tenantId: string, apiKeyKey: string, consistent = false): Promise<ApiKeyItem | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: main(), Key: { pk: tenantId, sk: apiKeySk(apiKeyKey) }, ConsistentRead: consistent }));
  return out.Item as ApiKeyItem | undefined;
}

export async function requireApiKey(tenantId: string, apiKeyKey: string): Promise<ApiKeyItem> {
  const item = await findApiKey(tenantId, apiKeyKey, true);
  if (!item) throw new NotFoundError();
  return item;
}

/** Every key of the company (at most API_KEY_LIMIT), oldest first. */
export async function listApiKeys(tenantId: string): Promise<ApiKeyItem[]> {
  return fewItems<ApiKeyItem>(main(), tenantId, API_KEY.prefix(), API_KEY_LIMIT * 2);
}

export interface NewApiKey {
  name: string;
  authCodes: AuthCode[];
  expiresAt: string | null;
  createdBy: string;
}

/**
 * Makes a key within the company's API_KEY_LIMIT: the count and the key are written in one
 * transaction, the count conditioned on staying within the limit, so parallel requests cannot
 * pass it.
 */
export async function createApiKey(tenantId: string, input: NewApiKey): Promise<{ item: ApiKeyItem; key: string }> {
  const apiKeyKey = newId(16);
  const key = newKey(tenantId, apiKeyKey);
  const item: ApiKeyItem = {
    pk: tenantId,
    sk: apiKeySk(apiKeyKey),
    apiKeyKey,
    name: input.name,
    authCodes: input.authCodes,
    keyHash: sha256(key),
    createdBy: input.createdBy,
    createdAt: new Date().toISOString(),
    ...(input.expiresAt ? { expiresAt: new Date(input.expiresAt).toISOString() } : {}),
    version: 1,
  };
  if (!(await putCounted(main(), COUNT_SK, API_KEY_LIMIT, item))) {
    throw new ValidationError([{ path: 'name', message: 'apiKey.limitReached', params: { limit: API_KEY_LIMIT } }]);
  }
  return { item, key };
}

/** A new secret for the key at `version`: the old one stops working at once. */
export async function rotateApiKey(tenantId: string, apiKeyKey: string, version: number): Promise<{ item: ApiKeyItem; key: string }> {
  const key = newKey(tenantId, apiKeyKey);
  const now = new Date().toISOString();
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: main(),
        Key: { pk: tenantId, sk: apiKeySk(apiKeyKey) },
        UpdateExpression: 'SET keyHash = :hash, secretRotatedAt = :now, #version = :next',
        ConditionExpression: 'attribute_exists(sk) AND #version = :version',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':hash': sha256(key), ':now': now, ':version': version, ':next': version + 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { item: out.Attributes as ApiKeyItem, key };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await findApiKey(tenantId, apiKeyKey, true)) ? new ConflictError() : new NotFoundError();
  }
}

/** Revokes the key at `version` and gives its place back: the next request with it answers as a logged-out session. */
export async function deleteApiKey(tenantId: string, apiKeyKey: string, version: number): Promise<void> {
  if (!(await deleteCounted(main(), COUNT_SK, { pk: tenantId, sk: apiKeySk(apiKeyKey) }, version))) {
    throw (await findApiKey(tenantId, apiKeyKey, true)) ? new ConflictError() : new NotFoundError();
  }
}

export type KeyUse = { ok: true; item: ApiKeyItem } | { ok: false; retryAfterMs: number } | { ok: false; gone: true };

/**
 * Counts one request of the key with this hash, in one conditional write that also notes when it
 * was last used: within the window's `limit` it answers the key; past it, how long until the
 * window ends. A key revoked or given a new secret meanwhile answers `gone`. Parallel requests
 * cannot pass the limit: each is a conditional increment of the one counter.
 */
export async function useApiKey(tenantId: string, apiKeyKey: string, keyHash: string, limit: number, windowMs: number): Promise<KeyUse> {
  const Key = { pk: tenantId, sk: apiKeySk(apiKeyKey) };
  for (let round = 0; round < 3; round++) {
    const now = Date.now();
    const nowIso = new Date(now).toISOString();
    try {
      const out = await dynamo().send(
        new UpdateCommand({
          TableName: main(),
          Key,
          UpdateExpression: 'SET lastUsedAt = :nowIso ADD windowCount :one',
          ConditionExpression: 'keyHash = :hash AND windowEndsAt > :now AND windowCount < :limit',
          ExpressionAttributeValues: { ':nowIso': nowIso, ':one': 1, ':hash': keyHash, ':now': now, ':limit': limit },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { ok: true, item: out.Attributes as ApiKeyItem };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    try {
      // No window yet, or the last one is over: this request opens the next.
      const out = await dynamo().send(
        new UpdateCommand({
          TableName: main(),
          Key,
          UpdateExpression: 'SET lastUsedAt = :nowIso, windowCount = :one, windowEndsAt = :end',
          ConditionExpression: 'keyHash = :hash AND (attribute_not_exists(windowEndsAt) OR windowEndsAt <= :now)',
          ExpressionAttributeValues: { ':nowIso': nowIso, ':one': 1, ':hash': keyHash, ':now': now, ':end': now + windowMs },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { ok: true, item: out.Attributes as ApiKeyItem };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const current = await findApiKey(tenantId, apiKeyKey, true);
    if (!current || current.keyHash !== keyHash) return { ok: false, gone: true };
    if (current.windowEndsAt !== undefined && current.windowEndsAt > Date.now() && (current.windowCount ?? 0) >= limit) {
      return { ok: false, retryAfterMs: current.windowEndsAt - Date.now() };
    }
  }
  return { ok: false, retryAfterMs: 1000 };
}
