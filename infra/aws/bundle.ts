import { buildSync, type BuildOptions, type Metafile } from 'esbuild';
import { cpSync, existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const REPO_ROOT = resolve(import.meta.dirname, '../..');

/** The server messages of every locale but English (English is in the code), read on demand beside the bundle (functions/lib/i18n.ts). */
const CATALOGUES = resolve(REPO_ROOT, 'functions/lib/i18n');
const I18N_MODULE = 'functions/lib/i18n.ts';

/**
 * How a function's code is bundled: one ESM file per entry for Node 22, minified, with every
 * module inside (no node_modules in the asset). Code the handler reaches only through a dynamic
 * `import()` (mail through a company's SMTP server, workbooks, zips, rarely used AWS clients, the
 * SDK's credential providers other than the environment's, a worker's in-process fallback) goes
 * into chunks beside `index.mjs` that are loaded only when that path runs, so a cold start
 * loads what every request needs and no more. Chunks sit in the same directory as `index.mjs`:
 * `import.meta.url` then means the same directory in every chunk (the catalogues are found
 * relative to it). No source maps: without `--enable-source-maps` Lambda does not read them,
 * and with it every `Error.stack` is mapped on the hot path.
 */
export const BUNDLE_OPTIONS = {
  bundle: true,
  format: 'esm',
  target: 'node22',
  platform: 'node',
  minify: true,
  splitting: true,
  mainFields: ['module', 'main'],
  entryNames: 'index',
  chunkNames: '[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  // Licence notices of the bundled packages go to a text file beside the code rather than into it.
  legalComments: 'external',
  // CommonJS packages inside the bundle call `require` for Node's own modules.
  banner: { js: "import { createRequire as __createRequire } from 'module'; const require = __createRequire(import.meta.url);" },
  logLevel: 'error',
} as const satisfies BuildOptions;

/**
 * Bundles a handler entry into `outdir` (index.mjs plus its lazily loaded chunks) and, when the
 * bundle contains the server messages, copies the locale catalogues beside it.
 */
export function bundleHandler(entry: string, outdir: string): Metafile {
  const result = buildSync({ ...BUNDLE_OPTIONS, entryPoints: [resolve(entry)], outdir, absWorkingDir: REPO_ROOT, metafile: true, write: true });
  const metafile = result.metafile!;
  if (Object.keys(metafile.inputs).some((input) => input === I18N_MODULE)) {
    cpSync(CATALOGUES, join(outdir, 'i18n'), { recursive: true, filter: (source) => source === CATALOGUES || source.endsWith('.json') });
  }
  return metafile;
}

export interface BundleSize {
  /** Bytes of `index.mjs` and every chunk it imports statically: what a cold start loads. */
  startBytes: number;
  /** Bytes of the chunks loaded only when a path that needs them runs. */
  lazyBytes: number;
  /** The files loaded at start, `index.mjs` first. */
  startFiles: string[];
}

const STATIC_IMPORT = /(?:\bfrom\s*|\bimport\s*)["'](\.\/[^"']+\.mjs)["']/g;

/** What a bundled function loads at start and what it may load later, measured on the files of its directory. */
export function bundleSize(dir: string): BundleSize {
  const start = new Set<string>();
  const visit = (file: string) => {
    if (start.has(file)) return;
    start.add(file);
    const code = readFileSync(join(dir, file), 'utf8');
    for (const match of code.matchAll(STATIC_IMPORT)) visit(match[1]!.slice(2));
  };
  visit('index.mjs');
  const code = readdirSync(dir).filter((f) => f.endsWith('.mjs'));
  const bytes = (files: string[]) => files.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  return { startBytes: bytes([...start]), lazyBytes: bytes(code.filter((f) => !start.has(f))), startFiles: [...start] };
}

/** The entry file of a bundled function's directory. */
export const bundleEntry = (dir: string): string | undefined => ['index.mjs', 'index.js'].map((f) => join(dir, f)).find((f) => existsSync(f));

/** A function's name in budgets and reports: its entry under functions/, without the extension (`resources/systems`). */
export const functionName = (entry: string): string => relative(resolve(REPO_ROOT, 'functions'), resolve(entry)).replace(/\.ts$/, '').split('\\').join('/');
