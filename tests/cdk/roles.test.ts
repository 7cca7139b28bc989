import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { routes } from '@passcloud/functions/routes';
import { REPO_ROOT } from '@passcloud/infra/aws/api';
import { AccessDenied, StackRoles, type SynthesizedRoles } from '@passcloud/infra/local/roles';
import { synthesized } from '../support/synthOutput.ts';

/**
 * The roles of the synthesized stack as the local host evaluates them (infra/local/roles.ts), which
 * every integration and browser test runs under: what the functions need, and refusals as AWS's.
 */
const REGION = 'eu-west-1';
let synth: SynthesizedRoles;
const roles = () => new StackRoles(synth, REGION, () => undefined);
const role = (of: StackRoles, entry: string) => {
  const found = of.roleOfEntry(entry);
  if (!found) throw new Error(`no function made from ${entry}`);
  return found;
};
const table = (name: string) => `arn:aws:dynamodb:${REGION}:000000000000:table/${name}`;

beforeAll(async () => {
  const output = await synthesized();
  synth = {
    template: JSON.parse(readFileSync(output.templateFile, 'utf8')) as SynthesizedRoles['template'],
    entries: Object.fromEntries(output.functions.map((fn) => [fn.id, relative(resolve(REPO_ROOT, 'functions'), fn.entry).replace(/\.ts$/, '')])),
  };
});

describe('the roles the local host checks against', () => {
  it('let every function that serves session routes remove a session that has ended', () => {
    const stack = roles();
    const resources = [...new Set(routes.filter((r) => r.access === 'session').map((r) => r.resource))];
    expect(resources.length).toBeGreaterThan(15);
    for (const resource of resources) expect(stack.allows(role(stack, `resources/${resource}`), 'dynamodb:DeleteItem', table('passcloud-main')), resource).toBe(true);
  });

  it('let the functions that erase people tell a missing capture from a forbidden one (s3:ListBucket)', () => {
    const stack = roles();
    for (const entry of ['resources/employees', 'resources/visitors']) expect(stack.allows(role(stack, entry), 's3:ListBucket', 'arn:aws:s3:::passcloud-captures'), entry).toBe(true);
  });

  it('refuse what no statement allows, with AWS’s error, and a grant removed from the template is refused', () => {
    const stack = roles();
    const dashboard = role(stack, 'resources/dashboard');
    expect(() => stack.check(dashboard, 'dynamodb:PutItem', table('passcloud-main'))).toThrow(AccessDenied);
    expect(() => stack.check(dashboard, 's3:PutObject', 'arn:aws:s3:::passcloud-captures/t1/x.jpg')).toThrow(/Access Denied/);
    stack.check(dashboard, 'dynamodb:Query', table('passcloud-events'));
    stack.withoutGrant(dashboard, ({ actions }) => actions.includes('dynamodb:Query'));
    expect(() => stack.check(dashboard, 'dynamodb:Query', table('passcloud-events'))).toThrow(/is not authorized to perform: dynamodb:Query/);
  });

  it('let only the audit writer add an entry, and nobody change or remove one: the table’s own policy holds for every role', () => {
    const stack = roles();
    const audit = table('passcloud-audit');
    const writer = role(stack, 'jobs/auditWriter');
    expect(stack.allows(writer, 'dynamodb:PutItem', audit)).toBe(true);
    for (const action of ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:Query']) expect(stack.allows(writer, action, audit), action).toBe(false);
    for (const entry of Object.values(synth.entries).filter((e) => e !== 'jobs/auditWriter')) {
      for (const action of ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem']) expect(stack.allows(role(stack, entry), action, audit), `${entry} ${action}`).toBe(false);
    }
    // The audit section reads the log, and queues its own entries like every API function.
    expect(stack.allows(role(stack, 'resources/audit'), 'dynamodb:Query', audit)).toBe(true);
    expect(stack.allows(role(stack, 'resources/audit'), 'sqs:SendMessage', stack.arnOf('AUDIT_QUEUE_URL'))).toBe(true);
  });

  it('evaluate conditions: the settings key opens only secrets of its own purpose', () => {
    const stack = roles();
    const webhooks = role(stack, 'resources/webhooks');
    const key = `arn:aws:kms:${REGION}:000000000000:key/`;
    const keyId = Object.entries(synth.template.Resources).find(([, r]) => r.Type === 'AWS::KMS::Key')![0];
    expect(stack.allows(webhooks, 'kms:Decrypt', key + keyId, { 'kms:EncryptionContext:purpose': 'webhook-secret' })).toBe(true);
    expect(stack.allows(webhooks, 'kms:Decrypt', key + keyId, { 'kms:EncryptionContext:purpose': 'smtp-password' })).toBe(false);
    expect(stack.allows(webhooks, 'kms:Decrypt', key + keyId)).toBe(false);
  });

  it('know the role of every function the stack deploys, and of every worker a variable names', () => {
    const stack = roles();
    for (const entry of Object.values(synth.entries)) expect(stack.roleOfEntry(entry), entry).toBeDefined();
    for (const worker of ['IMPORT_WORKER_FUNCTION', 'EXPORT_WORKER_FUNCTION', 'GRANT_WORKER_FUNCTION', 'GRANT_PIECE_FUNCTION', 'PACKAGE_NOTICE_FUNCTION', 'RECOMPUTE_WORKER_FUNCTION', 'MAIL_WORKER_FUNCTION'] as const) {
      expect(stack.roleOfWorker(worker), worker).toBeDefined();
      expect(stack.arnOf(worker)).toMatch(/^arn:aws:lambda:eu-west-1:000000000000:function:/);
    }
  });
});
