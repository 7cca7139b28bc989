import { describe, expect, it } from 'vitest';
import { CODECS, deltaOf, fromCompleteDocument, fromDocument, pendingSettings, toDocument } from '@passcloud/functions/contract/shadow';
import { parseThingName, thingName } from '@passcloud/functions/contract/protocol';
import { devicePolicy, isAllowed } from '@passcloud/functions/iot/policy';
import { DEFAULT_SETTINGS, SETTING_NAMES, SETTING_SECTIONS, completeSettings, settingsPatch, type DeviceSettings } from '@passcloud/functions/contract/devices';

/** A second complete set in which every value differs from the defaults. */
const OTHER: DeviceSettings = {
  startOnBoot: false,
  screensaverBrightness: 75,
  volume: 0,
  timingSwitch: true,
  startupTime: '06:45',
  shutdownTime: '23:59',
  relayDelay: 12,
  relayMode: 'normallyOpen',
  recognitionLamp: false,
  failRedLight: false,
  successDisplay: 'name',
  maskDetection: true,
  strangerPass: true,
  strangerRecord: false,
  liveness: false,
  verifyThreshold: 93,
  identifyCount: 3,
  swipeCardPolicy: 'cardAndFace',
  temperatureAlarm: false,
  temperatureThreshold: 38.1,
  minPassTemperature: 34.2,
  fan: false,
  temperatureOffsetMode: 'high',
  temperatureScene: 'outdoor',
  temperatureDisplay: 'fahrenheit',
  doorOpeningMode: 'disabled',
  appPassword: '0042',
  autoRestart: true,
  appDaemon: false,
  acceleration: false,
  standbyAdvertising: true,
};

describe('shadow mapping', () => {
  it('covers every setting, each with its own device key', () => {
    expect(Object.keys(CODECS).sort()).toEqual([...SETTING_NAMES].sort());
    const deviceKeys = SETTING_NAMES.map((name) => CODECS[name].device);
    expect(new Set(deviceKeys).size).toBe(deviceKeys.length);
    expect(Object.values(SETTING_SECTIONS).flat().sort()).toEqual([...SETTING_NAMES].sort());
  });

  it.each(SETTING_NAMES)('%s survives the trip to the device and back, for both sample values', (name) => {
    for (const sample of [DEFAULT_SETTINGS, OTHER]) {
      const doc = toDocument({ [name]: sample[name] });
      expect(Object.keys(doc)).toEqual([CODECS[name].device]);
      expect(fromDocument(doc)).toEqual({ settings: { [name]: sample[name] }, invalid: [] });
    }
    expect(DEFAULT_SETTINGS[name]).not.toEqual(OTHER[name]);
  });

  it('uses the device units: 0/1 flags, minutes after midnight, tenths of a degree, milliseconds, codes', () => {
    expect(toDocument(OTHER)).toMatchObject({
      boot_start: 0,
      standby_ads: 1,
      startup_minute: 6 * 60 + 45,
      shutdown_minute: 23 * 60 + 59,
      temp_alarm_threshold_dc: 381,
      temp_pass_min_dc: 342,
      relay_delay_ms: 12_000,
      relay_mode: 0,
      success_display: 1,
      card_policy: 2,
      temp_display: 1,
      door_mode: 0,
      app_password: '0042',
    });
    expect(toDocument({ doorOpeningMode: 'recognition' })).toEqual({ door_mode: 1 });
    expect(toDocument({ doorOpeningMode: 'noRecognition' })).toEqual({ door_mode: 2 });
  });

  it('maps a complete set both ways', () => {
    expect(fromCompleteDocument(toDocument(OTHER))).toEqual(OTHER);
    expect(fromCompleteDocument(toDocument(DEFAULT_SETTINGS))).toEqual(DEFAULT_SETTINGS);
    const { volume: _volume, ...partial } = toDocument(OTHER);
    expect(fromCompleteDocument(partial)).toBeUndefined();
  });

  it('lists unknown keys and values a device should never send, and guesses none', () => {
    const decoded = fromDocument({
      volume: 101,
      boot_start: 2,
      startup_minute: 1440,
      temp_alarm_threshold_dc: 37.5,
      relay_mode: 7,
      app_password: 1234,
      warp: 1,
      fan: 1,
    });
    expect(decoded.settings).toEqual({ fan: true });
    expect(decoded.invalid.sort()).toEqual(['app_password', 'boot_start', 'relay_mode', 'startup_minute', 'temp_alarm_threshold_dc', 'volume', 'warp']);
    // In range for the device's units but out of range for the product: 55.0 °C.
    expect(fromDocument({ temp_alarm_threshold_dc: 550 }).invalid).toEqual(['temp_alarm_threshold_dc']);
  });

  it('the delta holds the desired keys the device has not reported, as AWS computes it', () => {
    const desired = toDocument({ ...DEFAULT_SETTINGS, volume: 20, fan: false });
    const reported = toDocument(DEFAULT_SETTINGS);
    expect(deltaOf(desired, reported)).toEqual({ volume: 20, fan: 0 });
    expect(deltaOf(reported, reported)).toEqual({});
    expect(deltaOf({ volume: 20 }, {})).toEqual({ volume: 20 });
  });

  it('pending names the settings whose desired value is not yet reported', () => {
    expect(pendingSettings(DEFAULT_SETTINGS, DEFAULT_SETTINGS)).toEqual([]);
    expect(pendingSettings({ ...DEFAULT_SETTINGS, volume: 20, temperatureThreshold: 37.9 }, DEFAULT_SETTINGS)).toEqual(['volume', 'temperatureThreshold']);
    expect(pendingSettings(DEFAULT_SETTINGS, {})).toHaveLength(SETTING_NAMES.length);
  });
});

describe('settings rules', () => {
  it('accepts the defaults and bounds every range', () => {
    expect(completeSettings.safeParse(DEFAULT_SETTINGS).success).toBe(true);
    expect(completeSettings.safeParse(OTHER).success).toBe(true);
    for (const bad of [
      { volume: -1 },
      { volume: 101 },
      { relayDelay: 0 },
      { relayDelay: 61 },
      { temperatureThreshold: 42.1 },
      { temperatureThreshold: 37.25 },
      { identifyCount: 6 },
      { verifyThreshold: 49 },
      { appPassword: '12a4' },
      { startupTime: '7:00' },
    ]) {
      expect(settingsPatch.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('keeps the minimum pass temperature below the alarm threshold and startup apart from shutdown', () => {
    const low = completeSettings.safeParse({ ...DEFAULT_SETTINGS, minPassTemperature: 37, temperatureThreshold: 36.5 });
    expect(low.success).toBe(false);
    expect(low.error!.issues[0]!.path).toEqual(['minPassTemperature']);
    const same = completeSettings.safeParse({ ...DEFAULT_SETTINGS, timingSwitch: true, startupTime: '08:00', shutdownTime: '08:00' });
    expect(same.error!.issues[0]!.path).toEqual(['shutdownTime']);
  });
});

describe('device topics and policy', () => {
  const thing = thingName('tenant0000000001', 'device0000000001');

  it('a thing name carries the tenant and the device', () => {
    expect(parseThingName(thing)).toEqual({ tenantId: 'tenant0000000001', deviceKey: 'device0000000001' });
    expect(parseThingName('tenant0000000001_device/../x')).toBeUndefined();
    expect(parseThingName('onlyone')).toBeUndefined();
  });

  it("allows a device its own topics and nothing of another device's", () => {
    const prefix = 'arn:aws:iot:eu-west-1:123456789012';
    const policy = [devicePolicy(thing, prefix)];
    const other = thingName('tenant0000000001', 'device0000000002');
    const can = (action: string, resource: string) => isAllowed(policy, action, `${prefix}:${resource}`);
    expect(can('iot:Connect', `client/${thing}`)).toBe(true);
    expect(can('iot:Connect', `client/${other}`)).toBe(false);
    expect(can('iot:Publish', `topic/pc/${thing}/heartbeat`)).toBe(true);
    expect(can('iot:Publish', `topic/$aws/things/${thing}/shadow/update`)).toBe(true);
    expect(can('iot:Publish', `topic/pc/${other}/heartbeat`)).toBe(false);
    expect(can('iot:Publish', `topic/$aws/things/${other}/shadow/update`)).toBe(false);
    // A device may not send itself commands, nor fake the shadow service's answers.
    expect(can('iot:Publish', `topic/pc/${thing}/commands`)).toBe(false);
    expect(can('iot:Publish', `topic/$aws/things/${thing}/shadow/update/delta`)).toBe(false);
    expect(can('iot:Subscribe', `topicfilter/pc/${thing}/commands`)).toBe(true);
    expect(can('iot:Subscribe', `topicfilter/pc/+/commands`)).toBe(false);
    expect(can('iot:Subscribe', `topicfilter/#`)).toBe(false);
    expect(can('iot:Receive', `topic/pc/${other}/commands`)).toBe(false);
    expect(
      isAllowed(
        [{ Version: '2012-10-17', Statement: [...policy[0]!.Statement, { Effect: 'Deny', Action: ['iot:Publish'], Resource: ['*'] }] }],
        'iot:Publish',
        `${prefix}:topic/pc/${thing}/heartbeat`,
      ),
    ).toBe(false);
  });
});
