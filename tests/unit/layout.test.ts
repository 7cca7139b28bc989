import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The folders of functions/ mean what README.md says: resources/ holds the HTTP handlers, views/
 * turns stored items into answers and workbooks, flows/ holds use cases of several steps that
 * handlers, workers and tests call, and nothing below the handlers imports them.
 */
const root = new URL('../../functions/', import.meta.url).pathname;

function filesOf(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesOf(join(folder, entry.name)) : entry.name.endsWith('.ts') ? [join(folder, entry.name)] : [],
  );
}

/** The modules a file imports, as written. */
const importsOf = (file: string): string[] => [...readFileSync(join(root, file), 'utf8').matchAll(/^\s*(?:import|export)\s[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]!);

/** The folder of functions/ an import lands in, read from the alias or the relative path. */
function folderOf(file: string, spec: string): string | undefined {
  const alias = /^#(\w+)\//.exec(spec);
  if (alias) return alias[1];
  if (!spec.startsWith('.')) return undefined;
  const target = relative(root, join(root, file, '..', spec));
  return target.includes('/') ? target.split('/')[0] : '';
}

describe('the layout of functions/', () => {
  it('has no arrow from below the handlers into resources/', () => {
    const wrong = ['iot', 'jobs', 'data', 'lib', 'domain', 'views', 'flows', 'contract'].flatMap((folder) =>
      filesOf(folder).flatMap((file) => importsOf(file).filter((spec) => folderOf(file, spec) === 'resources').map((spec) => `${file} -> ${spec}`)),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps handlers only in resources/: each file declares a resource’s handlers, or handlers a resource takes in', () => {
    const others = filesOf('resources').filter((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      return !/defineResource\(|Handlers = \{|export function \w+Routes</.test(text) && !file.endsWith('index.ts');
    });
    expect(others).toEqual([]);
  });

  it('keeps views/ and flows/ free of handlers', () => {
    const handlers = [...filesOf('views'), ...filesOf('flows')].filter((file) => /defineResource\(|sessionRoute\(|publicRoute\(|deviceRoute\(/.test(readFileSync(join(root, file), 'utf8')));
    expect(handlers).toEqual([]);
  });
});
