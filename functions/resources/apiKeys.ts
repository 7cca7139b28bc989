import * as z from 'zod';
import {
  API_KEY_LIMIT,
  apiKeyCreateBody,
  apiKeyList,
  apiKeyParams,
  apiKeySecret,
  apiKeyVersionBody,
  apiKeyVersionQuery,
  type ApiKeySecret,
} from '#contract/apiKeys';
import { apiKeyJson, createApiKey, deleteApiKey, listApiKeys, rotateApiKey } from '#data/apiKeys';
import { THROTTLES, throttleLimit } from '#domain/throttle';
import { declareEnvironment } from '#lib/env';
import { fieldError } from '#lib/errors';
import { created, defineResource, deleted, ok, sessionOnlyRoute } from '#lib/http';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET']);

/**
 * `/v1/apiKeys`: the company's API keys (at most API_KEY_LIMIT). Only people manage them, each
 * change after a password confirmation (route table `reauth`); the secret is answered once, when
 * the key is made and when it is given a new one.
 */
export const apiKeys = defineResource('apiKeys', {
  'GET /v1/apiKeys': sessionOnlyRoute({
    answer: apiKeyList,
    async handle({ auth }) {
      const items = (await listApiKeys(auth.tenantId)).map((item) => apiKeyJson(item));
      return ok({ items, limit: API_KEY_LIMIT, rate: { requests: throttleLimit('apiKey'), perSeconds: THROTTLES.apiKey.windowMs / 1000 } });
    },
  }),
  'POST /v1/apiKeys': sessionOnlyRoute({
    answer: apiKeySecret,
    body: apiKeyCreateBody,
    async handle({ auth, body }) {
      // A key opens at most what its maker may open.
      const notHeld = body.authCodes.filter((code) => !auth.account.authCodes.includes(code));
      if (notHeld.length) throw fieldError('authCodes', 'apiKey.codeNotHeld', { codes: notHeld.join(', ') });
      const { item, key } = await createApiKey(auth.tenantId, { name: body.name, authCodes: body.authCodes, expiresAt: body.expireTime, createdBy: auth.account.username });
      return created({ apiKey: apiKeyJson(item), key } satisfies ApiKeySecret);
    },
  }),
  'POST /v1/apiKeys/{apiKeyKey}/secret': sessionOnlyRoute({
    answer: apiKeySecret,
    params: apiKeyParams,
    body: apiKeyVersionBody,
    async handle({ auth, params, body }) {
      const { item, key } = await rotateApiKey(auth.tenantId, params.apiKeyKey, body.version);
      return created({ apiKey: apiKeyJson(item), key } satisfies ApiKeySecret);
    },
  }),
  'DELETE /v1/apiKeys/{apiKeyKey}': sessionOnlyRoute({
    answer: z.null(),
    params: apiKeyParams,
    query: apiKeyVersionQuery,
    async handle({ auth, params, query }) {
      await deleteApiKey(auth.tenantId, params.apiKeyKey, query.version);
      return deleted();
    },
  }),
});

export const handler = apiKeys.handler;
