import { Select } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import { allSchedules } from './api.ts';

/**
 * Chooses an access schedule of the company; none (cleared) is "at any time" in an authorization
 * and "any schedule" in a filter (`placeholder`).
 */
export function ScheduleSelect({
  value,
  onChange,
  placeholder,
  error,
  w,
  testId,
}: {
  value: string | null;
  onChange: (scheduleKey: string | null) => void;
  placeholder?: string;
  error?: string | null;
  w?: number;
  testId: string;
}) {
  const { t } = useLingui();
  const schedules = useQuery({ queryKey: ['schedules', 'all'], queryFn: allSchedules }).data ?? [];
  return (
    <Select
      label={t`Access schedule`}
      placeholder={placeholder ?? t`At any time`}
      clearable
      searchable
      data={schedules.map((s) => ({ value: s.scheduleKey, label: s.name }))}
      value={value}
      onChange={onChange}
      error={error ?? undefined}
      w={w}
      maw={w ? undefined : 360}
      data-testid={testId}
    />
  );
}
