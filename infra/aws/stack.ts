import { CfnOutput, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { Api } from './api.ts';
import { Buckets, Tables } from './storage.ts';
import { ConsoleSite } from './web.ts';

export interface PassCloudStackProps extends StackProps {
  /** Sender address of verification codes and alerts; its domain (or the address) is verified in SES. */
  mailFrom: string;
  /** Verify the whole domain instead of the single address. */
  mailDomain?: string;
}

export class PassCloudStack extends Stack {
  readonly api: Api;
  readonly buckets: Buckets;

  constructor(scope: Construct, id: string, props: PassCloudStackProps) {
    super(scope, id, props);
    const tables = new Tables(this, 'Tables');
    const buckets = (this.buckets = new Buckets(this, 'Buckets'));
    const identity = new EmailIdentity(this, 'MailIdentity', {
      identity: props.mailDomain ? Identity.domain(props.mailDomain) : Identity.email(props.mailFrom),
    });

    this.api = new Api(this, 'Api', {
      environment: { ...tables.environment(), ...buckets.environment(), MAIL_FROM: props.mailFrom },
    });

    // Each function gets only what it touches.
    const main = tables.byEnv.MAIN_TABLE!;
    const events = tables.byEnv.EVENTS_TABLE!;
    const { systems, files } = this.api.functions;
    main.grantReadWriteData(systems);
    events.grantWriteData(systems);
    systems.addToRolePolicy(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [this.formatArn({ service: 'ses', resource: 'identity', resourceName: identity.emailIdentityName })],
      }),
    );
    main.grantReadWriteData(files);
    for (const bucket of [buckets.data.photos, buckets.data.captures, buckets.data.packages]) {
      bucket.grantPut(files);
      bucket.grantRead(files);
    }

    const site = new ConsoleSite(this, 'Console', { bucket: buckets.web, logs: buckets.logs, apiDomainName: this.api.domainName });

    new CfnOutput(this, 'ConsoleUrl', { value: `https://${site.distribution.distributionDomainName}` });
    new CfnOutput(this, 'ApiUrl', { value: this.api.httpApi.apiEndpoint });

    this.acknowledgeFindings();
  }

  /** cdk-nag AwsSolutions findings that are accepted, each with its reason. */
  private acknowledgeFindings(): void {
    const accepted: [string, string][] = [
      [
        'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        'AWSLambdaBasicExecutionRole only lets functions write their own CloudWatch logs; CDK attaches it to every Lambda role.',
      ],
      [
        'AwsSolutions-APIG4',
        'The API authenticates in the function: the product’s own RSA login issues bearer tokens checked against DynamoDB on every request (DESIGN.md §4); public routes (login, register, terms) must stay open.',
      ],
      ['AwsSolutions-CFR1', 'Tenants operate worldwide; geo restriction would lock out their sites.'],
      [
        'AwsSolutions-CFR2',
        'WAF is optional and billed per rule; operators attach a web ACL to the distribution when they need one. API throttling is set on the HTTP API stage.',
      ],
      [
        'AwsSolutions-CFR4',
        'The default CloudFront certificate cannot pin the minimum TLS version; operators who add their own domain and certificate get TLSv1.2_2021.',
      ],
    ];
    for (const [id, reason] of accepted) Validations.of(this).acknowledge({ id, reason });
    Validations.of(this.buckets.logs).acknowledge({ id: 'AwsSolutions-S1', reason: 'This is the access-log bucket; logging it into itself would loop.' });
  }
}
