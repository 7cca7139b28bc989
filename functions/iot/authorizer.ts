import { LIVE_TAB_ID, LIVE_TOPIC_CODES, LIVE_USERNAME, liveClientPrefix, liveTopics, type LiveTopic } from '#contract/live';
import { parseThingName } from '#contract/protocol';
import { deviceWithSecret } from '#data/devices';
import { admitLiveClient } from '#data/identity';
import { admit, holdsAny, liveSession, parseToken } from '#lib/auth';
import { routes, type RouteEntry } from '../routes.ts';
import { log } from '#lib/log';
import { consolePolicy, devicePolicy, policyDocuments } from './policy.ts';
import { env, declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['IOT_POLICY_PREFIX', 'MAIN_TABLE']);

/**
 * The IoT Core custom authorizer (MQTT username/password; AWS appends
 * `?x-amz-customauthorizer-name=...` to the username). The local broker calls this same handler
 * for every connection, and again when the answer says to refresh.
 * - A face terminal: the username and the client id are its thing name, the password the secret
 *   issued at binding.
 * - A console tab on the live channel (contract/live.ts): the username `console`, the password
 *   the session token, a client id of that session's prefix.
 */
export interface AuthorizerEvent {
  protocols?: string[];
  protocolData?: { mqtt?: { username?: string; password?: string; clientId?: string } };
  connectionMetadata?: { id?: string };
}

/**
 * The answer IoT Core takes from a custom authorizer: `principalId` 1 to 128 letters and digits,
 * at most 10 `policyDocuments` of at most 2,048 characters each (functions/iot/policy.ts
 * `policyDocuments`), and `refreshAfterInSeconds`/`disconnectAfterInSeconds` between 300 and 86,400.
 * Anything else and IoT Core refuses the connection; the local broker checks the same
 * (infra/local/iotLimits.ts).
 * https://docs.aws.amazon.com/iot/latest/developerguide/custom-auth-lambda.html
 */
export interface AuthorizerResult {
  isAuthenticated: boolean;
  principalId: string;
  disconnectAfterInSeconds: number;
  refreshAfterInSeconds: number;
  policyDocuments: string[];
}

/** A device is asked to prove itself again this often, so an unbound device loses its connection. */
const REFRESH_SECONDS = 300;
const DENIED: AuthorizerResult = {
  isAuthenticated: false,
  principalId: 'denied',
  disconnectAfterInSeconds: 300,
  refreshAfterInSeconds: 300,
  policyDocuments: [],
};

export function policyPrefix(): string {
  return env('IOT_POLICY_PREFIX') ?? `arn:aws:iot:${env('AWS_REGION') ?? '*'}:${env('AWS_ACCOUNT_ID') ?? '*'}`;
}

export async function authorize(event: AuthorizerEvent): Promise<AuthorizerResult> {
  const mqtt = event.protocolData?.mqtt;
  const thing = (mqtt?.username ?? '').split('?')[0]!;
  if (thing === LIVE_USERNAME) return authorizeConsole(mqtt?.password, mqtt?.clientId);
  const ids = parseThingName(thing);
  const password = mqtt?.password ? Buffer.from(mqtt.password, 'base64').toString('utf8') : '';
  if (!ids || !password || mqtt?.clientId !== thing) return DENIED;
  if (!(await deviceWithSecret(ids.tenantId, ids.deviceKey, password))) {
    log('warn', 'device authentication refused', { thing });
    return DENIED;
  }
  const policy = devicePolicy(thing, policyPrefix());
  return {
    isAuthenticated: true,
    principalId: ids.deviceKey,
    disconnectAfterInSeconds: 86_400,
    refreshAfterInSeconds: REFRESH_SECONDS,
    policyDocuments: policyDocuments(policy),
  };
}

/** The route whose answer tells a console where the live channel is: a tab is admitted as that route's caller would be. */
const LIVE_ROUTE: RouteEntry = routes.find((route) => route.method === 'GET' && route.path === '/v1/systems/live')!;

/** The longest a live connection is held before it must connect again; the shortest IoT Core takes is 300 s. */
const CONSOLE_MAX_SECONDS = 86_400;

/**
 * A console tab: admitted while its session lives, as one of the session's client ids, to the
 * topics of its company that the account's rights open. It is asked again every REFRESH_SECONDS
 * and let go when the session would expire; logging out ends it at once (data/identity.ts).
 */
async function authorizeConsole(password: string | undefined, clientId: string | undefined): Promise<AuthorizerResult> {
  const token = password ? Buffer.from(password, 'base64').toString('utf8') : '';
  const parsed = parseToken(`Bearer ${token}`);
  if (!parsed || !clientId) return DENIED;
  const { tenantId, tokenHash } = parsed;
  const prefix = liveClientPrefix(tenantId, tokenHash);
  if (!clientId.startsWith(prefix) || !LIVE_TAB_ID.test(clientId.slice(prefix.length))) return DENIED;
  let found;
  try {
    found = await liveSession(tenantId, tokenHash);
    // Exactly the sessions the HTTP API serves `GET /v1/systems/live` to: the same checks, from one function
    // (a password someone else chose, a two-factor login the company requires and the account lacks).
    admit(found.session, found.account, LIVE_ROUTE.authCodes, LIVE_ROUTE.beforePasswordChange, LIVE_ROUTE.beforeTwoFactor);
  } catch {
    return DENIED;
  }
  const all = liveTopics(tenantId);
  const topics = (Object.keys(all) as LiveTopic[]).filter((topic) => holdsAny(found.account.authCodes, LIVE_TOPIC_CODES[topic])).map((topic) => all[topic]);
  if (topics.length === 0) return DENIED;
  if (!(await admitLiveClient(tenantId, tokenHash, clientId))) {
    log('warn', 'live connection refused: the session holds its most', { tenantId, clientId });
    return DENIED;
  }
  const policy = consolePolicy(clientId, topics, policyPrefix());
  const left = Math.floor((found.session.expiresAt - Date.now()) / 1000);
  return {
    isAuthenticated: true,
    principalId: `console${tenantId}`,
    disconnectAfterInSeconds: Math.max(REFRESH_SECONDS, Math.min(CONSOLE_MAX_SECONDS, left)),
    refreshAfterInSeconds: REFRESH_SECONDS,
    policyDocuments: policyDocuments(policy),
  };
}

export async function handler(event: AuthorizerEvent): Promise<AuthorizerResult> {
  return authorize(event);
}
