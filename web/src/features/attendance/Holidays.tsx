import { useState } from 'react';
import { Badge, Modal, Paper, Select, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core';
import { DatePickerInput, type DatesRangeValue } from '@mantine/dates';
import '@mantine/dates/styles.css';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { Trans, useLingui } from '@lingui/react/macro';
import { api } from '../../app/api.ts';
import { formatDate } from '../../app/format.ts';
import { showFailure, useList, useUrlFilters, useWrite } from '../../app/queries.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { RequestError } from '../../app/request.ts';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { FormButtons } from '../parts.tsx';
import { EditDeleteMenu, SearchBar, useConfirmDelete } from './parts.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { allShifts, type Holiday, type Page } from './api.ts';

const THIS_YEAR = new Date().getFullYear();

/** Holidays and make-up workdays: by year and keyword; added, edited and deleted in place. */
export function HolidayPage() {
  const { t } = useLingui();
  const [filters, setFilters] = useUrlFilters({ keyword: '', year: String(THIS_YEAR) });
  const [draft, setDraft] = useState(filters.keyword);
  const [editing, setEditing] = useState<Holiday | 'new' | null>(null);
  const pageSize = usePageSize('holidays');
  const list = useList<Holiday, Page<Holiday>>({
    resource: 'attendanceHolidays',
    path: '/v1/attendance/holidays',
    query: { keyword: filters.keyword || undefined, year: filters.year || undefined },
    pageSize: pageSize.value,
  });
  const shifts = useQuery({ queryKey: ['attendanceShifts', 'all'], queryFn: allShifts });
  const shiftName = (key: string | null) => shifts.data?.find((s) => s.shiftKey === key)?.name ?? '';
  const search = () => setFilters({ ...filters, keyword: draft.trim() }) || void list.refetch();
  const years = Array.from({ length: 7 }, (_, i) => String(THIS_YEAR + 1 - i));

  const confirmDelete = useConfirmDelete('attendanceHolidays');
  const remove = (holiday: Holiday) =>
    confirmDelete({
      title: t`Delete holiday`,
      text: t`Delete the holiday ${holiday.name}? Attendance of its days is counted again by the weekly shifts.`,
      path: `/v1/attendance/holidays/${holiday.holidayKey}`,
      version: holiday.version,
      done: t`Holiday deleted`,
    });

  const columns: Column<Holiday>[] = [
    { key: 'name', title: t`Holiday name`, sticky: 'start', render: (h) => <Truncated text={h.name} maw={220} /> },
    { key: 'dates', title: t`Dates`, render: (h) => (h.start === h.end ? formatDate(h.start) : `${formatDate(h.start)} – ${formatDate(h.end)}`) },
    {
      key: 'kind',
      title: t`Type`,
      render: (h) =>
        h.workday ? (
          <Badge variant="light" color="orange" size="sm">
            {t`Make-up workday`}
          </Badge>
        ) : (
          <Badge variant="light" color="teal" size="sm">
            {t`Day off`}
          </Badge>
        ),
    },
    { key: 'shift', title: t`Shift`, render: (h) => (h.workday ? shiftName(h.shiftKey) : '') },
    { key: 'remark', title: t`Remark`, render: (h) => <Truncated text={h.remark} maw={240} /> },
    {
      key: 'actions',
      sticky: 'end',
      width: 48,
      render: (h) => <EditDeleteMenu name="holiday" edit={() => setEditing(h)} onDelete={() => remove(h)} />,
    },
  ];

  return (
    <ScreenPage>
      <Paper withBorder p="lg" radius="md">
        <Stack gap="md">
          <SearchBar name="holiday" hint={t`Holiday name or remark`} keyword={draft} onKeyword={setDraft} onSearch={search} add={() => setEditing('new')}>
            <Select
              label={t`Year`}
              data={years}
              value={filters.year}
              onChange={(year) => setFilters({ ...filters, year: year ?? '' })}
              clearable
              placeholder={t`Any year`}
              w={110}
              data-testid="holiday-year"
            />
          </SearchBar>
          <ListFrame
            list={list}
            name="holiday"
            pageSize={pageSize}
            columns={columns}
            rowKey={(h) => h.holidayKey}
            rowProps={() => ({ 'data-testid': 'holiday-row' })}
            filtered={!!filters.keyword}
            empty={<Text c="dimmed">{t`No holidays in this year.`}</Text>}
            showTotal
          />
        </Stack>
      </Paper>
      {editing && <HolidayModal holiday={editing === 'new' ? undefined : editing} shifts={shifts.data ?? []} onClose={() => setEditing(null)} />}
    </ScreenPage>
  );
}

interface HolidayValues {
  name: string;
  range: DatesRangeValue<string>;
  remark: string;
  workday: boolean;
  shiftKey: string | null;
}

const FIELD_OF: Record<string, keyof HolidayValues> = {
  name: 'name',
  start: 'range',
  end: 'range',
  remark: 'remark',
  workday: 'workday',
  shiftKey: 'shiftKey',
};

function HolidayModal({ holiday, shifts, onClose }: { holiday?: Holiday; shifts: { shiftKey: string; name: string }[]; onClose: () => void }) {
  const { t } = useLingui();
  const form = useForm<HolidayValues>({
    mode: 'controlled',
    initialValues: {
      name: holiday?.name ?? '',
      range: holiday ? [holiday.start, holiday.end] : [null, null],
      remark: holiday?.remark ?? '',
      workday: holiday?.workday ?? false,
      shiftKey: holiday?.shiftKey ?? null,
    },
    validate: {
      name: (value) => (value.trim() ? null : t`Enter the holiday name`),
      range: (value) => (value[0] ? null : t`Choose the dates`),
      shiftKey: (value, values) => (values.workday && !value ? t`Choose the shift of the make-up workday` : null),
    },
  });

  // A holiday changes which shift its days use: the shifts' lists follow too.
  const saving = useWrite(
    (body: Record<string, unknown>) =>
      holiday
        ? api.patch(`/v1/attendance/holidays/${holiday.holidayKey}`, { ...body, version: holiday.version }, { silent: true })
        : api.post('/v1/attendance/holidays', body, { silent: true }),
    {
      touches: ['attendanceHolidays', 'attendanceShifts'],
      success: holiday ? t`Holiday saved` : t`Holiday added`,
      onSuccess: onClose,
      onError: (error) => {
        const issues: Record<string, string> = {};
        if (error instanceof RequestError) for (const issue of error.issues) issues[FIELD_OF[issue.path.split('.')[0]!] ?? 'name'] ??= issue.message;
        form.setErrors(issues);
        if (!Object.keys(issues).length) showFailure(error);
      },
    },
  );
  const submit = form.onSubmit((values) => {
    const [start, end] = values.range;
    saving.mutate({
      name: values.name.trim(),
      start: start!.slice(0, 10),
      end: (end ?? start)!.slice(0, 10),
      workday: values.workday,
      ...(values.remark.trim() ? { remark: values.remark.trim() } : {}),
      ...(values.workday ? { shiftKey: values.shiftKey } : {}),
    });
  });

  return (
    <Modal opened onClose={onClose} title={holiday ? t`Edit holiday` : t`Add holiday`} size="md">
      <form onSubmit={submit} noValidate>
        <Stack gap="sm">
          <TextInput label={t`Holiday name`} required maxLength={64} {...form.getInputProps('name')} data-testid="holiday-name" />
          <DatePickerInput type="range" allowSingleDateInRange label={t`Dates`} required {...form.getInputProps('range')} data-testid="holiday-range" />
          <Switch
            label={t`Make-up workday`}
            description={t`People work on these days with the shift below, though they may fall on a rest day.`}
            {...form.getInputProps('workday', { type: 'checkbox' })}
            data-testid="holiday-workday"
          />
          {form.values.workday && (
            <Select
              label={t`Shift`}
              required
              data={shifts.map((s) => ({ value: s.shiftKey, label: s.name }))}
              {...form.getInputProps('shiftKey')}
              data-testid="holiday-shift"
            />
          )}
          <Textarea label={t`Remark`} maxLength={500} autosize minRows={2} {...form.getInputProps('remark')} data-testid="holiday-remark" />
          <FormButtons name="holiday" onCancel={onClose} saving={saving.isPending}>
            {holiday ? <Trans>Save</Trans> : <Trans>Add</Trans>}
          </FormButtons>
        </Stack>
      </form>
    </Modal>
  );
}
