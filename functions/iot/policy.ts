import { deviceTopics, shadowTopics } from '#contract/protocol';

/**
 * The IoT policies the custom authorizer answers and the stack deploys. `prefix` is
 * `arn:<partition>:iot:<region>:<account>`.
 */
export interface PolicyStatement {
  Effect: 'Allow' | 'Deny';
  Action: string[];
  Resource: string[];
}
export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: PolicyStatement[];
}

/**
 * IoT Core takes at most 10 policy documents from a custom authorizer, each at most 2,048
 * characters; CreatePolicy takes one document of at most 2,048 characters, whitespace excluded.
 * https://docs.aws.amazon.com/iot/latest/developerguide/custom-auth-lambda.html
 * https://docs.aws.amazon.com/iot/latest/apireference/API_CreatePolicy.html
 */
export const MAX_POLICY_CHARS = 2048;
export const MAX_POLICY_DOCUMENTS = 10;

/** A policy document's length as IoT Core counts it: whitespace excluded. */
export const policyLength = (text: string): number => text.replace(/\s/g, '').length;

/**
 * The policy of one device: connect as its own thing; publish on exactly the topics it sends
 * (its up topics, shadow update and get); subscribe to and receive its own topics only
 * (`pc/<thing>/*` and its shadow's), where the cloud alone publishes besides the device itself.
 * The wildcards keep the policy short: every down topic listed once per action would not fit
 * IoT Core's 2,048 characters for the longest thing names and ARN prefixes.
 */
export function devicePolicy(thing: string, prefix: string): PolicyDocument {
  const shadow = shadowTopics(thing);
  const own = deviceTopics(thing);
  const topic = (t: string) => `${prefix}:topic/${t}`;
  const filter = (t: string) => `${prefix}:topicfilter/${t}`;
  const mine = [`pc/${thing}/*`, `$aws/things/${thing}/shadow/*`];
  return {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Action: ['iot:Connect'], Resource: [`${prefix}:client/${thing}`] },
      { Effect: 'Allow', Action: ['iot:Publish'], Resource: [shadow.update, shadow.get, own.heartbeat, own.logs, own.commandResult, own.records, own.calls, own.callOpenDoor].map(topic) },
      { Effect: 'Allow', Action: ['iot:Subscribe'], Resource: mine.map(filter) },
      { Effect: 'Allow', Action: ['iot:Receive'], Resource: mine.map(topic) },
    ],
  };
}

/**
 * The IoT policy of one console tab on the live channel (contract/live.ts): connect as its own
 * client id, subscribe to and receive its company's topics that the account's rights open, and
 * publish nothing.
 */
export function consolePolicy(clientId: string, topics: readonly string[], prefix: string): PolicyDocument {
  return {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Action: ['iot:Connect'], Resource: [`${prefix}:client/${clientId}`] },
      { Effect: 'Allow', Action: ['iot:Subscribe'], Resource: topics.map((t) => `${prefix}:topicfilter/${t}`) },
      { Effect: 'Allow', Action: ['iot:Receive'], Resource: topics.map((t) => `${prefix}:topic/${t}`) },
    ],
  };
}

const serialize = (statements: PolicyStatement[]): string => JSON.stringify({ Version: '2012-10-17', Statement: statements } satisfies PolicyDocument);

/**
 * A policy as the `policyDocuments` of an authorizer's answer: one document when it fits, else
 * its statements spread over as few documents as fit (a statement too long on its own is split by
 * resources, which allows and denies exactly the same). Throws when even that takes more than
 * MAX_POLICY_DOCUMENTS, so a policy IoT Core would refuse is never answered.
 */
export function policyDocuments(policy: PolicyDocument): string[] {
  const pieces: PolicyStatement[] = [];
  for (const statement of policy.Statement) {
    if (policyLength(serialize([statement])) <= MAX_POLICY_CHARS) {
      pieces.push(statement);
      continue;
    }
    let part: PolicyStatement = { ...statement, Resource: [] };
    for (const resource of statement.Resource) {
      const next = { ...part, Resource: [...part.Resource, resource] };
      if (part.Resource.length > 0 && policyLength(serialize([next])) > MAX_POLICY_CHARS) {
        pieces.push(part);
        part = { ...statement, Resource: [resource] };
      } else part = next;
    }
    pieces.push(part);
  }
  const documents: PolicyStatement[][] = [];
  for (const piece of pieces) {
    const last = documents.at(-1);
    if (last && policyLength(serialize([...last, piece])) <= MAX_POLICY_CHARS) last.push(piece);
    else documents.push([piece]);
  }
  const texts = documents.map(serialize);
  const tooLong = texts.find((t) => policyLength(t) > MAX_POLICY_CHARS);
  if (tooLong) throw new Error(`an IoT policy statement is ${policyLength(tooLong)} characters, over IoT Core's ${MAX_POLICY_CHARS}`);
  if (texts.length > MAX_POLICY_DOCUMENTS) throw new Error(`an IoT policy takes ${texts.length} documents, over IoT Core's ${MAX_POLICY_DOCUMENTS}`);
  return texts;
}

const globToRegExp = (glob: string) =>
  new RegExp(
    `^${glob
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );

/** Evaluates policies the way IoT Core does for one action on one resource: an explicit Deny wins, else any Allow. */
export function isAllowed(policies: PolicyDocument[], action: string, resource: string): boolean {
  let allowed = false;
  for (const policy of policies) {
    for (const statement of policy.Statement) {
      if (!statement.Action.includes(action) && !statement.Action.includes('iot:*')) continue;
      if (!statement.Resource.some((r) => globToRegExp(r).test(resource))) continue;
      if (statement.Effect === 'Deny') return false;
      allowed = true;
    }
  }
  return allowed;
}
