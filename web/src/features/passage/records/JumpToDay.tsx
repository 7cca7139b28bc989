import { DatePickerInput } from '@mantine/dates';
import '@mantine/dates/styles.css';
import { useLingui } from '@lingui/react/macro';

/**
 * Where a record list starts, in the pager's place of a page number: records are newest first, so
 * a day chosen here starts the list at that day's latest record, within the days of the filter
 * (`from`..`to`). Cleared, the list starts again at the newest. Test id: `<name>-jump`.
 */
export function JumpToDay({
  name,
  value,
  from,
  to,
  onChange,
}: {
  name: string;
  value: string | null;
  from: string | undefined;
  to: string | undefined;
  onChange: (day: string | null) => void;
}) {
  const { t } = useLingui();
  return (
    <DatePickerInput
      size="xs"
      aria-label={t`Jump to date`}
      placeholder={t`Jump to date`}
      valueFormat="L"
      clearable
      value={value}
      minDate={from}
      maxDate={to}
      disabled={!from || !to || from === to}
      onChange={onChange}
      w={150}
      data-testid={`${name}-jump`}
    />
  );
}
