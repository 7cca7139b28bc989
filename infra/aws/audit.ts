import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { AnyPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { resolve } from 'node:path';
import { HandlerFunction, REPO_ROOT } from './api.ts';
import type { StackEnvironment } from './environment.ts';

/** What would end or expose entries without touching one: the table, its TTL, its recovery, its policy. */
export const TABLE_CHANGES = [
  'dynamodb:DeleteTable',
  'dynamodb:UpdateTable',
  'dynamodb:UpdateTimeToLive',
  'dynamodb:UpdateContinuousBackups',
  'dynamodb:PutResourcePolicy',
  'dynamodb:DeleteResourcePolicy',
];

export interface AuditLogProps {
  /** The stack's values; the queue's address is added here. */
  environment: StackEnvironment;
  /** The audit table (functions/data/tables.ts AUDIT_TABLE). */
  table: Table;
}

/**
 * The audit log's one writer. The functions that serve requests only queue entries
 * (`sqs:SendMessage`); the writer (functions/jobs/auditWriter.ts), which serves no request, adds
 * each with a put conditioned on its key being new. The table's own policy denies every other
 * principal any put, change or removal of an item, and everyone but the CDK deployment role the
 * changes that would end entries (TTL, the table, its backups setting, the policy itself). So a
 * function taken over through a request can add entries but never change or remove one.
 */
export class AuditLog extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly writer: HandlerFunction;

  constructor(scope: Construct, id: string, props: AuditLogProps) {
    super(scope, id);
    const timeout = Duration.seconds(30);
    this.deadLetters = new Queue(this, 'DeadLetters', { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, retentionPeriod: Duration.days(14) });
    Validations.of(this.deadLetters).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'This is the dead-letter queue of the audit queue: entries the writer could not add wait here to be replayed by an operator.' });
    // SQS hides a message six times the reader's timeout from other receipts, as Lambda advises
    // (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html#events-sqs-queueconfig).
    this.queue = new Queue(this, 'Entries', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(timeout.toSeconds() * 6),
      retentionPeriod: Duration.days(14),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: 5 },
    });
    props.environment.AUDIT_QUEUE_URL = this.queue.queueUrl;
    this.writer = new HandlerFunction(scope, 'AuditWriter', {
      entry: resolve(REPO_ROOT, 'functions/jobs/auditWriter.ts'),
      description: 'Pass Cloud: adds the audit entries the API functions queue; the only writer of the audit table',
      environment: props.environment,
      timeout,
    });
    this.writer.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 5 }));
    // A put only: the writer never reads, changes or removes an entry.
    this.writer.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:PutItem'], resources: [props.table.tableArn] }));
    // The table's own policy (it names the table as `*`) beside its AppendOnly statement (storage.ts):
    // no principal but the writer's role puts an item, and none but the role CDK deploys with
    // changes what would end entries. The account's root user may still remove the policy
    // (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DeleteResourcePolicy.html).
    const stack = Stack.of(this);
    props.table.addToResourcePolicy(
      new PolicyStatement({
        sid: 'OnlyTheWriterAdds',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['dynamodb:PutItem', 'dynamodb:PartiQLInsert'],
        resources: ['*'],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': this.writer.role!.roleArn } },
      }),
    );
    props.table.addToResourcePolicy(
      new PolicyStatement({
        sid: 'KeepTheEntries',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: TABLE_CHANGES,
        resources: ['*'],
        conditions: { ArnNotLike: { 'aws:PrincipalArn': `arn:${stack.partition}:iam::${stack.account}:role/cdk-*-cfn-exec-role-*` } },
      }),
    );
  }

  /** Queuing entries: every function that serves requests. */
  grantSend(fn: IFunction): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }
}
