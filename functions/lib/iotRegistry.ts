import type { IoTClient } from '@aws-sdk/client-iot';
import { env } from './env.ts';
import { region } from './iot.ts';

/**
 * The thing registry. On AWS each bound device becomes a thing of `IOT_THING_TYPE`; the local
 * broker keeps no registry, so without that variable these do nothing.
 */
let registryClient: IoTClient | undefined;
/** The IoT control-plane client and commands, loaded when a thing is first registered or removed (binding and deleting devices). */
async function registry() {
  const sdk = await import('@aws-sdk/client-iot');
  registryClient ??= new sdk.IoTClient({ region: region() });
  return { client: registryClient, sdk };
}

export async function registerThing(thing: string, attributes: Record<string, string>): Promise<void> {
  const thingTypeName = env('IOT_THING_TYPE');
  if (!thingTypeName) return;
  try {
    const { client, sdk } = await registry();
    await client.send(new sdk.CreateThingCommand({ thingName: thing, thingTypeName, attributePayload: { attributes, merge: true } }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceAlreadyExistsException') throw error;
  }
}

export async function unregisterThing(thing: string): Promise<void> {
  if (!env('IOT_THING_TYPE')) return;
  try {
    const { client, sdk } = await registry();
    await client.send(new sdk.DeleteThingCommand({ thingName: thing }));
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
  }
}

/** Where devices connect: the broker URL and, on AWS, the custom authorizer to name in the username. */
export function brokerAddress(): { url: string; usernameSuffix: string } {
  const url = env('IOT_MQTT_URL');
  if (!url) throw new Error('IOT_MQTT_URL is not set');
  const authorizer = env('IOT_AUTHORIZER_NAME');
  return { url, usernameSuffix: authorizer ? `?x-amz-customauthorizer-name=${encodeURIComponent(authorizer)}` : '' };
}
