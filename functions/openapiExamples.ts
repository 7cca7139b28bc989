import RandExp from 'randexp';

/**
 * Examples for the OpenAPI document (functions/openapi.ts): one value for each request body and
 * each answer, made from its JSON Schema so that it is valid by construction, and the same on every
 * run (the document is committed). tests/unit/openapi.test.ts validates every example against its
 * schema (Redocly's `no-invalid-media-type-examples`).
 */

type Json = Record<string, unknown>;

/** A fixed-seed generator (mulberry32): the same examples on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FORMATS: Record<string, string> = {
  'date-time': '2026-11-28T09:30:00.000Z',
  date: '2026-11-28',
  time: '09:30:00',
  email: 'ada.lovelace@example.com',
  uri: 'https://example.com/passcloud/events',
  url: 'https://example.com/passcloud/events',
  uuid: '3f1c2b7e-8d4a-4c6e-9b1a-2d5e7f9a0c13',
  ipv4: '203.0.113.9',
};

/** Plain words for text fields without a pattern or format, by the field's name. */
const WORDS: Record<string, string> = {
  name: 'Ada Lovelace',
  nickname: 'Ada',
  username: 'ada.lovelace',
  companyName: 'Example Ltd',
  role: 'Engineer',
  message: 'Success',
  description: 'Front desk',
  remark: 'Visits on Mondays',
  title: 'Health declaration',
  text: 'Any fever in the last 14 days?',
  filename: 'people.xlsx',
  reason: 'badCredentials',
  path: 'name',
  phone: '+44 20 7946 0958',
  email: 'ada.lovelace@example.com',
  personId: 'E1001',
  icCard: '0012345678',
  avatar: 'avatar/2026/11/3f1c2b7e8d4a4c6e.jpg',
  serial: 'PCF7-2024-000117',
  cursor: 'MTc5NTg4Nzk2MDE3Mg',
  nextCursor: 'MTc5NTg4Nzk2MDE3Mg',
};

class Sampler {
  private readonly random: () => number;

  constructor(
    private readonly components: Json,
    seed: string,
  ) {
    let hash = 2166136261;
    for (let i = 0; i < seed.length; i++) hash = Math.imul(hash ^ seed.charCodeAt(i), 16777619);
    this.random = seeded(hash);
  }

  private resolve(schema: Json): Json {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    const name = ref.replace('#/components/schemas/', '');
    const target = (this.components.schemas as Record<string, Json> | undefined)?.[name];
    if (!target) throw new Error(`example: no schema ${ref}`);
    return target;
  }

  sample(input: Json, field = '', depth = 0): unknown {
    const schema = this.resolve(input);
    if ('const' in schema) return schema.const;
    if ('example' in schema) return schema.example;
    if (Array.isArray(schema.examples) && schema.examples.length) return schema.examples[0];
    if (Array.isArray(schema.enum)) return schema.enum.find((v) => v !== null) ?? schema.enum[0];
    if (schema.default !== undefined) return schema.default;
    if (Array.isArray(schema.allOf)) {
      const parts = (schema.allOf as Json[]).map((part) => this.sample(part, field, depth));
      return parts.every((p) => p && typeof p === 'object' && !Array.isArray(p)) ? Object.assign({}, ...parts) : parts.at(-1);
    }
    const choices = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
    if (choices) {
      const chosen = choices.find((c) => this.resolve(c).type !== 'null') ?? choices[0]!;
      return this.sample(chosen, field, depth);
    }
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
    const type = types.find((t) => t !== 'null') ?? types[0] ?? (schema.properties ? 'object' : undefined);
    switch (type) {
      case 'object':
        return this.object(schema, depth);
      case 'array': {
        const count = Math.max(1, Number(schema.minItems ?? 1));
        const items = (schema.items as Json | undefined) ?? {};
        if (depth > 4 && Number(schema.minItems ?? 0) === 0) return [];
        return Array.from({ length: count }, () => this.sample(items, field, depth + 1));
      }
      case 'string':
        return this.string(schema, field);
      case 'integer':
      case 'number':
        return this.number(schema, field, type === 'integer');
      case 'boolean':
        return true;
      case 'null':
        return null;
      default:
        return {};
    }
  }

  private object(schema: Json, depth: number): Json {
    const properties = (schema.properties as Record<string, Json> | undefined) ?? {};
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const out: Json = {};
    for (const [name, property] of Object.entries(properties)) {
      // Deep optional branches (recursive trees) stop, so an example stays short.
      if (depth > 3 && !required.has(name)) continue;
      out[name] = this.sample(property, name, depth + 1);
    }
    return out;
  }

  private string(schema: Json, field: string): string {
    const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
    const fits = (value: string) =>
      (!pattern || pattern.test(value)) && value.length >= Number(schema.minLength ?? 0) && value.length <= Number(schema.maxLength ?? Infinity);
    const known = [typeof schema.format === 'string' ? FORMATS[schema.format] : undefined, WORDS[field], this.byName(field)].filter(
      (v): v is string => v !== undefined,
    );
    const fitting = known.find(fits);
    if (fitting) return fitting;
    if (pattern) {
      const generator = new RandExp(pattern);
      generator.max = 12;
      generator.randInt = (from: number, to: number) => from + Math.floor(this.random() * (to - from + 1));
      for (let attempt = 0; attempt < 20; attempt++) {
        const value = generator.gen();
        if (fits(value)) return value;
      }
    }
    const min = Number(schema.minLength ?? 1);
    const max = Number(schema.maxLength ?? Math.max(min, 12));
    const base = 'example';
    return base.repeat(Math.ceil(Math.max(min, 1) / base.length)).slice(0, Math.max(min, Math.min(max, base.length)));
  }

  /** Keys (`employeeKey`, …) look like the service's ids, addresses (`…Url`) like addresses. */
  private byName(field: string): string | undefined {
    if (/Key$/.test(field)) return Array.from({ length: 16 }, () => '0123456789abcdefghjkmnpqrstvwxyz'[Math.floor(this.random() * 32)]).join('');
    if (/(Url|url)$/.test(field)) return `https://files.example.com/${field}`;
    if (/(Time|At)$/.test(field)) return FORMATS['date-time'];
    return undefined;
  }

  private number(schema: Json, field: string, integer: boolean): number {
    const min =
      typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.exclusiveMinimum === 'number'
          ? schema.exclusiveMinimum + (integer ? 1 : 0.5)
          : undefined;
    const max =
      typeof schema.maximum === 'number'
        ? schema.maximum
        : typeof schema.exclusiveMaximum === 'number'
          ? schema.exclusiveMaximum - (integer ? 1 : 0.5)
          : undefined;
    let value = field === 'version' ? 3 : field === 'pageSize' ? 50 : 1;
    if (min !== undefined && value < min) value = min;
    if (max !== undefined && value > max) value = max;
    return value;
  }
}

/** An example of `schema`, its `$ref`s read from `components`; `seed` (the operation and its part) varies the generated text. */
export function exampleOf(schema: Json, components: Json, seed: string): unknown {
  return new Sampler(components, seed).sample(schema);
}
