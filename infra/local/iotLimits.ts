import { MAX_POLICY_CHARS, MAX_POLICY_DOCUMENTS, policyLength, type PolicyDocument, type PolicyStatement } from '@passcloud/functions/iot/policy';

/**
 * AWS IoT Core's rules that the local broker (infra/local/iotBroker.ts) applies, so that what passes
 * locally passes on AWS: the custom authorizer's answer, client ids, topics, payloads and the
 * publish rate of one connection. Each rule names the AWS page that states it.
 */

/** A rule broken: which one, and what broke it (both go to the log). */
export interface Breach {
  rule: string;
  detail: string;
}

const breach = (rule: string, detail: string): Breach => ({ rule, detail });

// The custom authorizer's answer
// https://docs.aws.amazon.com/iot/latest/developerguide/custom-auth-lambda.html

/** `refreshAfterInSeconds` and `disconnectAfterInSeconds`: whole seconds from 300 to 86,400. */
export const AUTHORIZER_MIN_SECONDS = 300;
export const AUTHORIZER_MAX_SECONDS = 86_400;
/** `principalId`: 1 to 128 letters and digits, nothing else. */
export const PRINCIPAL_ID = /^[a-zA-Z0-9]{1,128}$/;

/** What a valid answer lets the broker do. */
export interface Admission {
  authenticated: boolean;
  principalId: string;
  policies: PolicyDocument[];
  refreshAfterInSeconds: number;
  disconnectAfterInSeconds: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads an authorizer's answer as IoT Core does: from its `policyDocuments` strings, never from
 * anything else it carries. An answer that says no is a refusal and needs nothing more; one that
 * says yes must hold every rule, or the connection is refused as well.
 */
export function readAuthorizerAnswer(answer: unknown): Admission | Breach {
  if (!isObject(answer)) return breach('authorizer answer', 'not a JSON object');
  if (typeof answer.isAuthenticated !== 'boolean') return breach('isAuthenticated', 'must be a Boolean');
  if (!answer.isAuthenticated) return { authenticated: false, principalId: '', policies: [], refreshAfterInSeconds: 0, disconnectAfterInSeconds: 0 };
  if (typeof answer.principalId !== 'string' || !PRINCIPAL_ID.test(answer.principalId)) {
    return breach('principalId', `must be 1 to 128 letters and digits, got ${JSON.stringify(answer.principalId)}`);
  }
  for (const field of ['refreshAfterInSeconds', 'disconnectAfterInSeconds'] as const) {
    const value = answer[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < AUTHORIZER_MIN_SECONDS || value > AUTHORIZER_MAX_SECONDS) {
      return breach(field, `must be a whole number of seconds from ${AUTHORIZER_MIN_SECONDS} to ${AUTHORIZER_MAX_SECONDS}, got ${JSON.stringify(value)}`);
    }
  }
  const documents = answer.policyDocuments;
  if (!Array.isArray(documents) || documents.some((d) => typeof d !== 'string')) return breach('policyDocuments', 'must be a list of strings');
  if (documents.length > MAX_POLICY_DOCUMENTS) return breach('policyDocuments', `${documents.length} documents, at most ${MAX_POLICY_DOCUMENTS}`);
  const policies: PolicyDocument[] = [];
  for (const [i, text] of (documents as string[]).entries()) {
    const length = policyLength(text);
    if (length > MAX_POLICY_CHARS) return breach('policy document size', `document ${i} is ${length} characters without whitespace, at most ${MAX_POLICY_CHARS}`);
    const policy = readPolicy(text);
    if ('rule' in policy) return breach(policy.rule, `document ${i}: ${policy.detail}`);
    policies.push(policy);
  }
  return {
    authenticated: true,
    principalId: answer.principalId,
    policies,
    refreshAfterInSeconds: answer.refreshAfterInSeconds as number,
    disconnectAfterInSeconds: answer.disconnectAfterInSeconds as number,
  };
}

// IoT policies
// https://docs.aws.amazon.com/iot/latest/developerguide/iot-policies.html
// https://docs.aws.amazon.com/iot/latest/developerguide/iot-policy-actions.html
// https://docs.aws.amazon.com/iot/latest/developerguide/iot-action-resources.html

/** An IoT action (`iot:Publish`, `iot:*`...). */
const IOT_ACTION = /^iot:(\*|[A-Za-z]+)$/;
/** An IoT resource: `*`, or an IoT ARN `arn:<partition>:iot:<region>:<account>:<type>/<name>` (wildcards allowed). */
const IOT_RESOURCE = /^(\*|arn:(aws[a-z-]*|\*):iot:[a-z0-9*-]*:(\d{12}|\*)?:[a-z*]+\/.+)$/;
const POLICY_VERSIONS = ['2012-10-17', '2008-10-17'];
const STATEMENT_KEYS = new Set(['Sid', 'Effect', 'Action', 'Resource']);

const listOf = (value: unknown): string[] | undefined =>
  typeof value === 'string' ? [value] : Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;

/**
 * One policy document, checked as IoT Core checks a policy: JSON, a known `Version`, and
 * statements that allow or deny IoT actions on IoT resources. A `Condition` is refused here
 * because the local broker cannot evaluate it (infra/local/iotBroker.ts evaluates with `isAllowed`),
 * and a policy it would evaluate differently from IoT Core must not pass.
 */
export function readPolicy(text: string): PolicyDocument | Breach {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return breach('policy JSON', 'not valid JSON');
  }
  if (!isObject(parsed)) return breach('policy JSON', 'not a JSON object');
  if (typeof parsed.Version !== 'string' || !POLICY_VERSIONS.includes(parsed.Version)) return breach('policy Version', `must be one of ${POLICY_VERSIONS.join(', ')}`);
  const statements = Array.isArray(parsed.Statement) ? (parsed.Statement as unknown[]) : isObject(parsed.Statement) ? [parsed.Statement] : undefined;
  if (!statements || statements.length === 0) return breach('policy Statement', 'must be a statement or a list of them');
  const out: PolicyStatement[] = [];
  for (const statement of statements) {
    if (!isObject(statement)) return breach('policy Statement', 'a statement must be an object');
    const unknown = Object.keys(statement).find((k) => !STATEMENT_KEYS.has(k));
    if (unknown) return breach('policy Statement', `"${unknown}" is not evaluated by the local broker`);
    if (statement.Effect !== 'Allow' && statement.Effect !== 'Deny') return breach('policy Effect', 'must be "Allow" or "Deny"');
    const actions = listOf(statement.Action);
    if (!actions) return breach('policy Action', 'must be an action or a list of them');
    const notIot = actions.find((a) => !IOT_ACTION.test(a));
    if (notIot) return breach('policy Action', `"${notIot}" is not an IoT action`);
    const resources = listOf(statement.Resource);
    if (!resources) return breach('policy Resource', 'must be a resource or a list of them');
    const notIotResource = resources.find((r) => !IOT_RESOURCE.test(r));
    if (notIotResource) return breach('policy Resource', `"${notIotResource}" is not an IoT resource ARN`);
    out.push({ Effect: statement.Effect, Action: actions, Resource: resources });
  }
  return { Version: '2012-10-17', Statement: out };
}

// The message broker
// https://docs.aws.amazon.com/general/latest/gr/iot-core.html#message-broker-limits

/** Client ID size: at most 128 bytes of UTF-8. */
export const MAX_CLIENT_ID_BYTES = 128;
/** Message size: a PUBLISH payload of at most 128 KB; IoT Core refuses larger ones. */
export const MAX_PAYLOAD_BYTES = 128 * 1024;
/** Topic size: at most 256 bytes of UTF-8. */
export const MAX_TOPIC_BYTES = 256;
/** At most 7 forward slashes in a topic or topic filter. */
export const MAX_TOPIC_SLASHES = 7;
/** Publish requests per second per connection (inbound). Publishes past it are discarded. */
export const MAX_PUBLISHES_PER_SECOND = 100;

/**
 * Basic Ingest topics start with `$aws/rules/<rule-name>/`; that prefix counts toward neither the
 * topic size nor its slashes.
 * https://docs.aws.amazon.com/iot/latest/developerguide/iot-basic-ingest.html
 */
const BASIC_INGEST = /^\$aws\/rules\/[^/]+\//i;

export function clientIdBreach(clientId: string): Breach | undefined {
  const bytes = Buffer.byteLength(clientId, 'utf8');
  if (bytes > MAX_CLIENT_ID_BYTES) return breach('client id size', `${bytes} bytes, at most ${MAX_CLIENT_ID_BYTES}`);
  return undefined;
}

function topicSizeBreach(topic: string): Breach | undefined {
  const counted = topic.replace(BASIC_INGEST, '');
  const bytes = Buffer.byteLength(counted, 'utf8');
  if (bytes > MAX_TOPIC_BYTES) return breach('topic size', `${bytes} bytes, at most ${MAX_TOPIC_BYTES}`);
  const slashes = counted.split('/').length - 1;
  if (slashes > MAX_TOPIC_SLASHES) return breach('topic slashes', `${slashes} forward slashes, at most ${MAX_TOPIC_SLASHES}`);
  return undefined;
}

/**
 * Topics that begin with `$` are IoT Core's: a client may publish only on those meant for it
 * (shadow and job requests, Basic Ingest) and subscribe only to IoT Core's `$aws/` topics other
 * than Basic Ingest; anything else can end the connection.
 * https://docs.aws.amazon.com/iot/latest/developerguide/reserved-topics.html
 */
const RESERVED_PUBLISH = [
  /^\$aws\/things\/[^/]+\/shadow\/(name\/[^/]+\/)?(update|get|delete)$/,
  /^\$aws\/things\/[^/]+\/jobs\/(get|start-next|[^/]+\/get|[^/]+\/update)$/,
  BASIC_INGEST,
];

export function publishBreach(topic: string, payload: Uint8Array | string): Breach | undefined {
  const bytes = typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.byteLength;
  if (bytes > MAX_PAYLOAD_BYTES) return breach('message size', `a payload of ${bytes} bytes, at most ${MAX_PAYLOAD_BYTES}`);
  if (topic.startsWith('$') && !RESERVED_PUBLISH.some((r) => r.test(topic))) return breach('reserved topic', `clients may not publish on ${topic}`);
  return topicSizeBreach(topic);
}

export function subscribeBreach(filter: string): Breach | undefined {
  if (filter.startsWith('$') && (!filter.startsWith('$aws/') || BASIC_INGEST.test(filter))) return breach('reserved topic', `clients may not subscribe to ${filter}`);
  return topicSizeBreach(filter);
}

/** One connection's inbound publishes over the last second: `take` answers whether one more may go. */
export class PublishRate {
  private readonly times: number[] = [];

  constructor(
    private readonly limit = MAX_PUBLISHES_PER_SECOND,
    private readonly windowMs = 1000,
  ) {}

  take(now = Date.now()): boolean {
    while (this.times.length > 0 && this.times[0]! <= now - this.windowMs) this.times.shift();
    if (this.times.length >= this.limit) return false;
    this.times.push(now);
    return true;
  }
}
