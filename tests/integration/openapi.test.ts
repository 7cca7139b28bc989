import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { baseUrl } from '../support/api.ts';

/** The API serves its OpenAPI document (docs/openapi.json, as `npm run openapi` wrote it) to anyone. */
describe('GET /v1/openapi.json', () => {
  it('answers the published document itself, without a session', async () => {
    const res = await fetch(`${baseUrl()}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const published = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as unknown;
    expect(await res.json()).toEqual(published);
  });
});
