import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { checkMailDomain, checkSender, checkWorkerConcurrency, PassCloudStack } from '@passcloud/infra/aws/stack';
import { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_STACK_PROPS } from '../support/synthOutput.ts';
import { cdkContext } from '@passcloud/infra/aws/context';
import { REPO_ROOT } from '@passcloud/infra/aws/api';
import { synthesized } from '../support/synthOutput.ts';

/**
 * What CloudFormation and the services refuse when the stack is created, asserted on the template
 * `cdk synth` writes: the rules a deploy would fail on, found here instead of in a failed stack.
 */
type Resource = { Type: string; Properties: Record<string, unknown> };
let resources: Record<string, Resource>;

beforeAll(async () => {
  const synth = await synthesized();
  resources = (JSON.parse(readFileSync(synth.templateFile, 'utf8')) as { Resources: Record<string, Resource> }).Resources;
});

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const ref = (value: unknown): string | undefined => (value as { Ref?: string }).Ref ?? (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0];

describe('the template', () => {
  it('gives every queue a function reads a visibility timeout at least that function’s timeout', () => {
    // Lambda refuses to create the mapping otherwise (InvalidParameterValueException):
    // https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html#events-sqs-queueconfig
    const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(([, m]) => resources[ref(m.Properties.EventSourceArn) ?? '']?.Type === 'AWS::SQS::Queue');
    expect(mappings.length).toBeGreaterThanOrEqual(2);
    for (const [id, mapping] of mappings) {
      const queue = resources[ref(mapping.Properties.EventSourceArn)!]!;
      const fn = resources[ref(mapping.Properties.FunctionName)!]!;
      // SQS's default visibility timeout is 30 s, Lambda's default timeout 3 s.
      const visibility = (queue.Properties.VisibilityTimeout as number | undefined) ?? 30;
      const timeout = (fn.Properties.Timeout as number | undefined) ?? 3;
      expect(visibility, id).toBeGreaterThanOrEqual(timeout);
    }
  });

  it('reserves no Lambda concurrency, which a new account could not give', () => {
    // Lambda keeps 100 of an account's concurrency unreserved, and a new account's quota may be 10:
    // https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html
    const reserved = ofType('AWS::Lambda::Function').reduce((sum, [, fn]) => sum + ((fn.Properties.ReservedConcurrentExecutions as number | undefined) ?? 0), 0);
    expect(reserved).toBe(0);
  });

  it('names what it names within each service’s length and character rules', () => {
    const names: [string, unknown, number, RegExp][] = [
      // https://docs.aws.amazon.com/iot/latest/apireference/API_CreatePolicy.html
      ...ofType('AWS::IoT::Policy').map(([, r]): [string, unknown, number, RegExp] => ['IoT policy', r.Properties.PolicyName, 128, /^[\w+=,.@-]+$/]),
      // https://docs.aws.amazon.com/iot/latest/apireference/API_CreateThingType.html
      ...ofType('AWS::IoT::ThingType').map(([, r]): [string, unknown, number, RegExp] => ['thing type', r.Properties.ThingTypeName, 128, /^[a-zA-Z0-9:_-]+$/]),
      // https://docs.aws.amazon.com/iot/latest/apireference/API_CreateAuthorizer.html
      ...ofType('AWS::IoT::Authorizer').map(([, r]): [string, unknown, number, RegExp] => ['authorizer', r.Properties.AuthorizerName, 128, /^[\w=,@-]+$/]),
      // https://docs.aws.amazon.com/iot/latest/apireference/API_CreateTopicRule.html
      ...ofType('AWS::IoT::TopicRule').map(([, r]): [string, unknown, number, RegExp] => ['topic rule', r.Properties.RuleName, 128, /^[a-zA-Z0-9_]+$/]),
    ];
    expect(names.length).toBeGreaterThan(4);
    for (const [what, name, most, pattern] of names) {
      expect(typeof name, what).toBe('string');
      expect((name as string).length, `${what} ${String(name)}`).toBeLessThanOrEqual(most);
      expect(name, what).toMatch(pattern);
    }
  });
});

describe('cdk synth', () => {
  it('fails on CloudFormation’s own rules, not only warns: a queue shorter than its reader’s timeout stops it', () => {
    expect(cdkContext()['@aws-cdk/core:validateAgainstDefaultRules']).toBe(true);
    const app = new App({ context: cdkContext(), outdir: mkdtempSync(join(tmpdir(), 'passcloud-rules-')) });
    const stack = new Stack(app, 'TooShort', { env: { account: '123456789012', region: 'eu-west-1' } });
    const queue = new Queue(stack, 'Queue', { visibilityTimeout: Duration.seconds(30) });
    const fn = new LambdaFunction(stack, 'Reader', { runtime: Runtime.NODEJS_22_X, handler: 'index.handler', code: Code.fromInline('exports.handler = async () => {}'), timeout: Duration.seconds(60) });
    fn.addEventSource(new SqsEventSource(queue));
    try {
      expect(() => app.synth()).toThrow(/VisibilityTimeout|Validation failed/i);
    } finally {
      rmSync(app.outdir, { recursive: true, force: true });
    }
  });

  it('stops, saying what to give, when no mail sender is configured or one that SES can never verify', () => {
    const out = mkdtempSync(join(tmpdir(), 'passcloud-app-'));
    try {
      const run = spawnSync(process.execPath, ['--import', 'tsx', resolve(REPO_ROOT, 'infra/bin/app.ts')], {
        cwd: REPO_ROOT,
        env: { ...process.env, CDK_OUTDIR: out, CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }) },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain('No mail sender is configured');
      expect(run.stderr).toContain('--context mailFrom=');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
    expect(() => checkSender('no-reply@example.com')).toThrow(/reserved/);
    expect(() => checkSender('Pass Cloud <alerts@mail.test>')).toThrow(/reserved/);
    expect(() => checkSender('not an address')).toThrow(/not an address/);
    expect(checkSender('Pass Cloud <no-reply@mail.acme-security.com>')).toBe('Pass Cloud <no-reply@mail.acme-security.com>');
    // A verified domain must hold the sender; the concurrency must be a whole number.
    expect(checkMailDomain('mail.acme-security.com', 'Pass Cloud <no-reply@mail.acme-security.com>')).toBe('mail.acme-security.com');
    expect(() => checkMailDomain('acme-security.com', 'no-reply@mail.other.com')).toThrow(/not in the verified domain/);
    expect(() => checkMailDomain('not a domain', 'no-reply@mail.other.com')).toThrow(/not a domain name/);
    expect(checkWorkerConcurrency(undefined)).toBeUndefined();
    expect(checkWorkerConcurrency('10')).toBe(10);
    for (const wrong of ['ten', '2.5', '-1', '5000']) expect(() => checkWorkerConcurrency(wrong), wrong).toThrow(/whole number/);
  });

  it('prints the three DKIM records to publish when a whole domain is verified', () => {
    const app = new App({ context: { ...cdkContext(), 'aws:cdk:bundling-stacks': [] } });
    const stack = new PassCloudStack(app, 'PassCloudDomain', { ...SYNTH_STACK_PROPS, mailFrom: 'Pass Cloud <no-reply@mail.acme-security.com>', mailDomain: 'mail.acme-security.com' });
    const outputs = Template.fromStack(stack).toJSON().Outputs as Record<string, { Value: unknown }>;
    const dkim = Object.keys(outputs).filter((name) => name.startsWith('MailDkimRecord'));
    expect(dkim.sort()).toEqual(['MailDkimRecord1', 'MailDkimRecord2', 'MailDkimRecord3']);
    for (const name of dkim) expect(JSON.stringify(outputs[name]!.Value)).toContain('DkimDNSTokenName');
  });
});
