import * as z from 'zod';
import { itemKey, pageCursor } from './fields.ts';
import { LOG_LEVELS, deviceLogParams } from './deviceLogs.ts';
import { deviceDoorMode } from './doorModes.ts';

/**
 * Face-terminal settings of SPEC.md §3 "Device", as the API and the console name them. The
 * device side spells them differently and in its own units (contract/shadow.ts); both
 * sides validate with these schemas.
 */

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'devices.clockFormat' });
/** Degrees Celsius with one decimal. */
const celsius = (min: number, max: number) =>
  z
    .number()
    .min(min)
    .max(max)
    .refine((v) => Math.abs(Math.round(v * 10) - v * 10) < 1e-6, { message: 'devices.oneDecimal' });

export const RELAY_MODES = ['normallyOpen', 'normallyClosed'] as const;
export const SUCCESS_DISPLAYS = ['photo', 'name'] as const;
export const OFFSET_MODES = ['normal', 'high'] as const;
export const TEMPERATURE_SCENES = ['indoor', 'outdoor'] as const;
export const TEMPERATURE_DISPLAYS = ['celsius', 'fahrenheit', 'hidden'] as const;
export const SWIPE_CARD_POLICIES = ['cardOnly', 'cardOrFace', 'cardAndFace'] as const;
/** SPEC.md §4 device availability: 1 with identity recognition, 2 without, 0 not available. */
export const DOOR_OPENING_MODES = ['recognition', 'noRecognition', 'disabled'] as const;

export const settingFields = {
  // Basic
  startOnBoot: z.boolean(),
  screensaverBrightness: z.number().int().min(0).max(100),
  volume: z.number().int().min(0).max(100),
  // Startup and shutdown timing
  timingSwitch: z.boolean(),
  startupTime: clock,
  shutdownTime: clock,
  // Pass settings
  relayDelay: z.number().int().min(1).max(60),
  relayMode: z.enum(RELAY_MODES),
  recognitionLamp: z.boolean(),
  failRedLight: z.boolean(),
  successDisplay: z.enum(SUCCESS_DISPLAYS),
  maskDetection: z.boolean(),
  strangerPass: z.boolean(),
  strangerRecord: z.boolean(),
  liveness: z.boolean(),
  verifyThreshold: z.number().int().min(50).max(100),
  identifyCount: z.number().int().min(1).max(5),
  swipeCardPolicy: z.enum(SWIPE_CARD_POLICIES),
  // Temperature measurement
  temperatureAlarm: z.boolean(),
  temperatureThreshold: celsius(35, 42),
  minPassTemperature: celsius(30, 37),
  fan: z.boolean(),
  temperatureOffsetMode: z.enum(OFFSET_MODES),
  temperatureScene: z.enum(TEMPERATURE_SCENES),
  temperatureDisplay: z.enum(TEMPERATURE_DISPLAYS),
  // Door-opening mode
  doorOpeningMode: z.enum(DOOR_OPENING_MODES),
  // Other
  appPassword: z.string().regex(/^\d{4,8}$/, { message: 'devices.appPasswordFormat' }),
  autoRestart: z.boolean(),
  appDaemon: z.boolean(),
  acceleration: z.boolean(),
  standbyAdvertising: z.boolean(),
};

export type SettingName = keyof typeof settingFields;
export const SETTING_NAMES = Object.keys(settingFields) as SettingName[];

/** A complete set of settings: what a device holds. */
export const deviceSettings = z.object(settingFields).strict();
export type DeviceSettings = z.output<typeof deviceSettings>;

const refineSettings = <T extends Partial<DeviceSettings>>(value: T, ctx: z.RefinementCtx) => {
  const threshold = value.temperatureThreshold;
  const minimum = value.minPassTemperature;
  if (threshold !== undefined && minimum !== undefined && minimum >= threshold) {
    ctx.addIssue({ code: 'custom', path: ['minPassTemperature'], message: 'devices.minBelowThreshold' });
  }
  if (value.timingSwitch && value.startupTime !== undefined && value.startupTime === value.shutdownTime) {
    ctx.addIssue({ code: 'custom', path: ['shutdownTime'], message: 'devices.sameStartupShutdown' });
  }
};

/** A complete set checked with the rules between fields. */
export const completeSettings = deviceSettings.superRefine(refineSettings);

/** Any subset of the settings: what a console PATCH sends. */
export const settingsPatch = z.object(settingFields).partial().strict().superRefine(refineSettings);
export type SettingsPatch = z.output<typeof settingsPatch>;

/** The values a newly bound device is given. */
export const DEFAULT_SETTINGS: DeviceSettings = {
  startOnBoot: true,
  screensaverBrightness: 30,
  volume: 60,
  timingSwitch: false,
  startupTime: '07:00',
  shutdownTime: '22:00',
  relayDelay: 5,
  relayMode: 'normallyClosed',
  recognitionLamp: true,
  failRedLight: true,
  successDisplay: 'photo',
  maskDetection: false,
  strangerPass: false,
  strangerRecord: true,
  liveness: true,
  verifyThreshold: 80,
  identifyCount: 1,
  swipeCardPolicy: 'cardOrFace',
  temperatureAlarm: true,
  temperatureThreshold: 37.3,
  minPassTemperature: 35,
  fan: true,
  temperatureOffsetMode: 'normal',
  temperatureScene: 'indoor',
  temperatureDisplay: 'celsius',
  doorOpeningMode: 'recognition',
  appPassword: '123456',
  autoRestart: false,
  appDaemon: true,
  acceleration: true,
  standbyAdvertising: false,
};

/** Sections of the device detail screen, and the settings each holds. */
export const SETTING_SECTIONS = {
  temperature: ['temperatureAlarm', 'temperatureThreshold', 'minPassTemperature', 'fan', 'temperatureOffsetMode', 'temperatureScene', 'temperatureDisplay'],
  pass: [
    'relayDelay',
    'relayMode',
    'recognitionLamp',
    'failRedLight',
    'successDisplay',
    'maskDetection',
    'strangerPass',
    'strangerRecord',
    'liveness',
    'verifyThreshold',
    'identifyCount',
    'swipeCardPolicy',
  ],
  doorOpening: ['doorOpeningMode'],
  timing: ['timingSwitch', 'startupTime', 'shutdownTime'],
  other: ['startOnBoot', 'screensaverBrightness', 'volume', 'appPassword', 'autoRestart', 'appDaemon', 'acceleration', 'standbyAdvertising'],
} as const satisfies Record<string, readonly SettingName[]>;

/** Facts a device reports about itself with every heartbeat. */
export const deviceInfo = z
  .object({
    serial: z.string().min(1).max(64),
    mac: z.string().regex(/^([0-9A-Fa-f]{2}:){5}[0-9A-Fa-f]{2}$/, { message: 'devices.macFormat' }),
    ip: z.string().max(64),
    model: z.string().max(64).optional(),
    firmware: z.string().max(64),
    appVersion: z.string().max(64),
    /** Free and total storage in bytes; the console formats them in the reader's language. */
    storage: z.object({ freeBytes: z.number().int().min(0), totalBytes: z.number().int().min(0) }).strict(),
    timezone: z.string().max(64),
    cameraResolution: z.string().max(32),
    previewResolution: z.string().max(32),
    /** How many faces the terminal holds and how many it can hold; the grant wizard warns before the capacity is passed. */
    faces: z.object({ count: z.number().int().min(0), capacity: z.number().int().min(0) }).strict().optional(),
    /** The smallest photo the terminal enrols a face from, long side × short side; the console refuses smaller ones while it is bound. */
    enrolment: z.object({ minWidth: z.number().int().min(1).max(4096), minHeight: z.number().int().min(1).max(2688) }).strict().optional(),
    /** Intercoms: the strength of the network signal in dBm (-120 weakest to 0). */
    signal: z.number().int().min(-120).max(0).optional(),
    /** Intercoms: the name of the intercom client software the device runs. */
    clientName: z.string().max(64).optional(),
  })
  .strict();
export type DeviceInfo = z.output<typeof deviceInfo>;

export const COMMAND_TYPES = ['openDoor', 'closeDoor', 'reboot', 'capturePhoto'] as const;
export type CommandType = (typeof COMMAND_TYPES)[number];
/**
 * Commands the cloud issues on its own: `updateApp` tells a terminal of a new client package
 * (system settings); the console cannot send it through the device's commands route.
 */
export const DEVICE_COMMAND_TYPES = [...COMMAND_TYPES, 'updateApp'] as const;
export type DeviceCommandType = (typeof DEVICE_COMMAND_TYPES)[number];
export const COMMAND_STATES = ['queued', 'succeeded', 'failed', 'timedOut'] as const;
export type CommandState = (typeof COMMAND_STATES)[number];
/** A command not answered within this time is reported as timed out. */
export const COMMAND_TIMEOUT_MS = 20_000;

const key = itemKey;

export const deviceKeyParams = z.object({ deviceKey: key });
export const deviceListQuery = z.object({
  pageSize: z.coerce.number().int().min(1).max(200).default(20),
  cursor: pageCursor.optional(),
  keyword: z.string().trim().max(64).optional(),
  groupKey: key.optional(),
  online: z.enum(['true', 'false']).optional(),
});
export const devicePatchBody = z
  .object({
    name: z.string().trim().min(1).max(64).optional(),
    groupKey: z.union([key, z.null()]).optional(),
    settings: settingsPatch.optional(),
    version: z.number().int().min(1),
  })
  .strict();
export const batchSettingsBody = z
  .object({
    deviceKeys: z.array(key).min(1).max(500),
    settings: settingsPatch.refine((s) => Object.keys(s).length > 0, { message: 'devices.noSettings' }),
  })
  .strict();
export const commandBody = z.object({ type: z.enum(COMMAND_TYPES) }).strict();
/** Approves the pending replacement shown at this device version. */
export const replacementBody = z.object({ version: z.number().int().min(1) }).strict();
/** Requests of deleted terminals to be added again. */
export const requestKeyParams = z.object({ requestKey: key });
export const requestListQuery = z.object({
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
  cursor: key.optional(),
});
export const logsQuery = z.object({
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z
    .string()
    .regex(/^[0-9a-z]{22}$/, { message: 'error.badCursor' })
    .optional(),
});

/**
 * What a bound device is: a face terminal (the pass platform's devices), or an intercom of the
 * intercom platform: a door station at an entrance or an indoor monitor in a flat or an office.
 * All take a licence seat; each platform lists only its own kinds.
 */
export const DEVICE_KINDS = ['faceTerminal', 'doorStation', 'indoorMonitor'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];
export const INTERCOM_KINDS = ['doorStation', 'indoorMonitor'] as const satisfies readonly DeviceKind[];
export type IntercomKind = (typeof INTERCOM_KINDS)[number];

/** What a device sends to bind itself to a tenant with the tenant's device binding code. */
export const bindBody = z
  .object({
    /** Absent for a face terminal. */
    kind: z.enum(DEVICE_KINDS).optional(),
    userCode: z.string().trim().min(4).max(16),
    serial: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .regex(/^[0-9A-Za-z-]+$/, { message: 'devices.serialFormat' }),
    info: deviceInfo.omit({ serial: true }),
  })
  .strict();

// What the console's device routes answer.

const nextCursor = z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' });
/** What a device said about itself, without its serial number. */
const reportedFacts = deviceInfo.omit({ serial: true });

/** A face terminal as the console shows it (`GET /v1/devices/{deviceKey}`, and every route that changes one). */
export const deviceView = z.object({
  deviceKey: z.string(),
  thingName: z.string().meta({ description: 'The device’s thing in AWS IoT, its MQTT client id' }),
  name: z.string(),
  groupKey: z.string().nullable().meta({ description: 'Its device group; null when in none' }),
  serial: z.string(),
  model: z.string().meta({ description: 'Empty when the device has not said' }),
  online: z.boolean(),
  lastSeenAt: z.iso.datetime().nullable().meta({ description: 'When it last connected or sent a heartbeat; null when never' }),
  appVersion: z.string(),
  ip: z.string(),
  mac: z.string(),
  firmware: z.string(),
  storage: deviceInfo.shape.storage.meta({ description: 'Free and total storage in bytes' }),
  timezone: z.string(),
  cameraResolution: z.string(),
  previewResolution: z.string(),
  companyName: z.string(),
  settings: deviceSettings.meta({ description: 'The settings the console wants the device to have' }),
  reported: z.object(settingFields).partial().meta({ description: 'The settings the device last confirmed it has' }),
  pending: z.array(deviceSettings.keyof()).meta({ description: 'Settings whose wanted value the device has not confirmed yet' }),
  createTime: z.iso.datetime(),
  replacement: reportedFacts
    .extend({ requestTime: z.iso.datetime().meta({ description: 'When the other unit bound itself under this serial number' }) })
    .nullable()
    .meta({
      description:
        'Another unit that bound itself under this device’s serial number (a replaced or factory-reset terminal, or someone posing as one), with what it said about itself: it works only once approved. Null when none waits',
    }),
  doorMode: deviceDoorMode.meta({ description: 'The door mode the console set for the terminal and the one it reports it applies (/v1/doorModes)' }),
  version: z.number().int().meta({ description: 'Send it back to change the device' }),
});

export type DeviceView = z.output<typeof deviceView>;

/** `GET /v1/devices`: a page of face terminals, with the counts over everything the filter covers. */
export const devicePage = z.object({
  items: z.array(deviceView),
  nextCursor,
  total: z.number().int().meta({ description: 'Devices the filter covers, all pages' }),
  online: z.number().int().meta({ description: 'Of `total`, how many are online' }),
  offline: z.number().int().meta({ description: 'Of `total`, how many are offline' }),
});

/** `POST /v1/devices/batchSettings`: how many devices were changed. */
export const batchSettingsAnswer = z.object({ updated: z.number().int().meta({ description: 'Devices whose settings were changed' }) });

/** `GET /v1/devices/requests`: deleted terminals asking to be added again, with what they said about themselves. */
export const deviceRequestPage = z.object({
  items: z.array(
    reportedFacts.extend({
      requestKey: z.string().meta({ description: 'Becomes the device’s key once approved' }),
      serial: z.string(),
      model: z.string().meta({ description: 'Empty when the device has not said' }),
      requestTime: z.iso.datetime().meta({ description: 'When the terminal asked' }),
      deleteTime: z.iso.datetime().meta({ description: 'When the device with this serial number was deleted' }),
      version: z.number().int().meta({ description: 'Send it back to approve or reject the request' }),
    }),
  ),
  nextCursor,
});

export type DevicePageJson = z.output<typeof devicePage>;
export type DeviceRequestJson = z.output<typeof deviceRequestPage>['items'][number];

/** A command sent to a device, and how it went (`POST /v1/devices/{deviceKey}/commands`). */
export const deviceCommand = z.object({
  commandKey: z.string(),
  type: z.enum(DEVICE_COMMAND_TYPES),
  state: z.enum(COMMAND_STATES).meta({ description: `\`timedOut\`: the device did not answer within ${COMMAND_TIMEOUT_MS / 1000} seconds` }),
  error: z.string().optional().meta({ description: 'The device’s reason for a failure, as it gave it' }),
  createTime: z.iso.datetime(),
  finishTime: z.iso.datetime().optional().meta({ description: 'When the device answered; absent while it has not' }),
});

export type DeviceCommandJson = z.output<typeof deviceCommand>;

/** `GET /v1/devices/{deviceKey}/commands`: the device's latest commands, newest first, in one page. */
export const deviceCommandList = z.object({
  items: z.array(deviceCommand),
  nextCursor: z.null().meta({ description: 'Always null: the latest commands come in one page' }),
});

/** `GET /v1/devices/{deviceKey}/photo`: the photo the last `capturePhoto` command took, or why there is none. */
export const devicePhoto = z.discriminatedUnion('state', [
  z.object({
    state: z.enum(['none', 'pending', 'failed']).meta({ description: '`none`: no photo was asked for; `pending`: the device has not sent it yet; `failed`: it did not come' }),
    message: z.string().meta({ description: 'What to tell the reader, in their language; empty for `none`' }),
  }),
  z.object({
    state: z.literal('ready'),
    url: z.string().meta({ description: 'A short-lived link to the photo' }),
    captureTime: z.iso.datetime().meta({ description: 'When the device sent it' }),
    message: z.string(),
  }),
]);

export type DevicePhotoJson = z.output<typeof devicePhoto>;

/** `GET /v1/devices/{deviceKey}/logs`: a page of the device's log, newest first. */
export const deviceLogPage = z.object({
  items: z.array(
    z.object({
      logKey: z.string(),
      time: z.iso.datetime().meta({ description: 'When the device wrote it' }),
      level: z.enum(LOG_LEVELS),
      code: z.string().meta({
        description: 'What happened, one of the log codes (docs/device-protocol.md); `params` fill it in. A code of a newer firmware is answered as it came, with its `message`',
        example: 'facesSynced',
      }),
      params: deviceLogParams.meta({ description: 'The code’s parameters; empty when it has none' }),
      message: z.string().nullable().meta({ description: 'A vendor’s own text (code `other`), shown as it is; null when none' }),
    }),
  ),
  nextCursor,
});
export type DeviceLogPage = z.output<typeof deviceLogPage>;
