import { useState } from 'react';
import { Badge, Group, Paper, Stack, Text } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { useParams } from 'react-router-dom';
import { formatDateTime, formatNumber } from '../../../app/format.ts';
import { useList, useUrlFilters } from '../../../app/queries.ts';
import { usePageSize } from '../../../components/usePageSize.ts';
import { LinkCell, ListFrame, type Column } from '../../../components/ListFrame.tsx';
import { ScreenPage } from '../../../components/ScreenPage.tsx';
import { Detail, EditDeleteMenu, SearchBar, useConfirmDelete } from '../../attendance/parts.tsx';
import { ScheduleForm } from './ScheduleForm.tsx';
import { SCHEDULES_PATH, schedulePath, weekText, type Schedule, type SchedulePage } from './api.ts';

/** Access schedules: their weeks, holidays and how many authorizations use each; search by name, add, edit, delete. */
export function ScheduleListPage() {
  const { t } = useLingui();
  const [filters, setFilters] = useUrlFilters({ keyword: '' });
  const [draft, setDraft] = useState(filters.keyword);
  const pageSize = usePageSize('schedules');
  const list = useList<Schedule, SchedulePage>({
    resource: 'schedules',
    path: '/v1/schedules',
    query: { keyword: filters.keyword || undefined },
    pageSize: pageSize.value,
  });
  const search = () => setFilters({ keyword: draft.trim() }) || void list.refetch();

  const confirmDelete = useConfirmDelete('schedules');
  const remove = (schedule: Schedule) =>
    confirmDelete({
      title: t`Delete access schedule`,
      text: t`Delete the access schedule ${schedule.name}?`,
      path: `/v1/schedules/${schedule.scheduleKey}`,
      version: schedule.version,
      done: t`Access schedule deleted`,
    });

  const columns: Column<Schedule>[] = [
    {
      key: 'name',
      title: t`Schedule name`,
      sticky: 'start',
      render: (schedule) => <LinkCell to={schedulePath(schedule.scheduleKey)} text={schedule.name} maw={220} />,
    },
    {
      key: 'week',
      title: t`Every week`,
      render: (schedule) => (
        <Group gap={4} wrap="nowrap" w="max-content">
          {weekText(schedule.weekly, t`closed`).map((part) => (
            <Badge key={part} variant="light" size="sm" radius="sm" tt="none">
              {part}
            </Badge>
          ))}
        </Group>
      ),
    },
    { key: 'exceptions', title: t`Exception dates`, render: (schedule) => formatNumber(schedule.exceptions.length) },
    { key: 'holidays', title: t`Holidays`, render: (schedule) => (schedule.holidaysClosed ? t`Closed on holidays` : t`Open as usual`) },
    { key: 'usedBy', title: t`Authorizations`, render: (schedule) => formatNumber(schedule.usedBy) },
    { key: 'updated', title: t`Update time`, render: (schedule) => formatDateTime(schedule.updatedAt) },
    {
      key: 'actions',
      sticky: 'end',
      width: 48,
      render: (schedule) => <EditDeleteMenu name="schedule" edit={schedulePath(schedule.scheduleKey)} onDelete={() => remove(schedule)} />,
    },
  ];

  return (
    <ScreenPage>
      <Paper withBorder p="lg" radius="md">
        <Stack gap="md">
          <SearchBar name="schedule" hint={t`Schedule name`} keyword={draft} onKeyword={setDraft} onSearch={search} add={`${SCHEDULES_PATH}/create`} />
          <ListFrame
            list={list}
            name="schedule"
            pageSize={pageSize}
            columns={columns}
            rowKey={(schedule) => schedule.scheduleKey}
            rowProps={() => ({ 'data-testid': 'schedule-row' })}
            filtered={!!filters.keyword}
            empty={<Text c="dimmed">{t`No access schedules yet. Add one to let people through only at the times it gives.`}</Text>}
          />
        </Stack>
      </Paper>
    </ScreenPage>
  );
}

export function ScheduleCreatePage() {
  return (
    <ScreenPage>
      <ScheduleForm />
    </ScreenPage>
  );
}

export function ScheduleDetailPage() {
  const { scheduleKey = '' } = useParams();
  return (
    <ScreenPage>
      <Detail<Schedule>
        resource="schedules"
        path={`/v1/schedules/${scheduleKey}`}
        name="schedule"
        back={SCHEDULES_PATH}
        missing={<Trans>This access schedule does not exist or was deleted.</Trans>}
      >
        {(schedule) => <ScheduleForm key={schedule.version} schedule={schedule} />}
      </Detail>
    </ScreenPage>
  );
}
