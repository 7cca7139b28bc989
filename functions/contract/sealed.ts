import * as z from 'zod';

/**
 * Fields a client seals before sending: a password (or the account name at login) never travels
 * readable in a body, even inside TLS, so that no log or proxy between holds it.
 *
 * How: encode the text as UTF-8, cut it into blocks of at most 190 bytes, encrypt each with
 * RSA-OAEP (SHA-256, MGF1 with SHA-256) under the named key, base64-encode each block, and join the
 * blocks with `:` (most texts are one block; an empty text is one block too). The key is a 2048-bit
 * RSA public key, its DER (SubjectPublicKeyInfo) encoding in base64:
 * - `login`: the `publicKey` of `POST /v1/systems/security`, named by its `securityId` in the same
 *   body; each such key serves one request;
 * - `session`: the `key` that login answered for this session (also in `GET /v1/systems/me`).
 *
 * The OpenAPI document marks each such field with the extension `x-sealed` (functions/openapi.ts).
 */
export type SealingKey = 'login' | 'session';

export const SEALED_EXTENSION = 'x-sealed';

const how: Record<SealingKey, string> = {
  login: 'the `publicKey` of `POST /v1/systems/security` (named by `securityId`)',
  session: 'the session’s `key` (answered by login and `GET /v1/systems/me`)',
};

/** A sealed text field: `what`, sealed with the `key`, at most `max` characters of ciphertext. */
export function sealed(key: SealingKey, what: string, max = 1024) {
  return z
    .string()
    .min(1)
    .max(max)
    .meta({
      description: `${what}, sealed: RSA-OAEP with SHA-256 under ${how[key]}, base64, blocks of at most 190 plaintext bytes joined by \`:\``,
      [SEALED_EXTENSION]: { key, algorithm: 'RSA-OAEP', hash: 'SHA-256', encoding: 'base64', blockBytes: 190, separator: ':' },
    });
}
