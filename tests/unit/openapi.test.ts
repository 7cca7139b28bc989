import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createConfig, lint } from '@redocly/openapi-core';
import { fileURLToPath } from 'node:url';
import { keyMayUse, routes, routeKey, type RouteEntry } from '@passcloud/functions/routes';
import { OPENAPI_ROUTE, declaredHandlers, openApiText } from '@passcloud/functions/openapi';
import type { HandlerDef } from '@passcloud/functions/lib/http';

/**
 * docs/openapi.json is generated from the route table and the handlers' zod schemas
 * (`npm run openapi` writes it). It must be what the generator makes now, a valid OpenAPI 3.1
 * document, and hold every route of the table with its body, query, path parameters, access and
 * answers; its device routes must say what docs/device-protocol.md says of their credentials.
 */

interface Operation {
  operationId: string;
  summary: string;
  tags: string[];
  'x-access': string;
  'x-authCodes': string[];
  description: string;
  parameters?: { name?: string; in?: 'path' | 'query'; required?: boolean; schema?: unknown; $ref?: string }[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  security: Record<string, string[]>[];
  responses: Record<string, { $ref?: string; content?: Record<string, unknown> }>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  tags: { name: string; description?: string }[];
  components: { responses: Record<string, { headers?: Record<string, unknown> }>; securitySchemes: Record<string, unknown>; parameters: Record<string, { name: string; in: string }> };
}

/** The operations whose answer is still open, each with why: none, every operation declares its answer. */
const OPEN_ANSWERS: Record<string, string> = {};

const published = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
const doc = JSON.parse(published) as Document;
let handlers: Record<string, HandlerDef>;

beforeAll(async () => {
  handlers = await declaredHandlers();
});

const json = (schema: z.ZodType) => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
};
const shapeKeys = (schema: z.ZodType): string[] => Object.keys((json(schema).properties as Record<string, unknown> | undefined) ?? {}).sort();
const opOf = (route: RouteEntry): Operation | undefined => doc.paths[route.path]?.[route.method.toLowerCase()];

describe('docs/openapi.json', () => {
  it('is what the generator makes from the route table and the schemas (npm run openapi writes it)', async () => {
    expect(published === (await openApiText()), 'docs/openapi.json is stale: run `npm run openapi`').toBe(true);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('passes Redocly’s recommended rules with no error, a second validator made independently of the first', async () => {
    // Every example must also be valid against its schema, as an error rather than the recommended warning.
    const config = await createConfig({ extends: ['recommended'], rules: { 'no-invalid-media-type-examples': { severity: 'error', allowAdditionalProperties: false } } });
    const problems = await lint({ ref: fileURLToPath(new URL('../../docs/openapi.json', import.meta.url)), config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
    expect(errors).toEqual([]);
  }, 60_000);

  it('has an example for every JSON request body and answer', () => {
    const missing: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const body = op.requestBody?.content['application/json'] as { example?: unknown } | undefined;
        if (body && body.example === undefined) missing.push(`${method} ${path} body`);
        const answer = (op.responses['200'] as { content?: Record<string, { example?: unknown }> }).content?.['application/json'];
        if (answer && answer.example === undefined) missing.push(`${method} ${path} answer`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('holds every route of the table and no other', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(routes.map((r) => routeKey(r)).sort());
    const ids = documented.map((key) => opOf({ method: key.split(' ')[0], path: key.split(' ')[1] } as RouteEntry)!.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each((routes as readonly RouteEntry[]).map((r) => [routeKey(r), r] as const))('%s: its body, query, path parameters, access and answers', (key, route) => {
    const op = opOf(route)!;
    const def = handlers[key]!;
    expect(op.tags).toEqual([route.resource]);
    expect(op['x-access']).toBe(route.access);
    const codes = route.authCodes ?? (route.authCode ? [route.authCode] : []);
    expect(op['x-authCodes']).toEqual([...codes]);
    for (const code of codes) expect(op.description).toContain(code);

    // The body: JSON as the handler's schema takes it, or multipart with the file for binary routes.
    if (route.binary) expect(Object.keys(op.requestBody!.content)).toEqual(['multipart/form-data']);
    else if (def.body) expect(op.requestBody!.content['application/json']!.schema).toEqual(json(def.body));
    else expect(op.requestBody).toBeUndefined();

    // The query and the path parameters, each as its schema has it.
    const inQuery = (op.parameters ?? []).filter((p) => p.in === 'query');
    expect(inQuery.map((p) => p.name).sort()).toEqual(def.query ? shapeKeys(def.query) : []);
    const inPath = (op.parameters ?? []).filter((p) => p.in === 'path');
    expect(inPath.map((p) => p.name).sort()).toEqual([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
    for (const p of inPath) expect(p.required).toBe(true);

    // The credentials.
    const security = op.security.flatMap((s) => Object.keys(s));
    if (route.access === 'session') expect(security).toEqual(keyMayUse(route) ? ['session', 'apiKey'] : ['session']);
    if (keyMayUse(route)) expect(op.responses['429']).toBeDefined();
    if (route.access === 'public') expect(security).toEqual([]);

    // The answers: a success, the envelope of every error the route's checks make, and any other.
    expect(op.responses['200']).toBeDefined();
    expect(op.responses.default).toBeDefined();
    expect(op.responses['500']).toBeDefined();
    if (route.access === 'session') expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '403']));
    if (def.body || def.query || def.params) expect(op.responses['422']?.$ref).toBe('#/components/responses/Invalid422');
    if (route.path.includes('{')) expect(op.responses['404']).toBeDefined();
    for (const answer of Object.values(op.responses)) {
      if (answer.$ref) expect(doc.components.responses[answer.$ref.replace('#/components/responses/', '')], answer.$ref).toBeDefined();
    }
    if (key !== OPENAPI_ROUTE && !(route.method === 'GET' && route.path.endsWith('/export'))) {
      expect(JSON.stringify(op.responses['200']!.content)).toContain('#/components/schemas/Success');
    }

    // A summary; the password header where the route asks for it again; when to come back after a 429.
    expect(op.summary.length).toBeGreaterThan(5);
    const confirms = (op.parameters ?? []).some((p) => p.$ref === '#/components/parameters/ConfirmPassword');
    expect(confirms).toBe(!!route.reauth);
    if (op.responses['429']) expect(op.responses['429'].$ref).toMatch(/Error429$/);
    // A declared answer is published as the handler declares it.
    if (def.answer) {
      const { $schema: _dialect, $defs, ...answer } = z.toJSONSchema(def.answer, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
      // A recursive answer's named parts are shared in components.
      const shared = (text: string) => text.replaceAll('"#/$defs/', '"#/components/schemas/');
      expect(JSON.stringify(op.responses['200']!.content)).toContain(shared(JSON.stringify(answer)));
      for (const [name, part] of Object.entries(($defs ?? {}) as Record<string, unknown>)) {
        expect((doc.components as unknown as { schemas: Record<string, unknown> }).schemas[name]).toEqual(JSON.parse(shared(JSON.stringify(part))));
      }
    }
  });

  it('says when to come back after every 429, and what the password header is', () => {
    for (const name of ['Error429', 'DeviceError429']) expect(Object.keys(doc.components.responses[name]!.headers ?? {})).toEqual(['Retry-After']);
    expect(doc.components.parameters.ConfirmPassword).toMatchObject({ name: 'x-confirm-password', in: 'header' });
  });

  it('describes every tag, and never lets a path parameter take a sibling path’s name', () => {
    for (const tag of doc.tags) expect(tag.description, tag.name).toBeTruthy();
    const requests = doc.paths['/v1/devices/{deviceKey}']!.get!.parameters!.find((p) => p.name === 'deviceKey')!;
    expect(requests.schema).toMatchObject({ not: { enum: expect.arrayContaining(['requests', 'bind']) } });
  });

  it('declares the answer of every operation but the files and the few listed with why', () => {
    const open = (routes as readonly RouteEntry[]).filter((r) => !handlers[routeKey(r)]!.answer && routeKey(r) !== OPENAPI_ROUTE && !(r.method === 'GET' && r.path.endsWith('/export')));
    expect(open.map(routeKey).sort()).toEqual(Object.keys(OPEN_ANSWERS).sort());
    expect(open.length).toBeLessThanOrEqual(5);
  });


  it('says of each device route the credentials docs/device-protocol.md gives it', () => {
    const protocol = readFileSync(new URL('../../docs/device-protocol.md', import.meta.url), 'utf8');
    const rows = [...protocol.matchAll(/^\| `(GET|POST) (\/v1\/[^`,]+)`\s*\| (device|none[^|]*?)\s*\|/gm)].map((m) => ({
      key: `${m[1]} ${m[2]}`,
      credentials: m[3]!,
    }));
    const deviceRoutes = (routes as readonly RouteEntry[]).filter((r) => r.access === 'device').map((r) => routeKey(r));
    expect(
      rows
        .map((r) => r.key)
        .filter((k) => deviceRoutes.includes(k))
        .sort(),
    ).toEqual([...deviceRoutes].sort());
    for (const { key, credentials } of rows) {
      const [method, path] = key.split(' ') as [string, string];
      const op = doc.paths[path]![method.toLowerCase()]!;
      expect(
        op.security.flatMap((s) => Object.keys(s)),
        key,
      ).toEqual(credentials === 'device' ? ['device'] : []);
    }
  });
});
