import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';

/**
 * cdk-nag's AwsSolutions pack over the app, as `cdk synth` and `cdk deploy` run it: a finding
 * that is not acknowledged fails the synthesis. The acknowledgements live in the code
 * (`Validations.of(...).acknowledge` with a reason each); they are not copied into the template,
 * where they would take more than half of CloudFormation's 1 MB for a template (every
 * stack-wide acknowledgement repeated on every resource).
 */
export function addNagChecks(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
}
