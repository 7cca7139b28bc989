import type {
  CommandType,
  DeviceCommandJson,
  DeviceLogPage,
  DevicePageJson,
  DevicePhotoJson,
  DeviceRequestJson,
  DeviceView,
} from '@passcloud/functions/contract/devices';
import type { GroupJson } from '@passcloud/functions/contract/people';
import { api } from '../../app/api.ts';

/** What the device routes answer (functions/contract/devices.ts). */
export type Device = DeviceView;
export type Replacement = NonNullable<DeviceView['replacement']>;
export type DeviceRequest = DeviceRequestJson;
export type DevicePage = DevicePageJson;
export type DeviceGroup = GroupJson;
export type Command = DeviceCommandJson;
export type Photo = DevicePhotoJson;
export type LogEntry = DeviceLogPage['items'][number];

export const DEVICE_LIST = '/pass-platform/device/management';
export const deviceScreen = (deviceKey: string): string => `${DEVICE_LIST}/${deviceKey}`;
export const devicePath = (deviceKey: string): string => `/v1/devices/${encodeURIComponent(deviceKey)}`;

/** The query key of a device's recent commands: sending one refreshes it. */
export const commandsKey = (deviceKey: string) => ['devices', deviceKey, 'commands'];

/** Queues a command; the request client shows why when the device refuses (offline: 409). */
export const sendCommand = (deviceKey: string, type: CommandType) => api.post<Command>(`${devicePath(deviceKey)}/commands`, { type });
