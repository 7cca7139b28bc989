import { deviceTopics, thingName, type CommandMessage } from '#contract/protocol';
import { type Device } from '#data/devices';
import { createCommand, type DeviceCommand } from '#data/deviceEvents';
import { noteDoorOpened } from '#data/intercomCalls';
import { publish } from '#lib/iot';

/** Sends a door station `openDoor` for a call; the call says when it opened once the station reports it done. */
export async function openDoorDuringCall(station: Device, callId: string, otherEnd?: string): Promise<DeviceCommand> {
  const command = await createCommand(station.tenantId, station.deviceKey, 'openDoor', { callId, ...(otherEnd ? { askedBy: otherEnd } : {}) });
  const message: CommandMessage = { commandKey: command.commandKey, type: 'openDoor', issuedAt: Date.parse(command.createdAt), callId };
  await publish(deviceTopics(thingName(station.tenantId, station.deviceKey)).commands, message);
  return command;
}

/** A door station reported an `openDoor` of a call done: the call says when. */
export async function doorOpenedDuringCall(tenantId: string, command: DeviceCommand, at: Date): Promise<void> {
  if (!command.callId) return;
  await noteDoorOpened(tenantId, command.callId, at.toISOString());
}
