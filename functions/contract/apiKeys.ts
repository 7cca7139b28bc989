import * as z from 'zod';
import { AUTH_CODES, type AuthCode } from './menu.ts';

/**
 * API keys (`/v1/apiKeys`, settings section `settings:apikeys`): credentials for a company's own
 * machines (an HR system, a visitor desk, a SIEM). A key is sent as `Authorization: Bearer <key>`
 * and reaches the routes its authCodes open, never those that manage accounts, two-factor login,
 * keys, webhooks' secrets or the company's security settings (routes.ts `keyMayUse`). Its secret
 * is shown once and stored only as a hash.
 */

/** Keys a company may hold at once, enforced by one conditional write. */
export const API_KEY_LIMIT = 20;
export const API_KEY_NAME_MAX = 64;

/** The codes a key may never hold: what they open is for people only. */
export const SESSION_ONLY_CODES = ['settings:account', 'settings:privacy', 'settings:apikeys'] as const satisfies readonly AuthCode[];
/** The codes a key may hold (at most those of the account that makes it). */
export const KEY_CODES = AUTH_CODES.filter((code) => !(SESSION_ONLY_CODES as readonly string[]).includes(code)) as Exclude<AuthCode, (typeof SESSION_ONLY_CODES)[number]>[];

/** A key's form: `pck_<tenantId>_<apiKeyKey>_<secret>`, which no session token (`<tenantId>.<secret>`) has. */
export const API_KEY_PATTERN = /^pck_([a-z0-9]{1,40})_([0-9a-z]{16})_([A-Za-z0-9_-]{43})$/;

export const apiKeyParams = z.object({ apiKeyKey: z.string().regex(/^[0-9a-z]{16}$/, { message: 'error.itemNotFound' }) });

const name = z.string().trim().min(1).max(API_KEY_NAME_MAX);
const authCodes = z
  .array(z.enum(KEY_CODES))
  .min(1, { message: 'apiKey.codesRequired' })
  .max(KEY_CODES.length)
  .transform((list) => KEY_CODES.filter((code) => list.includes(code)));

export const apiKeyCreateBody = z
  .object({
    name,
    authCodes,
    expireTime: z.iso
      .datetime({ offset: true })
      .nullable()
      .default(null)
      .meta({ description: 'When the key stops working; null for never' })
      .refine((value) => value === null || Date.parse(value) > Date.now(), { message: 'apiKey.expiryPast' }),
  })
  .strict();
export type ApiKeyCreateBody = z.output<typeof apiKeyCreateBody>;

export const apiKeyVersionBody = z.object({ version: z.number().int().min(1) }).strict();
export const apiKeyVersionQuery = z.object({ version: z.coerce.number().int().min(1) }).strict();

const stamp = z.iso.datetime();

/** A key as `GET /v1/apiKeys` lists it: never its secret. */
const apiKeyAnswer = z.object({
  apiKeyKey: z.string(),
  name: z.string(),
  prefix: z.string().meta({ description: 'The start of the key (`pck_<company>_<apiKeyKey>`), which tells keys apart; the secret follows it' }),
  authCodes: z.array(z.enum(AUTH_CODES)).meta({ description: 'The sections the key may use' }),
  createdBy: z.string().meta({ description: 'The login name of the account that made it' }),
  createTime: stamp,
  secretRotateTime: stamp.nullable().meta({ description: 'When the secret was last replaced; null when never' }),
  lastUsedTime: stamp.nullable().meta({ description: 'When a request last used it; null when never' }),
  expireTime: stamp.nullable().meta({ description: 'When it stops working; null for never' }),
  expired: z.boolean(),
  version: z.number().int().meta({ description: 'Send it back with a rotation or a revocation: a stale one answers 409' }),
});
export type ApiKeyJson = z.output<typeof apiKeyAnswer>;

export const apiKeyList = z.object({
  items: z.array(apiKeyAnswer),
  limit: z.number().int().meta({ description: 'How many keys the company may hold at once' }),
  rate: z.object({ requests: z.number().int(), perSeconds: z.number().int() }).meta({ description: 'Requests each key may make in a window' }),
});

/** A new key, or a key with a new secret: the secret is in `key`, shown this once. */
export const apiKeySecret = z.object({
  apiKey: apiKeyAnswer,
  key: z.string().meta({ description: 'The whole key (`pck_…`), sent as `Authorization: Bearer <key>`; shown this once' }),
});
export type ApiKeySecret = z.output<typeof apiKeySecret>;
