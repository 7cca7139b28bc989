import { DeleteThingShadowCommand, GetThingShadowCommand, IoTDataPlaneClient, PublishCommand, UpdateThingShadowCommand } from '@aws-sdk/client-iot-data-plane';
import { CreateThingCommand, DeleteThingCommand, IoTClient } from '@aws-sdk/client-iot';

/**
 * Device shadows and commands through the IoT data plane. On AWS `IOT_DATA_ENDPOINT` is the
 * account's ATS data endpoint; on the local host it is the IoT stand-in, which speaks the same
 * REST protocol and checks the same Signature V4, so this code is the same in both places.
 */
const region = () => process.env.AWS_REGION ?? 'us-east-1';

/**
 * The local stand-in makes up its credentials at start and the local host passes them on in
 * these variables; on AWS the function's role signs instead.
 */
function localCredentials(): { accessKeyId: string; secretAccessKey: string } {
  const accessKeyId = process.env.IOT_DATA_ACCESS_KEY_ID;
  const secretAccessKey = process.env.IOT_DATA_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) throw new Error('IOT_DATA_ACCESS_KEY_ID and IOT_DATA_SECRET_ACCESS_KEY must be set for a local IOT_DATA_ENDPOINT');
  return { accessKeyId, secretAccessKey };
}

let dataClient: IoTDataPlaneClient | undefined;
function data(): IoTDataPlaneClient {
  if (!dataClient) {
    const endpoint = process.env.IOT_DATA_ENDPOINT;
    if (!endpoint) throw new Error('IOT_DATA_ENDPOINT is not set');
    const local = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/.test(endpoint);
    dataClient = new IoTDataPlaneClient({ region: region(), endpoint, ...(local ? { credentials: localCredentials() } : {}) });
  }
  return dataClient;
}

export function resetIotClients(): void {
  dataClient = undefined;
  registryClient = undefined;
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

/** Publishes a JSON message at QoS 1. */
export async function publish(topic: string, message: unknown): Promise<void> {
  await data().send(new PublishCommand({ topic, qos: 1, payload: encoder.encode(JSON.stringify(message)) }));
}

/**
 * The thing registry. On AWS each bound device becomes a thing of `IOT_THING_TYPE`; the local
 * broker keeps no registry, so without that variable these do nothing.
 */
let registryClient: IoTClient | undefined;
const registry = () => (registryClient ??= new IoTClient({ region: region() }));

export async function registerThing(thing: string, attributes: Record<string, string>): Promise<void> {
  const thingTypeName = process.env.IOT_THING_TYPE;
  if (!thingTypeName) return;
  try {
    await registry().send(new CreateThingCommand({ thingName: thing, thingTypeName, attributePayload: { attributes, merge: true } }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceAlreadyExistsException') throw error;
  }
}

export async function unregisterThing(thing: string): Promise<void> {
  if (!process.env.IOT_THING_TYPE) return;
  try {
    await registry().send(new DeleteThingCommand({ thingName: thing }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
}

/** Where devices connect: the broker URL and, on AWS, the custom authorizer to name in the username. */
export function brokerAddress(): { url: string; usernameSuffix: string } {
  const url = process.env.IOT_MQTT_URL;
  if (!url) throw new Error('IOT_MQTT_URL is not set');
  const authorizer = process.env.IOT_AUTHORIZER_NAME;
  return { url, usernameSuffix: authorizer ? `?x-amz-customauthorizer-name=${encodeURIComponent(authorizer)}` : '' };
}
