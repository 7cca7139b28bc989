import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The context `cdk synth` gives the app from cdk.json (feature flags among it). Whatever else
 * synthesizes the stack (the tests, the local host's permission check) starts from the same, so
 * it checks the template that deploys.
 */
export function cdkContext(): Record<string, unknown> {
  const file = resolve(import.meta.dirname, '../../cdk.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { context?: Record<string, unknown> }).context ?? {};
}
