import type { CommandState, CommandType, DeviceLogCode, DeviceLogEntry, DeviceSettings, SettingName } from '@passcloud/functions/contract/devices';
import { api } from '../../app/api.ts';

/** A face terminal as the console sees it (GET /v1/devices/{deviceKey}). */
export interface Device {
  deviceKey: string;
  thingName: string;
  name: string;
  groupKey: string | null;
  serial: string;
  model: string;
  online: boolean;
  lastSeenAt: string | null;
  appVersion: string;
  ip: string;
  mac: string;
  firmware: string;
  /** Free and total storage in bytes. */
  storage: { freeBytes: number; totalBytes: number };
  timezone: string;
  cameraResolution: string;
  previewResolution: string;
  companyName: string;
  /** What the console asked for (complete). */
  settings: DeviceSettings;
  /** What the device last said it holds. */
  reported: Partial<DeviceSettings>;
  /** Settings the device has not confirmed yet. */
  pending: SettingName[];
  createTime: string;
  /** A terminal that bound itself again under this serial, waiting for approval. */
  replacement: Replacement | null;
  version: number;
}

export interface Replacement {
  requestTime: string;
  model?: string;
  mac: string;
  ip: string;
  firmware: string;
  appVersion: string;
}

/** A deleted terminal asking to be added again (GET /v1/devices/requests). */
export interface DeviceRequest {
  requestKey: string;
  serial: string;
  model: string;
  mac: string;
  ip: string;
  firmware: string;
  appVersion: string;
  requestTime: string;
  deleteTime: string;
  version: number;
}

export interface DevicePage {
  items: Device[];
  nextCursor: string | null;
  total: number;
  online: number;
  offline: number;
}

export interface DeviceGroup {
  groupKey: string;
  name: string;
  type: 'device';
  version: number;
}

export interface Command {
  commandKey: string;
  type: CommandType;
  state: CommandState;
  error?: string;
  createTime: string;
  finishTime?: string;
}

export interface Photo {
  state: 'none' | 'pending' | 'ready' | 'failed';
  url?: string;
  captureTime?: string;
  message: string;
}

/** A device log entry (GET /v1/devices/{deviceKey}/logs): a code with its parameters, shown translated. */
export interface LogEntry {
  logKey: string;
  time: string;
  level: 'info' | 'warn' | 'error';
  code: DeviceLogCode;
  params: NonNullable<DeviceLogEntry['params']>;
  /** A vendor's own text, for the code `other`. */
  message: string | null;
}

export const DEVICE_LIST = '/pass-platform/device/management';
export const deviceScreen = (deviceKey: string): string => `${DEVICE_LIST}/${deviceKey}`;
export const devicePath = (deviceKey: string): string => `/v1/devices/${encodeURIComponent(deviceKey)}`;

export const loadDeviceGroups = () => api.get<{ items: DeviceGroup[] }>('/v1/groups', { query: { type: 'device' } }).then((p) => p.items);

/** Queues a command; the request client shows why when the device refuses (offline: 409). */
export const sendCommand = (deviceKey: string, type: CommandType) => api.post<Command>(`${devicePath(deviceKey)}/commands`, { type });
