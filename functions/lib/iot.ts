import { DeleteConnectionCommand, DeleteThingShadowCommand, GetThingShadowCommand, IoTDataPlaneClient, PublishCommand, UpdateThingShadowCommand } from '@aws-sdk/client-iot-data-plane';
import { env } from './env.ts';
import { guardClient } from './localRole.ts';

/**
 * Device shadows and commands through the IoT data plane. On AWS `IOT_DATA_ENDPOINT` is the
 * account's ATS data endpoint; on the local host it is the IoT stand-in, which speaks the same
 * REST protocol and checks the same Signature V4, so this code is the same in both places.
 */
export const region = () => env('AWS_REGION') ?? 'us-east-1';

/**
 * The local stand-in makes up its credentials at start and the local host passes them on in
 * these variables; on AWS the function's role signs instead.
 */
function localCredentials(): { accessKeyId: string; secretAccessKey: string } {
  const accessKeyId = env('IOT_DATA_ACCESS_KEY_ID');
  const secretAccessKey = env('IOT_DATA_SECRET_ACCESS_KEY');
  if (!accessKeyId || !secretAccessKey) throw new Error('IOT_DATA_ACCESS_KEY_ID and IOT_DATA_SECRET_ACCESS_KEY must be set for a local IOT_DATA_ENDPOINT');
  return { accessKeyId, secretAccessKey };
}

let dataClient: IoTDataPlaneClient | undefined;
function data(): IoTDataPlaneClient {
  if (!dataClient) {
    const endpoint = env('IOT_DATA_ENDPOINT');
    if (!endpoint) throw new Error('IOT_DATA_ENDPOINT is not set');
    const local = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(endpoint);
    dataClient = new IoTDataPlaneClient({ region: region(), endpoint, ...(local ? { credentials: localCredentials() } : {}) });
    guardClient(dataClient, 'iot-data');
  }
  return dataClient;
}

export function resetIotClients(): void {
  dataClient = undefined;
}

export interface ShadowState {
  desired?: Record<string, unknown> | null;
  reported?: Record<string, unknown> | null;
  delta?: Record<string, unknown>;
}
export interface ShadowDocument {
  state: ShadowState;
  version: number;
  timestamp?: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Merges `desired` into the thing's shadow and answers the shadow's new version. */
export async function updateDesired(thing: string, desired: Record<string, unknown>): Promise<number> {
  const out = await data().send(new UpdateThingShadowCommand({ thingName: thing, payload: encoder.encode(JSON.stringify({ state: { desired } })) }));
  const doc = JSON.parse(decoder.decode(out.payload)) as { version: number };
  return doc.version;
}

export async function getShadow(thing: string): Promise<ShadowDocument | undefined> {
  try {
    const out = await data().send(new GetThingShadowCommand({ thingName: thing }));
    return JSON.parse(decoder.decode(out.payload)) as ShadowDocument;
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

export async function deleteShadow(thing: string): Promise<void> {
  try {
    await data().send(new DeleteThingShadowCommand({ thingName: thing }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
}

/**
 * Ends the MQTT connection of a thing now (a deleted device, a unit an approved replacement
 * superseded), instead of when the broker next re-checks its credentials; its next CONNECT is
 * refused. Nothing to do when it is not connected.
 */
export async function disconnect(thing: string): Promise<void> {
  try {
    await data().send(new DeleteConnectionCommand({ clientId: thing, cleanSession: true, preventWillMessage: true }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
}

/** Publishes a JSON message at QoS 1. */
export async function publish(topic: string, message: unknown): Promise<void> {
  await data().send(new PublishCommand({ topic, qos: 1, payload: encoder.encode(JSON.stringify(message)) }));
}
