import { deviceTopics, shadowTopics } from '#contract/protocol';

/**
 * The IoT policy one device gets when its credentials check out: connect as its own thing,
 * publish and receive only on its own topics. `prefix` is `arn:aws:iot:<region>:<account>`.
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

export function devicePolicy(thing: string, prefix: string): PolicyDocument {
  const shadow = shadowTopics(thing);
  const own = deviceTopics(thing);
  const topic = (t: string) => `${prefix}:topic/${t}`;
  const filter = (t: string) => `${prefix}:topicfilter/${t}`;
  return {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Action: ['iot:Connect'], Resource: [`${prefix}:client/${thing}`] },
      { Effect: 'Allow', Action: ['iot:Publish'], Resource: [shadow.update, shadow.get, own.heartbeat, own.logs, own.commandResult, own.records, own.calls, own.callOpenDoor].map(topic) },
      { Effect: 'Allow', Action: ['iot:Subscribe'], Resource: [filter(`$aws/things/${thing}/shadow/*`), ...[own.commands, own.recordsAck, own.facesNotify, own.callsAck].map(filter)] },
      { Effect: 'Allow', Action: ['iot:Receive'], Resource: [topic(`$aws/things/${thing}/shadow/*`), ...[own.commands, own.recordsAck, own.facesNotify, own.callsAck].map(topic)] },
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
