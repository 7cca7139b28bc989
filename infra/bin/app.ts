import { App } from 'aws-cdk-lib';
import { addNagChecks } from '../aws/nag.ts';
import { checkMailDomain, checkSender, checkWorkerConcurrency, PassCloudStack } from '../aws/stack.ts';

const app = new App();
const mailFrom = checkSender(app.node.tryGetContext('mailFrom'));
const mailDomain = checkMailDomain(app.node.tryGetContext('mailDomain'), mailFrom);
const workerConcurrency = checkWorkerConcurrency(app.node.tryGetContext('workerConcurrency'));
new PassCloudStack(app, app.node.tryGetContext('stackName') ?? 'PassCloud', {
  mailFrom,
  ...(mailDomain ? { mailDomain } : {}),
  licencePublicKey: app.node.tryGetContext('licencePublicKey'),
  ...(workerConcurrency !== undefined ? { workerConcurrency } : {}),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
addNagChecks(app);
