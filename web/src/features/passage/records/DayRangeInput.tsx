import { DatePickerInput } from '@mantine/dates';
// The date picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { plural } from '@lingui/core/macro';
import { useLingui } from '@lingui/react/macro';
import { RECORD_RANGE_MAX_DAYS } from '@passcloud/functions/contract/passRecords';
import { pickableDays, type RecordFilters } from './filters.ts';

/**
 * The days of a record list (pass records, blacklist records, intercom calls): a range of at most
 * RECORD_RANGE_MAX_DAYS days up to today; once one end is picked, the picker offers only days
 * within reach of it. `tooLong` shows why a range was refused.
 */
export function DayRangeInput({
  value,
  onChange,
  tooLong,
  testId,
}: {
  value: RecordFilters['range'];
  onChange: (range: RecordFilters['range']) => void;
  tooLong: boolean;
  testId: string;
}) {
  const { t } = useLingui();
  const pickable = pickableDays(value);
  return (
    <DatePickerInput
      type="range"
      label={t`Date`}
      valueFormat="L"
      allowSingleDateInRange
      value={value}
      minDate={pickable.minDate}
      maxDate={pickable.maxDate}
      onChange={onChange}
      error={tooLong ? plural(RECORD_RANGE_MAX_DAYS, { one: 'Choose at most # day', other: 'Choose at most # days' }) : undefined}
      w={240}
      data-testid={testId}
    />
  );
}
