import { thingName } from '#contract/protocol';
import { deleteDevice, type Device } from '#data/devices';
import { dropDeviceEvents } from '#data/deviceEvents';
import { dropDoorMode } from '#data/doorModes';
import { deleteShadow, disconnect } from '#lib/iot';
import { unregisterThing } from '#lib/iotRegistry';

/**
 * Deletes a device of any kind at the version the administrator saw: its record, seat and claims
 * go in one transaction (data/devices.ts deleteDevice), then its thing, shadow, log, commands and door mode,
 * and its connection ends: its credentials no longer work.
 */
export async function removeDevice(device: Device, version: number): Promise<void> {
  await deleteDevice(device.tenantId, device, version);
  const thing = thingName(device.tenantId, device.deviceKey);
  await Promise.all([
    deleteShadow(thing),
    unregisterThing(thing),
    dropDeviceEvents(device.tenantId, device.deviceKey),
    dropDoorMode(device.tenantId, device.deviceKey),
    disconnect(thing),
  ]);
}
