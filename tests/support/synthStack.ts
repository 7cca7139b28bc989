import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack, type CfnElement } from 'aws-cdk-lib';
import { PassCloudStack } from '@passcloud/infra/aws/stack';
import { HandlerFunction } from '@passcloud/infra/aws/api';
import { functionName } from '@passcloud/infra/aws/bundle';
import { addNagChecks } from '@passcloud/infra/aws/nag';
import { cdkContext } from '@passcloud/infra/aws/context';
import { SYNTH_STACK_NAME, SYNTH_STACK_PROPS, type SynthFunction, type SynthOutput } from './synthOutput.ts';

/**
 * Synthesizes and bundles the stack as `cdk synth` does (cdk-nag's checks included), once per
 * test run, into the folder given as the first argument: the cloud assembly under `cdk.out/`, and
 * `synth.json` naming the template and each function's bundle. Run in its own process by the
 * global setup (tests/support/synth.ts), so the bundling overlaps the first tests.
 */
const outdir = process.argv[2];
if (!outdir) throw new Error('usage: synthStack.ts <outdir>');
mkdirSync(outdir, { recursive: true });
try {
  const assemblyDir = join(outdir, 'cdk.out');
  const app = new App({ outdir: assemblyDir, context: cdkContext() });
  const stack = new PassCloudStack(app, SYNTH_STACK_NAME, SYNTH_STACK_PROPS);
  addNagChecks(app);
  const artifact = app.synth().getStackByName(stack.stackName);
  const template = artifact.template as {
    Resources: Record<string, { Properties: { Code?: { S3Key?: string }; Handler?: string; Environment?: { Variables?: Record<string, unknown> } } }>;
  };
  const functions: SynthFunction[] = stack.node
    .findAll()
    .filter((c): c is HandlerFunction => c instanceof HandlerFunction)
    .map((fn) => {
      const id = Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement);
      const props = template.Resources[id]!.Properties;
      const hash = (props.Code?.S3Key ?? '').replace(/\.zip$/, '');
      return {
        id,
        entry: fn.entry,
        name: functionName(fn.entry),
        dir: join(assemblyDir, `asset.${hash}`),
        handler: props.Handler ?? '',
        environment: props.Environment?.Variables ?? {},
      };
    });
  const output: SynthOutput = { templateFile: artifact.templateFullPath, functions };
  writeFileSync(join(outdir, 'synth.json'), JSON.stringify(output));
} catch (error) {
  writeFileSync(join(outdir, 'synth-error.txt'), error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
}
