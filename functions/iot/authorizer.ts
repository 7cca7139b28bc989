import { parseThingName } from '#contract/protocol';
import { deviceWithSecret } from '#data/devices';
import { log } from '#lib/log';
import { devicePolicy, type PolicyDocument } from './policy.ts';
import { env, declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['EVENTS_TABLE', 'IOT_POLICY_PREFIX', 'MAIN_TABLE']);

/**
 * The IoT Core custom authorizer for face terminals (MQTT username/password). The username is
 * the thing name (AWS appends `?x-amz-customauthorizer-name=...`), the password the secret
 * issued at binding. The local broker calls this same handler for every connection.
 */
export interface AuthorizerEvent {
  protocols?: string[];
  protocolData?: { mqtt?: { username?: string; password?: string; clientId?: string } };
  connectionMetadata?: { id?: string };
}

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

export async function authorize(event: AuthorizerEvent): Promise<AuthorizerResult & { policies: PolicyDocument[] }> {
  const mqtt = event.protocolData?.mqtt;
  const thing = (mqtt?.username ?? '').split('?')[0]!;
  const ids = parseThingName(thing);
  const password = mqtt?.password ? Buffer.from(mqtt.password, 'base64').toString('utf8') : '';
  if (!ids || !password || mqtt?.clientId !== thing) return { ...DENIED, policies: [] };
  if (!(await deviceWithSecret(ids.tenantId, ids.deviceKey, password))) {
    log('warn', 'device authentication refused', { thing });
    return { ...DENIED, policies: [] };
  }
  const policy = devicePolicy(thing, policyPrefix());
  return {
    isAuthenticated: true,
    principalId: ids.deviceKey,
    disconnectAfterInSeconds: 86_400,
    refreshAfterInSeconds: REFRESH_SECONDS,
    policyDocuments: [JSON.stringify(policy)],
    policies: [policy],
  };
}

export async function handler(event: AuthorizerEvent): Promise<AuthorizerResult> {
  const { policies: _policies, ...result } = await authorize(event);
  return result;
}
