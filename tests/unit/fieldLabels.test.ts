import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SETTING_NAMES } from '@passcloud/functions/contract/devices';
import { LOCALES } from '@passcloud/functions/contract/locales';
import { fieldLabel, fieldLabelId } from '@passcloud/functions/lib/issues';
import { declaredHandlers } from '@passcloud/functions/openapi';

/**
 * A refusal names each field in the caller's language, from the field's name (functions/lib/issues.ts).
 * Every object key of every schema the contract exports must therefore have a label: a key
 * without one would be named in English in every language.
 */

const CONTRACT = resolve(import.meta.dirname, '../../functions/contract');

/** Zod types that hold no object keys of their own. */
const LEAVES = new Set([
  'string',
  'number',
  'int',
  'bigint',
  'boolean',
  'date',
  'symbol',
  'undefined',
  'null',
  'void',
  'never',
  'any',
  'unknown',
  'enum',
  'literal',
  'nan',
  'template_literal',
  'file',
  'custom',
  'transform',
  'function',
  'success',
]);

type Def = { type: string } & Record<string, unknown>;
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Every object key under `schema`, each with the path it has in a request (list positions left out). */
function keysOf(schema: z.ZodType): { key: string; path: string }[] {
  const found: { key: string; path: string }[] = [];
  const seen = new Set<z.ZodType>();
  const walk = (node: z.ZodType, path: string[]): void => {
    if (seen.has(node)) return;
    seen.add(node);
    const def = defOf(node);
    const inner = (...children: unknown[]) => {
      for (const child of children) if (child) walk(child as z.ZodType, path);
    };
    switch (def.type) {
      case 'object':
        for (const [key, child] of Object.entries(def.shape as Record<string, z.ZodType>)) {
          found.push({ key, path: [...path, key].join('.') });
          walk(child, [...path, key]);
        }
        return inner(def.catchall);
      case 'array':
      case 'set':
        return inner(def.element ?? def.valueType);
      case 'union':
        return inner(...(def.options as z.ZodType[]));
      case 'intersection':
        return inner(def.left, def.right);
      case 'tuple':
        return inner(...(def.items as z.ZodType[]), def.rest);
      case 'record':
      case 'map':
        return inner(def.valueType);
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'catch':
      case 'readonly':
      case 'nonoptional':
      case 'promise':
        return inner(def.innerType);
      case 'pipe':
        return inner(def.in, def.out);
      case 'lazy':
        return inner((def.getter as () => z.ZodType)());
      default:
        expect(LEAVES.has(def.type), `a walk through zod type "${def.type}" (add it here)`).toBe(true);
    }
  };
  walk(schema, []);
  return found;
}

/** Every zod schema exported from functions/contract/*.ts, by "<file>.<export>". */
async function contractSchemas(): Promise<Map<string, z.ZodType>> {
  const schemas = new Map<string, z.ZodType>();
  for (const file of readdirSync(CONTRACT).filter((f) => f.endsWith('.ts'))) {
    const name = file.replace(/\.ts$/, '');
    const module = (await import(`@passcloud/functions/contract/${name}`)) as Record<string, unknown>;
    for (const [exported, value] of Object.entries(module)) if (value instanceof z.ZodType) schemas.set(`${name}.${exported}`, value);
  }
  return schemas;
}

const SETTINGS: ReadonlySet<string> = new Set(SETTING_NAMES);

/** The key's label; a device setting is read under `settings`, however its schema is exported. */
const labelOf = (key: string, path: string) => fieldLabelId(path) ?? (SETTINGS.has(key) ? fieldLabelId(`settings.${key}`) : undefined);

describe('field labels of the contract', () => {
  it('walks every schema the contract exports, through objects, lists, unions, optionals, defaults and pipes', async () => {
    const schemas = await contractSchemas();
    expect(schemas.size).toBeGreaterThan(40);
    const grant = keysOf(schemas.get('authorities.grantBody')!).map((k) => k.path);
    expect(grant).toEqual(expect.arrayContaining(['setType', 'personKeys', 'validity', 'validity.start', 'validity.end', 'validity.permanent']));
    const results = keysOf(schemas.get('protocol.faceResultsBody')!).map((k) => k.path);
    expect(results).toEqual(expect.arrayContaining(['results', 'results.reason', 'results.detail']));
    expect(keysOf(schemas.get('devices.devicePatchBody')!).map((k) => k.path)).toContain('settings.volume');
  });

  it('has a label for every object key of every contract schema a request is checked against', async () => {
    // What the server answers is never refused, so an answer schema needs no labels.
    const answers = new Set(Object.values(await declaredHandlers()).flatMap((def) => (def.answer ? [def.answer] : [])));
    const missing = new Set<string>();
    for (const [name, schema] of await contractSchemas()) {
      if (answers.has(schema)) continue;
      for (const { key, path } of keysOf(schema)) if (!labelOf(key, path)) missing.add(`${key} (${name}: ${path})`);
    }
    expect([...missing].sort()).toEqual([]);
    // Every resource is loaded to find the answers: more than a unit test's usual few seconds on a busy machine.
  }, 60_000);

  it('names a field in the caller’s language, never by its English key', () => {
    for (const locale of LOCALES) {
      expect(fieldLabel('validity.end', locale), locale).not.toBe('End');
      expect(fieldLabel('validity.start', locale), locale).not.toBe('Start');
    }
    expect(fieldLabel('validity.end', 'en_US')).toBe('End date');
    expect(fieldLabel('validity.end', 'ja_JP')).not.toMatch(/[A-Za-z]/);
  });
});
