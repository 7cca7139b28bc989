import {
  OFFSET_MODES,
  RELAY_MODES,
  SETTING_NAMES,
  SUCCESS_DISPLAYS,
  SWIPE_CARD_POLICIES,
  TEMPERATURE_DISPLAYS,
  TEMPERATURE_SCENES,
  deviceSettings,
  settingsPatch,
} from './devices.ts';
import type { DeviceSettings, SettingName, SettingsPatch } from './devices.ts';

/**
 * The face terminal's own names and units for its settings, as they travel in its AWS IoT
 * shadow (`state.desired` / `state.reported`): flags are 0/1, times are minutes after
 * midnight, temperatures are tenths of a degree Celsius, relay delay is milliseconds, and
 * choices are small integers.
 */
export type DeviceValue = number | string;
export type DeviceDocument = Record<string, DeviceValue>;

interface Codec<T> {
  device: string;
  toDevice(value: T): DeviceValue;
  fromDevice(raw: DeviceValue): T | undefined;
}

const flag = (device: string): Codec<boolean> => ({
  device,
  toDevice: (v) => (v ? 1 : 0),
  fromDevice: (raw) => (raw === 1 ? true : raw === 0 ? false : undefined),
});
const integer = (device: string, scale = 1): Codec<number> => ({
  device,
  toDevice: (v) => Math.round(v * scale),
  fromDevice: (raw) => (typeof raw === 'number' && Number.isInteger(raw) ? raw / scale : undefined),
});
/** Tenths of a degree on the device, degrees with one decimal in the API. */
const tenths = (device: string): Codec<number> => ({
  device,
  toDevice: (v) => Math.round(v * 10),
  fromDevice: (raw) => (typeof raw === 'number' && Number.isInteger(raw) ? Math.round(raw) / 10 : undefined),
});
const clock = (device: string): Codec<string> => ({
  device,
  toDevice: (v) => {
    const [h, m] = v.split(':').map(Number);
    return h! * 60 + m!;
  },
  fromDevice: (raw) =>
    typeof raw === 'number' && Number.isInteger(raw) && raw >= 0 && raw < 1440
      ? `${String(Math.floor(raw / 60)).padStart(2, '0')}:${String(raw % 60).padStart(2, '0')}`
      : undefined,
});
const choice = <T extends string>(device: string, values: readonly T[]): Codec<T> => ({
  device,
  toDevice: (v) => values.indexOf(v),
  fromDevice: (raw) => (typeof raw === 'number' ? values[raw] : undefined),
});
const text = (device: string): Codec<string> => ({
  device,
  toDevice: (v) => v,
  fromDevice: (raw) => (typeof raw === 'string' ? raw : undefined),
});

/** Door-opening mode keeps the device's availability codes of SPEC.md §4: 1, 2 and 0. */
const doorMode: Codec<DeviceSettings['doorOpeningMode']> = {
  device: 'door_mode',
  toDevice: (v) => ({ recognition: 1, noRecognition: 2, disabled: 0 })[v],
  fromDevice: (raw) => (raw === 1 ? 'recognition' : raw === 2 ? 'noRecognition' : raw === 0 ? 'disabled' : undefined),
};

export const CODECS: { [K in SettingName]: Codec<DeviceSettings[K]> } = {
  startOnBoot: flag('boot_start'),
  screensaverBrightness: integer('screensaver_brightness'),
  volume: integer('volume'),
  timingSwitch: flag('timing_switch'),
  startupTime: clock('startup_minute'),
  shutdownTime: clock('shutdown_minute'),
  relayDelay: integer('relay_delay_ms', 1000),
  relayMode: choice('relay_mode', RELAY_MODES),
  recognitionLamp: flag('recognition_lamp'),
  failRedLight: flag('fail_red_light'),
  successDisplay: choice('success_display', SUCCESS_DISPLAYS),
  maskDetection: flag('mask_detection'),
  strangerPass: flag('stranger_pass'),
  strangerRecord: flag('stranger_record'),
  liveness: flag('liveness'),
  verifyThreshold: integer('verify_threshold'),
  identifyCount: integer('identify_count'),
  swipeCardPolicy: choice('card_policy', SWIPE_CARD_POLICIES),
  temperatureAlarm: flag('temp_alarm'),
  temperatureThreshold: tenths('temp_alarm_threshold_dc'),
  minPassTemperature: tenths('temp_pass_min_dc'),
  fan: flag('fan'),
  temperatureOffsetMode: choice('temp_offset_mode', OFFSET_MODES),
  temperatureScene: choice('temp_scene', TEMPERATURE_SCENES),
  temperatureDisplay: choice('temp_display', TEMPERATURE_DISPLAYS),
  doorOpeningMode: doorMode,
  appPassword: text('app_password'),
  autoRestart: flag('auto_restart'),
  appDaemon: flag('app_daemon'),
  acceleration: flag('acceleration'),
  standbyAdvertising: flag('standby_ads'),
};

const BY_DEVICE_NAME = new Map<string, SettingName>(SETTING_NAMES.map((name) => [CODECS[name].device, name]));

/** API settings (any subset) to the device's shadow keys and units. */
export function toDocument(settings: SettingsPatch): DeviceDocument {
  const doc: DeviceDocument = {};
  for (const name of SETTING_NAMES) {
    const value = settings[name];
    if (value === undefined) continue;
    doc[CODECS[name].device] = (CODECS[name] as Codec<unknown>).toDevice(value);
  }
  return doc;
}

export interface Decoded {
  settings: SettingsPatch;
  /** Device keys that are unknown, or whose values do not decode or fall outside their ranges. */
  invalid: string[];
}

/** The setting a device shadow key stands for, as the API and the console name it. */
export const settingNameOf = (deviceName: string): string | undefined => BY_DEVICE_NAME.get(deviceName);

/**
 * The device's shadow keys back to API settings. Unknown keys and undecodable values are listed,
 * never guessed; the decoded values are checked with the API's own schema.
 */
export function fromDocument(doc: Record<string, unknown>): Decoded {
  const settings: Record<string, unknown> = {};
  const invalid: string[] = [];
  for (const [deviceName, raw] of Object.entries(doc)) {
    const name = BY_DEVICE_NAME.get(deviceName);
    const value = name && (typeof raw === 'number' || typeof raw === 'string') ? (CODECS[name] as Codec<unknown>).fromDevice(raw) : undefined;
    if (name === undefined || value === undefined) {
      invalid.push(deviceName);
      continue;
    }
    const single = settingsPatch.safeParse({ [name]: value });
    if (single.success) settings[name] = value;
    else invalid.push(deviceName);
  }
  return { settings: settings as SettingsPatch, invalid };
}

/** A complete device document decoded and checked as a whole (cross-field rules included). */
export function fromCompleteDocument(doc: Record<string, unknown>): DeviceSettings | undefined {
  const { settings, invalid } = fromDocument(doc);
  if (invalid.length > 0) return undefined;
  const checked = deviceSettings.safeParse(settings);
  return checked.success ? checked.data : undefined;
}

const sameValue = (a: unknown, b: unknown): boolean => a === b;

/** Names of the settings whose desired value the device has not yet reported. */
export function pendingSettings(desired: SettingsPatch, reported: SettingsPatch): SettingName[] {
  return SETTING_NAMES.filter((name) => desired[name] !== undefined && !sameValue(desired[name], reported[name]));
}

/** The AWS IoT delta: desired device keys whose values differ from the reported ones. */
export function deltaOf(desired: Record<string, unknown>, reported: Record<string, unknown>): Record<string, unknown> {
  const delta: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(desired)) {
    if (value !== null && JSON.stringify(value) !== JSON.stringify(reported[key])) delta[key] = value;
  }
  return delta;
}
