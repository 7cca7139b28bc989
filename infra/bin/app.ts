import { App } from 'aws-cdk-lib';
import { addNagChecks } from '../aws/nag.ts';
import { checkSender, PassCloudStack } from '../aws/stack.ts';

const app = new App();
new PassCloudStack(app, app.node.tryGetContext('stackName') ?? 'PassCloud', {
  mailFrom: checkSender(app.node.tryGetContext('mailFrom')),
  mailDomain: app.node.tryGetContext('mailDomain'),
  licencePublicKey: app.node.tryGetContext('licencePublicKey'),
  ...(app.node.tryGetContext('workerConcurrency') !== undefined ? { workerConcurrency: Number(app.node.tryGetContext('workerConcurrency')) } : {}),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
addNagChecks(app);
