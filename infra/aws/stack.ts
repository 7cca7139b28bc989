import { CfnOutput, Duration, Size, Stack, Token, Validations, type CfnElement, type StackProps } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { EmailIdentity, Identity } from 'aws-cdk-lib/aws-ses';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Schedule as SchedulerSchedule, ScheduleExpression } from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke } from 'aws-cdk-lib/aws-scheduler-targets';
import { LambdaDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { HttpMethods, type Bucket, type CfnBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import { resolve } from 'node:path';
import { TABLES } from '@passcloud/functions/data/tables';
import { routes, type Resource } from '@passcloud/functions/routes';
import { Api, HandlerFunction, REPO_ROOT } from './api.ts';
import type { StackEnvironment } from './environment.ts';
import { buildId } from '../buildId.ts';
import { DeviceIot } from './iot.ts';
import { MailService } from './mail.ts';
import { WebhookService } from './webhooks.ts';
import { AuditLog } from './audit.ts';
import { Buckets, Tables } from './storage.ts';
import { ConsoleSite } from './web.ts';

export interface PassCloudStackProps extends StackProps {
  /** Sender address of verification codes and alerts; its domain (or the address) is verified in SES. */
  mailFrom: string;
  /** Verify the whole domain instead of the single address. */
  mailDomain?: string;
  /**
   * The operator's licence public key (base64 SPKI DER, from `npm run licence -- keygen`); the
   * private key never reaches the stack. Without it, activating a licence answers 503.
   */
  licencePublicKey?: string;
  /**
   * Concurrent runs reserved for each of the six background workers (imports, record exports,
   * grants and their pieces, client package notices, attendance recomputations) and capped there,
   * so background work can neither take the account's Lambda concurrency from the API nor be
   * starved by it (`--context workerConcurrency=N`). 0, the default, reserves nothing: Lambda keeps
   * at least 100 of an account's concurrency unreserved, and a new account's quota may be as low
   * as 10, so any reservation would fail the deploy there
   * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-concurrency.html,
   * https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). With the quota
   * raised to at least 100 + 6 × N, set N (docs/deploy.md); companies' jobs are capped per company
   * either way (JOB_LIMIT_*).
   */
  workerConcurrency?: number;
}

/**
 * The sender `cdk synth` is given (`--context mailFrom=...`), refused with the reason when it
 * cannot work: missing, not an address, or in a domain reserved for examples and tests
 * (RFC 2606, RFC 6761), which SES can never verify, so no verification code would ever arrive.
 */
export function checkSender(mailFrom: unknown): string {
  const help = 'Give the sender of verification codes and alerts: cdk deploy --context mailFrom="Pass Cloud <no-reply@mail.your-domain.com>" (an address or domain you verify in Amazon SES; see docs/deploy.md).';
  if (typeof mailFrom !== 'string' || mailFrom.trim() === '') throw new Error(`No mail sender is configured. ${help}`);
  const address = senderAddress(mailFrom);
  const domain = /^[^@\s]+@([^@\s]+\.[^@\s]+)$/.exec(address)?.[1]?.toLowerCase();
  if (!domain) throw new Error(`The mail sender "${mailFrom}" is not an address. ${help}`);
  if (/(^|\.)(example\.(com|net|org)|example|test|invalid|localhost|local)$/.test(domain)) throw new Error(`The mail sender's domain ${domain} is reserved and cannot be verified in SES. ${help}`);
  return mailFrom;
}

/** The domain verified in SES instead of the single address (`--context mailDomain=...`): the sender must be in it. */
export function checkMailDomain(mailDomain: unknown, mailFrom: string): string | undefined {
  if (mailDomain === undefined || mailDomain === '') return undefined;
  const domain = typeof mailDomain === 'string' ? mailDomain.trim().toLowerCase() : '';
  const sender = senderAddress(mailFrom).toLowerCase();
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) throw new Error(`The mail domain "${String(mailDomain)}" is not a domain name.`);
  if (!sender.endsWith(`@${domain}`)) throw new Error(`The mail sender ${sender} is not in the verified domain ${domain}: SES would refuse to send from it.`);
  return domain;
}

/** Concurrent runs reserved for each background worker (`--context workerConcurrency=N`): a whole number from 0 to 1,000. */
export function checkWorkerConcurrency(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 1000) throw new Error(`workerConcurrency must be a whole number from 0 to 1000, not "${String(value)}".`);
  return n;
}

/** The bare address of a sender written `Name <address>` or `address`. */
export function senderAddress(mailFrom: string): string {
  return (/<([^<>]+)>\s*$/.exec(mailFrom)?.[1] ?? mailFrom).trim();
}

export class PassCloudStack extends Stack {
  readonly api: Api;
  readonly site: ConsoleSite;
  /** Shared by CloudFront and the API functions, so the API answers only requests that came through CloudFront. */
  readonly originVerify: Secret;
  readonly buckets: Buckets;
  readonly tables: Tables;
  readonly iot: DeviceIot;
  readonly importWorker: HandlerFunction;
  readonly mail: MailService;
  readonly webhooks: WebhookService;
  readonly audit: AuditLog;
  readonly retentionSweep: HandlerFunction;
  readonly recordExportWorker: HandlerFunction;
  readonly grantWorker: HandlerFunction;
  readonly grantPieceWorker: HandlerFunction;
  readonly packageNoticeWorker: HandlerFunction;
  readonly jobFailures: HandlerFunction;
  readonly licenceReminders: HandlerFunction;
  readonly attendanceClose: HandlerFunction;
  readonly attendanceMail: HandlerFunction;
  readonly recomputeWorker: HandlerFunction;
  readonly attendanceCloseSchedule: SchedulerSchedule;

  constructor(scope: Construct, id: string, props: PassCloudStackProps) {
    super(scope, id, props);
    const tables = (this.tables = new Tables(this, 'Tables'));
    const buckets = (this.buckets = new Buckets(this, 'Buckets'));
    const mailAddress = senderAddress(props.mailFrom);
    const mailIdentity = new EmailIdentity(this, 'MailIdentity', {
      identity: props.mailDomain ? Identity.domain(props.mailDomain) : Identity.email(mailAddress),
    });
    // A domain identity is verified, and signs its mail, once these three CNAME records are in its
    // DNS zone (https://docs.aws.amazon.com/ses/latest/dg/send-email-authentication-dkim-easy.html).
    if (props.mailDomain) {
      mailIdentity.dkimRecords.forEach((record, i) => {
        new CfnOutput(this, `MailDkimRecord${i + 1}`, { description: 'Publish in the mail domain’s DNS zone: name CNAME value', value: `${record.name} CNAME ${record.value}` });
      });
    }
    // CloudFormation generates the value; CloudFront and the functions read it through a dynamic reference.
    const originVerify = (this.originVerify = new Secret(this, 'OriginVerify', {
      description: 'Pass Cloud: header value CloudFront sends to the API (x-origin-verify)',
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
    }));
    const originVerifyValue = originVerify.secretValue.unsafeUnwrap();
    // The values functions are given; each takes the variables its entry declares (functions/lib/env.ts).
    const environment: StackEnvironment = {
      ...tables.environment(),
      ...buckets.environment(),
      MAIL_FROM: props.mailFrom,
      ORIGIN_VERIFY_SECRET: originVerifyValue,
      BUILD_ID: buildId(REPO_ROOT),
      ...(props.licencePublicKey ? { LICENCE_PUBLIC_KEY: props.licencePublicKey } : {}),
    };

    // Face terminals: thing type, custom authorizer, topic rules and the ATS endpoint (DESIGN.md §6).
    const iot = (this.iot = new DeviceIot(this, 'Iot', { environment }));

    // Background imports of people (functions/jobs/imports.ts): one run reads a whole workbook or photo archive.
    // The workers' on-failure destination: a job whose worker failed, timed out or never started is marked failed at once.
    const jobFailures = (this.jobFailures = new HandlerFunction(this, 'JobFailures', {
      entry: resolve(REPO_ROOT, 'functions/jobs/jobFailures.ts'),
      description: 'Pass Cloud: marks failed the import, export, grant or recomputation job whose worker failed or never started',
      environment,
      timeout: Duration.seconds(30),
    }));
    // The jobs are in the events table only; their slots are given back there too.
    grantTable(jobFailures, tables.byEnv.EVENTS_TABLE!, 'readWrite');
    // A failed grant job lets go of the access schedule it held (data/schedules.ts letGoSchedule): one conditional update.
    jobFailures.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [tables.byEnv.MAIN_TABLE!.tableArn] }));
    const onFailure = new LambdaDestination(jobFailures, { responseOnly: false });
    const reserved = props.workerConcurrency ?? 0;
    const workerConcurrency = reserved > 0 ? { reservedConcurrentExecutions: reserved } : {};
    const importWorker = (this.importWorker = new HandlerFunction(this, 'ImportWorker', {
      entry: resolve(REPO_ROOT, 'functions/jobs/imports.ts'),
      description: 'Pass Cloud: imports a workbook or photo archive of people in the background',
      // A new photo is a face change: the terminals holding the person are told.
      environment,
      memorySize: 2048,
      timeout: Duration.minutes(15),
      ephemeralStorageSize: Size.gibibytes(2),
      ...workerConcurrency,
    }));
    // A retried run would find its job already running and stop, so none is retried. A run waits
    // at most 15 minutes to start: with 15 minutes to run, a job is over 30 minutes after it was
    // started (IMPORT_STALE_MS).
    importWorker.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(15), onFailure });
    environment.IMPORT_WORKER_FUNCTION = importWorker.functionName;

    // The mail service: the key that seals SMTP passwords, and the retry runner.
    const mail = (this.mail = new MailService(this, 'Mail', { environment, senderAddress: mailAddress }));
    environment.MAIL_WORKER_FUNCTION = mail.retryFunction.functionName;

    // Webhooks: the delivery queue and its sender; the signing secrets are sealed with the settings key.
    const webhookService = (this.webhooks = new WebhookService(this, 'Webhooks', { environment, key: mail.key }));

    // The audit log's only writer, fed by a queue (infra/aws/audit.ts).
    const audit = (this.audit = new AuditLog(this, 'Audit', { environment, table: tables.byEnv.AUDIT_TABLE! }));

    this.api = new Api(this, 'Api', { environment });

    // Each function gets only what it touches.
    const main = tables.byEnv.MAIN_TABLE!;
    const events = tables.byEnv.EVENTS_TABLE!;
    const { systems, files, groups, departments, employees, visitors, devices, licences, accounts, settings } = this.api.functions;
    // Every API function queues audit entries (lib/audit.ts) and, for console sessions, notes when a
    // session was last used and removes one that has ended (lib/auth.ts); only the audit section
    // reads the entries back.
    const auditLog = tables.byEnv.AUDIT_TABLE!;
    const sessionResources = new Set<Resource>(routes.filter((route) => route.access === 'session').map((route) => route.resource));
    for (const [resource, fn] of Object.entries(this.api.functions)) {
      audit.grantSend(fn);
      if (sessionResources.has(resource as Resource)) fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:UpdateItem', 'dynamodb:DeleteItem'], resources: [main.tableArn] }));
    }
    grantTable(this.api.functions.audit, main, 'read');
    this.api.functions.audit.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: [auditLog.tableArn] }));
    // Licences and their claims, and the seat counts bindings take (devices, below).
    grantTable(licences, main, 'readWrite');
    // Functions that mail (verification codes, invitations) and record each mail.
    for (const fn of [systems, accounts]) {
      grantTable(fn, main, 'readWrite');
      grantTable(fn, events, 'write');
      // SES authorizes the recipients' identities too (in the sandbox they are verified identities), so
      // the resource is every identity and the sender is held by the From address instead.
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail'],
          resources: ['*'],
          conditions: { StringEquals: { 'ses:FromAddress': mailAddress } },
        }),
      );
      Validations.of(fn).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'SES checks ses:SendEmail against the sender and every recipient identity; the condition ses:FromAddress limits it to the stack’s sender.',
      });
    }
    // Email settings (sealing the SMTP password, the test mail), mail records (resending) and the retry
    // runner mail too; every function that mails may open the sealed passwords, only the settings seal them.
    const { mailSettings, mailRecords } = this.api.functions;
    grantTable(mailSettings, main, 'readWrite');
    grantTable(mailSettings, events, 'write');
    for (const fn of [mailRecords, mail.retryFunction]) {
      grantTable(fn, main, 'read');
      grantTable(fn, events, 'readWrite');
    }
    mail.grantSecrets(mailSettings, true);
    for (const fn of [systems, accounts, mailRecords, mail.retryFunction]) mail.grantSecrets(fn);
    // Two-factor login: the systems function seals a new authenticator secret and opens it at each code.
    mail.grantTotpSecrets(systems);
    for (const fn of [mailSettings, mailRecords, mail.retryFunction]) {
      mail.grantSend(fn);
      Validations.of(fn).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'SES checks ses:SendEmail against the sender and every recipient identity; the condition ses:FromAddress limits it to the stack’s sender.',
      });
    }
    grantTable(files, main, 'readWrite');
    this.grantObjects(files, [buckets.data.photos, buckets.data.captures, buckets.data.packages], ['s3:PutObject', 's3:GetObject']);
    // Staged uploads in the imports bucket: the presigned PUT, the size check (HeadObject), the read and the removal on completion.
    this.grantObjects(files, [buckets.data.imports], ['s3:PutObject', 's3:GetObject', 's3:DeleteObject']);
    grantListing(files, buckets.data.imports);
    for (const fn of [groups, departments]) grantTable(fn, main, 'readWrite');
    // Attendance rules: shifts, groups, holidays, and the attendance group of each employee they move.
    grantTable(this.api.functions.attendance, main, 'readWrite');
    // Statistics: the stored days and months, and their computation on demand.
    grantTable(this.api.functions.attendance, events, 'readWrite');
    // The dashboard reads counters (people, devices in the main table; the day counters and the newest records in the events table) and links captures and photos.
    const { dashboard } = this.api.functions;
    grantTable(dashboard, main, 'read');
    grantTable(dashboard, events, 'read');
    // …and keeps yesterday's attendance counts once it has counted them (one conditional update).
    dashboard.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [events.tableArn] }));
    this.grantObjects(dashboard, [buckets.data.captures, buckets.data.photos], ['s3:GetObject']);
    grantListing(dashboard, buckets.data.captures);
    // Pickers read names and keys (people, groups, departments, devices) and link people's photos.
    const { pickers } = this.api.functions;
    grantTable(pickers, main, 'read');
    this.grantObjects(pickers, [buckets.data.photos], ['s3:GetObject']);
    for (const fn of [employees, visitors]) {
      grantTable(fn, main, 'readWrite');
      // Photos: existence checks of an avatar (HeadObject) and short-lived links (GetObject), archive imports (PutObject), removal with the person.
      this.grantObjects(fn, [buckets.data.photos], ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']);
      grantListing(fn, buckets.data.photos);
      // Erasing a person: the captures of their pass records (HeadObject to count them, then removal),
      // and a placeholder at each key (PutObject, If-None-Match) that refuses an upload link given before.
      // Many were never uploaded or have expired: without listing, S3 answers those 403, not 404.
      this.grantObjects(fn, [buckets.data.captures], ['s3:GetObject', 's3:DeleteObject', 's3:PutObject']);
      grantListing(fn, buckets.data.captures);
      // Background imports: the job record, the presigned upload (PutObject), its size (GetObject), removal of an oversized file.
      grantTable(fn, events, 'readWrite');
      this.grantObjects(fn, [buckets.data.imports], ['s3:PutObject', 's3:GetObject', 's3:DeleteObject']);
      grantListing(fn, buckets.data.imports);
      // The function itself, not its versions (grantInvoke would add `:*`).
      fn.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [importWorker.functionArn] }));
    }
    grantTable(importWorker, main, 'readWrite');
    grantTable(importWorker, events, 'readWrite');
    this.grantObjects(importWorker, [buckets.data.photos], ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']);
    this.grantObjects(importWorker, [buckets.data.imports], ['s3:GetObject', 's3:DeleteObject']);

    // Devices: records and serial claims in the main table, commands and logs in the events table;
    // captured photos are uploaded by the device through a presigned PUT and shown through a presigned GET.
    grantTable(devices, main, 'readWrite');
    grantTable(devices, events, 'readWrite');
    this.grantObjects(devices, [buckets.data.captures], ['s3:PutObject', 's3:GetObject']);
    grantListing(devices, buckets.data.captures);
    iot.grantDeviceManagement(devices);
    // Door modes (flows/doorModes.ts): the alert recipients' mails, which the mail service sends.
    devices.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [mail.retryFunction.functionArn] }));
    // Authorizations (main table, photo links) and the terminals' side of face sync; changes of
    // people (employees, visitors, photo imports) and authorizations are announced to the terminals.
    const { authorities, deviceSync } = this.api.functions;
    for (const fn of [authorities, deviceSync]) {
      grantTable(fn, main, 'readWrite');
      this.grantObjects(fn, [buckets.data.photos], ['s3:GetObject']);
    }
    // Holidays close schedules (flows/scheduleDelivery.ts): their terminals are told to read them again.
    for (const fn of [authorities, employees, visitors, importWorker, this.api.functions.attendance]) iot.grantFaceNotify(fn);

    // The authorizer looks devices and sessions up, and notes a session's live connections on it
    // (so logging out ends them); ingest records what devices report and tells open consoles.
    grantTable(iot.authorizerFunction, main, 'read');
    iot.authorizerFunction.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:UpdateItem'], resources: [main.tableArn] }));
    iot.grantLiveAnnounce(iot.ingestFunction);
    this.grantObjects(iot.ingestFunction, [buckets.data.photos], ['s3:GetObject']);
    // Logging out, a login elsewhere and a new password end the session's live connections.
    for (const fn of [systems, accounts]) iot.grantLiveDisconnect(fn);
    grantTable(iot.ingestFunction, main, 'readWrite');
    grantTable(iot.ingestFunction, events, 'readWrite');
    // A photo command succeeds only when the picture arrived (HeadObject on the captures bucket)
    // within the size limit (a larger one is removed); a pass record's ack carries a presigned PUT
    // for its capture, signed with ingest's own role, unless the capture already arrived.
    this.grantObjects(iot.ingestFunction, [buckets.data.captures], ['s3:GetObject', 's3:PutObject', 's3:DeleteObject']);
    grantListing(iot.ingestFunction, buckets.data.captures);
    iot.grantRecordsAck(iot.ingestFunction);
    // A call's ack carries a presigned PUT for its recording, unless it already arrived (HeadObject);
    // a monitor in a call with a door station may have its door opened (a command to the station).
    this.grantObjects(iot.ingestFunction, [buckets.data.recordings], ['s3:GetObject', 's3:PutObject']);
    grantListing(iot.ingestFunction, buckets.data.recordings);
    iot.grantCommandPublish(
      iot.ingestFunction,
      'An indoor monitor’s request opens the door of the door station in its call: the command goes to pc/<thing>/commands of that station, found from the call of the monitor whose topic the device policy held it to.',
    );
    // Fever and blacklist alerts are queued by ingest and sent by the mail service, which ingest
    // starts at once (an asynchronous invocation of the retry function) rather than waiting a minute.
    iot.ingestFunction.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [mail.retryFunction.functionArn] }));
    mail.grantSecrets(iot.ingestFunction);
    mail.grantSend(iot.ingestFunction);
    Validations.of(iot.ingestFunction).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'SES checks ses:SendEmail against the sender and every recipient identity; the condition ses:FromAddress limits it to the stack’s sender.',
    });

    // Pass records: lists (events table; names of devices and groups; capture, photo and export
    // links) and exports, written in the background by their own worker to the imports bucket.
    const recordExportWorker = (this.recordExportWorker = new HandlerFunction(this, 'RecordExportWorker', {
      entry: resolve(REPO_ROOT, 'functions/jobs/recordExports.ts'),
      description: 'Pass Cloud: writes a workbook of pass records in the background',
      environment,
      memorySize: 2048,
      timeout: Duration.minutes(15),
      ephemeralStorageSize: Size.gibibytes(2),
      ...workerConcurrency,
    }));
    // A retried run would find its job already running and stop.
    recordExportWorker.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(15), onFailure });
    grantTable(recordExportWorker, main, 'read');
    grantTable(recordExportWorker, events, 'readWrite');
    // The workbook, and its removal when the export was withdrawn while it ran (an erasure).
    this.grantObjects(recordExportWorker, [buckets.data.imports], ['s3:PutObject', 's3:DeleteObject']);
    // Large grants: the grant worker cuts a job (in the events table) into one piece per device
    // and invokes the piece worker for each; a piece writes one device's share and tells the
    // terminal. Lambda queues the pieces, runs them within the reserved concurrency, runs a failed
    // one twice more and hands it to the failure destination, which fails the job. A piece run
    // again is counted once, and a start run again invokes only the pieces not yet finished.
    const grantPieceWorker = (this.grantPieceWorker = new HandlerFunction(this, 'GrantPieceWorker', {
      entry: resolve(REPO_ROOT, 'functions/jobs/grantPieces.ts'),
      description: "Pass Cloud: writes one device's share of a large grant",
      environment,
      timeout: Duration.minutes(15),
      ...workerConcurrency,
    }));
    grantPieceWorker.configureAsyncInvoke({ retryAttempts: 2, maxEventAge: Duration.hours(6), onFailure });
    grantTable(grantPieceWorker, main, 'readWrite');
    grantTable(grantPieceWorker, events, 'readWrite');
    iot.grantFaceNotify(grantPieceWorker);
    environment.GRANT_PIECE_FUNCTION = grantPieceWorker.functionName;
    const grantWorker = (this.grantWorker = new HandlerFunction(this, 'GrantWorker', {
      entry: resolve(REPO_ROOT, 'functions/jobs/grants.ts'),
      description: 'Pass Cloud: cuts a large grant of people on devices into one piece per device',
      environment,
      timeout: Duration.minutes(5),
      ...workerConcurrency,
    }));
    grantWorker.configureAsyncInvoke({ retryAttempts: 2, maxEventAge: Duration.minutes(15), onFailure });
    grantWorker.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [grantPieceWorker.functionArn] }));
    // The destination lets each worker's role invoke the failure function and its versions.
    for (const worker of [importWorker, recordExportWorker, grantWorker, grantPieceWorker]) {
      Validations.of(worker).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(jobFailures.node.defaultChild as CfnElement)}.Arn>:*]`,
        reason: 'The on-failure destination grants lambda:InvokeFunction on the job failure function and its versions (ARN:*); it names that one function only.',
      });
    }
    grantTable(grantWorker, main, 'read');
    grantTable(grantWorker, events, 'readWrite');
    environment.GRANT_WORKER_FUNCTION = grantWorker.functionName;
    grantTable(authorities, events, 'readWrite');
    authorities.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [grantWorker.functionArn] }));

    const passRecords = this.api.functions.passRecords;
    environment.EXPORT_WORKER_FUNCTION = recordExportWorker.functionName;
    // Exports of employees and visitors are the export worker's too (the people it reads are in the main table).
    for (const fn of [employees, visitors]) fn.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [recordExportWorker.functionArn] }));
    grantTable(passRecords, main, 'read');
    grantTable(passRecords, events, 'readWrite');
    this.grantObjects(passRecords, [buckets.data.captures, buckets.data.photos, buckets.data.imports], ['s3:GetObject']);
    grantListing(passRecords, buckets.data.captures);
    passRecords.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [recordExportWorker.functionArn] }));

    // The intercom platform: intercoms are devices (main table, their things and shadows, their
    // logs and commands), calls are in the events table, recordings are played and downloaded
    // through presigned GETs (HeadObject first: has it arrived?), exports are the export worker's.
    const intercom = this.api.functions.intercom;
    grantTable(intercom, main, 'readWrite');
    grantTable(intercom, events, 'readWrite');
    this.grantObjects(intercom, [buckets.data.recordings, buckets.data.imports], ['s3:GetObject']);
    grantListing(intercom, buckets.data.recordings);
    iot.grantIntercomManagement(intercom);
    intercom.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [recordExportWorker.functionArn] }));

    // Questionnaires: surveys (main table), results and QR links (events table), their delivery to
    // the terminals' shadows, exports by the export worker. Answers (from terminals through
    // deviceSync, from phones through the public /v1/surveys routes) tell open consoles of abnormal results and queue
    // alert mails, which the mail service sends.
    const { questionnaires } = this.api.functions;
    grantTable(questionnaires, main, 'readWrite');
    this.grantObjects(questionnaires, [buckets.data.imports], ['s3:GetObject']);
    iot.grantQuestionnaireDelivery(questionnaires);
    questionnaires.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [recordExportWorker.functionArn] }));
    for (const fn of [questionnaires, deviceSync]) {
      grantTable(fn, events, 'readWrite');
      iot.grantLiveAnnounce(fn, 'Abnormal questionnaire results are announced on console/<tenantId>/questionnaires of the tenant the answering terminal or link belongs to; the tenant comes from the device credentials or the link.');
      fn.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [mail.retryFunction.functionArn] }));
    }

    // Settings: privacy settings and package records (main table); packages are uploaded through a
    // presigned PUT, hashed (GetObject), refused ones removed. A released package is announced by
    // its own worker, outside the request: it writes each online terminal's update command (events
    // table) and publishes it over IoT with a presigned GET to download from.
    const packageNotices = (this.packageNoticeWorker = new HandlerFunction(this, 'PackageNoticeWorker', {
      entry: resolve(REPO_ROOT, 'functions/jobs/packageNotices.ts'),
      description: 'Pass Cloud: tells the online terminals of a company of a new client package',
      environment,
      timeout: Duration.minutes(15),
      ...workerConcurrency,
    }));
    // A run again would send the commands twice; a terminal not told updates at its next connection.
    packageNotices.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.hours(1) });
    grantTable(packageNotices, main, 'read');
    grantTable(packageNotices, events, 'readWrite');
    this.grantObjects(packageNotices, [buckets.data.packages], ['s3:GetObject']);
    iot.grantCommandPublish(packageNotices);
    environment.PACKAGE_NOTICE_FUNCTION = packageNotices.functionName;
    settings.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [packageNotices.functionArn] }));
    grantTable(settings, main, 'readWrite');
    grantTable(settings, events, 'readWrite');
    this.grantObjects(settings, [buckets.data.packages], ['s3:PutObject', 's3:GetObject', 's3:DeleteObject']);
    grantListing(settings, buckets.data.packages);

    // The daily retention sweep: each company's captures and recordings older than its privacy settings allow.
    const retentionSweep = (this.retentionSweep = new HandlerFunction(this, 'RetentionSweep', {
      entry: resolve(REPO_ROOT, 'functions/jobs/retention.ts'),
      description: 'Pass Cloud: deletes captures and call recordings past each company’s retention period',
      environment,
      timeout: Duration.minutes(15),
    }));
    grantTable(retentionSweep, main, 'read');
    this.grantObjects(retentionSweep, [buckets.data.captures, buckets.data.recordings], ['s3:DeleteObject']);
    for (const bucket of [buckets.data.captures, buckets.data.recordings]) grantListing(retentionSweep, bucket);
    // The daily licence reminders: a mail per licence and threshold before it expires.
    const licenceReminders = (this.licenceReminders = new HandlerFunction(this, 'LicenceReminders', {
      entry: resolve(REPO_ROOT, 'functions/jobs/licenceReminders.ts'),
      description: 'Pass Cloud: mails the reminders of licences about to expire',
      environment,
      timeout: Duration.minutes(5),
    }));
    grantTable(licenceReminders, main, 'readWrite');
    grantTable(licenceReminders, events, 'write');
    mail.grantSecrets(licenceReminders);
    mail.grantSend(licenceReminders);
    Validations.of(licenceReminders).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'SES checks ses:SendEmail against the sender and every recipient identity; the condition ses:FromAddress limits it to the stack’s sender.',
    });
    new Rule(this, 'LicenceRemindersSchedule', {
      description: 'Pass Cloud: the daily licence reminders',
      schedule: Schedule.cron({ minute: '0', hour: '8' }),
      targets: [new LambdaFunction(licenceReminders, { retryAttempts: 2 })],
    });
    // Attendance days close every hour: each group's day ends at midnight in its own time zone.
    const attendanceClose = (this.attendanceClose = new HandlerFunction(this, 'AttendanceClose', {
      entry: resolve(REPO_ROOT, 'functions/jobs/attendanceClose.ts'),
      description: 'Pass Cloud: computes the attendance of each group’s day once it has ended',
      environment,
      timeout: Duration.minutes(15),
    }));
    grantTable(attendanceClose, main, 'readWrite');
    grantTable(attendanceClose, events, 'readWrite');
    // A range of attendance days computed again on demand, by its own worker (the job record in the events table).
    const recomputeWorker = (this.recomputeWorker = new HandlerFunction(this, 'RecomputeWorker', {
      entry: resolve(REPO_ROOT, 'functions/jobs/attendanceRecompute.ts'),
      description: 'Pass Cloud: computes a range of attendance days again in the background',
      environment,
      memorySize: 1024,
      timeout: Duration.minutes(15),
      ...workerConcurrency,
    }));
    // A retried run would find its job already running and stop.
    recomputeWorker.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(15), onFailure });
    Validations.of(recomputeWorker).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(jobFailures.node.defaultChild as CfnElement)}.Arn>:*]`,
      reason: 'The on-failure destination grants lambda:InvokeFunction on the job failure function and its versions (ARN:*); it names that one function only.',
    });
    grantTable(recomputeWorker, main, 'read');
    grantTable(recomputeWorker, events, 'readWrite');
    environment.RECOMPUTE_WORKER_FUNCTION = recomputeWorker.functionName;
    this.api.functions.attendance.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [recomputeWorker.functionArn] }));
    // The daily attendance summary goes at each company's own time of day: the job looks every 5 minutes.
    const attendanceMail = (this.attendanceMail = new HandlerFunction(this, 'AttendanceMail', {
      entry: resolve(REPO_ROOT, 'functions/jobs/attendanceMail.ts'),
      description: 'Pass Cloud: mails each company’s daily attendance summary at its chosen time',
      environment,
      timeout: Duration.minutes(5),
    }));
    grantTable(attendanceMail, main, 'read');
    grantTable(attendanceMail, events, 'readWrite');
    mail.grantSecrets(attendanceMail);
    mail.grantSend(attendanceMail);
    Validations.of(attendanceMail).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'SES checks ses:SendEmail against the sender and every recipient identity; the condition ses:FromAddress limits it to the stack’s sender.',
    });
    new Rule(this, 'AttendanceMailSchedule', {
      description: 'Pass Cloud: the daily attendance summaries, at each company’s time',
      schedule: Schedule.rate(Duration.minutes(5)),
      targets: [new LambdaFunction(attendanceMail, { retryAttempts: 2 })],
    });
    // EventBridge Scheduler: five past every hour, retried twice when the invocation fails, with a
    // role of its own that may invoke the close function only.
    const closeInvoker = new Role(this, 'AttendanceCloseInvoker', { assumedBy: new ServicePrincipal('scheduler.amazonaws.com') });
    const closeSchedule = new SchedulerSchedule(this, 'AttendanceCloseSchedule', {
      description: 'Pass Cloud: the hourly close of attendance days',
      schedule: ScheduleExpression.cron({ minute: '5' }),
      target: new LambdaInvoke(attendanceClose, { role: closeInvoker, retryAttempts: 2, maxEventAge: Duration.hours(1) }),
    });
    Validations.of(closeInvoker).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${this.getLogicalId(attendanceClose.node.defaultChild as CfnElement)}.Arn>:*]`,
      reason: 'The scheduler target grants lambda:InvokeFunction on the close function and its versions (ARN:*); it names that one function only.',
    });
    this.attendanceCloseSchedule = closeSchedule;
    new Rule(this, 'RetentionSweepSchedule', {
      description: 'Pass Cloud: the daily retention sweep',
      schedule: Schedule.cron({ minute: '30', hour: '3' }),
      targets: [new LambdaFunction(retentionSweep, { retryAttempts: 2 })],
    });

    // Webhooks: the subscriptions (main table, secrets sealed here) and the delivery log (events
    // table); the sender reads subscriptions, records attempts, notes and turns off failing ones,
    // and queues the owner's mail. Every function that makes events reads the subscriptions, adds
    // deliveries and queues them (ingest, device sync, questionnaires, the console's test events).
    const webhooksFn = this.api.functions.webhooks;
    grantTable(webhooksFn, main, 'readWrite');
    // API keys: made, rotated and revoked with the company's count of them (data/apiKeys.ts).
    grantTable(this.api.functions.apiKeys, main, 'readWrite');
    grantTable(webhooksFn, events, 'readWrite');
    webhookService.grantSecrets(webhooksFn, true);
    for (const fn of [webhooksFn, iot.ingestFunction, deviceSync, questionnaires, this.api.functions.devices]) webhookService.grantSend(fn);
    const sender = webhookService.sender;
    grantTable(sender, main, 'readWrite');
    grantTable(sender, events, 'readWrite');
    sender.addToRolePolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [mail.retryFunction.functionArn] }));

    const site = (this.site = new ConsoleSite(this, 'Console', {
      bucket: buckets.web,
      logs: buckets.logs,
      apiDomainName: this.api.domainName,
      originVerify: originVerifyValue,
    }));

    // The console uploads import files straight to the imports bucket, from its own origin only.
    buckets.data.imports.addCorsRule({
      allowedMethods: [HttpMethods.PUT],
      allowedOrigins: [`https://${site.distribution.distributionDomainName}`],
      allowedHeaders: ['content-type'],
      maxAge: 3600,
    });

    // The console uploads client packages straight to the packages bucket, from its own origin too.
    buckets.data.packages.addCorsRule({
      allowedMethods: [HttpMethods.PUT],
      allowedOrigins: [`https://${site.distribution.distributionDomainName}`],
      allowedHeaders: ['content-type'],
      maxAge: 3600,
    });
    // The console reads call recordings through their presigned links to draw the waveform, from its own origin too.
    buckets.data.recordings.addCorsRule({
      allowedMethods: [HttpMethods.GET],
      allowedOrigins: [`https://${site.distribution.distributionDomainName}`],
      allowedHeaders: ['range'],
      maxAge: 3600,
    });
    // System settings show the API as devices and integrators reach it: through CloudFront.
    environment.API_BASE_URL = `https://${site.distribution.distributionDomainName}/v1`;
    // Links in mails (invitations, alerts) lead to the console, never to an address a request names.
    environment.CONSOLE_URL = `https://${site.distribution.distributionDomainName}`;

    new CfnOutput(this, 'ConsoleUrl', { value: `https://${site.distribution.distributionDomainName}` });
    // The execute-api endpoint refuses requests without the origin secret: the API is reached through CloudFront.
    new CfnOutput(this, 'ApiUrl', { value: `https://${site.distribution.distributionDomainName}/v1` });

    this.acknowledgeFindings();
  }

  /**
   * Object access under every key of the buckets: keys start with a tenant id that is only known
   * per request, so the resource is `bucket/*` and the wildcard is acknowledged here, per bucket.
   */
  private grantObjects(fn: IFunction, list: Bucket[], actions: string[]): void {
    fn.addToRolePolicy(new PolicyStatement({ actions, resources: list.map((b) => b.arnForObjects('*')) }));
    for (const bucket of list) {
      const logicalId = this.getLogicalId(bucket.node.defaultChild as CfnBucket);
      Validations.of(fn).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/*]`,
        reason: 'Objects are keyed by tenant id, known only per request; the tenant prefix is enforced in code (lib/storage.ts objectKey).',
      });
    }
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
        'AwsSolutions-L1',
        'Functions run on nodejs22.x, the runtime the code is bundled and tested for (esbuild target node22); it moves with the tested Node version, not ahead of it.',
      ],
      [
        'AwsSolutions-CFR4',
        'The default CloudFront certificate cannot pin the minimum TLS version; operators who add their own domain and certificate get TLSv1.2_2021.',
      ],
    ];
    for (const [id, reason] of accepted) Validations.of(this).acknowledge({ id, reason });
    // The console upload (BucketDeployment) runs CDK's own singleton function with its own policy.
    const account = Token.isUnresolved(this.account) ? '<AWS::AccountId>' : this.account;
    const region = Token.isUnresolved(this.region) ? '<AWS::Region>' : this.region;
    const consoleBucket = this.getLogicalId(this.buckets.web.node.defaultChild as CfnBucket);
    const deploymentFindings = [
      'Action::s3:GetObject*',
      'Action::s3:GetBucket*',
      'Action::s3:List*',
      'Action::s3:DeleteObject*',
      'Action::s3:Abort*',
      `Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-${account}-${region}/*`,
      `Resource::<${consoleBucket}.Arn>/*`,
      'Resource::*',
    ];
    for (const construct of this.node.findAll().filter((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'))) {
      for (const finding of deploymentFindings) {
        Validations.of(construct).acknowledge({
          id: `AwsSolutions-IAM5[${finding}]`,
          reason: 'CDK’s BucketDeployment copies the built console from the CDK asset bucket into the console bucket and invalidates CloudFront; CDK generates its policy.',
        });
      }
    }
    Validations.of(this.buckets.logs).acknowledge({ id: 'AwsSolutions-S1', reason: 'This is the access-log bucket; logging it into itself would loop.' });
    Validations.of(this.originVerify).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'CloudFront and the API functions receive the origin secret at deploy time through dynamic references; a new value must reach both in one stack update, which a rotation function cannot do, so it is changed by replacing the secret in a deploy.',
    });
  }
}

const TABLE_ACTIONS = {
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'],
  write: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
};

/** Without s3:ListBucket a HeadObject on a missing key answers 403 instead of 404 (lib/storage.ts objectExists). */
function grantListing(fn: IFunction, bucket: Bucket): void {
  fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
}

/** Item access to a table and its named indexes, without the `index/*` wildcard CDK's grants add. */
function grantTable(fn: IFunction, table: ITable & { node: { id: string } }, access: 'read' | 'write' | 'readWrite'): void {
  const def = TABLES.find((t) => t.defaultName.endsWith(`-${table.node.id}`))!;
  const actions = access === 'readWrite' ? [...TABLE_ACTIONS.read, ...TABLE_ACTIONS.write] : TABLE_ACTIONS[access];
  fn.addToRolePolicy(
    new PolicyStatement({ actions, resources: [table.tableArn, ...def.indexes.map((index) => `${table.tableArn}/index/${index.name}`)] }),
  );
}
