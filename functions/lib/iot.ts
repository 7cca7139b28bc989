import type { IoTDataPlaneClient } from '@aws-sdk/client-iot-data-plane';
import { env } from './env.ts';
import { guardClient } from './localRole.ts';

/**
 * Device shadows and commands through the IoT data plane. On AWS `IOT_DATA_ENDPOINT` is the
 * account's ATS data endpoint; on the local host it is the IoT stand-in, which speaks the same
 * REST protocol and checks the same Signature V4, so this code is the same in both places. The
 * client and its commands are loaded on first use: most requests of the functions that may reach
 * a device reach none, so none loads them at start.
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

const sdk = () => import('@aws-sdk/client-iot-data-plane');

let dataClient: Promise<IoTDataPlaneClient> | undefined;
function client(): Promise<IoTDataPlaneClient> {
  if (dataClient) return dataClient;
  const endpoint = env('IOT_DATA_ENDPOINT');
  if (!endpoint) throw new Error('IOT_DATA_ENDPOINT is not set');
  const starting = sdk().then(({ IoTDataPlaneClient }) => {
    const local = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(endpoint);
    const made = new IoTDataPlaneClient({ region: region(), endpoint, ...(local ? { credentials: localCredentials() } : {}) });
    guardClient(made, 'iot-data');
    return made;
  });
  // A failed start is not kept: the next call tries again.
  starting.catch(() => {
    if (dataClient === starting) dataClient = undefined;
  });
  return (dataClient = starting);
}

/** The data plane's commands and its client, loaded on first use. */
async function data() {
  const [commands, dataPlane] = await Promise.all([sdk(), client()]);
  return { ...commands, dataPlane };
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
  const { dataPlane, UpdateThingShadowCommand } = await data();
  const out = await dataPlane.send(new UpdateThingShadowCommand({ thingName: thing, payload: encoder.encode(JSON.stringify({ state: { desired } })) }));
  const doc = JSON.parse(decoder.decode(out.payload)) as { version: number };
  return doc.version;
}

export async function getShadow(thing: string): Promise<ShadowDocument | undefined> {
  try {
    const { dataPlane, GetThingShadowCommand } = await data();
    const out = await dataPlane.send(new GetThingShadowCommand({ thingName: thing }));
    return JSON.parse(decoder.decode(out.payload)) as ShadowDocument;
  } catch (error) {
    if ((error as { name?: string }).name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

export async function deleteShadow(thing: string): Promise<void> {
  try {
    const { dataPlane, DeleteThingShadowCommand } = await data();
    await dataPlane.send(new DeleteThingShadowCommand({ thingName: thing }));
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
    const { dataPlane, DeleteConnectionCommand } = await data();
    await dataPlane.send(new DeleteConnectionCommand({ clientId: thing, cleanSession: true, preventWillMessage: true }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
}

/** Publishes a JSON message at QoS 1. */
export async function publish(topic: string, message: unknown): Promise<void> {
  const { dataPlane, PublishCommand } = await data();
  await dataPlane.send(new PublishCommand({ topic, qos: 1, payload: encoder.encode(JSON.stringify(message)) }));
}
