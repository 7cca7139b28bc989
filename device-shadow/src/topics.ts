import type { DeviceCommandType, DeviceInfo, DeviceLogEntry } from '@passcloud/functions/contract/devices';

/**
 * The MQTT topics between Pass Cloud and its devices. Every topic names the device's thing, and
 * a thing name carries its tenant and device key, so the broker policy can hold a device to its
 * own topics and the ingest handlers know whose message it is without trusting the payload.
 */

/** `<tenantId>_<deviceKey>`: ids use lower-case letters and digits only, so `_` separates them. */
export const thingName = (tenantId: string, deviceKey: string): string => `${tenantId}_${deviceKey}`;

export function parseThingName(name: string): { tenantId: string; deviceKey: string } | undefined {
  const match = /^([0-9a-z]{8,32})_([0-9a-z]{8,32})$/.exec(name);
  return match ? { tenantId: match[1]!, deviceKey: match[2]! } : undefined;
}

/** Topics a device publishes on (up) or receives (down), under `pc/<thingName>/`. */
export const deviceTopics = (thing: string) => ({
  heartbeat: `pc/${thing}/heartbeat`,
  logs: `pc/${thing}/logs`,
  commandResult: `pc/${thing}/commands/result`,
  commands: `pc/${thing}/commands`,
});

export const shadowTopics = (thing: string) => {
  const base = `$aws/things/${thing}/shadow`;
  return {
    update: `${base}/update`,
    updateAccepted: `${base}/update/accepted`,
    updateRejected: `${base}/update/rejected`,
    updateDelta: `${base}/update/delta`,
    updateDocuments: `${base}/update/documents`,
    get: `${base}/get`,
    getAccepted: `${base}/get/accepted`,
    getRejected: `${base}/get/rejected`,
  };
};

/** AWS IoT lifecycle topics, published by the broker when a client connects or disconnects. */
export const presenceTopic = (event: 'connected' | 'disconnected', clientId: string): string => `$aws/events/presence/${event}/${clientId}`;

/** Topic filters the ingest rules listen on (AWS topic rules and the local rules adapter alike). */
export const RULE_FILTERS = {
  heartbeats: 'pc/+/heartbeat',
  logs: 'pc/+/logs',
  commandResults: 'pc/+/commands/result',
  shadowDocuments: '$aws/things/+/shadow/update/documents',
  presence: '$aws/events/presence/+/+',
} as const;

/** Messages a device publishes. */
export interface HeartbeatMessage {
  time: number;
  info: DeviceInfo;
}
export interface LogMessage {
  /** Up to 100 entries; see DEVICE_LOG_CODES for the codes and their parameters. */
  entries: DeviceLogEntry[];
}
export interface CommandResultMessage {
  commandKey: string;
  ok: boolean;
  error?: string;
}
/**
 * A command the cloud sends; `upload` is a presigned PUT for `capturePhoto`; `app` is the new
 * client package of `updateApp`: its version, a presigned GET, its SHA-256 (hex) and size in bytes.
 */
export interface CommandMessage {
  commandKey: string;
  type: DeviceCommandType;
  issuedAt: number;
  upload?: { url: string; contentType: string };
  app?: AppUpdate;
}
export interface AppUpdate {
  version: string;
  url: string;
  sha256: string;
  size: number;
}

/** What binding answers: the thing to be and how to reach the broker. */
export interface BindResult {
  /**
   * `bound`: a new device, the credentials work now. `pendingApproval`: the company already has a
   * device with this serial; the credentials work once an administrator approves the replacement.
   */
  state: 'bound' | 'pendingApproval';
  deviceKey: string;
  thingName: string;
  mqtt: { url: string; clientId: string; username: string; password: string };
}
