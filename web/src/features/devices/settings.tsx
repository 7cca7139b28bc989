import { useState, type ReactNode } from 'react';
import { Badge, Checkbox, Group, NumberInput, PasswordInput, Select, Stack, Switch, Text, Tooltip } from '@mantine/core';
import { TimePicker } from '@mantine/dates';
// The time picker's own styles, loaded with the device screens that use it.
import '@mantine/dates/styles.css';
import { useLingui } from '@lingui/react/macro';
import { SETTING_SECTIONS, settingFields, settingsPatch, type DeviceSettings, type SettingName } from '@passcloud/functions/contract/devices';
import classes from './settings.module.css';
import {
  dayPeriods,
  decimalSeparator,
  formatNumber,
  formatPercent,
  formatTemperature,
  percentSuffix,
  temperatureSuffix,
  uses12HourClock,
} from '../../app/format.ts';

export type SectionName = keyof typeof SETTING_SECTIONS;
export const SECTION_NAMES = Object.keys(SETTING_SECTIONS) as SectionName[];

type Widget = 'switch' | 'number' | 'temperature' | 'select' | 'clock' | 'password';

/** The input each setting gets; a setting added to the contract fails the type check until it has one. */
const WIDGETS: Record<SettingName, Widget> = {
  startOnBoot: 'switch',
  screensaverBrightness: 'number',
  volume: 'number',
  timingSwitch: 'switch',
  startupTime: 'clock',
  shutdownTime: 'clock',
  relayDelay: 'number',
  relayMode: 'select',
  recognitionLamp: 'switch',
  failRedLight: 'switch',
  successDisplay: 'select',
  maskDetection: 'switch',
  strangerPass: 'switch',
  strangerRecord: 'switch',
  liveness: 'switch',
  verifyThreshold: 'number',
  identifyCount: 'number',
  swipeCardPolicy: 'select',
  temperatureAlarm: 'switch',
  temperatureThreshold: 'temperature',
  minPassTemperature: 'temperature',
  fan: 'switch',
  temperatureOffsetMode: 'select',
  temperatureScene: 'select',
  temperatureDisplay: 'select',
  doorOpeningMode: 'select',
  appPassword: 'password',
  autoRestart: 'switch',
  appDaemon: 'switch',
  acceleration: 'switch',
  standbyAdvertising: 'switch',
};

const PERCENT: ReadonlySet<SettingName> = new Set(['screensaverBrightness', 'volume']);

/** Bounds of a numeric setting, read from its schema. */
function bounds(name: SettingName): { min?: number; max?: number } {
  const schema = settingFields[name] as { minValue?: number | null; maxValue?: number | null };
  return { min: schema.minValue ?? undefined, max: schema.maxValue ?? undefined };
}

/** A bound as the reader writes it: degrees for temperatures, a plain number otherwise. */
function boundText(name: SettingName, value: number | undefined): string {
  if (value === undefined) return '';
  return WIDGETS[name] === 'temperature' ? formatTemperature(value) : formatNumber(value);
}

/** The values of an enumerated setting, read from its schema. */
function optionsOf(name: SettingName): readonly string[] {
  return (settingFields[name] as unknown as { options?: readonly string[] }).options ?? [];
}

/** Localized names of the sections, the settings and their choices. */
export function useSettingTexts() {
  const { t } = useLingui();
  const sections: Record<SectionName, string> = {
    temperature: t`Temperature measurement`,
    pass: t`Pass settings`,
    doorOpening: t`Door-opening mode`,
    timing: t`Startup/shutdown timing`,
    other: t`Other settings`,
  };
  const labels: Record<SettingName, string> = {
    startOnBoot: t`Start on boot`,
    screensaverBrightness: t`Screensaver brightness`,
    volume: t`Volume`,
    timingSwitch: t`Timed startup and shutdown`,
    startupTime: t`Startup time`,
    shutdownTime: t`Shutdown time`,
    relayDelay: t`Door relay delay (seconds)`,
    relayMode: t`Relay mode`,
    recognitionLamp: t`Recognition success/failure lamp`,
    failRedLight: t`Red light on failed recognition`,
    successDisplay: t`On successful recognition, show`,
    maskDetection: t`Mask detection`,
    strangerPass: t`Let strangers pass`,
    strangerRecord: t`Record strangers`,
    liveness: t`Liveness check`,
    verifyThreshold: t`Verification threshold`,
    identifyCount: t`Identification count`,
    swipeCardPolicy: t`Card access policy`,
    temperatureAlarm: t`Body-temperature alarm`,
    temperatureThreshold: t`Alarm threshold`,
    minPassTemperature: t`Minimum pass temperature`,
    fan: t`Fan`,
    temperatureOffsetMode: t`Temperature offset mode`,
    temperatureScene: t`Measurement scene`,
    temperatureDisplay: t`Temperature display`,
    doorOpeningMode: t`Door-opening mode`,
    appPassword: t`App password`,
    autoRestart: t`Automatic restart`,
    appDaemon: t`App daemon`,
    acceleration: t`App acceleration`,
    standbyAdvertising: t`Standby advertising`,
  };
  const options: Record<string, string> = {
    'relayMode.normallyOpen': t`Normally open`,
    'relayMode.normallyClosed': t`Normally closed`,
    'successDisplay.photo': t`Photo and name`,
    'successDisplay.name': t`Name only`,
    'temperatureOffsetMode.normal': t`Normal`,
    'temperatureOffsetMode.high': t`High`,
    'temperatureScene.indoor': t`Indoor`,
    'temperatureScene.outdoor': t`Outdoor`,
    'temperatureDisplay.celsius': t`Celsius (°C)`,
    'temperatureDisplay.fahrenheit': t`Fahrenheit (°F)`,
    'temperatureDisplay.hidden': t`Hidden`,
    'swipeCardPolicy.cardOnly': t`Card only`,
    'swipeCardPolicy.cardOrFace': t`Card or face`,
    'swipeCardPolicy.cardAndFace': t`Card and face`,
    'doorOpeningMode.recognition': t`Available, with identity recognition`,
    'doorOpeningMode.noRecognition': t`Available, without identity recognition`,
    'doorOpeningMode.disabled': t`Not available`,
  };
  const descriptions: Partial<Record<SettingName, string>> = {
    verifyThreshold: t`A higher threshold is stricter.`,
    identifyCount: t`How many matching recognitions open the door.`,
    appPassword: t`4 to 8 digits; it unlocks the settings on the device.`,
    minPassTemperature: t`Readings below this are measured again.`,
    doorOpeningMode: t`Whether the door opens, and whether identity recognition decides it.`,
  };
  const option = (name: SettingName, value: string) => options[`${name}.${value}`] ?? value;

  /** A value as text, for the reported value and summaries. */
  const format = (name: SettingName, value: unknown): string => {
    if (value === undefined || value === null) return '—';
    switch (WIDGETS[name]) {
      case 'switch':
        return value ? t`On` : t`Off`;
      case 'select':
        return option(name, String(value));
      case 'temperature':
        return formatTemperature(Number(value));
      case 'password':
        return '••••';
      case 'number':
        return PERCENT.has(name) ? formatPercent(Number(value)) : formatNumber(Number(value));
      default:
        return String(value);
    }
  };

  /** Field errors of a settings object, by setting name, in the current language. */
  const validate = (values: Partial<DeviceSettings>): Partial<Record<SettingName, string>> => {
    const result = settingsPatch.safeParse(values);
    if (result.success) return {};
    const known: Record<string, string> = {
      'devices.clockFormat': t`Enter a time as HH:mm`,
      'devices.oneDecimal': t`Use at most one decimal`,
      'devices.appPasswordFormat': t`Enter 4 to 8 digits`,
      'devices.minBelowThreshold': t`Must be lower than the alarm threshold`,
      'devices.sameStartupShutdown': t`Startup and shutdown times must differ`,
    };
    const errors: Partial<Record<SettingName, string>> = {};
    for (const issue of result.error.issues) {
      const name = issue.path[0] as SettingName | undefined;
      if (!name || errors[name]) continue;
      const limits = bounds(name);
      const min = boundText(name, limits.min);
      const max = boundText(name, limits.max);
      if (known[issue.message]) errors[name] = known[issue.message]!;
      else if (issue.code === 'too_small' || issue.code === 'too_big') errors[name] = t`Enter a value from ${min} to ${max}`;
      else if (issue.code === 'invalid_type' && issue.expected === 'int') errors[name] = t`Enter a whole number`;
      else if (issue.code === 'invalid_value') errors[name] = t`Choose one of the options`;
      else errors[name] = t`Enter a valid value`;
    }
    return errors;
  };

  return { sections, labels, descriptions, option, format, validate };
}

export type SettingTexts = ReturnType<typeof useSettingTexts>;

interface FieldState {
  /** The device has not confirmed this setting yet. */
  pending?: boolean;
  /** What the device reports; given only when it differs from what was asked. */
  reported?: unknown;
}

/** One setting with the input its type calls for. */
export function SettingInput({
  name,
  value,
  onChange,
  error,
  texts,
  state = {},
  disabled,
}: {
  name: SettingName;
  value: unknown;
  onChange: (value: unknown) => void;
  error?: string;
  texts: SettingTexts;
  state?: FieldState;
  disabled?: boolean;
}) {
  const { t } = useLingui();
  const widget = WIDGETS[name];
  // A number out of range is named on its field as soon as it is left, in the words of the check before saving; it is never changed to fit.
  const [leftError, setLeftError] = useState<string | undefined>();
  const checkOnLeave = () => setLeftError(value === '' || value === undefined ? undefined : texts.validate({ [name]: value } as Partial<DeviceSettings>)[name]);
  const label: ReactNode = (
    <Group gap={6} wrap="nowrap" component="span">
      <span>{texts.labels[name]}</span>
      {state.pending && (
        <Tooltip label={t`The device has not confirmed this setting yet.`} withArrow>
          <Badge size="xs" variant="light" color="orange" data-testid={`pending-${name}`}>
            {t`Pending`}
          </Badge>
        </Tooltip>
      )}
    </Group>
  );
  const { min: low, max: high } = bounds(name);
  const reported = state.reported === undefined ? '' : texts.format(name, state.reported);
  const min = boundText(name, low);
  const max = boundText(name, high);
  const step = formatTemperature(0.1);
  const hint =
    texts.descriptions[name] ??
    (widget === 'number' ? t`From ${min} to ${max}` : widget === 'temperature' ? t`From ${min} to ${max}, in steps of ${step}` : undefined);
  // Below the input: the hint, then what the device reports when it differs.
  const description =
    hint || state.reported !== undefined ? (
      <>
        {hint}
        {state.reported !== undefined && (
          <Text span size="xs" c="orange.8" display="block" data-testid={`reported-${name}`}>
            {t`The device reports: ${reported}`}
          </Text>
        )}
      </>
    ) : undefined;
  const field = {
    label,
    description,
    error: error ?? leftError,
    disabled,
    inputWrapperOrder: ['label', 'input', 'description', 'error'] as ('label' | 'input' | 'description' | 'error')[],
    classNames: { root: classes.contents },
  };
  let input: ReactNode;
  switch (widget) {
    case 'switch':
      return (
        <div data-testid={`setting-${name}`}>
          <Switch
            label={label}
            description={description}
            checked={value === true}
            onChange={(e) => onChange(e.currentTarget.checked)}
            error={error}
            disabled={disabled}
          />
        </div>
      );
    case 'number':
    case 'temperature': {
      const temperature = widget === 'temperature';
      input = (
        <NumberInput
          {...field}
          value={typeof value === 'number' ? value : ''}
          onChange={(v) => {
            setLeftError(undefined);
            onChange(typeof v === 'number' ? v : v === '' ? '' : Number(v));
          }}
          onBlur={checkOnLeave}
          min={low}
          max={high}
          step={temperature ? 0.1 : 1}
          decimalScale={temperature ? 1 : 0}
          fixedDecimalScale={temperature}
          allowDecimal={temperature}
          decimalSeparator={decimalSeparator()}
          suffix={temperature ? temperatureSuffix() : PERCENT.has(name) ? percentSuffix() : undefined}
          clampBehavior="none"
        />
      );
      break;
    }
    case 'select':
      input = (
        <Select
          {...field}
          data={optionsOf(name).map((v) => ({ value: v, label: texts.option(name, v) }))}
          value={typeof value === 'string' ? value : null}
          onChange={(v) => v !== null && onChange(v)}
          allowDeselect={false}
          comboboxProps={{ withinPortal: true }}
        />
      );
      break;
    case 'clock':
      // Hours and minutes as the reader's clock shows them, whatever the browser's own language.
      input = (
        <TimePicker
          {...field}
          value={typeof value === 'string' ? value : ''}
          onChange={onChange}
          format={uses12HourClock() ? '12h' : '24h'}
          amPmLabels={dayPeriods()}
        />
      );
      break;
    case 'password':
      input = (
        <PasswordInput
          {...field}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => onChange(e.currentTarget.value)}
          inputMode="numeric"
          maxLength={8}
          autoComplete="new-password"
        />
      );
      break;
  }
  return (
    <div className={classes.field} data-testid={`setting-${name}`}>
      {input}
    </div>
  );
}

/**
 * The settings of one section: its switches, then its inputs, in as many columns as fit; in
 * batch mode each setting carries an "apply" box.
 */
export function SettingsSection({
  section,
  values,
  onChange,
  errors,
  texts,
  states,
  included,
  onInclude,
}: {
  section: SectionName;
  values: Partial<DeviceSettings>;
  onChange: (name: SettingName, value: unknown) => void;
  errors: Partial<Record<string, string>>;
  texts: SettingTexts;
  states?: (name: SettingName) => FieldState;
  included?: ReadonlySet<SettingName>;
  onInclude?: (name: SettingName, on: boolean) => void;
}) {
  const { t } = useLingui();
  const names = SETTING_SECTIONS[section] as readonly SettingName[];
  const switches = names.filter((n) => WIDGETS[n] === 'switch');
  const inputs = names.filter((n) => WIDGETS[n] !== 'switch');
  const render = (name: SettingName) => {
    const field = (
      <SettingInput key={name} name={name} value={values[name]} onChange={(v) => onChange(name, v)} error={errors[name]} texts={texts} state={states?.(name)} />
    );
    if (!included) return field;
    const label = texts.labels[name];
    return (
      <div key={name} className={classes.batchField}>
        <Checkbox
          mt={4}
          aria-label={t`Apply ${label}`}
          checked={included.has(name)}
          onChange={(e) => onInclude?.(name, e.currentTarget.checked)}
          data-testid={`include-${name}`}
        />
        <div style={{ opacity: included.has(name) ? 1 : 0.55 }}>{field}</div>
      </div>
    );
  };
  return (
    <Stack gap="lg" data-testid={`section-${section}`}>
      {switches.length > 0 && (
        <div className={classes.switches} data-testid="setting-switches">
          {switches.map(render)}
        </div>
      )}
      {inputs.length > 0 && (
        <div className={classes.fields} data-testid="setting-inputs">
          {inputs.map(render)}
        </div>
      )}
    </Stack>
  );
}
