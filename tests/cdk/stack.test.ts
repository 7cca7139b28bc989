import { beforeAll, describe, expect, it } from 'vitest';
import { App, type Stack, type PolicyValidationPluginReport } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PassCloudStack } from '@passcloud/infra/aws/stack';
import { resources, routes } from '@passcloud/functions/routes';
import { TABLES } from '@passcloud/functions/data/tables';

let stack: Stack;
let template: Template;
let nag: PolicyValidationPluginReport;

beforeAll(() => {
  const app = new App();
  stack = new PassCloudStack(app, 'PassCloudTest', { mailFrom: 'no-reply@example.com', env: { account: '123456789012', region: 'eu-west-1' } });
  template = Template.fromStack(stack);
  nag = new AwsSolutionsChecks(app, { verbose: true }).validateScope(stack);
});

describe('the AWS stack', () => {
  it('has one HTTP API route per route table entry and nothing else', () => {
    const declared = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => (r as { Properties: { RouteKey: string } }).Properties.RouteKey);
    expect(declared.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('has one Node 22 arm64 function per resource, each wired to its own routes', () => {
    const functions = template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x', Architectures: ['arm64'] } });
    expect(Object.keys(functions)).toHaveLength(resources.length);
    for (const fn of Object.values(functions)) {
      const env = (fn as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties.Environment.Variables;
      for (const name of ['MAIN_TABLE', 'EVENTS_TABLE', 'PHOTOS_BUCKET', 'MAIL_FROM']) expect(env).toHaveProperty(name);
    }
  });

  it('makes the DynamoDB tables on demand with point-in-time recovery and TTL', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', TABLES.length);
    template.allResourcesProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
    });
  });

  it('blocks public access to every bucket, encrypts it and refuses plain HTTP', () => {
    const buckets = template.findResources('AWS::S3::Bucket');
    for (const bucket of Object.values(buckets)) {
      expect(bucket).toMatchObject({
        Properties: {
          PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
          BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        },
      });
    }
    const policies = Object.values(template.findResources('AWS::S3::BucketPolicy'));
    expect(policies.length).toBe(Object.keys(buckets).length);
    for (const policy of policies) {
      expect(JSON.stringify(policy)).toContain('"aws:SecureTransport":"false"');
    }
  });

  it('expires captures and moves them to infrequent access', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Id: 'captures-expire', ExpirationInDays: 180, Status: 'Enabled' })]),
      },
    });
  });

  it('serves the console through CloudFront with origin access control, SPA fallback and security headers', () => {
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
        CustomErrorResponses: [
          { ErrorCode: 403, ResponseCode: 200, ResponsePagePath: '/index.html', ErrorCachingMinTTL: 10 },
          { ErrorCode: 404, ResponseCode: 200, ResponsePagePath: '/index.html', ErrorCachingMinTTL: 10 },
        ],
        CacheBehaviors: [Match.objectLike({ PathPattern: '/v1/*', ViewerProtocolPolicy: 'https-only' })],
      }),
    });
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: Match.objectLike({
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: Match.objectLike({ ContentSecurityPolicy: Match.stringLikeRegexp("default-src 'self'") }),
          StrictTransportSecurity: Match.objectLike({ AccessControlMaxAgeSec: 63072000, IncludeSubdomains: true }),
          ContentTypeOptions: { Override: true },
        }),
      }),
    });
  });

  it('verifies the sender in SES and lets only the systems function send mail', () => {
    template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'no-reply@example.com' });
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'));
    const sending = policies.filter(([, p]) => JSON.stringify(p).includes('ses:SendEmail'));
    expect(sending).toHaveLength(1);
    expect(sending[0]![0]).toMatch(/SystemsFunction/);
    const filesPolicy = policies.find(([id]) => /FilesFunction/.test(id));
    expect(JSON.stringify(filesPolicy)).not.toContain('EventsTable');
  });

  it('has no unsuppressed cdk-nag AwsSolutions finding, and every suppression gives a reason', () => {
    const findings = nag.violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((r) => r.resourceLogicalId).join(', ')}`);
    expect(findings).toEqual([]);
    expect(nag.success).toBe(true);
    const acknowledged = stack.node.findAll().flatMap((c) => c.node.metadata.filter((m) => m.type === 'aws:cdk:acknowledged-rules').map((m) => m.data));
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const rules of acknowledged) {
      for (const reason of Object.values(rules as Record<string, string>)) expect(reason.length).toBeGreaterThan(30);
    }
  });
});
