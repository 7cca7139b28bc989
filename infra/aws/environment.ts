import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { VARIABLES, type DeployedName } from '@passcloud/functions/lib/env';

/**
 * The values the stack hands its functions, by variable. One object per stack, filled as the
 * resources that carry the values are made (a worker's name once the worker exists); each
 * function takes from it exactly the variables its entry declares, when the stack is synthesized.
 */
export type StackEnvironment = Partial<Record<DeployedName, string>>;

const FUNCTIONS_ROOT = resolve(import.meta.dirname, '../../functions');
/** Where the function entries live: the API resources, the background jobs, the IoT handlers. */
const ENTRY_DIRECTORIES = ['resources', 'jobs', 'iot'];

async function loadDeclarations(): Promise<Map<string, readonly DeployedName[]>> {
  const declared = new Map<string, readonly DeployedName[]>();
  for (const directory of ENTRY_DIRECTORIES) {
    for (const file of readdirSync(join(FUNCTIONS_ROOT, directory))) {
      if (!file.endsWith('.ts') || file === 'index.ts') continue;
      const path = join(FUNCTIONS_ROOT, directory, file);
      const mod = (await import(pathToFileURL(path).href)) as { handler?: unknown; environment?: readonly DeployedName[] };
      if (typeof mod.handler !== 'function') continue;
      if (!Array.isArray(mod.environment)) throw new Error(`${path} exports a handler but no \`environment\` declaration`);
      for (const name of mod.environment) {
        const kind = (VARIABLES as Record<string, { kind: string } | undefined>)[name]?.kind;
        if (kind !== 'stack' && kind !== 'operator') {
          throw new Error(`${path} declares ${name}, which is not a deployed variable of functions/lib/env.ts`);
        }
      }
      declared.set(path, mod.environment);
    }
  }
  return declared;
}

/** The deployed variables each function entry declares (its `environment` export), by entry path. */
export const DECLARED: ReadonlyMap<string, readonly DeployedName[]> = await loadDeclarations();

export function declaredBy(entry: string): readonly DeployedName[] {
  const names = DECLARED.get(resolve(entry));
  if (!names) throw new Error(`${entry} is no function entry with an \`environment\` declaration`);
  return names;
}
