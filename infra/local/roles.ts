import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TABLES } from '@passcloud/functions/data/tables';
import { BUCKETS } from '@passcloud/functions/lib/storage';
import type { EnvName } from '@passcloud/functions/lib/env';
import { currentRole, type GuardedService, type LocalRoles } from '@passcloud/functions/lib/localRole';
import { log } from '@passcloud/functions/lib/log';

/**
 * AWS's permission check, on the local host. Every function of the stack runs here in one
 * process; each AWS call one makes (DynamoDB, S3, the IoT data plane, invoking a worker, queuing a
 * webhook delivery) is checked against that function's role as `cdk synth` writes it, and refused
 * as AWS refuses it: AccessDenied, and S3's 403 instead of 404 for a missing object when the role
 * may not list the bucket. So a test that drives a function proves the grants of the code it runs.
 *
 * The evaluation is IAM's for identity policies in one account
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
 * an explicit Deny wins, else an Allow whose action, resource and conditions all match, else the
 * implicit deny. A policy element this evaluator does not know (NotAction, NotResource, a
 * condition operator) fails the load rather than being passed over.
 */

/** The account the local ARNs name (the template is synthesized for it). */
export const LOCAL_ACCOUNT = '000000000000';

type Intrinsic = unknown;
interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: Intrinsic;
  Condition?: Record<string, Record<string, unknown>>;
  NotAction?: unknown;
  NotResource?: unknown;
}
interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}
export interface SynthesizedRoles {
  template: { Resources: Record<string, TemplateResource> };
  /** Each function's logical id and the entry it is made from, under functions/ without `.ts` (`resources/dashboard`). */
  entries: Record<string, string>;
}

interface Rule {
  effect: 'Allow' | 'Deny';
  actions: RegExp[];
  resources: RegExp[];
  conditions: Condition[];
  /** As the template has it, for the messages. */
  text: string;
}

/** One condition of a statement, its values resolved and, for the `Like` operators, compiled once. */
interface Condition {
  operator: string;
  key: string;
  values: string[];
  patterns: RegExp[];
}

const CONDITION_OPERATORS = new Set(['StringEquals', 'StringLike', 'StringNotEquals', 'Bool', 'ArnLike', 'ArnEquals', 'ArnNotLike', 'ArnNotEquals']);

const glob = (pattern: string, caseless = false) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
    caseless ? 'i' : '',
  );
const list = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export class AccessDenied extends Error {
  readonly $fault = 'client';
  readonly $metadata: { httpStatusCode: number };
  readonly Code: string;
  constructor(name: string, status: number, message: string) {
    super(message);
    this.name = name;
    this.Code = name;
    this.$metadata = { httpStatusCode: status };
  }
}

/** The roles of the synthesized stack, with the local names of what they name. */
export class StackRoles implements LocalRoles {
  private readonly rules = new Map<string, Rule[]>();
  /** Each function's role, as `aws:PrincipalArn` names it. */
  private readonly principal = new Map<string, string>();
  private readonly roleByEntry = new Map<string, string>();
  private readonly roleByVariable = new Map<string, string>();
  /** Logical id → the stack variable that names it in some function's environment. */
  private readonly variableOf = new Map<string, string>();
  /** And back: the stack variable → the logical id it names. */
  private readonly resourceOfVariable = new Map<string, string>();
  private readonly resources: Record<string, TemplateResource>;

  constructor(
    synthesized: SynthesizedRoles,
    private readonly region: string,
    /** The local value of a stack variable (a table's or a bucket's name); undefined where the host gives none. */
    private readonly localValue: (name: string) => string | undefined,
  ) {
    this.resources = synthesized.template.Resources;
    for (const [id, entry] of Object.entries(synthesized.entries)) this.roleByEntry.set(entry, id);
    for (const resource of Object.values(this.resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const variables = ((resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<string, unknown>;
      for (const [name, value] of Object.entries(variables)) {
        const ref = (value as { Ref?: string }).Ref ?? (value as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt']?.[0];
        if (typeof ref === 'string' && this.resources[ref]) {
          this.variableOf.set(ref, name);
          this.resourceOfVariable.set(name, ref);
        }
        if (typeof ref === 'string' && this.resources[ref]?.Type === 'AWS::Lambda::Function') this.roleByVariable.set(name, ref);
      }
    }
    // Each function's role, and the policies attached to that role.
    const functionsOfRole = new Map<string, string[]>();
    for (const [id, resource] of Object.entries(this.resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const role = (resource.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
      if (!role) continue;
      functionsOfRole.set(role, [...(functionsOfRole.get(role) ?? []), id]);
      this.rules.set(id, []);
      this.principal.set(id, this.arn(role));
    }
    for (const resource of Object.values(this.resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const statements = list((resource.Properties?.PolicyDocument as { Statement?: Statement | Statement[] } | undefined)?.Statement);
      for (const roleRef of list(resource.Properties?.Roles as { Ref?: string }[] | undefined)) {
        for (const fn of functionsOfRole.get(roleRef.Ref ?? '') ?? []) this.rules.get(fn)!.push(...statements.map((s) => this.rule(s)));
      }
    }
    for (const [role, fns] of functionsOfRole) {
      const inline = list(this.resources[role]?.Properties?.Policies as { PolicyDocument?: { Statement?: Statement[] } }[] | undefined);
      for (const policy of inline) for (const fn of fns) this.rules.get(fn)!.push(...list(policy.PolicyDocument?.Statement).map((s) => this.rule(s)));
    }
    // A table's own policy: its denials hold for every role (it names the table as `*`). An allow
    // there would grant across accounts, which this stack never does.
    for (const [id, resource] of Object.entries(this.resources)) {
      if (resource.Type !== 'AWS::DynamoDB::Table') continue;
      const statements = list((resource.Properties?.ResourcePolicy as { PolicyDocument?: { Statement?: Statement | Statement[] } } | undefined)?.PolicyDocument?.Statement);
      for (const statement of statements) {
        if (statement.Effect !== 'Deny') throw new Error(`a table policy that allows is not evaluated locally: ${JSON.stringify(statement)}`);
        const table = this.arn(id);
        const denial = this.rule({ ...statement, Resource: [table, `${table}/index/*`] });
        for (const rules of this.rules.values()) rules.push(denial);
      }
    }
  }

  roleOfEntry(entry: string): string | undefined {
    return this.roleByEntry.get(entry);
  }

  roleOfWorker(workerEnv: EnvName): string | undefined {
    return this.roleByVariable.get(workerEnv);
  }

  arnOf(name: EnvName): string {
    const id = this.resourceOfVariable.get(name);
    if (!id) throw new Error(`no resource of the stack is named by ${name}`);
    return this.arn(id);
  }

  /** The statements of a function's role, without those `drop` matches (a test removes a grant this way). */
  withoutGrant(role: string, drop: (rule: { actions: string; resources: string }) => boolean): void {
    const rules = this.rules.get(role);
    if (!rules) throw new Error(`no role ${role}`);
    this.rules.set(
      role,
      rules.filter((rule) => {
        const parsed = JSON.parse(rule.text) as Statement;
        return !drop({ actions: list(parsed.Action).join(' '), resources: JSON.stringify(parsed.Resource) });
      }),
    );
  }

  allows(role: string, action: string, resource: string, requestContext: Record<string, string> = {}): boolean {
    const rules = this.rules.get(role);
    if (!rules) throw new Error(`no role ${role} in the stack`);
    const context = { 'aws:PrincipalArn': this.principal.get(role)!, ...requestContext };
    let allowed = false;
    for (const rule of rules) {
      if (!rule.actions.some((a) => a.test(action))) continue;
      if (!rule.resources.some((r) => r.test(resource))) continue;
      if (!rule.conditions.every((c) => conditionHolds(c, context))) continue;
      if (rule.effect === 'Deny') return false;
      allowed = true;
    }
    return allowed;
  }

  check(role: string, action: string, resource: string, context: Record<string, string> = {}): void {
    if (this.allows(role, action, resource, context)) return;
    const [service] = action.split(':');
    const message = `User: arn:aws:sts::${LOCAL_ACCOUNT}:assumed-role/${role}Role/${role} is not authorized to perform: ${action} on resource: ${resource} because no identity-based policy allows the ${action} action`;
    log('warn', 'AWS call refused by the function’s role', { role, action, resource });
    throw service === 's3' ? new AccessDenied('AccessDenied', 403, 'Access Denied') : new AccessDenied('AccessDeniedException', service === 'iot' ? 403 : 400, message);
  }

  guard(client: { middlewareStack: unknown }, service: GuardedService): void {
    const stack = client.middlewareStack as {
      add(middleware: (next: (args: { input: unknown }) => Promise<unknown>, context: { commandName?: string }) => (args: { input: unknown }) => Promise<unknown>, options: object): void;
    };
    stack.add(
      (next, context) => async (args) => {
        const role = currentRole();
        if (!role) return next(args);
        const command = (context.commandName ?? '').replace(/Command$/, '');
        const input = args.input as Record<string, unknown>;
        for (const [action, resource] of this.requests(service, command, input)) this.check(role, action, resource);
        if (service !== 's3' || (command !== 'HeadObject' && command !== 'GetObject')) return next(args);
        try {
          return await next(args);
        } catch (error) {
          // Without s3:ListBucket, S3 answers a missing key with 403, not 404, so as not to say what the bucket holds
          // (https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html, "Permissions").
          const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
          if (status === 404 && !this.allows(role, 's3:ListBucket', `arn:aws:s3:::${String(input.Bucket)}`)) {
            throw new AccessDenied(command === 'HeadObject' ? 'Forbidden' : 'AccessDenied', 403, command === 'HeadObject' ? 'Forbidden' : 'Access Denied');
          }
          throw error;
        }
      },
      { step: 'initialize', name: 'localRoleCheck', override: true },
    );
  }

  /** The IAM actions and resources one SDK command needs (https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html). */
  private requests(service: GuardedService, command: string, input: Record<string, unknown>): [string, string][] {
    const prefix = (name: string) => `arn:aws:${name}:${this.region}:${LOCAL_ACCOUNT}`;
    if (service === 'dynamodb') {
      const table = (name: unknown, index?: unknown) => `${prefix('dynamodb')}:table/${String(name)}${index ? `/index/${String(index)}` : ''}`;
      const action = DYNAMO_ACTIONS[command];
      if (action) return [[`dynamodb:${action}`, table(input.TableName, input.IndexName)]];
      if (command === 'BatchGetItem' || command === 'BatchGet' || command === 'BatchWriteItem' || command === 'BatchWrite') {
        const name = command.startsWith('BatchGet') ? 'BatchGetItem' : 'BatchWriteItem';
        return Object.keys((input.RequestItems ?? {}) as object).map((t) => [`dynamodb:${name}`, table(t)]);
      }
      if (command.startsWith('Transact')) {
        // A transaction needs the action of each of its items (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html).
        return list(input.TransactItems as Record<string, { TableName?: string }>[]).flatMap((item) =>
          Object.entries(item).map(([kind, part]): [string, string] => [`dynamodb:${TRANSACT_ACTIONS[kind] ?? kind}`, table(part.TableName)]),
        );
      }
    }
    if (service === 's3') {
      const object = (bucket: unknown, key: unknown) => `arn:aws:s3:::${String(bucket)}/${String(key)}`;
      const action = S3_ACTIONS[command];
      if (action) return [[`s3:${action}`, object(input.Bucket, input.Key)]];
      if (command === 'ListObjectsV2' || command === 'ListObjects') return [['s3:ListBucket', `arn:aws:s3:::${String(input.Bucket)}`]];
      if (command === 'DeleteObjects') {
        const keys = ((input.Delete as { Objects?: { Key?: string }[] } | undefined)?.Objects ?? []).map((o) => o.Key);
        return keys.map((key) => ['s3:DeleteObject', object(input.Bucket, key)]);
      }
      if (command === 'CopyObject') {
        const source = decodeURIComponent(String(input.CopySource)).replace(/^\//, '');
        return [
          ['s3:GetObject', `arn:aws:s3:::${source}`],
          ['s3:PutObject', object(input.Bucket, input.Key)],
        ];
      }
    }
    if (service === 'iot-data') {
      const iot = prefix('iot');
      if (command === 'Publish') return [['iot:Publish', `${iot}:topic/${String(input.topic)}`]];
      if (command === 'GetThingShadow' || command === 'UpdateThingShadow' || command === 'DeleteThingShadow') return [[`iot:${command}`, `${iot}:thing/${String(input.thingName)}`]];
      if (command === 'DeleteConnection') return [['iot:DeleteConnection', `${iot}:client/${String(input.clientId)}`]];
    }
    throw new Error(`the local permission check does not know ${service} ${command}: add its IAM action to infra/local/roles.ts`);
  }

  private rule(statement: Statement): Rule {
    if (statement.NotAction !== undefined || statement.NotResource !== undefined) throw new Error(`NotAction and NotResource are not evaluated locally: ${JSON.stringify(statement)}`);
    const conditions = Object.entries(statement.Condition ?? {}).flatMap(([operator, keys]) => {
      if (!CONDITION_OPERATORS.has(operator)) throw new Error(`the condition operator ${operator} is not evaluated locally`);
      return Object.entries(keys).map(([key, values]): Condition => {
        const resolved = list(values as string | string[]).map((v) => this.resolve(v));
        return { operator, key, values: resolved, patterns: resolved.map((v) => glob(v)) };
      });
    });
    return {
      effect: statement.Effect,
      actions: list(statement.Action).map((a) => glob(a, true)),
      resources: list(statement.Resource as unknown[]).map((r) => glob(this.resolve(r))),
      conditions,
      text: JSON.stringify(statement),
    };
  }

  /** A value of the template with its intrinsic functions worked out for the local host. */
  private resolve(value: unknown): string {
    if (typeof value === 'string') return value;
    const node = value as Record<string, unknown>;
    if ('Ref' in node) {
      const ref = String(node.Ref);
      const pseudo: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': this.region, 'AWS::AccountId': LOCAL_ACCOUNT, 'AWS::URLSuffix': 'amazonaws.com' };
      return pseudo[ref] ?? this.localName(ref);
    }
    if ('Fn::GetAtt' in node) {
      const [id, attribute] = node['Fn::GetAtt'] as [string, string];
      return attribute === 'Arn' ? this.arn(id) : `${id}.${attribute}`;
    }
    if ('Fn::Join' in node) {
      const [separator, parts] = node['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => this.resolve(part)).join(separator);
    }
    throw new Error(`the local permission check cannot resolve ${JSON.stringify(value)}`);
  }

  /** What the local host calls a resource of the template: a table's or a bucket's name; its logical id for the rest. */
  private localName(id: string): string {
    const variable = this.variableOf.get(id);
    const table = TABLES.find((t) => t.env === variable);
    const bucket = Object.values(BUCKETS).find((b) => b.env === variable);
    return (variable && this.localValue(variable)) ?? table?.defaultName ?? bucket?.defaultName ?? id;
  }

  private arn(id: string): string {
    const type = this.resources[id]?.Type;
    const name = this.localName(id);
    const at = (service: string) => `arn:aws:${service}:${this.region}:${LOCAL_ACCOUNT}`;
    switch (type) {
      case 'AWS::DynamoDB::Table':
      case 'AWS::DynamoDB::GlobalTable':
        return `${at('dynamodb')}:table/${name}`;
      case 'AWS::S3::Bucket':
        return `arn:aws:s3:::${name}`;
      case 'AWS::Lambda::Function':
        return `${at('lambda')}:function:${id}`;
      case 'AWS::SQS::Queue':
        return `${at('sqs')}:${id}`;
      case 'AWS::KMS::Key':
        return `${at('kms')}:key/${id}`;
      case 'AWS::IAM::Role':
        return `arn:aws:iam::${LOCAL_ACCOUNT}:role/${id}`;
      case 'AWS::Logs::LogGroup':
        return `${at('logs')}:log-group:${id}:*`;
      default:
        return `arn:local:${type ?? 'unknown'}:${id}`;
    }
  }
}

const DYNAMO_ACTIONS: Record<string, string> = {
  GetItem: 'GetItem',
  Get: 'GetItem',
  PutItem: 'PutItem',
  Put: 'PutItem',
  UpdateItem: 'UpdateItem',
  Update: 'UpdateItem',
  DeleteItem: 'DeleteItem',
  Delete: 'DeleteItem',
  Query: 'Query',
  Scan: 'Scan',
};
const TRANSACT_ACTIONS: Record<string, string> = { Get: 'GetItem', Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };
const S3_ACTIONS: Record<string, string> = {
  GetObject: 'GetObject',
  HeadObject: 'GetObject',
  PutObject: 'PutObject',
  DeleteObject: 'DeleteObject',
  CreateMultipartUpload: 'PutObject',
  UploadPart: 'PutObject',
  CompleteMultipartUpload: 'PutObject',
  AbortMultipartUpload: 'AbortMultipartUpload',
};

function conditionHolds(condition: Condition, context: Record<string, string>): boolean {
  const value = context[condition.key];
  switch (condition.operator) {
    case 'StringNotEquals':
    case 'ArnNotEquals':
      return value === undefined || !condition.values.includes(value);
    case 'ArnNotLike':
      return value === undefined || !condition.patterns.some((pattern) => pattern.test(value));
    case 'StringEquals':
    case 'ArnEquals':
    case 'Bool':
      return value !== undefined && condition.values.includes(value);
    default:
      return value !== undefined && condition.patterns.some((pattern) => pattern.test(value));
  }
}

/**
 * Synthesizes the stack in a process of its own (infra/local/synthRoles.ts) and answers its roles.
 * Started before the stand-ins, awaited after them: the synthesis takes a few seconds.
 */
export function synthesizeRoles(region: string): Promise<SynthesizedRoles> {
  const dir = mkdtempSync(join(tmpdir(), 'passcloud-roles-'));
  const out = join(dir, 'roles.json');
  return new Promise<SynthesizedRoles>((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, 'synthRoles.ts'), out, region], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('error', fail);
    child.on('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`the stack could not be synthesized for the local permission check (exit ${code}):\n${errors}`);
        done(JSON.parse(readFileSync(out, 'utf8')) as SynthesizedRoles);
      } catch (error) {
        fail(error instanceof Error ? error : new Error(String(error)));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
