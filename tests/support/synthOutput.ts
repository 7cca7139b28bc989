import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the global setup synthesizes the stack (tests/support/synth.ts). */
    synthDir: string;
  }
}

/** The stack the tests synthesize, and what they give it: a licence key as `npm run licence -- keygen` prints one. */
export const SYNTH_STACK_NAME = 'PassCloudTest';
export const LICENCE_PUBLIC_KEY = 'MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=';
export const SYNTH_STACK_PROPS = {
  mailFrom: 'no-reply@example.com',
  licencePublicKey: LICENCE_PUBLIC_KEY,
  env: { account: '123456789012', region: 'eu-west-1' },
};

export interface SynthFunction {
  /** Logical id of the function in the template. */
  id: string;
  /** The handler file its bundle is made from. */
  entry: string;
  /** The entry under functions/ (`resources/systems`), as its budget names it. */
  name: string;
  /** The bundle's folder (the Lambda asset). */
  dir: string;
  handler: string;
  environment: Record<string, unknown>;
}

export interface SynthOutput {
  /** The template as `cdk synth` writes it. */
  templateFile: string;
  functions: SynthFunction[];
}

/** The synthesized stack, once the global setup's synthesis is done (it runs beside the first tests). */
export async function synthesized(timeoutMs = 600_000): Promise<SynthOutput> {
  const dir = inject('synthDir');
  const done = join(dir, 'synth.json');
  const failed = join(dir, 'synth-error.txt');
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (existsSync(failed)) throw new Error(`the stack did not synthesize: ${readFileSync(failed, 'utf8')}`);
    if (existsSync(done)) return JSON.parse(readFileSync(done, 'utf8')) as SynthOutput;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`the stack was not synthesized within ${timeoutMs / 1000} s`);
}
