/** The highest code point: appended to a prefix, it bounds every key that starts with it. */
export const HIGH = '\u{10FFFF}';

/**
 * A kind of item's sort key, `<label>#<field>#<field>…`, described once: ElectroDB's template for
 * an entity, the key of one item for raw reads and writes, and the prefixes a query reads. Every
 * key of the tables is made here (data/keys/main.ts, events.ts, audit.ts) and nowhere else, so a
 * kind's layout changes in one place.
 */
export interface SortKey<F extends readonly string[]> {
  readonly label: string;
  /** ElectroDB's template, e.g. `person#${kind}#${personKey}`. */
  readonly template: string;
  /** The key of one item, from its fields in order. */
  of(...values: { [K in keyof F]: string }): string;
  /** The start of every key whose first fields are these: `<label>#` with none. */
  prefix(...values: string[]): string;
  /** The start of the keys up to these values, the last one possibly partial (`term#employee#ali`). */
  head(...values: string[]): string;
  /** The highest key under that prefix (a query's upper bound). */
  end(...values: string[]): string;
  /** True when a stored key is of this kind. */
  owns(sk: string): boolean;
}

export function sortKey<const F extends readonly string[]>(label: string, fields: F): SortKey<F> {
  const prefix = (...values: string[]) => [label, ...values, ''].join('#');
  return {
    label,
    template: [label, ...fields.map((f) => '${' + f + '}')].join('#'),
    of: (...values) => [label, ...values].join('#'),
    prefix,
    head: (...values) => [label, ...values].join('#'),
    end: (...values) => prefix(...values) + HIGH,
    owns: (sk) => sk.startsWith(`${label}#`),
  };
}
