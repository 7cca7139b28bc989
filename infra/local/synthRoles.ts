import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { PassCloudStack } from '../aws/stack.ts';
import { HandlerFunction, REPO_ROOT } from '../aws/api.ts';
import { cdkContext } from '../aws/context.ts';
import { LOCAL_ACCOUNT, type SynthesizedRoles } from './roles.ts';

/**
 * Synthesizes the stack as `cdk synth` does, without bundling the functions (their code plays no
 * part in their roles), and writes what the local host checks AWS calls against
 * (infra/local/roles.ts): the template and the entry each function is made from. Run by the
 * local host in a process of its own while the stand-ins start: `synthRoles.ts <out.json> <region>`.
 */
const [out, region] = process.argv.slice(2);
if (!out || !region) throw new Error('usage: synthRoles.ts <out.json> <region>');
const outdir = mkdtempSync(join(tmpdir(), 'passcloud-roles-'));
try {
  const app = new App({ outdir, context: { ...cdkContext(), 'aws:cdk:bundling-stacks': [] } });
  const stack = new PassCloudStack(app, 'PassCloudLocal', {
    mailFrom: 'Pass Cloud <no-reply@passcloud.example.org>',
    env: { account: LOCAL_ACCOUNT, region },
  });
  const template = app.synth().getStackByName(stack.stackName).template as SynthesizedRoles['template'];
  const entries = Object.fromEntries(
    stack.node
      .findAll()
      .filter((c): c is HandlerFunction => c instanceof HandlerFunction)
      .map((fn) => [Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement), relative(join(REPO_ROOT, 'functions'), fn.entry).replace(/\.ts$/, '')]),
  );
  writeFileSync(out, JSON.stringify({ template, entries } satisfies SynthesizedRoles));
} finally {
  rmSync(outdir, { recursive: true, force: true });
}

