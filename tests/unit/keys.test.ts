import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sortKey } from '@passcloud/functions/data/keys/sortKey';

/**
 * One way to the tables' keys: every key string (`<label>#…`, ElectroDB templates included) is
 * made in functions/data/keys/ and nowhere else, so a kind of item's layout changes in one place.
 * A string or template in code (comments aside) that holds `<word>#` outside that folder fails.
 */
const root = new URL('../../functions/', import.meta.url).pathname;
const KEYS = 'data/keys/';
/** Texts with `word#` that are not keys: none today. */
const NOT_KEYS = new Set<string>();

function filesOf(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesOf(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );
}

/** The literal texts of a file: strings and the fixed parts of templates. */
function literalsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) out.push(node.text);
    else if (ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) out.push(node.text);
    node.forEachChild(visit);
  };
  visit(source);
  return out;
}

describe('the keys of the tables', () => {
  // Parses every module of functions/: seconds on a busy machine.
  it('are made in data/keys/ only', () => {
    const folders = ['data', 'iot', 'jobs', 'flows', 'views', 'resources', 'lib', 'domain', 'contract'];
    const found = folders.flatMap((folder) =>
      filesOf(folder)
        .filter((file) => !file.startsWith(KEYS) && !file.startsWith('lib/i18n/'))
        .flatMap((file) =>
          literalsOf(file)
            .filter((text) => /[A-Za-z]#/.test(text) && !NOT_KEYS.has(text))
            .map((text) => `${file}: ${text}`),
        ),
    );
    expect(found).toEqual([]);
  }, 60_000);

  it('describe a kind once: its template, one key, its prefixes and their end agree', () => {
    const person = sortKey('person', ['kind', 'personKey'] as const);
    expect(person.template).toBe('person#${kind}#${personKey}');
    expect(person.of('employee', 'k1')).toBe('person#employee#k1');
    expect(person.prefix()).toBe('person#');
    expect(person.prefix('employee')).toBe('person#employee#');
    expect(person.of('employee', 'k1') > person.prefix('employee') && person.of('employee', 'k1') < person.end('employee')).toBe(true);
    expect(person.of('visitor', 'k1') < person.end('employee')).toBe(false);
    expect(person.owns('person#visitor#k')).toBe(true);
    expect(person.owns('personal#x')).toBe(false);
  });
});
