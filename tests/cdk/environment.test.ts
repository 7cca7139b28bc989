import { beforeAll, describe, expect, it } from 'vitest';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { PassCloudStack } from '@passcloud/infra/aws/stack';
import { HandlerFunction, REPO_ROOT } from '@passcloud/infra/aws/api';
import { VARIABLES, type EnvName } from '@passcloud/functions/lib/env';

/**
 * The environment contract, both ways: every deployed variable a function's bundle can read is
 * declared by its entry (`environment`, functions/lib/env.ts), and its construct sets exactly the
 * declared ones. What a bundle can read is found in its code: the bundle esbuild makes of the
 * entry, searched for the quoted names of deployed variables (code reads them only through
 * `env()` with a name written out, and lint keeps `process.env` out of functions/). The bundles
 * test checks the same at run time, with every variable a bundle reads as it handles its events.
 */

type Variables = Record<string, unknown>;
const deployed = (name: string): boolean => {
  const kind = (VARIABLES as Record<string, { kind: string } | undefined>)[name]?.kind;
  return kind === 'stack' || kind === 'operator';
};

/** Synthesizes without bundling (the bundles test runs the bundles); variables are set the same. */
function synth(props: { licencePublicKey?: string }) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new PassCloudStack(app, 'PassCloudEnvironment', { mailFrom: 'no-reply@example.com', env: { account: '123456789012', region: 'eu-west-1' }, ...props });
  const template = app.synth().getStackByName(stack.stackName).template as { Resources: Record<string, { Type: string; Properties: { Environment?: { Variables?: Variables } } }> };
  const functions = stack.node.findAll().filter((c): c is HandlerFunction => c instanceof HandlerFunction);
  return functions.map((fn) => {
    const id = Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement);
    return { id, entry: fn.entry, variables: template.Resources[id]!.Properties.Environment?.Variables ?? {} };
  });
}

/**
 * The deployed variables named in the code esbuild bundles for an entry: modules and functions
 * the handler cannot reach are shaken out, as in the deployed bundle (the entry's own
 * declaration is left out).
 */
async function namedInBundle(entry: string): Promise<string[]> {
  const result = await build({ entryPoints: [entry], absWorkingDir: REPO_ROOT, bundle: true, treeShaking: true, platform: 'node', format: 'esm', write: false, logLevel: 'silent', outfile: 'out.mjs', mainFields: ['module', 'main'] });
  const code = result.outputFiles[0]!.text.replace(/declareEnvironment\(\[[^\]]*\]\)/g, '');
  const names = new Set<string>();
  for (const match of code.matchAll(/['"]([A-Z][A-Z0-9_]+)['"]/g)) if (deployed(match[1]!)) names.add(match[1]!);
  return [...names].sort();
}

let withKey: ReturnType<typeof synth>;
let withoutKey: ReturnType<typeof synth>;

beforeAll(() => {
  withKey = synth({ licencePublicKey: 'MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=' });
  withoutKey = synth({});
});

const declaredOf = async (entry: string): Promise<string[]> => {
  const mod = (await import(pathToFileURL(entry).href)) as { environment?: readonly EnvName[] };
  expect(Array.isArray(mod.environment), `${entry} exports its environment`).toBe(true);
  return [...mod.environment!].sort();
};

describe('the environment contract', () => {
  it('every function entry declares exactly the deployed variables its bundle can read', async () => {
    const entries = [...new Set(withKey.map((f) => f.entry))];
    expect(entries.length).toBeGreaterThanOrEqual(20);
    const wrong: string[] = [];
    await Promise.all(
      entries.map(async (entry) => {
        const [declared, named] = await Promise.all([declaredOf(entry), namedInBundle(entry)]);
        const missing = named.filter((n) => !declared.includes(n));
        const stale = declared.filter((n) => !named.includes(n));
        if (missing.length || stale.length) wrong.push(`${relative(REPO_ROOT, entry)}: reads undeclared ${missing.join(', ') || '-'}; declares unread ${stale.join(', ') || '-'}`);
      }),
    );
    expect(wrong).toEqual([]);
  });

  it('each construct sets exactly what its entry declares, and nothing a deployment lacks', async () => {
    for (const fn of withKey) {
      const declared = await declaredOf(fn.entry);
      expect(Object.keys(fn.variables).sort(), fn.id).toEqual([...declared].sort());
      for (const [name, value] of Object.entries(fn.variables)) expect(value, `${fn.id} ${name}`).toBeTruthy();
    }
  });

  it('an operator’s setting the stack was not given is left unset, not set empty', async () => {
    const licences = withoutKey.find((f) => f.entry.endsWith('functions/resources/licences.ts'))!;
    expect(await declaredOf(licences.entry)).toContain('LICENCE_PUBLIC_KEY');
    expect(licences.variables).not.toHaveProperty('LICENCE_PUBLIC_KEY');
    for (const fn of withoutKey) {
      const declared = (await declaredOf(fn.entry)).filter((n) => n !== 'LICENCE_PUBLIC_KEY');
      expect(Object.keys(fn.variables).sort(), fn.id).toEqual([...declared].sort());
    }
  });

  it('no function gets a variable of the local host', () => {
    for (const fn of withKey) {
      for (const name of Object.keys(fn.variables)) expect(deployed(name), `${fn.id} ${name}`).toBe(true);
    }
  });
});
