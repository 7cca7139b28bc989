import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PassCloudStack } from '../aws/stack.ts';

const app = new App();
new PassCloudStack(app, app.node.tryGetContext('stackName') ?? 'PassCloud', {
  mailFrom: app.node.tryGetContext('mailFrom') ?? 'no-reply@example.com',
  mailDomain: app.node.tryGetContext('mailDomain'),
  licencePublicKey: app.node.tryGetContext('licencePublicKey'),
  ...(app.node.tryGetContext('workerConcurrency') !== undefined ? { workerConcurrency: Number(app.node.tryGetContext('workerConcurrency')) } : {}),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true, writeSuppressionsToCloudFormation: true }));
