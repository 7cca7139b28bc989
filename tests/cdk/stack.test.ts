import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { App, type CfnElement, type PolicyValidationPluginReport } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PassCloudStack, senderAddress } from '@passcloud/infra/aws/stack';
import { REPO_ROOT } from '@passcloud/infra/aws/api';
import { THING_NAME_VARIABLE } from '@passcloud/infra/aws/iot';
import { SYNTH_STACK_NAME, SYNTH_STACK_PROPS, synthesized } from '../support/synthOutput.ts';
import { RULE_FILTERS } from '@passcloud/functions/contract/protocol';
import { resources } from '@passcloud/functions/routes';
import { apiRouteKey, apiRoutes } from '@passcloud/functions/apiRoutes';
import { TABLES } from '@passcloud/functions/data/tables';
import { RETENTION_BOUNDS } from '@passcloud/functions/contract/settings';

let stack: PassCloudStack;
const iot = () => stack.iot;
const logicalId = (element: { node: { defaultChild?: unknown } } | CfnElement): string =>
  stack.getLogicalId(('logicalId' in element ? element : element.node.defaultChild) as CfnElement);
let template: Template;
let templateFile: string;
let nag: PolicyValidationPluginReport;
/** The console is deployed only when it was built (npm run build), as in CI before these tests. */
const consoleBuilt = existsSync(resolve(REPO_ROOT, 'web/dist/index.html'));

beforeAll(async () => {
  // The template is the one the run synthesized and bundled once (tests/support/synth.ts); the
  // constructs, for their logical ids and cdk-nag, are built again here without bundling.
  const synth = await synthesized();
  templateFile = synth.templateFile;
  template = Template.fromJSON(JSON.parse(readFileSync(templateFile, 'utf8')) as Record<string, unknown>);
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  stack = new PassCloudStack(app, SYNTH_STACK_NAME, SYNTH_STACK_PROPS);
  nag = new AwsSolutionsChecks(app, { verbose: true }).validateScope(stack);
});

/** The template as `cdk synth` writes it stays well below CloudFormation's 1 MB for a template uploaded through S3. */
const TEMPLATE_BUDGET_BYTES = 600_000;

describe('the AWS stack', () => {
  it('synthesizes, with the checks `cdk synth` runs, a template within its budget and without the acknowledgements in it', () => {
    // The run's synthesis added cdk-nag's checks as `cdk synth` does; an unacknowledged finding would have failed it.
    expect(statSync(templateFile).size).toBeLessThan(TEMPLATE_BUDGET_BYTES);
    expect(readFileSync(templateFile, 'utf8')).not.toContain('cdk_nag');
  });

  it('gives the licence public key to the licences function only, never a private key', () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function')) as [string, { Properties: { Environment?: { Variables?: Record<string, unknown> } } }][];
    const holders = functions.filter(([, fn]) => fn.Properties.Environment?.Variables?.LICENCE_PUBLIC_KEY !== undefined).map(([id]) => id);
    expect(holders).toEqual([logicalId(stack.api.functions.licences)]);
    expect(JSON.stringify(template.toJSON())).not.toMatch(/PRIVATE KEY|LICENCE_PRIVATE/);
  });

  it('has the HTTP API routes the route table derives by path prefix, and nothing else (tests/cdk/stackLimits.test.ts checks where each leads)', () => {
    const declared = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => (r as { Properties: { RouteKey: string } }).Properties.RouteKey);
    expect(declared.sort()).toEqual(apiRoutes.map(apiRouteKey).sort());
  });

  it('has one Node 22 arm64 function per resource, each wired to its own routes', () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function', { Properties: { Runtime: 'nodejs22.x', Architectures: ['arm64'] } }));
    const api = functions.filter(([id]) => id.startsWith('Api'));
    expect(api).toHaveLength(resources.length);
    // The rest are the background workers and their failure destination, the scheduled jobs and the IoT authorizer and ingest functions.
    expect(
      functions
        .map(([id]) => id)
        .filter((id) => !id.startsWith('Api'))
        .sort(),
    ).toEqual(
      [logicalId(stack.importWorker), logicalId(stack.webhooks.sender), logicalId(stack.audit.writer), logicalId(stack.mail.retryFunction), logicalId(stack.retentionSweep), logicalId(stack.licenceReminders), logicalId(stack.attendanceClose), logicalId(stack.attendanceMail), logicalId(stack.recomputeWorker), logicalId(iot().authorizerFunction), logicalId(iot().ingestFunction), logicalId(stack.recordExportWorker), logicalId(stack.grantWorker), logicalId(stack.grantPieceWorker), logicalId(stack.packageNoticeWorker), logicalId(stack.jobFailures)].sort(),
    );
    for (const [, fn] of api) {
      const env = (fn as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties.Environment.Variables;
      // Every API function checks the origin secret; what else it gets, its entry declares (tests/cdk/environment.test.ts).
      for (const name of ['MAIN_TABLE', 'ORIGIN_VERIFY_SECRET']) expect(env).toHaveProperty(name);
    }
  });

  it('runs background imports in a 15-minute worker that only the people functions may start', () => {
    const worker = template.findResources('AWS::Lambda::Function')[logicalId(stack.importWorker)] as {
      Properties: { Timeout: number; MemorySize: number; EphemeralStorage: { Size: number }; Environment: { Variables: Record<string, unknown> } };
    };
    expect(worker.Properties).toMatchObject({ Timeout: 900, MemorySize: 2048, EphemeralStorage: { Size: 2048 } });
    for (const name of ['MAIN_TABLE', 'EVENTS_TABLE', 'PHOTOS_BUCKET', 'IMPORTS_BUCKET']) expect(worker.Properties.Environment.Variables).toHaveProperty(name);
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 900 });

    const invokers = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p).includes('lambda:InvokeFunction') && JSON.stringify(p).includes(logicalId(stack.importWorker)))
      .flatMap((p) => (p as { Properties: { Roles: { Ref: string }[] } }).Properties.Roles.map((r) => r.Ref));
    const roleOf = (fn: { role?: unknown }) => logicalId((fn.role as { node: { defaultChild: CfnElement } }).node.defaultChild as never);
    expect(invokers.sort()).toEqual([roleOf(stack.api.functions.employees), roleOf(stack.api.functions.visitors)].sort());
    for (const resource of ['employees', 'visitors'] as const) {
      const env = (template.findResources('AWS::Lambda::Function')[logicalId(stack.api.functions[resource])] as { Properties: { Environment: { Variables: Record<string, unknown> } } })
        .Properties.Environment.Variables;
      expect(env.IMPORT_WORKER_FUNCTION).toEqual({ Ref: logicalId(stack.importWorker) });
    }
  });

  it('reserves no concurrency by default, and the configured concurrency for each background worker only when asked', () => {
    type Functions = Record<string, { Properties: { ReservedConcurrentExecutions?: number } }>;
    const workersOf = (of: PassCloudStack) => [of.importWorker, of.recordExportWorker, of.grantWorker, of.grantPieceWorker, of.packageNoticeWorker, of.recomputeWorker];
    // A new account's concurrency quota may be 10, and Lambda keeps 100 unreserved: any reservation would fail its deploy.
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function') as Functions)) expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const reserving = new PassCloudStack(app, 'PassCloudReserving', { ...SYNTH_STACK_PROPS, workerConcurrency: 10 });
    const functions = Template.fromStack(reserving).findResources('AWS::Lambda::Function') as Functions;
    const id = (fn: IFunction) => reserving.getLogicalId(fn.node.defaultChild as CfnElement);
    for (const worker of workersOf(reserving)) expect(functions[id(worker)]!.Properties.ReservedConcurrentExecutions, worker.node.id).toBe(10);
    for (const fn of Object.values(reserving.api.functions)) expect(functions[id(fn)]!.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });

  it('sends every failed or expired worker invocation to the function that marks its job failed', () => {
    const configs = Object.values(template.findResources('AWS::Lambda::EventInvokeConfig')) as { Properties: { FunctionName: { Ref: string }; DestinationConfig?: { OnFailure?: { Destination: unknown } } } }[];
    const failures = { 'Fn::GetAtt': [logicalId(stack.jobFailures), 'Arn'] };
    for (const worker of [stack.importWorker, stack.recordExportWorker, stack.grantWorker, stack.grantPieceWorker, stack.recomputeWorker]) {
      const config = configs.find((c) => c.Properties.FunctionName.Ref === logicalId(worker));
      expect(config?.Properties.DestinationConfig?.OnFailure?.Destination, worker.node.id).toEqual(failures);
    }
    // A grant's pieces are run twice more when they fail and may wait for the reserved concurrency up to six hours.
    const pieces = configs.find((c) => c.Properties.FunctionName.Ref === logicalId(stack.grantPieceWorker)) as unknown as { Properties: Record<string, unknown> };
    expect(pieces.Properties).toMatchObject({ MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 6 * 3600 });
    // Only the grant worker starts pieces, and it is told the piece worker's name.
    const pieceInvokers = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([, p]) => statements(p).some((st) => [st.Action].flat().includes('lambda:InvokeFunction') && JSON.stringify(st.Resource).includes(logicalId(stack.grantPieceWorker))))
      .map(([id]) => id);
    expect(pieceInvokers).toHaveLength(1);
    expect(pieceInvokers[0]!.startsWith(logicalId(stack.grantWorker).replace(/[0-9A-F]{8}$/, ''))).toBe(true);
    const coordinator = template.findResources('AWS::Lambda::Function')[logicalId(stack.grantWorker)] as { Properties: { Environment: { Variables: Record<string, unknown> } } };
    expect(coordinator.Properties.Environment.Variables.GRANT_PIECE_FUNCTION).toEqual({ Ref: logicalId(stack.grantPieceWorker) });
  });

  it('expires import uploads after two days and takes them only from the console origin', () => {
    const bucket = template.findResources('AWS::S3::Bucket')[logicalId(stack.buckets.data.imports)] as { Properties: Record<string, unknown> };
    expect(bucket.Properties.LifecycleConfiguration).toEqual({
      Rules: [{ Id: 'imports-expire', ExpirationInDays: 2, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }],
    });
    const cors = (bucket.Properties.CorsConfiguration as { CorsRules: { AllowedMethods: string[]; AllowedOrigins: unknown[] }[] }).CorsRules;
    expect(cors).toHaveLength(1);
    expect(cors[0]!.AllowedMethods).toEqual(['PUT']);
    expect(JSON.stringify(cors[0]!.AllowedOrigins)).toContain('DomainName');
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

  it('expires captures, keeps them in S3 Standard (they are under Standard-IA’s 128 KB minimum), and expires old package versions', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Id: 'captures-expire', ExpirationInDays: 180, Status: 'Enabled' })]),
      },
    });
    expect(JSON.stringify(template.toJSON())).not.toMatch(/STANDARD_IA|Transitions/);
    template.hasResourceProperties('AWS::S3::Bucket', {
      VersioningConfiguration: { Status: 'Enabled' },
      LifecycleConfiguration: { Rules: Match.arrayWith([Match.objectLike({ Id: 'packages-old-versions', NoncurrentVersionExpiration: { NoncurrentDays: 30 } })]) },
    });
  });

  it('enforces retention: TTL on every table, bucket lifecycles at the longest periods a company may choose, and the daily sweep for shorter ones', () => {
    // Every item written under a retention period carries `ttl`; DynamoDB deletes it when that passes.
    for (const def of TABLES) expect(def.ttlAttribute).toBe('ttl');
    const tables = Object.values(template.findResources('AWS::DynamoDB::Table'));
    expect(tables).toHaveLength(TABLES.length);
    for (const table of tables) expect(table).toMatchObject({ Properties: { TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true } } });
    // The buckets' own rules end every capture and recording at the upper bound of the privacy settings' periods.
    type Lifecycle = { Properties: { LifecycleConfiguration: { Rules: { ExpirationInDays?: number }[] } } };
    const expiry = (bucket: Bucket) =>
      (template.findResources('AWS::S3::Bucket')[logicalId(bucket)] as Lifecycle).Properties.LifecycleConfiguration.Rules.find((rule) => rule.ExpirationInDays)?.ExpirationInDays;
    expect(expiry(stack.buckets.data.captures)).toBe(RETENTION_BOUNDS.captures.max);
    expect(expiry(stack.buckets.data.recordings)).toBe(RETENTION_BOUNDS.recordings.max);
    // Each company's shorter period: the sweep, once a day, allowed to delete in those two buckets only.
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(30 3 * * ? *)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack.retentionSweep), 'Arn'] } })],
    });
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [{ Ref: Match.stringLikeRegexp('RetentionSweep') }] } }));
    expect(policies).toContain('s3:DeleteObject');
    expect(policies).toContain(logicalId(stack.buckets.data.captures));
    expect(policies).toContain(logicalId(stack.buckets.data.recordings));
    expect(policies).not.toContain(logicalId(stack.buckets.data.photos));
  });

  it('serves the console through CloudFront with origin access control and security headers', () => {
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
    template.hasResourceProperties('AWS::CloudFront::Distribution', {
      DistributionConfig: Match.objectLike({
        DefaultRootObject: 'index.html',
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

  it('falls back to index.html in a viewer-request function of the console behaviour, never for /v1', () => {
    const config = distributionConfig();
    // Error pages would turn an API 403 or 404 into index.html with status 200.
    expect(config.CustomErrorResponses).toBeUndefined();
    const fnArn = { 'Fn::GetAtt': [logicalId(stack.site.spaFallback), 'FunctionARN'] };
    expect(config.DefaultCacheBehavior.FunctionAssociations).toEqual([{ EventType: 'viewer-request', FunctionARN: fnArn }]);
    expect(config.CacheBehaviors).toHaveLength(1);
    expect(config.CacheBehaviors[0]!.FunctionAssociations).toBeUndefined();
    expect(config.CacheBehaviors[0]!.LambdaFunctionAssociations).toBeUndefined();

    const fn = template.findResources('AWS::CloudFront::Function')[logicalId(stack.site.spaFallback)] as {
      Properties: { FunctionCode: string; FunctionConfig: { Runtime: string } };
    };
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    const handler = new Function(`${fn.Properties.FunctionCode}\nreturn handler;`)() as (event: { request: { uri: string } }) => { uri: string };
    const served = (uri: string) => handler({ request: { uri } }).uri;
    for (const route of ['/', '/login', '/people/employees', '/devices/abc123/settings', '/v1']) expect(served(route), route).toBe('/index.html');
    for (const file of ['/index.html', '/assets/index-D4x9.js', '/assets/locales/ja_JP', '/file/Personnel_import_template_EN.xlsx', '/favicon.ico']) {
      expect(served(file), file).toBe(file);
    }
  });

  it('reaches the API only through CloudFront, which sends the generated origin secret', () => {
    const secretId = logicalId(stack.originVerify);
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 48, ExcludePunctuation: true }),
    });
    const reference = { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] };

    const config = distributionConfig();
    const apiBehavior = config.CacheBehaviors.find((b) => b.PathPattern === '/v1/*')!;
    const apiOrigin = config.Origins.find((o) => o.Id === apiBehavior.TargetOriginId)!;
    expect(apiOrigin.OriginCustomHeaders).toEqual([{ HeaderName: 'x-origin-verify', HeaderValue: reference }]);
    // No other origin gets the secret (S3 would log it).
    for (const origin of config.Origins.filter((o) => o !== apiOrigin)) expect(JSON.stringify(origin)).not.toContain(secretId);
    // Managed AllViewerExceptHostHeader: every viewer header but Host, and CloudFront's viewer headers (CloudFront-Viewer-Address).
    expect(apiBehavior.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');

    const functions = template.findResources('AWS::Lambda::Function');
    for (const resource of resources) {
      const fn = functions[logicalId(stack.api.functions[resource])] as { Properties: { Environment: { Variables: Record<string, unknown> } } };
      expect(fn.Properties.Environment.Variables.ORIGIN_VERIFY_SECRET, resource).toEqual(reference);
    }
    for (const other of [stack.importWorker, iot().authorizerFunction, iot().ingestFunction]) {
      expect(JSON.stringify(functions[logicalId(other)])).not.toContain('ORIGIN_VERIFY_SECRET');
    }

    const outputs = template.findOutputs('ApiUrl');
    expect(Object.values(outputs)[0]!.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalId(stack.site.distribution), 'DomainName'] }, '/v1']],
    });
    expect(JSON.stringify(outputs)).not.toContain('execute-api');
  });

  it('lets every function that checks an object with HeadObject list its bucket, so a missing key answers 404', () => {
    const { employees, visitors, files, devices } = stack.api.functions;
    const { photos, imports, captures } = stack.buckets.data;
    const checks: [string, IFunction, Bucket][] = [
      // people.ts objectExists (the avatar), importJobs.ts objectSize (the uploaded file)
      ['employees photos', employees, photos],
      ['employees imports', employees, imports],
      ['visitors photos', visitors, photos],
      ['visitors imports', visitors, imports],
      // files.ts objectSize (a staged upload)
      ['files imports', files, imports],
      // iot/ingest.ts objectExists (a captured photo)
      ['ingest captures', iot().ingestFunction, captures],
      ['devices captures', devices, captures],
      // iot/calls.ts and the intercom's recording link: has the recording arrived?
      ['ingest recordings', iot().ingestFunction, stack.buckets.data.recordings],
      ['intercom recordings', stack.api.functions.intercom, stack.buckets.data.recordings],
    ];
    for (const [name, fn, bucket] of checks) {
      const listing = statementsOf(fn).filter((s) => [s.Action].flat().includes('s3:ListBucket'));
      expect(
        listing.flatMap((s) => [s.Resource].flat()),
        name,
      ).toContainEqual({ 'Fn::GetAtt': [logicalId(bucket), 'Arn'] });
    }
  });

  it('takes the sender address out of a From written with a display name', () => {
    expect(senderAddress('no-reply@example.com')).toBe('no-reply@example.com');
    expect(senderAddress('Pass Cloud <no-reply@example.com>')).toBe('no-reply@example.com');
    expect(senderAddress(' "Pass Cloud, Inc." <alerts@mail.example.com> ')).toBe('alerts@mail.example.com');
  });

  it.each(['systems', 'accounts'] as const)('lets the %s function send mail to any recipient, but only from the sender address', (name) => {
    const sending = statementsOf(stack.api.functions[name]).filter((s) => [s.Action].flat().includes('ses:SendEmail'));
    expect(sending).toEqual([
      { Effect: 'Allow', Action: 'ses:SendEmail', Resource: '*', Condition: { StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } } },
    ]);
  });

  it.skipIf(!consoleBuilt)('uploads hashed chunks as immutable and index.html as no-cache, keeping the previous chunks', () => {
    const deployments = template.findResources('Custom::CDKBucketDeployment') as Record<string, { Properties: Record<string, unknown>; DependsOn?: string[] }>;
    expect(Object.keys(deployments)).toHaveLength(2);
    const [assetsId, assets] = Object.entries(deployments).find(([, d]) => d.Properties.DestinationBucketKeyPrefix === 'assets/')!;
    const [, root] = Object.entries(deployments).find(([id]) => id !== assetsId)!;
    expect(assets.Properties).toMatchObject({ Prune: false, SystemMetadata: { 'cache-control': 'public, max-age=31536000, immutable' } });
    expect(assets.Properties.DistributionPaths).toBeUndefined();
    expect(root.Properties).toMatchObject({
      Prune: false,
      SystemMetadata: { 'cache-control': 'no-cache' },
      DistributionId: { Ref: logicalId(stack.site.distribution) },
      DistributionPaths: ['/index.html'],
    });
    expect(root.Properties.DestinationBucketKeyPrefix).toBeUndefined();
    // index.html goes up only after the chunks it names.
    expect(root.DependsOn).toEqual(expect.arrayContaining([expect.stringMatching(/^ConsoleDeployAssets/)]));
  });

  it('lets the functions that change faces publish only face notifications, and the terminals’ sync function read photos', () => {
    const { attendance, authorities, deviceSync, employees, visitors } = stack.api.functions;
    const publishes = (fn: unknown) =>
      Object.entries(template.findResources('AWS::IAM::Policy'))
        .filter(([id]) => id.startsWith(logicalId(fn as never).replace(/[0-9A-F]{8}$/, '')))
        .flatMap(([, p]) => statements(p))
        .filter((st) => [st.Action].flat().includes('iot:Publish'))
        .flatMap((st) => [st.Resource].flat().map(flat));
    // The attendance function's holidays close schedules, whose terminals read them again.
    for (const fn of [attendance, authorities, employees, visitors, stack.importWorker, stack.grantPieceWorker]) expect(publishes(fn)).toEqual(['arn:aws:iot:eu-west-1:123456789012:topic/pc/*/faces/notify']);
    // The terminals' answers to questionnaires tell open consoles of abnormal results (console/<tenantId>/questionnaires).
    expect(publishes(deviceSync)).toEqual(['arn:aws:iot:eu-west-1:123456789012:topic/console/*']);
    const syncPolicy = JSON.stringify(Object.entries(template.findResources('AWS::IAM::Policy')).filter(([id]) => id.startsWith('ApiDeviceSync')));
    expect(syncPolicy).toContain('s3:GetObject');
    expect(syncPolicy).not.toContain('s3:PutObject');
  });

  it('verifies the sender in SES and lets only the functions that mail (codes, invitations, test mails, resends, retries, alerts, summaries) send mail', () => {
    template.hasResourceProperties('AWS::SES::EmailIdentity', { EmailIdentity: 'no-reply@example.com' });
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'));
    const sending = policies.filter(([, p]) => JSON.stringify(p).includes('ses:SendEmail'));
    expect(sending.map(([id]) => id.replace(/(Function|ServiceRole).*$/, '')).sort()).toEqual(['ApiAccounts', 'ApiMailRecords', 'ApiMailSettings', 'ApiSystems', 'AttendanceMail', 'IotIngest', 'LicenceReminders', 'MailRetry']);
    const filesPolicy = policies.find(([id]) => /FilesFunction/.test(id));
    expect(JSON.stringify(filesPolicy)).not.toContain('EventsTable');
  });

  it('closes attendance days every hour (EventBridge Scheduler) and looks for due attendance summaries every 5 minutes', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'cron(5 * * * ? *)',
      State: 'ENABLED',
      Target: Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack.attendanceClose), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 } }),
    });
    // The scheduler's role may invoke the close function and nothing else.
    const schedule = template.toJSON().Resources[stack.getLogicalId(stack.attendanceCloseSchedule.node.defaultChild as CfnElement)].Properties as { Target: { RoleArn: { 'Fn::GetAtt': [string, string] } } };
    const role = schedule.Target.RoleArn['Fn::GetAtt'][0];
    const granted = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(role))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    expect(granted.flatMap((st) => [st.Action].flat())).toEqual(['lambda:InvokeFunction']);
    expect(JSON.stringify(granted)).toContain(logicalId(stack.attendanceClose));
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(5 minutes)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack.attendanceMail), 'Arn'] } })],
    });
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

  it('registers devices as things of the face-terminal type, searchable by tenant and serial', () => {
    template.resourceCountIs('AWS::IoT::ThingType', 1);
    template.hasResourceProperties('AWS::IoT::ThingType', {
      ThingTypeName: 'PassCloudTestFaceTerminal',
      ThingTypeProperties: Match.objectLike({ SearchableAttributes: ['tenantId', 'serial'] }),
    });
  });

  it('authenticates devices with an active custom authorizer, signing disabled, that only IoT may invoke', () => {
    template.resourceCountIs('AWS::IoT::Authorizer', 1);
    template.hasResourceProperties('AWS::IoT::Authorizer', {
      AuthorizerName: 'PassCloudTestDeviceAuthorizer',
      AuthorizerFunctionArn: { 'Fn::GetAtt': [logicalId(iot().authorizerFunction), 'Arn'] },
      SigningDisabled: true,
      Status: 'ACTIVE',
      EnableCachingForHttp: false,
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [logicalId(iot().authorizerFunction), 'Arn'] },
      Principal: 'iot.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [logicalId(iot().authorizer), 'Arn'] },
    });
    const authorizer = template.findResources('AWS::Lambda::Function')[logicalId(iot().authorizerFunction)] as { Properties: Record<string, unknown> };
    expect(authorizer.Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], Timeout: 5 });
    // Reads of the main table, and one update there (a session's live connections), nothing else.
    const policies = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([id]) => id.startsWith('IotAuthorizerFunction'));
    const actions = policies.flatMap(([, p]) => statements(p).flatMap((s) => [s.Action].flat()));
    expect(actions.sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
    const update = policies.flatMap(([, p]) => statements(p)).find((s) => [s.Action].flat().includes('dynamodb:UpdateItem'))!;
    expect(JSON.stringify(update.Resource)).not.toContain('/index/');
    expect(JSON.stringify(policies)).not.toContain('EventsTable');
  });

  it('routes every device topic filter to the ingest function through a topic rule with an error action', () => {
    const rules = Object.values(template.findResources('AWS::IoT::TopicRule')).map(
      (r) => (r as { Properties: { TopicRulePayload: Record<string, unknown> } }).Properties.TopicRulePayload,
    );
    expect(rules).toHaveLength(Object.keys(RULE_FILTERS).length);
    const ingestArn = { 'Fn::GetAtt': [logicalId(iot().ingestFunction), 'Arn'] };
    for (const filter of ['pc/+/heartbeat', 'pc/+/logs', 'pc/+/commands/result', 'pc/+/records', '$aws/things/+/shadow/update/documents', '$aws/events/presence/+/+']) {
      // The payload is nested (base64) beside the topic, so a payload field named `topic` cannot replace it.
      const rule = rules.find((r) => r.Sql === `SELECT encode(*, 'base64') AS payload, topic() AS topic FROM '${filter}'`);
      expect(rule, filter).toBeDefined();
      expect(rule).toMatchObject({
        AwsIotSqlVersion: '2016-03-23',
        RuleDisabled: false,
        Actions: [{ Lambda: { FunctionArn: ingestArn } }],
        ErrorAction: { CloudwatchLogs: { LogGroupName: { Ref: logicalId(iot().ruleErrors) } } },
      });
    }
    for (const rule of Object.values(iot().rules)) {
      template.hasResourceProperties('AWS::Lambda::Permission', {
        FunctionName: ingestArn,
        Principal: 'iot.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [logicalId(rule), 'Arn'] },
      });
    }
  });

  it('lets ingest read and write both tables, read captures and photos, presign their uploads, remove an oversized photo, answer records and calls on their ack topics, open a door station’s door and tell consoles only', () => {
    const policies = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([id]) => id.startsWith('IotIngestFunction'));
    const text = JSON.stringify(policies);
    expect(text).toContain('dynamodb:UpdateItem');
    expect(text).toContain('Tablesmain');
    expect(text).toContain('Tablesevents');
    expect(text).toContain('BucketsCaptures');
    expect(text).not.toMatch(/BucketsImports/);
    const statements = policies.flatMap(([, p]) => (p as { Properties: { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } } }).Properties.PolicyDocument.Statement);
    // Photos only to link a pass's enrolled photo.
    const photos = statements.filter((st) => JSON.stringify(st.Resource).includes('BucketsPhotos'));
    expect(photos.flatMap((st) => [st.Action].flat())).toEqual(['s3:GetObject']);
    const iotStatements = statements.filter((st) => [st.Action].flat().some((a) => a.startsWith('iot:')));
    expect([...new Set(iotStatements.flatMap((st) => [st.Action].flat()))]).toEqual(['iot:Publish']);
    expect(iotStatements.flatMap((st) => [st.Resource].flat().map(flat)).sort()).toEqual(
      ['console/*', 'pc/*/calls/ack', 'pc/*/commands', 'pc/*/records/ack'].map((topic) => `arn:aws:iot:eu-west-1:123456789012:topic/${topic}`),
    );
    const puts = statements.filter((st) => [st.Action].flat().includes('s3:PutObject'));
    expect(JSON.stringify(puts)).toContain('BucketsCaptures');
    const deletes = statements.filter((st) => [st.Action].flat().includes('s3:DeleteObject'));
    expect(deletes.length).toBeGreaterThan(0);
    expect(JSON.stringify(deletes)).not.toMatch(/BucketsPhotos|BucketsImports|BucketsRecordings|BucketsPackages/);
  });

  it('lets the dashboard write only the attendance counts it keeps and its session (its last use, its removal once ended), and queue its audit entries', () => {
    const writes = statementsOf(stack.api.functions.dashboard).filter((st) => [st.Action].flat().some((a) => /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)$/.test(a)));
    const on = (table: string) => writes.filter((st) => JSON.stringify(st.Resource).includes(table)).flatMap((st) => [st.Action].flat());
    expect(on('Tablesevents')).toEqual(['dynamodb:UpdateItem']);
    expect(on('Tablesmain').sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:UpdateItem']);
    expect(on('Tablesaudit')).toEqual([]);
    expect(writes).toHaveLength(2);
    const queued = statementsOf(stack.api.functions.dashboard).filter((st) => [st.Action].flat().includes('sqs:SendMessage'));
    expect(queued.map((st) => st.Resource)).toEqual([{ 'Fn::GetAtt': [logicalId(stack.audit.queue), 'Arn'] }]);
  });

  it('keeps the audit log append-only: no function that serves requests can add, change or remove an entry, only queue one for the writer', () => {
    const table = template.toJSON().Resources[logicalId(stack.tables.byEnv.AUDIT_TABLE!)] as { Properties: { ResourcePolicy: { PolicyDocument: { Statement: Statement[] } } } };
    const bySid = Object.fromEntries(table.Properties.ResourcePolicy.PolicyDocument.Statement.map((st) => [(st as { Sid?: string }).Sid, st]));
    expect(Object.keys(bySid).sort()).toEqual(['AppendOnly', 'KeepTheEntries', 'OnlyTheWriterAdds']);
    for (const st of Object.values(bySid)) expect(st).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Resource: '*' });
    // Nobody changes or removes an entry.
    expect([bySid.AppendOnly!.Action].flat().sort()).toEqual(['dynamodb:BatchWriteItem', 'dynamodb:DeleteItem', 'dynamodb:PartiQLDelete', 'dynamodb:PartiQLUpdate', 'dynamodb:UpdateItem']);
    // Nobody but the writer's role adds one.
    expect([bySid.OnlyTheWriterAdds!.Action].flat().sort()).toEqual(['dynamodb:PartiQLInsert', 'dynamodb:PutItem']);
    const writerRole = logicalId((stack.audit.writer.role as unknown as { node: { defaultChild: CfnElement } }).node.defaultChild);
    expect((bySid.OnlyTheWriterAdds as { Condition?: unknown }).Condition).toEqual({ ArnNotEquals: { 'aws:PrincipalArn': { 'Fn::GetAtt': [writerRole, 'Arn'] } } });
    // Nobody but the role CDK deploys with ends the entries another way.
    expect([bySid.KeepTheEntries!.Action].flat().sort()).toEqual(
      ['dynamodb:DeleteResourcePolicy', 'dynamodb:DeleteTable', 'dynamodb:PutResourcePolicy', 'dynamodb:UpdateContinuousBackups', 'dynamodb:UpdateTable', 'dynamodb:UpdateTimeToLive'],
    );
    const functions = template.findResources('AWS::Lambda::Function');
    for (const [id] of Object.entries(functions)) {
      const role = (functions[id] as { Properties: { Role?: { 'Fn::GetAtt': [string, string] } } }).Properties.Role?.['Fn::GetAtt']?.[0];
      if (!role) continue;
      const onAudit = Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => (p as { Properties: { Roles: { Ref: string }[] } }).Properties.Roles.some((r) => r.Ref === role))
        .flatMap(statements)
        .filter((st) => JSON.stringify(st.Resource).includes('Tablesaudit'))
        .flatMap((st) => [st.Action].flat());
      const allowed = id === logicalId(stack.audit.writer) ? ['dynamodb:PutItem'] : id.startsWith('ApiAudit') ? ['dynamodb:Query'] : [];
      expect(onAudit, `${id} on the audit log`).toEqual(allowed);
    }
    // Every API function queues its entries; the writer reads the queue and reports what it failed on.
    for (const fn of Object.values(stack.api.functions)) {
      expect(statementsOf(fn).some((st) => [st.Action].flat().includes('sqs:SendMessage') && JSON.stringify(st.Resource).includes(logicalId(stack.audit.queue)))).toBe(true);
    }
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalId(stack.audit.writer) },
      EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.audit.queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });

  it('lets the intercom function read recordings and exports but write no object, and ingest answer calls and open a station’s door', () => {
    const intercom = statementsOf(stack.api.functions.intercom);
    const s3 = intercom.filter((st) => [st.Action].flat().some((a) => a.startsWith('s3:')));
    expect([...new Set(s3.flatMap((st) => [st.Action].flat()))].sort()).toEqual(['s3:GetObject', 's3:ListBucket']);
    expect(JSON.stringify(s3)).toContain(logicalId(stack.buckets.data.recordings));
    const invoke = intercom.find((st) => [st.Action].flat().includes('lambda:InvokeFunction'))!;
    expect(JSON.stringify(invoke.Resource)).toContain(logicalId(stack.recordExportWorker));
    const ingest = statementsOf(iot().ingestFunction);
    const publish = JSON.stringify(ingest.filter((st) => [st.Action].flat().includes('iot:Publish')));
    for (const topic of ['pc/*/calls/ack', 'pc/*/records/ack', 'pc/*/commands']) expect(publish).toContain(topic);
    const puts = ingest.filter((st) => [st.Action].flat().includes('s3:PutObject'));
    expect(JSON.stringify(puts)).toContain(logicalId(stack.buckets.data.recordings));
    // The console reads recordings from its own origin only, to draw their waveform.
    const cors = template.toJSON().Resources[logicalId(stack.buckets.data.recordings)].Properties.CorsConfiguration as { CorsRules: { AllowedMethods: string[]; AllowedOrigins: unknown[] }[] };
    expect(cors.CorsRules).toHaveLength(1);
    expect(cors.CorsRules[0]!.AllowedMethods).toEqual(['GET']);
    expect(JSON.stringify(cors.CorsRules[0]!.AllowedOrigins)).not.toContain('*');
  });

  it('stays under CloudFormation’s 500 resources: one invoke permission per API function, for this API only', () => {
    // The headroom itself, for routes and for new functions, is tests/cdk/stackLimits.test.ts's.
    const resources = Object.keys(template.toJSON().Resources).length;
    expect(resources).toBeLessThan(400);
    const fromApi = Object.values(template.findResources('AWS::Lambda::Permission')).filter((p) => (p as { Properties: { Principal: string } }).Properties.Principal === 'apigateway.amazonaws.com');
    expect(fromApi).toHaveLength(Object.keys(stack.api.functions).length);
    for (const permission of fromApi) {
      const source = JSON.stringify((permission as { Properties: { SourceArn: unknown } }).Properties.SourceArn);
      expect(source).toContain(logicalId(stack.api.httpApi));
      expect(source).toContain('/*/*/*');
    }
  });

  it('gives attendance its recomputation worker, which writes only the events table', () => {
    const vars = template.toJSON().Resources[logicalId(stack.api.functions.attendance)].Properties.Environment.Variables as Record<string, unknown>;
    expect(vars.RECOMPUTE_WORKER_FUNCTION).toEqual({ Ref: logicalId(stack.recomputeWorker) });
    const invoke = statementsOf(stack.api.functions.attendance).find((st) => [st.Action].flat().includes('lambda:InvokeFunction'))!;
    expect(JSON.stringify(invoke.Resource)).toContain(logicalId(stack.recomputeWorker));
    const worker = statementsOf(stack.recomputeWorker);
    const writes = worker.filter((st) => [st.Action].flat().some((a) => /^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)$/.test(a)));
    expect(JSON.stringify(writes)).toContain('Tablesevents');
    expect(JSON.stringify(writes)).not.toContain('Tablesmain');
    expect(worker.flatMap((st) => [st.Action].flat()).filter((a) => a.startsWith('s3:') || a.startsWith('iot:'))).toEqual([]);
    expect((template.toJSON().Resources[logicalId(stack.recomputeWorker)].Properties as { Timeout: number }).Timeout).toBe(900);
  });

  it('gives pass records their export worker, and the worker only what it writes', () => {
    const records = logicalId(stack.api.functions.passRecords);
    const vars = template.toJSON().Resources[records].Properties.Environment.Variables as Record<string, unknown>;
    expect(vars.EXPORT_WORKER_FUNCTION).toEqual({ Ref: logicalId(stack.recordExportWorker) });
    const roleOfFn = (id: string) => (template.toJSON().Resources[id].Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const statementsOf = (id: string) =>
      Object.values(template.findResources('AWS::IAM::Policy'))
        .filter((p) => JSON.stringify(p.Properties.Roles).includes(roleOfFn(id)))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    const invoke = statementsOf(records).find((st) => [st.Action].flat().includes('lambda:InvokeFunction'))!;
    expect(JSON.stringify(invoke.Resource)).toContain(logicalId(stack.recordExportWorker));
    const worker = statementsOf(logicalId(stack.recordExportWorker));
    const actions = worker.flatMap((st) => [st.Action].flat());
    expect(actions).toContain('s3:PutObject');
    expect(actions.filter((a) => a.startsWith('iot:'))).toEqual([]);
    expect(JSON.stringify(worker.filter((st) => [st.Action].flat().includes('s3:PutObject')))).toContain('BucketsImports');
    // It removes only its own workbooks (an export withdrawn while it ran): in the imports bucket, nowhere else.
    const deletes = worker.filter((st) => [st.Action].flat().includes('s3:DeleteObject'));
    expect(JSON.stringify(deletes)).toContain('BucketsImports');
    expect(JSON.stringify(deletes)).not.toMatch(/BucketsCaptures|BucketsPhotos|BucketsRecordings/);
  });

  it('holds certificate-based devices to their own thing and topics with ${iot:Connection.Thing.ThingName}', () => {
    const policies = Object.values(template.findResources('AWS::IoT::Policy'));
    expect(policies).toHaveLength(1);
    const arn = 'arn:aws:iot:eu-west-1:123456789012';
    const thing = THING_NAME_VARIABLE.replace(/[$.{}]/g, '\\$&');
    const own = new RegExp(`^${arn}:(client/${thing}|(topic|topicfilter)/(pc/${thing}/[a-z/*]+|\\$aws/things/${thing}/shadow/[a-z/*]+))$`);
    const allowed: string[] = [];
    for (const statement of statements(policies[0]!)) {
      expect(statement.Effect).toBe('Allow');
      for (const action of [statement.Action].flat()) expect(['iot:Connect', 'iot:Publish', 'iot:Subscribe', 'iot:Receive']).toContain(action);
      for (const resource of [statement.Resource].flat().map(flat)) {
        expect(resource).toMatch(own);
        allowed.push(`${[statement.Action].flat().join(',')} ${resource.slice(arn.length + 1)}`);
      }
    }
    expect(allowed).toContain(`iot:Connect client/${THING_NAME_VARIABLE}`);
    expect(allowed).toContain(`iot:Publish topic/pc/${THING_NAME_VARIABLE}/heartbeat`);
    // Its own down topics (commands, acks, face notices) under one wildcard: nobody else publishes there.
    expect(allowed).toContain(`iot:Subscribe topicfilter/pc/${THING_NAME_VARIABLE}/*`);
    expect(allowed).toContain(`iot:Receive topic/pc/${THING_NAME_VARIABLE}/*`);
    // A device may not publish commands to itself, nor touch another thing's shadow.
    expect(allowed).not.toContain(`iot:Publish topic/pc/${THING_NAME_VARIABLE}/commands`);
    const connect = statements(policies[0]!).find((s) => [s.Action].flat().includes('iot:Connect'))!;
    expect(connect.Condition).toEqual({ Bool: { 'iot:Connection.Thing.IsAttached': 'true' } });
  });

  it('gives the settings function the broker, the build, the API URL and the packages bucket, and its notice worker IoT publish on command topics only', () => {
    const fn = logicalId(stack.api.functions.settings);
    const vars = template.toJSON().Resources[fn].Properties.Environment.Variables as Record<string, unknown>;
    expect(vars.BUILD_ID).toEqual(expect.any(String));
    expect(String(vars.BUILD_ID).length).toBeGreaterThan(0);
    expect(JSON.stringify(vars.IOT_MQTT_URL)).toContain(':443');
    expect(JSON.stringify(vars.IOT_WS_URL)).toContain(':443/mqtt');
    expect(JSON.stringify(vars.API_BASE_URL)).toContain('/v1');
    expect(JSON.stringify(vars.API_BASE_URL)).toContain(logicalId(stack.site.distribution));
    const policies = JSON.stringify(
      Object.values(template.findResources('AWS::IAM::Policy')).filter((p) => JSON.stringify(p).includes(fn.replace(/Function.*$/, ''))),
    );
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(fn.replace(/[0-9A-F]{8}$/, '')))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    expect(policies.length).toBeGreaterThan(0);
    // The settings function starts the notice worker and talks to no terminal itself.
    expect(statements.flatMap((st) => [st.Action].flat()).filter((a) => a.startsWith('iot:'))).toEqual([]);
    const invoke = statements.find((st) => [st.Action].flat().includes('lambda:InvokeFunction'))!;
    expect(JSON.stringify(invoke.Resource)).toContain(logicalId(stack.packageNoticeWorker));
    expect(vars.PACKAGE_NOTICE_FUNCTION).toEqual({ Ref: logicalId(stack.packageNoticeWorker) });
    const worker = logicalId(stack.packageNoticeWorker);
    const workerStatements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(worker.replace(/[0-9A-F]{8}$/, '')))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    expect(workerStatements.flatMap((st) => [st.Action].flat()).filter((a) => a.startsWith('iot:'))).toEqual(['iot:Publish']);
    const publish = workerStatements.find((st) => [st.Action].flat().includes('iot:Publish'))!;
    expect(JSON.stringify(publish.Resource)).toContain('topic/pc/*/commands');
    const packages = logicalId(stack.buckets.data.packages);
    const objectActions = statements.filter((st) => JSON.stringify(st.Resource).includes(packages)).flatMap((st) => [st.Action].flat());
    expect(objectActions).toEqual(expect.arrayContaining(['s3:PutObject', 's3:GetObject', 's3:DeleteObject', 's3:ListBucket']));
    // The console uploads packages from its own origin.
    const cors = template.toJSON().Resources[packages].Properties.CorsConfiguration.CorsRules as { AllowedMethods: string[] }[];
    expect(cors[0]!.AllowedMethods).toEqual(['PUT']);
  });

  it('runs the retention sweep daily with only list and delete on captures and recordings', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(30 3 * * ? *)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack.retentionSweep), 'Arn'] } })]),
    });
    const sweep = logicalId(stack.retentionSweep);
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(sweep.replace(/[0-9A-F]{8}$/, '')))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
    const actions = new Set(statements.flatMap((st) => [st.Action].flat()));
    expect([...actions].filter((a) => a.startsWith('s3:')).sort()).toEqual(['s3:DeleteObject', 's3:ListBucket']);
    expect([...actions].some((a) => a.startsWith('dynamodb:') && !['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'].includes(a))).toBe(false);
    const buckets = JSON.stringify(statements.map((st) => st.Resource));
    expect(buckets).toContain(logicalId(stack.buckets.data.captures));
    expect(buckets).toContain(logicalId(stack.buckets.data.recordings));
    expect(buckets).not.toContain(logicalId(stack.buckets.data.photos));
  });

  it('seals SMTP passwords with a rotating KMS key that only the functions that mail may use, and only the settings may seal with; the systems function seals authenticator secrets under their own context', () => {
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    const key = logicalId(stack.mail.key);
    const roleOf = (fn: { role?: unknown }) => logicalId((fn.role as { node: { defaultChild: CfnElement } }).node.defaultChild as never);
    const kmsActions = new Map<string, string[]>();
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy')) as { Properties: { Roles: { Ref: string }[]; PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown; Condition?: unknown }[] } } }[]) {
      for (const st of policy.Properties.PolicyDocument.Statement) {
        const actions = [st.Action].flat().filter((a) => a.startsWith('kms:'));
        if (!actions.length) continue;
        expect(JSON.stringify(st.Resource)).toContain(key);
        const purpose = (st.Condition as { StringEquals: Record<string, string> }).StringEquals['kms:EncryptionContext:purpose'];
        expect(st.Condition).toEqual({ StringEquals: { 'kms:EncryptionContext:purpose': purpose } });
        expect(['smtp-password', 'totp-secret', 'webhook-secret']).toContain(purpose);
        const named = actions.map((a) => (purpose === 'smtp-password' ? a : `${a} ${purpose}`));
        for (const role of policy.Properties.Roles) kmsActions.set(role.Ref, [...(kmsActions.get(role.Ref) ?? []), ...named].sort());
      }
    }
    const { mailSettings, mailRecords, systems, accounts } = stack.api.functions;
    expect(Object.fromEntries(kmsActions)).toEqual({
      [roleOf(mailSettings)]: ['kms:Decrypt', 'kms:Encrypt'],
      [roleOf(mailRecords)]: ['kms:Decrypt'],
      // Two-factor login's authenticator secrets, under their own context.
      [roleOf(systems)]: ['kms:Decrypt', 'kms:Decrypt totp-secret', 'kms:Encrypt totp-secret'],
      [roleOf(accounts)]: ['kms:Decrypt'],
      [roleOf(stack.mail.retryFunction)]: ['kms:Decrypt'],
      [roleOf(stack.licenceReminders)]: ['kms:Decrypt'],
      [roleOf(stack.attendanceMail)]: ['kms:Decrypt'],
      // Fever and blacklist alerts are mailed from ingest.
      [roleOf(iot().ingestFunction)]: ['kms:Decrypt'],
      // Webhook signing secrets, under their own context: sealed by the webhooks function, opened by the sender.
      [roleOf(stack.api.functions.webhooks)]: ['kms:Decrypt webhook-secret', 'kms:Encrypt webhook-secret'],
      [roleOf(stack.webhooks.sender)]: ['kms:Decrypt webhook-secret'],
    });
    // Sealing names the key; a sealed value names its key itself, so the functions that only open do not get it.
    const variables = (fn: IFunction) => (template.findResources('AWS::Lambda::Function')[logicalId(fn)] as { Properties: { Environment: { Variables: Record<string, unknown> } } }).Properties.Environment.Variables;
    for (const fn of [mailSettings, systems]) expect(JSON.stringify(variables(fn).SETTINGS_KMS_KEY_ID)).toContain(key);
    for (const fn of [mailRecords, accounts, stack.mail.retryFunction]) expect(variables(fn)).not.toHaveProperty('SETTINGS_KMS_KEY_ID');
  });

  it('mails licence reminders daily from a function that may send only from the stack’s sender', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(0 8 * * ? *)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack.licenceReminders), 'Arn'] } })]),
    });
    const fn = logicalId(stack.licenceReminders);
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(fn.replace(/[0-9A-F]{8}$/, '')))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Condition?: unknown }[]);
    expect(statements.find((st) => [st.Action].flat().includes('ses:SendEmail'))!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } });
    expect(statements.flatMap((st) => [st.Action].flat()).filter((a) => a.startsWith('s3:'))).toEqual([]);
  });

  it('tries mails again every minute in a function that may send only from the stack’s sender', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalId(stack.mail.retryFunction), 'Arn'] } })]),
    });
    const fn = logicalId(stack.mail.retryFunction);
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes(fn.replace(/[0-9A-F]{8}$/, '')))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
    const send = statements.find((st) => [st.Action].flat().includes('ses:SendEmail'))!;
    expect(send.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'no-reply@example.com' } });
    const actions = new Set(statements.flatMap((st) => [st.Action].flat()));
    expect([...actions].filter((a) => a.startsWith('s3:'))).toEqual([]);
    expect(JSON.stringify(statements)).toContain('/index/gsi1');
  });

  it('puts an encrypted SQS queue with a dead-letter queue between the makers of webhook events and the sender, which reads both and reports failed messages', () => {
    const queue = logicalId(stack.webhooks.queue);
    const deadLetters = logicalId(stack.webhooks.deadLetters);
    template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 360,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetters, 'Arn'] }, maxReceiveCount: 3 },
    });
    const sender = logicalId(stack.webhooks.sender);
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 60 });
    for (const source of [queue, deadLetters]) {
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: sender },
        EventSourceArn: { 'Fn::GetAtt': [source, 'Arn'] },
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    }
    // The sender tells the dead letters from the queue by the ARN it is given.
    const senderEnv = (template.toJSON().Resources[sender].Properties.Environment.Variables ?? {}) as Record<string, unknown>;
    expect(senderEnv.WEBHOOK_DEAD_LETTER_ARN).toEqual({ 'Fn::GetAtt': [deadLetters, 'Arn'] });
    // Only the functions that make events (and the sender, queuing later attempts) may send to the queue.
    const senders = new Set<string>();
    for (const policy of Object.values(template.findResources('AWS::IAM::Policy')) as { Properties: { Roles: { Ref: string }[]; PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } } }[]) {
      for (const st of policy.Properties.PolicyDocument.Statement) {
        if (![st.Action].flat().includes('sqs:SendMessage')) continue;
        // The audit queue is every API function's (the audit log's test above).
        const queues = [st.Resource].flat().filter((r) => JSON.stringify(r) !== JSON.stringify({ 'Fn::GetAtt': [logicalId(stack.audit.queue), 'Arn'] }));
        if (queues.length === 0) continue;
        expect(queues).toEqual([{ 'Fn::GetAtt': [queue, 'Arn'] }]);
        for (const role of policy.Properties.Roles) senders.add(role.Ref);
      }
    }
    const roleOf = (fn: { role?: unknown }) => logicalId((fn.role as { node: { defaultChild: CfnElement } }).node.defaultChild as never);
    const { webhooks, deviceSync, questionnaires, devices } = stack.api.functions;
    // The devices function makes the door modes' `door.mode` events.
    expect([...senders].sort()).toEqual([webhooks, deviceSync, questionnaires, devices, iot().ingestFunction, stack.webhooks.sender].map(roleOf).sort());
  });

  it('gives the devices function the IoT endpoints and names, and only scoped IoT permissions', () => {
    const fn = template.findResources('AWS::Lambda::Function')[logicalId(stack.api.functions.devices)] as {
      Properties: { Environment: { Variables: Record<string, unknown> } };
    };
    const endpoint = { 'Fn::GetAtt': [expect.stringMatching(/^IotDataEndpoint/), 'endpointAddress'] };
    expect(fn.Properties.Environment.Variables).toMatchObject({
      IOT_DATA_ENDPOINT: { 'Fn::Join': ['', ['https://', endpoint]] },
      IOT_MQTT_URL: { 'Fn::Join': ['', ['mqtts://', endpoint, ':443']] },
      IOT_AUTHORIZER_NAME: { Ref: logicalId(iot().authorizer) },
      IOT_THING_TYPE: { Ref: logicalId(iot().thingType) },
    });
    template.hasResourceProperties('Custom::AWS', {
      Create: Match.serializedJson(Match.objectLike({ service: 'IoT', action: 'DescribeEndpoint', parameters: { endpointType: 'iot:Data-ATS' } })),
    });
    // Only the devices function carries the IoT variables; the data endpoint also goes to the functions that tell terminals
    // something: settings (a new package), ingest (record acks), and those that change faces (authorizations, people, photo imports)
    // or the holidays that close schedules (attendance).
    // The systems function names the authorizer to consoles (the live channel), and it and the accounts function end a closed session's live connections.
    // The intercom function deletes intercoms' things and sends door stations their door commands. The questionnaires
    // function writes open surveys into terminals' shadows; it and the terminals' sync function announce abnormal results.
    const { settings, authorities, employees, visitors, systems, accounts, intercom, questionnaires, deviceSync } = stack.api.functions;
    const tellers = [
      stack.api.functions.devices,
      intercom,
      settings,
      authorities,
      stack.api.functions.attendance,
      employees,
      visitors,
      systems,
      accounts,
      questionnaires,
      deviceSync,
      iot().ingestFunction,
      stack.importWorker,
      stack.grantPieceWorker,
      stack.packageNoticeWorker,
    ].map(logicalId);
    for (const [id, other] of Object.entries(template.findResources('AWS::Lambda::Function'))) {
      const env = JSON.stringify((other as { Properties: { Environment?: unknown } }).Properties.Environment ?? {});
      if (id !== logicalId(stack.api.functions.devices) && id !== logicalId(systems)) expect(env).not.toContain('IOT_AUTHORIZER_NAME');
      if (!tellers.includes(id)) expect(JSON.stringify(other)).not.toContain('IOT_DATA_ENDPOINT');
    }

    const iotStatements = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([id]) => id.startsWith('ApiDevicesFunction'))
      .flatMap(([, p]) => statements(p))
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('iot:')));
    const grants = iotStatements.flatMap((s) => [s.Action].flat().map((action) => `${action} ${[s.Resource].flat().map(flat).join(' ')}`));
    const arn = 'arn:aws:iot:eu-west-1:123456789012';
    expect(grants.sort()).toEqual(
      [
        `iot:CreateThing ${arn}:thing/*`,
        `iot:DeleteConnection ${arn}:client/*`,
        `iot:DeleteThing ${arn}:thing/*`,
        `iot:DeleteThingShadow ${arn}:thing/*`,
        `iot:GetThingShadow ${arn}:thing/*`,
        `iot:Publish ${arn}:topic/pc/*/commands`,
        `iot:UpdateThingShadow ${arn}:thing/*`,
      ].sort(),
    );
    // No other function may talk to IoT: the settings function only publishes commands, ingest only record acks, and the
    // functions that change faces or holidays only face notifications (each checked on its own).
    const intercomGrants = Object.entries(template.findResources('AWS::IAM::Policy'))
      .filter(([id]) => id.startsWith('ApiIntercomFunction'))
      .flatMap(([, p]) => statements(p))
      .filter((s) => [s.Action].flat().some((a) => a.startsWith('iot:')))
      .flatMap((s) => [s.Action].flat().map((action) => `${action} ${[s.Resource].flat().map(flat).join(' ')}`));
    expect(intercomGrants.sort()).toEqual(
      [`iot:DeleteConnection ${arn}:client/*`, `iot:DeleteThing ${arn}:thing/*`, `iot:DeleteThingShadow ${arn}:thing/*`, `iot:Publish ${arn}:topic/pc/*/commands`].sort(),
    );
    const talkers = ['ApiDevicesFunction', 'ApiIntercomFunction', 'ApiQuestionnairesFunction', 'ApiDeviceSyncFunction', 'IotDataEndpoint', 'IotIngestFunction', 'ApiAuthoritiesFunction', 'ApiAttendanceFunction', 'ApiEmployeesFunction', 'ApiVisitorsFunction', 'ImportWorker', 'GrantPieceWorker', 'PackageNoticeWorker', 'ApiSystemsFunction', 'ApiAccountsFunction'];
    for (const [id, policy] of Object.entries(template.findResources('AWS::IAM::Policy'))) {
      if (!talkers.some((prefix) => id.startsWith(prefix))) expect(JSON.stringify(policy), id).not.toMatch(/"iot:/);
    }
    // Ending live connections: consoles' client ids only, never a terminal's.
    for (const prefix of ['ApiSystemsFunction', 'ApiAccountsFunction']) {
      const granted = Object.entries(template.findResources('AWS::IAM::Policy'))
        .filter(([id]) => id.startsWith(prefix))
        .flatMap(([, p]) => statements(p))
        .filter((s) => [s.Action].flat().some((a) => a.startsWith('iot:')))
        .flatMap((s) => [s.Action].flat().map((action) => `${action} ${[s.Resource].flat().map(flat).join(' ')}`));
      expect(granted, prefix).toEqual([`iot:DeleteConnection ${arn}:client/console-*`]);
    }
  });
});

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

const statements = (resource: unknown): Statement[] =>
  (resource as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement;

/** Every statement of the policies attached to a function's role. */
function statementsOf(fn: IFunction): Statement[] {
  const role = logicalId(fn.role!.node.defaultChild as CfnElement);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => (p as { Properties: { Roles: { Ref: string }[] } }).Properties.Roles.some((r) => r.Ref === role))
    .flatMap(statements);
}

interface CacheBehavior {
  PathPattern?: string;
  TargetOriginId: string;
  OriginRequestPolicyId?: string;
  FunctionAssociations?: unknown;
  LambdaFunctionAssociations?: unknown;
}

function distributionConfig(): {
  CustomErrorResponses?: unknown;
  DefaultCacheBehavior: CacheBehavior;
  CacheBehaviors: CacheBehavior[];
  Origins: { Id: string; OriginCustomHeaders?: unknown }[];
} {
  const distribution = template.findResources('AWS::CloudFront::Distribution')[logicalId(stack.site.distribution)] as {
    Properties: { DistributionConfig: ReturnType<typeof distributionConfig> };
  };
  return distribution.Properties.DistributionConfig;
}

/** A resolved ARN as text: `Fn::Join` flattened, the partition as `aws`. */
function flat(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as { Ref?: string; 'Fn::Join'?: [string, unknown[]] };
  if (v.Ref === 'AWS::Partition') return 'aws';
  if (v['Fn::Join']) return v['Fn::Join'][1].map(flat).join(v['Fn::Join'][0]);
  return JSON.stringify(value);
}
