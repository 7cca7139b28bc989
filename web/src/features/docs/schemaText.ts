/** The part of JSON Schema 2020-12 the API's schemas use (zod's toJSONSchema output). */
export interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  contentMediaType?: string;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function range(low: number | undefined, high: number | undefined, unit = ''): string {
  const lo = low !== undefined && low > -MAX_SAFE ? low : undefined;
  const hi = high !== undefined && high < MAX_SAFE ? high : undefined;
  if (lo === undefined && hi === undefined) return '';
  if (lo !== undefined && hi !== undefined) return lo === hi ? ` ${lo}${unit}` : ` ${lo}–${hi}${unit}`;
  return lo !== undefined ? ` ≥ ${lo}${unit}` : ` ≤ ${hi}${unit}`;
}

/**
 * A schema in one line, in the notation of the API reference: `string 1–64`, `integer 1–200 = 20`,
 * `"employee" | "visitor"`, `array<string /^[0-9a-z]{8,32}$/> ≤ 500`, `{ name, type }`. Nested
 * objects name their fields (required ones without `?`).
 */
export function schemaText(schema: Schema, depth = 0): string {
  const suffix = schema.default !== undefined ? ` = ${JSON.stringify(schema.default)}` : '';
  if (schema.const !== undefined) return JSON.stringify(schema.const) + suffix;
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ') + suffix;
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((s) => schemaText(s, depth)).join(' | ') + suffix;
  if (schema.allOf) return schema.allOf.map((s) => schemaText(s, depth)).join(' & ') + suffix;
  const type = Array.isArray(schema.type) ? schema.type.join(' | ') : schema.type;
  switch (type) {
    case 'string':
      return (
        `string${schema.format ? ` (${schema.format})` : ''}${schema.contentMediaType ? ` (${schema.contentMediaType})` : ''}` +
        range(schema.minLength, schema.maxLength) +
        (schema.pattern && !schema.format ? ` /${schema.pattern}/` : '') +
        suffix
      );
    case 'integer':
    case 'number':
      return type + range(schema.minimum ?? schema.exclusiveMinimum, schema.maximum ?? schema.exclusiveMaximum) + suffix;
    case 'array':
      return `array<${schema.items ? schemaText(schema.items, depth + 1) : 'any'}>${range(schema.minItems, schema.maxItems)}${suffix}`;
    case 'object': {
      if (!schema.properties) return `object${suffix}`;
      if (depth > 2) return `{ … }${suffix}`;
      const required = new Set(schema.required ?? []);
      const fields = Object.entries(schema.properties).map(([name, s]) => `${name}${required.has(name) ? '' : '?'}: ${schemaText(s, depth + 1)}`);
      return `{ ${fields.join(', ')} }${suffix}`;
    }
    case undefined:
      return `any${suffix}`;
    default:
      return type + suffix;
  }
}
