import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { resolve } from 'node:path';
import { HandlerFunction, REPO_ROOT } from './api.ts';
import type { StackEnvironment } from './environment.ts';

export interface MailServiceProps {
  /** The stack's values; the sealing key is added here. */
  environment: StackEnvironment;
  /** The bare sender address SES may send from. */
  senderAddress: string;
}

/**
 * The mail service's own resources: the KMS key that seals the companies' SMTP passwords
 * (lib/secretBox.ts), and the retry runner (functions/jobs/mailRetry.ts), run every minute.
 */
export class MailService extends Construct {
  readonly key: Key;
  readonly retryFunction: HandlerFunction;
  readonly schedule: Rule;
  private readonly senderAddress: string;

  constructor(scope: Construct, id: string, props: MailServiceProps) {
    super(scope, id);
    this.senderAddress = props.senderAddress;
    this.key = new Key(this, 'SettingsKey', {
      description: 'Pass Cloud: seals secrets of company settings (SMTP passwords)',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    props.environment.SETTINGS_KMS_KEY_ID = this.key.keyArn;
    this.retryFunction = new HandlerFunction(scope, 'MailRetry', {
      entry: resolve(REPO_ROOT, 'functions/jobs/mailRetry.ts'),
      description: 'Pass Cloud: tries again the mails whose next attempt is due',
      environment: props.environment,
      timeout: Duration.seconds(55),
    });
    this.schedule = new Rule(this, 'RetrySchedule', {
      description: 'Pass Cloud: mail retries every minute',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [new LambdaFunction(this.retryFunction, { retryAttempts: 0 })],
    });
  }

  /** Opening sealed passwords (every function that mails); sealing too for the settings function. */
  grantSecrets(fn: IFunction, seal = false): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: seal ? ['kms:Encrypt', 'kms:Decrypt'] : ['kms:Decrypt'],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': 'smtp-password' } },
      }),
    );
  }

  /**
   * Sealing and opening the authenticator secrets of two-factor login (functions/data/twoFactor.ts):
   * the same key, under their own encryption context, for the one function that enrols and logs in.
   */
  grantTotpSecrets(fn: IFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['kms:Encrypt', 'kms:Decrypt'],
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:EncryptionContext:purpose': 'totp-secret' } },
      }),
    );
  }

  /** SES from the stack's sender only; SES checks every recipient identity too, hence the resource `*`. */
  grantSend(fn: IFunction): void {
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['ses:SendEmail'], resources: ['*'], conditions: { StringEquals: { 'ses:FromAddress': this.senderAddress } } }),
    );
  }
}
