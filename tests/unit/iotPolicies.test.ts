import { describe, expect, it } from 'vitest';
import { RegionInfo } from 'aws-cdk-lib/region-info';
import { liveClientPrefix, liveConnection, liveTopics, parseLiveClient } from '@passcloud/functions/contract/live';
import { deviceTopics, parseThingName, shadowTopics } from '@passcloud/functions/contract/protocol';
import { MAX_POLICY_CHARS, MAX_POLICY_DOCUMENTS, consolePolicy, devicePolicy, isAllowed, policyDocuments, policyLength, type PolicyDocument } from '@passcloud/functions/iot/policy';
import {
  AUTHORIZER_MAX_SECONDS,
  AUTHORIZER_MIN_SECONDS,
  MAX_PAYLOAD_BYTES,
  MAX_PUBLISHES_PER_SECOND,
  PublishRate,
  clientIdBreach,
  publishBreach,
  readAuthorizerAnswer,
  readPolicy,
  subscribeBreach,
  type Admission,
} from '@passcloud/infra/local/iotLimits';

/**
 * IoT Core takes at most 10 policy documents of at most 2,048 characters (whitespace excluded)
 * from a custom authorizer (https://docs.aws.amazon.com/iot/latest/developerguide/custom-auth-lambda.html).
 * The authorizer's answers are measured for the longest thing name and console client id the
 * formats allow, in the region whose IoT ARN prefix is the longest, and the device policy is held
 * to what the protocol needs. The local broker's copy of IoT Core's rules (infra/local/iotLimits.ts)
 * is tested here too.
 */

/** The longest `arn:<partition>:iot:<region>:<account>` over every region CDK knows, GovCloud, China and ISO included. */
const LONGEST_PREFIX = RegionInfo.regions
  .map((r) => `arn:${r.partition}:iot:${r.name}:123456789012`)
  .reduce((a, b) => (b.length > a.length ? b : a));

/** The longest thing name `parseThingName` accepts: two 32-character ids. */
const THING = `${'t'.repeat(31)}1_${'d'.repeat(31)}2`;
const OTHER = `${'t'.repeat(31)}1_${'d'.repeat(31)}3`;
/** Another thing whose name starts with THING's tenant and ends before THING's device key does. */
const SHORTER = `${'t'.repeat(31)}1_${'d'.repeat(30)}`;

/** The longest console client id: the longest tenant id a token carries (lib/auth.ts parseToken) and the longest tab id. */
const TENANT = 'c'.repeat(40);
const CONSOLE_CLIENT = `${liveClientPrefix(TENANT, 'f'.repeat(64))}${'T'.repeat(16)}`;

const answerOf = (documents: string[]) => ({ isAuthenticated: true, principalId: 'device1', refreshAfterInSeconds: 300, disconnectAfterInSeconds: 86_400, policyDocuments: documents });

function fits(documents: string[]): void {
  expect(documents.length).toBeGreaterThan(0);
  expect(documents.length).toBeLessThanOrEqual(MAX_POLICY_DOCUMENTS);
  for (const document of documents) expect(policyLength(document), document).toBeLessThanOrEqual(MAX_POLICY_CHARS);
  // The local broker reads the same answer as IoT Core would, and takes it.
  expect(readAuthorizerAnswer(answerOf(documents))).toMatchObject({ authenticated: true });
}

describe('the authorizer answers fit IoT Core', () => {
  it('measures with the longest prefix and names', () => {
    expect(LONGEST_PREFIX.length).toBeGreaterThan('arn:aws-cn:iot:cn-northwest-1:123456789012'.length);
    expect(parseThingName(THING)).toEqual({ tenantId: `${'t'.repeat(31)}1`, deviceKey: `${'d'.repeat(31)}2` });
    expect(parseLiveClient(CONSOLE_CLIENT)).toBeDefined();
  });

  it('answers a device in documents of at most 2,048 characters, at most 10 of them', () => {
    fits(policyDocuments(devicePolicy(THING, LONGEST_PREFIX)));
  });

  it('answers a console tab with every live topic in documents that fit', () => {
    fits(policyDocuments(consolePolicy(CONSOLE_CLIENT, Object.values(liveTopics(TENANT)), LONGEST_PREFIX)));
  });

  it('spreads a policy too long for one document over several, allowing exactly the same', () => {
    const topics = Array.from({ length: 20 }, (_, i) => `pc/${THING}/extra/${i}`);
    const long = consolePolicy(THING, topics, LONGEST_PREFIX);
    const documents = policyDocuments(long);
    expect(documents.length).toBeGreaterThan(1);
    fits(documents);
    const parsed = documents.map((d) => JSON.parse(d) as PolicyDocument);
    for (const topic of topics) expect(isAllowed(parsed, 'iot:Receive', `${LONGEST_PREFIX}:topic/${topic}`)).toBe(true);
    expect(isAllowed(parsed, 'iot:Receive', `${LONGEST_PREFIX}:topic/pc/${THING}/extra/20`)).toBe(false);
  });

  it('refuses to answer a policy that would take more than 10 documents', () => {
    const topics = Array.from({ length: 400 }, (_, i) => `pc/${THING}/extra/${i}`);
    expect(() => policyDocuments(consolePolicy(THING, topics, LONGEST_PREFIX))).toThrow(/documents/);
  });
});

describe('the console’s live channel on AWS', () => {
  it('names the authorizer in the MQTT username, and leaves the WebSocket address without a query string', () => {
    const wsUrl = 'wss://abc123-ats.iot.eu-west-1.amazonaws.com:443/mqtt';
    const answer = liveConnection({ wsUrl, authorizerName: 'PassCloudDeviceAuthorizer', tenantId: TENANT, tokenHash: 'f'.repeat(64), topics: liveTopics(TENANT) });
    expect(answer.url).toBe(wsUrl);
    expect(new URL(answer.url).search).toBe('');
    expect(answer.username).toBe('console?x-amz-customauthorizer-name=PassCloudDeviceAuthorizer');
    expect(answer.clientPrefix).toBe(liveClientPrefix(TENANT, 'f'.repeat(64)));
    expect(liveConnection({ wsUrl: 'ws://127.0.0.1:1883/mqtt', tenantId: TENANT, tokenHash: 'f'.repeat(64), topics: {} })).toMatchObject({ url: 'ws://127.0.0.1:1883/mqtt', username: 'console' });
  });
});

describe('the device policy allows what the protocol needs and nothing of another thing', () => {
  const policies = policyDocuments(devicePolicy(THING, LONGEST_PREFIX)).map((d) => JSON.parse(d) as PolicyDocument);
  const can = (action: string, resource: string) => isAllowed(policies, action, `${LONGEST_PREFIX}:${resource}`);
  const up = (thing: string) => {
    const own = deviceTopics(thing);
    const shadow = shadowTopics(thing);
    return [own.heartbeat, own.logs, own.commandResult, own.records, own.calls, own.callOpenDoor, shadow.update, shadow.get];
  };
  const down = (thing: string) => {
    const own = deviceTopics(thing);
    const shadow = shadowTopics(thing);
    return [own.commands, own.recordsAck, own.facesNotify, own.callsAck, shadow.updateAccepted, shadow.updateRejected, shadow.updateDelta, shadow.updateDocuments, shadow.getAccepted, shadow.getRejected];
  };

  it('connects as its own thing only', () => {
    expect(can('iot:Connect', `client/${THING}`)).toBe(true);
    for (const other of [OTHER, SHORTER, `${THING}x`, 'console-x']) expect(can('iot:Connect', `client/${other}`), other).toBe(false);
  });

  it('publishes on exactly its up topics', () => {
    for (const topic of up(THING)) expect(can('iot:Publish', `topic/${topic}`), topic).toBe(true);
    for (const topic of down(THING)) expect(can('iot:Publish', `topic/${topic}`), topic).toBe(false);
    expect(can('iot:Publish', `topic/$aws/things/${THING}/shadow/delete`)).toBe(false);
    expect(can('iot:Publish', `topic/pc/${THING}/anything`)).toBe(false);
  });

  it('subscribes to and receives its down topics and shadow', () => {
    for (const topic of down(THING)) {
      expect(can('iot:Subscribe', `topicfilter/${topic}`), topic).toBe(true);
      expect(can('iot:Receive', `topic/${topic}`), topic).toBe(true);
    }
    expect(can('iot:Subscribe', `topicfilter/$aws/things/${THING}/shadow/update/#`)).toBe(true);
  });

  it('does nothing on the topics of another thing, however its name compares', () => {
    for (const other of [OTHER, SHORTER]) {
      for (const topic of [...up(other), ...down(other)]) {
        expect(can('iot:Publish', `topic/${topic}`), topic).toBe(false);
        expect(can('iot:Subscribe', `topicfilter/${topic}`), topic).toBe(false);
        expect(can('iot:Receive', `topic/${topic}`), topic).toBe(false);
      }
    }
    for (const filter of ['#', 'pc/#', 'pc/+/commands', '$aws/things/+/shadow/update/delta', `console/${TENANT}/passes`]) {
      expect(can('iot:Subscribe', `topicfilter/${filter}`), filter).toBe(false);
    }
    expect(can('iot:Receive', `topic/console/${TENANT}/passes`)).toBe(false);
    expect(can('iot:Receive', `topic/$aws/events/presence/connected/${OTHER}`)).toBe(false);
  });
});

describe('IoT Core rules the local broker applies (infra/local/iotLimits.ts)', () => {
  const policy = JSON.stringify(devicePolicy('a1234567_b1234567', 'arn:aws:iot:eu-west-1:123456789012'));
  const valid = answerOf([policy]);
  const ruleOf = (answer: unknown) => {
    const read = readAuthorizerAnswer(answer);
    return 'rule' in read ? read.rule : 'admitted';
  };

  it('admits a valid answer with the policy read from its documents', () => {
    const read = readAuthorizerAnswer(valid) as Admission;
    expect(read).toMatchObject({ authenticated: true, principalId: 'device1', refreshAfterInSeconds: 300, disconnectAfterInSeconds: 86_400 });
    expect(read.policies).toEqual([JSON.parse(policy)]);
    expect(readAuthorizerAnswer({ isAuthenticated: false })).toMatchObject({ authenticated: false });
  });

  it('refuses an answer that breaks a rule, naming it', () => {
    expect(ruleOf({ ...valid, isAuthenticated: 'true' })).toBe('isAuthenticated');
    expect(ruleOf({ ...valid, principalId: 'console-abc' })).toBe('principalId');
    expect(ruleOf({ ...valid, principalId: 'x'.repeat(129) })).toBe('principalId');
    expect(ruleOf({ ...valid, principalId: 'x'.repeat(128) })).toBe('admitted');
    for (const field of ['refreshAfterInSeconds', 'disconnectAfterInSeconds']) {
      expect(ruleOf({ ...valid, [field]: AUTHORIZER_MIN_SECONDS - 1 })).toBe(field);
      expect(ruleOf({ ...valid, [field]: AUTHORIZER_MAX_SECONDS + 1 })).toBe(field);
      expect(ruleOf({ ...valid, [field]: 300.5 })).toBe(field);
      expect(ruleOf({ ...valid, [field]: AUTHORIZER_MAX_SECONDS })).toBe('admitted');
    }
    expect(ruleOf({ ...valid, policyDocuments: Array<string>(11).fill(policy) })).toBe('policyDocuments');
    expect(ruleOf({ ...valid, policyDocuments: Array<string>(10).fill(policy) })).toBe('admitted');
    expect(ruleOf({ ...valid, policyDocuments: [{ Version: '2012-10-17', Statement: [] }] })).toBe('policyDocuments');
  });

  it('counts a document without its whitespace, and refuses one over 2,048 characters', () => {
    const statement = (n: number) => ({ Effect: 'Allow', Action: ['iot:Receive'], Resource: [`arn:aws:iot:eu-west-1:123456789012:topic/${'x'.repeat(n)}`] });
    const sized = (n: number) => JSON.stringify({ Version: '2012-10-17', Statement: [statement(n)] });
    const base = policyLength(sized(0));
    const exact = sized(MAX_POLICY_CHARS - base);
    expect(policyLength(exact)).toBe(MAX_POLICY_CHARS);
    expect(ruleOf(answerOf([exact]))).toBe('admitted');
    expect(ruleOf(answerOf([JSON.stringify(JSON.parse(exact), null, 8)]))).toBe('admitted');
    expect(ruleOf(answerOf([sized(MAX_POLICY_CHARS - base + 1)]))).toBe('policy document size');
  });

  it('reads only IoT policies', () => {
    const with_ = (statement: Record<string, unknown>) => JSON.stringify({ Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'iot:Publish', Resource: 'arn:aws:iot:eu-west-1:123456789012:topic/a', ...statement }] });
    expect(readPolicy(with_({}))).toMatchObject({ Statement: [{ Action: ['iot:Publish'], Resource: ['arn:aws:iot:eu-west-1:123456789012:topic/a'] }] });
    expect(readPolicy('{"Version":')).toMatchObject({ rule: 'policy JSON' });
    expect(readPolicy(JSON.stringify({ Version: '2020-01-01', Statement: [] }))).toMatchObject({ rule: 'policy Version' });
    expect(readPolicy(with_({ Action: 's3:GetObject' }))).toMatchObject({ rule: 'policy Action' });
    expect(readPolicy(with_({ Resource: 'arn:aws:s3:::bucket/key' }))).toMatchObject({ rule: 'policy Resource' });
    expect(readPolicy(with_({ Effect: 'Maybe' }))).toMatchObject({ rule: 'policy Effect' });
    expect(readPolicy(with_({ Condition: { Bool: { 'iot:Connection.Thing.IsAttached': 'true' } } }))).toMatchObject({ rule: 'policy Statement' });
    expect(readPolicy(with_({ Resource: 'arn:aws-us-gov:iot:us-gov-west-1:123456789012:topicfilter/pc/*' }))).not.toHaveProperty('rule');
  });

  it('holds client ids to 128 bytes of UTF-8', () => {
    expect(clientIdBreach('c'.repeat(128))).toBeUndefined();
    expect(clientIdBreach('c'.repeat(129))).toMatchObject({ rule: 'client id size' });
    expect(clientIdBreach('é'.repeat(65))).toMatchObject({ rule: 'client id size' });
  });

  it('holds messages to 128 KB, topics to 256 bytes and 7 slashes, Basic Ingest prefixes aside', () => {
    expect(publishBreach('pc/a/heartbeat', Buffer.alloc(MAX_PAYLOAD_BYTES))).toBeUndefined();
    expect(publishBreach('pc/a/heartbeat', Buffer.alloc(MAX_PAYLOAD_BYTES + 1))).toMatchObject({ rule: 'message size' });
    expect(publishBreach('1/2/3/4/5/6/7/8', '{}')).toBeUndefined();
    expect(publishBreach('1/2/3/4/5/6/7/8/9', '{}')).toMatchObject({ rule: 'topic slashes' });
    expect(publishBreach('$aws/rules/r/1/2/3/4/5/6/7/8', '{}')).toBeUndefined();
    expect(publishBreach('t'.repeat(256), '{}')).toBeUndefined();
    expect(publishBreach('t'.repeat(257), '{}')).toMatchObject({ rule: 'topic size' });
    expect(publishBreach(`$aws/rules/r/${'t'.repeat(256)}`, '{}')).toBeUndefined();
    expect(subscribeBreach('1/2/3/4/5/6/7/+/#')).toMatchObject({ rule: 'topic slashes' });
    expect(subscribeBreach('1/2/3/4/5/6/7/#')).toBeUndefined();
  });

  it('lets clients publish and subscribe on IoT Core’s $ topics only as they allow', () => {
    expect(publishBreach(shadowTopics('a1234567_b1234567').update, '{}')).toBeUndefined();
    expect(publishBreach(shadowTopics('a1234567_b1234567').get, '{}')).toBeUndefined();
    expect(publishBreach('$aws/things/x/shadow/name/n/update', '{}')).toBeUndefined();
    expect(publishBreach('$aws/things/x/shadow/update/accepted', '{}')).toMatchObject({ rule: 'reserved topic' });
    expect(publishBreach('$aws/events/presence/connected/x', '{}')).toMatchObject({ rule: 'reserved topic' });
    expect(publishBreach('$SYS/x', '{}')).toMatchObject({ rule: 'reserved topic' });
    expect(subscribeBreach('$aws/things/x/shadow/update/accepted')).toBeUndefined();
    expect(subscribeBreach('$aws/events/presence/+/+')).toBeUndefined();
    expect(subscribeBreach('$aws/rules/r/#')).toMatchObject({ rule: 'reserved topic' });
    expect(subscribeBreach('$SYS/#')).toMatchObject({ rule: 'reserved topic' });
  });

  it('lets 100 publishes a second through on one connection and discards the rest', () => {
    const rate = new PublishRate();
    const start = 1_000_000;
    for (let i = 0; i < MAX_PUBLISHES_PER_SECOND; i++) expect(rate.take(start + i)).toBe(true);
    expect(rate.take(start + 500)).toBe(false);
    expect(rate.take(start + 999)).toBe(false);
    expect(rate.take(start + 1000)).toBe(true);
    expect(rate.take(start + 1000)).toBe(false);
  });
});
