import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { DecryptCommand, EncryptCommand, KMSClient } from '@aws-sdk/client-kms';
import { deliver, fairShare, mailErrorText, mailFailure, retryDelayMs } from '@passcloud/functions/lib/mail';
import { openSecret, sealSecret } from '@passcloud/functions/lib/secretBox';

const dynamo = mockClient(DynamoDBDocumentClient);
const ses = mockClient(SESv2Client);
const kms = mockClient(KMSClient);
const TENANT = 'tenant0000000001';
const saved = process.env.SMTP_HOST;
// As on AWS: the switch that lets a developer use a local SMTP server is off (the integration
// project's stack turns it on for its own servers, in the same test run).
const savedSwitch = process.env.SMTP_ALLOW_PRIVATE;

function settings(over: Record<string, unknown> = {}) {
  return {
    pk: TENANT,
    sk: 'settings#email',
    __edb_e__: 'mailSettings',
    __edb_v__: '1',
    tenantId: TENANT,
    tlsMode: 'starttls',
    recipients: [],
    feverAlert: false,
    attendanceSummary: false,
    attendanceSummaryTime: '18:00',
    updatedAt: '2026-01-01T00:00:00.000Z',
    version: 1,
    ...over,
  };
}
const storedSettings = (item?: Record<string, unknown>) => dynamo.on(GetCommand).resolves(item ? { Item: item } : {});
const recorded = () => dynamo.commandCalls(PutCommand).map((c) => c.args[0].input.Item as Record<string, unknown>);
const mail = { to: 'guard@company.test', subject: 'Fever alert', text: 'Temperature 38.2', kind: 'feverAlert' };

beforeEach(() => {
  dynamo.reset();
  ses.reset();
  kms.reset();
  delete process.env.SMTP_HOST;
  delete process.env.SMTP_ALLOW_PRIVATE;
  process.env.MAIL_FROM = 'Pass Cloud <no-reply@example.com>';
  dynamo.on(PutCommand).resolves({});
});
afterEach(() => {
  if (saved) process.env.SMTP_HOST = saved;
  if (savedSwitch) process.env.SMTP_ALLOW_PRIVATE = savedSwitch;
  delete process.env.SETTINGS_KMS_KEY_ID;
});

describe('the mail service on AWS', () => {
  it('sends through SES from the stack’s sender when the company has no SMTP server, and records the mail', async () => {
    storedSettings();
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-1' });
    const outcome = await deliver(TENANT, mail);
    expect(outcome.status).toBe('sent');
    expect(ses).toHaveReceivedCommandWith(SendEmailCommand, { FromEmailAddress: '"Pass Cloud" <no-reply@example.com>', Destination: { ToAddresses: ['guard@company.test'] } });
    expect(recorded()[0]).toMatchObject({ pk: TENANT, status: 'sent', kind: 'feverAlert', to: 'guard@company.test', attempts: 1 });
  });

  it('uses the company’s sender name with the stack’s address through SES', async () => {
    storedSettings(settings({ senderName: 'Acme Security', senderAddress: 'alerts@acme.test' }));
    ses.on(SendEmailCommand).resolves({ MessageId: 'm-2' });
    await deliver(TENANT, mail);
    expect(ses).toHaveReceivedCommandWith(SendEmailCommand, { FromEmailAddress: '"Acme Security" <no-reply@example.com>' });
  });

  it('does not use SES when the company has an SMTP server, and never connects into its own network', async () => {
    storedSettings(settings({ host: '127.0.0.1', port: 587, tlsMode: 'none', senderAddress: 'alerts@acme.test' }));
    const outcome = await deliver(TENANT, mail, { retry: false });
    expect(ses).not.toHaveReceivedCommand(SendEmailCommand);
    expect(outcome).toMatchObject({ status: 'failed', error: 'blocked' });
    expect(recorded()[0]).toMatchObject({ from: 'alerts@acme.test', status: 'failed', error: 'blocked' });
  });

  it('refuses a port that is not a mail port at send time too', async () => {
    storedSettings(settings({ host: '192.0.2.1', port: 8025, tlsMode: 'starttls', senderAddress: 'alerts@acme.test' }));
    const outcome = await deliver(TENANT, mail);
    expect(outcome).toMatchObject({ status: 'failed', error: 'blocked' });
    expect(recorded()[0]).not.toHaveProperty('gsi1pk');
  });

  it('queues a mail SES throttled for another attempt, and fails a rejected one at once', async () => {
    storedSettings();
    ses.on(SendEmailCommand).rejectsOnce(Object.assign(new Error('Maximum sending rate exceeded'), { name: 'TooManyRequestsException', $metadata: { httpStatusCode: 429 } }));
    const throttled = await deliver(TENANT, mail);
    expect(throttled.status).toBe('retrying');
    expect(recorded()[0]).toMatchObject({ status: 'retrying', gsi1pk: '_system#mailRetry', attempts: 1 });
    expect(Date.parse(recorded()[0]!.gsi1sk as string)).toBeGreaterThan(Date.now());

    ses.reset();
    ses.on(SendEmailCommand).rejects(Object.assign(new Error('Email address is not verified'), { name: 'MessageRejected', $metadata: { httpStatusCode: 400 } }));
    const rejected = await deliver(TENANT, mail);
    expect(rejected).toMatchObject({ status: 'failed', error: 'refused' });
    expect(recorded()[1]).toMatchObject({ error: 'refused' });
    expect(recorded()[1]).not.toHaveProperty('gsi1pk');
  });

  it('never retries a mail that carries a secret', async () => {
    storedSettings();
    ses.on(SendEmailCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException', $metadata: { httpStatusCode: 400 } }));
    const outcome = await deliver(TENANT, { ...mail, text: 'Code 123456', secrets: ['123456'] });
    expect(outcome.status).toBe('failed');
    expect(recorded()[0]).toMatchObject({ content: 'Code ******', masked: true });
  });
});

describe('failure classes and back-off', () => {
  it('treats SMTP 4xx and connection errors as temporary, 5xx as permanent', () => {
    expect(mailFailure(Object.assign(new Error('x'), { code: 'EENVELOPE', responseCode: 421, response: '421 Busy' }))).toMatchObject({ category: 'refused', temporary: true, replyCode: 421 });
    expect(mailFailure(Object.assign(new Error('x'), { code: 'EENVELOPE', responseCode: 550, response: '550 No such user' }))).toMatchObject({ category: 'refused', temporary: false, replyCode: 550 });
    expect(mailFailure(Object.assign(new Error('connect ECONNREFUSED 192.0.2.1:25'), { code: 'ESOCKET' }))).toMatchObject({ category: 'connect', temporary: true });
    expect(mailFailure(Object.assign(new Error('Connection timeout'), { code: 'ETIMEDOUT' }))).toMatchObject({ category: 'connect', temporary: true });
    expect(mailFailure(Object.assign(new Error('Invalid login'), { code: 'EAUTH', responseCode: 535, response: '535 Bad credentials' }))).toMatchObject({ category: 'auth', temporary: false, replyCode: undefined });
  });

  it('names TLS failures, the greeting of something that is no mail server, and anything else apart', () => {
    expect(mailFailure(Object.assign(new Error('self-signed certificate'), { code: 'ESOCKET' }))).toMatchObject({ category: 'tls', temporary: false });
    expect(mailFailure(Object.assign(new Error('ssl3_get_record:wrong version number'), { code: 'ESOCKET', library: 'SSL routines' })).category).toBe('tls');
    expect(mailFailure(Object.assign(new Error('Error upgrading connection with STARTTLS'), { code: 'ETLS', responseCode: 502 }))).toMatchObject({ category: 'tls', replyCode: undefined });
    expect(mailFailure(Object.assign(new Error('Invalid greeting'), { code: 'EPROTOCOL', response: 'HTTP/1.1 400 Bad Request' })).category).toBe('connect');
    expect(mailFailure(new Error('something else')).category).toBe('other');
  });

  it('tells why in the reader’s language, with the reply code of a refusal, and never an old record’s server text', () => {
    expect(mailErrorText('en_US', 'refused', 550)).toBe('The mail server refused the mail (reply code 550)');
    expect(mailErrorText('ja_JP', 'connect')).toBe('SMTP サーバーに接続できませんでした');
    expect(mailErrorText('en_US', '550 5.1.1 <ceo@internal.example>: user unknown (banner of mail.internal)')).toBe('The mail could not be sent');
    expect(mailErrorText('en_US', undefined)).toBeNull();
  });

  it('shares a pass fairly: a few mails of each company in turn, however many one company has due', () => {
    const due = [
      ...Array.from({ length: 40 }, (_, i) => ({ tenantId: 'hanging', n: i })),
      { tenantId: 'b', n: 0 },
      { tenantId: 'c', n: 0 },
      { tenantId: 'b', n: 1 },
    ];
    const chosen = fairShare(due, 50, 3);
    expect(chosen.map((r) => `${r.tenantId}${r.n}`)).toEqual(['hanging0', 'b0', 'c0', 'hanging1', 'b1', 'hanging2']);
    expect(fairShare(due, 4, 3)).toHaveLength(4);
  });

  it('doubles the wait after each attempt', () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).toEqual([60_000, 120_000, 240_000, 480_000].map((ms) => (ms / 60_000) * Number(process.env.MAIL_RETRY_BASE_MS ?? 60_000)));
  });
});

describe('sealed secrets on AWS', () => {
  it('seals and opens with KMS under the tenant’s encryption context', async () => {
    process.env.SETTINGS_KMS_KEY_ID = 'arn:aws:kms:eu-west-1:123456789012:key/abc';
    kms.on(EncryptCommand).resolves({ CiphertextBlob: new Uint8Array([1, 2, 3]) });
    kms.on(DecryptCommand).resolves({ Plaintext: new TextEncoder().encode('smtp-pass') });
    const context = { tenantId: TENANT, purpose: 'smtp-password' };
    const sealed = await sealSecret('smtp-pass', context);
    expect(sealed).toBe('kms:AQID');
    expect(kms).toHaveReceivedCommandWith(EncryptCommand, { KeyId: process.env.SETTINGS_KMS_KEY_ID, EncryptionContext: context });
    expect(await openSecret(sealed, context)).toBe('smtp-pass');
    expect(kms).toHaveReceivedCommandWith(DecryptCommand, { EncryptionContext: context });
  });
});
