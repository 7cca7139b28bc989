import { Duration, Validations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { resolve } from 'node:path';
import { MAX_RECEIVES } from '@passcloud/functions/lib/webhookQueue';
import { HandlerFunction, REPO_ROOT } from './api.ts';
import type { StackEnvironment } from './environment.ts';

export interface WebhookServiceProps {
  /** The stack's values; the queue's address and its dead-letter queue's ARN are added here. */
  environment: StackEnvironment;
  /** The key that seals the subscriptions' signing secrets (the settings key, under its own encryption context). */
  key: IKey;
}

/**
 * Webhook delivery: the SQS queue between what makes events (ingest, device sync, questionnaires,
 * the console's test events and replays) and the sender (functions/jobs/webhookSender.ts), and
 * its dead-letter queue. The sender reads the queue ten messages at a time, reports the ones it
 * failed on so that only those come back, and queues a later attempt again itself (at most 15
 * minutes ahead, SQS's longest delay). A message it fails on MAX_RECEIVES times moves to the
 * dead-letter queue, which the same function reads to mark its delivery dead, so every delivery
 * ends in the log. Producers only send messages: a slow receiver holds up none of them.
 */
export class WebhookService extends Construct {
  readonly queue: Queue;
  readonly deadLetters: Queue;
  readonly sender: HandlerFunction;
  private readonly key: IKey;

  constructor(scope: Construct, id: string, props: WebhookServiceProps) {
    super(scope, id);
    this.key = props.key;
    // The sender waits at most 10 s per receiver and works on a batch's messages at once: a minute
    // covers a batch; SQS hides a message six times that from other receipts (as Lambda advises).
    // Both queues feed the sender, and Lambda refuses to map a queue whose visibility timeout is
    // shorter than the function's timeout
    // (https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-configure.html#events-sqs-queueconfig).
    const timeout = Duration.seconds(60);
    this.deadLetters = new Queue(this, 'DeadLetters', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(timeout.toSeconds() * 6),
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'Deliveries', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(timeout.toSeconds() * 6),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: MAX_RECEIVES },
    });
    Validations.of(this.deadLetters).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'This is the dead-letter queue of the webhook delivery queue; its messages are read once to mark their deliveries dead.' });
    props.environment.WEBHOOK_QUEUE_URL = this.queue.queueUrl;
    props.environment.WEBHOOK_DEAD_LETTER_ARN = this.deadLetters.queueArn;
    this.sender = new HandlerFunction(scope, 'WebhookSender', {
      entry: resolve(REPO_ROOT, 'functions/jobs/webhookSender.ts'),
      description: 'Pass Cloud: delivers webhook events to the companies’ receivers and records each attempt',
      environment: props.environment,
      timeout,
    });
    this.sender.addEventSource(new SqsEventSource(this.queue, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 20 }));
    this.sender.addEventSource(new SqsEventSource(this.deadLetters, { batchSize: 10, reportBatchItemFailures: true, maxConcurrency: 2 }));
    this.grantSend(this.sender);
    this.grantSecrets(this.sender, false);
  }

  /** Queuing deliveries (producers, the console's replays, the sender's later attempts). */
  grantSend(fn: IFunction): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /** Opening the signing secrets (the sender); sealing new ones too (the webhooks function). */
  grantSecrets(fn: IFunction, seal: boolean): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: seal ? ['kms:Encrypt', 'kms:Decrypt'] : ['kms:Decrypt'],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': 'webhook-secret' } },
      }),
    );
  }
}
