import { Button, Select } from '@mantine/core';
import { DatePickerInput, type DatesRangeValue } from '@mantine/dates';
// The date picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { IconSearch } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';

/** The parts of a list's filter bar that the console's screens share. */

/** Search, and Reset when the bar has one. Test ids: `<name>-search`, `<name>-reset`. */
export function SearchButtons({
  name,
  onSearch,
  onReset,
  canSearch = true,
}: {
  name: string;
  onSearch: () => void;
  onReset?: () => void;
  canSearch?: boolean;
}) {
  return (
    <>
      <Button leftSection={<IconSearch size={16} />} onClick={onSearch} disabled={!canSearch} data-testid={`${name}-search`}>
        <Trans>Search</Trans>
      </Button>
      {onReset && (
        <Button variant="default" onClick={onReset} data-testid={`${name}-reset`}>
          <Trans>Reset</Trans>
        </Button>
      )}
    </>
  );
}

/** Days to filter by (one, or a range), or any day once cleared. */
export function DaysFilter({
  label,
  value,
  onChange,
  w,
  testId,
}: {
  label?: string;
  value: DatesRangeValue<string>;
  onChange: (range: DatesRangeValue<string>) => void;
  w: number;
  testId: string;
}) {
  const { t } = useLingui();
  return (
    <DatePickerInput
      type="range"
      label={label ?? t`Date`}
      placeholder={t`Any date`}
      allowSingleDateInRange
      clearable
      value={value}
      onChange={onChange}
      w={w}
      data-testid={testId}
    />
  );
}

/** The device a record list shows, or all: the choices come with the list (useDeviceOptions). */
export function DeviceFilter({
  options,
  value,
  onChange,
  all,
  w,
  testId,
}: {
  options: { value: string; label: string }[];
  value: string | null;
  onChange: (deviceKey: string | null) => void;
  /** What the field says while no device is chosen. */
  all?: string;
  w: number;
  testId: string;
}) {
  const { t } = useLingui();
  return (
    <Select
      label={t`Device`}
      placeholder={all ?? t`All devices`}
      data={options}
      searchable
      clearable
      nothingFoundMessage={t`No such device`}
      value={value}
      onChange={onChange}
      w={w}
      data-testid={testId}
    />
  );
}
