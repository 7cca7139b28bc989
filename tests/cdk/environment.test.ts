import { beforeAll, describe, expect, it } from 'vitest';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFileSync, readdirSync } from 'node:fs';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { PassCloudStack } from '@passcloud/infra/aws/stack';
import { HandlerFunction, REPO_ROOT } from '@passcloud/infra/aws/api';
import { synthesized } from '../support/synthOutput.ts';
import { VARIABLES, type EnvName } from '@passcloud/functions/lib/env';

/**
 * The environment contract, both ways: every deployed variable a function's bundle can read is
 * declared by its entry (`environment`, functions/lib/env.ts), and its construct sets exactly the
 * declared ones. What a bundle can read is found in its code: the bundle `cdk synth` made of the
 * entry (synthesized once for the run, tests/support/synth.ts), every file of it, searched for the
 * quoted names of deployed variables (code reads them only through `env()` with a name written
 * out, and lint keeps `process.env` out of functions/). The bundles test checks the same at run
 * time, with every variable a bundle reads as it handles its events.
 */

type Variables = Record<string, unknown>;
const deployed = (name: string): boolean => {
  const kind = (VARIABLES as Record<string, { kind: string } | undefined>)[name]?.kind;
  return kind === 'stack' || kind === 'operator';
};

interface Synthesized {
  id: string;
  entry: string;
  dir?: string;
  variables: Variables;
}

/** A stack without an operator's settings, synthesized without bundling: only its variables are read. */
function synthWithoutKey(): Synthesized[] {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new PassCloudStack(app, 'PassCloudEnvironment', { mailFrom: 'no-reply@example.com', env: { account: '123456789012', region: 'eu-west-1' } });
  const template = app.synth().getStackByName(stack.stackName).template as { Resources: Record<string, { Type: string; Properties: { Environment?: { Variables?: Variables } } }> };
  const functions = stack.node.findAll().filter((c): c is HandlerFunction => c instanceof HandlerFunction);
  return functions.map((fn) => {
    const id = Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement);
    return { id, entry: fn.entry, variables: template.Resources[id]!.Properties.Environment?.Variables ?? {} };
  });
}

/**
 * The deployed variables named in a function's bundle, every file of it (`index.mjs` and its
 * chunks): modules and functions the handler cannot reach were shaken out by esbuild. The entry's
 * own declaration, an array literal of exactly the declared names, is left out.
 */
function namedInBundle(dir: string, declared: readonly string[]): string[] {
  let code = readdirSync(dir)
    .filter((file) => file.endsWith('.mjs'))
    .map((file) => readFileSync(join(dir, file), 'utf8'))
    .join('\n');
  if (declared.length) {
    const declaration = JSON.stringify(declared);
    expect(code.includes(declaration), `${dir} holds its entry's declaration ${declaration}`).toBe(true);
    code = code.replace(declaration, '');
  }
  const names = new Set<string>();
  for (const match of code.matchAll(/['"`]([A-Z][A-Z0-9_]+)['"`]/g)) if (deployed(match[1]!)) names.add(match[1]!);
  return [...names].sort();
}

let withKey: Synthesized[];
let withoutKey: Synthesized[];

beforeAll(async () => {
  const synth = await synthesized();
  withKey = synth.functions.map((fn) => ({ id: fn.id, entry: fn.entry, dir: fn.dir, variables: fn.environment }));
  withoutKey = synthWithoutKey();
});

const declaredOf = async (entry: string): Promise<string[]> => {
  const mod = (await import(pathToFileURL(entry).href)) as { environment?: readonly EnvName[] };
  expect(Array.isArray(mod.environment), `${entry} exports its environment`).toBe(true);
  return [...mod.environment!].sort();
};

describe('the environment contract', () => {
  it('every function entry declares exactly the deployed variables its bundle can read', async () => {
    const bundled = [...new Map(withKey.map((f) => [f.entry, f.dir!])).entries()];
    expect(bundled.length).toBeGreaterThanOrEqual(20);
    const wrong: string[] = [];
    for (const [entry, dir] of bundled) {
      const declared = await declaredOf(entry);
      const { environment } = (await import(pathToFileURL(entry).href)) as { environment: readonly string[] };
      const named = namedInBundle(dir, environment);
      const missing = named.filter((n) => !declared.includes(n));
      const stale = declared.filter((n) => !named.includes(n));
      if (missing.length || stale.length) wrong.push(`${relative(REPO_ROOT, entry)}: reads undeclared ${missing.join(', ') || '-'}; declares unread ${stale.join(', ') || '-'}`);
    }
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

  it('no function gets the test stack’s password hashing cost: a deployed function hashes at the production cost', () => {
    expect(VARIABLES.PASSWORD_HASH_COST.kind).toBe('local');
    for (const fn of [...withKey, ...withoutKey]) expect(fn.variables, fn.id).not.toHaveProperty('PASSWORD_HASH_COST');
  });
});
