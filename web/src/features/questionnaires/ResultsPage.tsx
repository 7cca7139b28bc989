import { useEffect, useMemo, useState } from 'react';
import { Alert, Badge, Button, Group, Loader, Paper, Select, Stack, Text, Tooltip } from '@mantine/core';
import { useThrottledCallback } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { IconSettings } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link, useSearchParams } from 'react-router-dom';
import { QUESTIONNAIRE_RESULTS, type QuestionnaireResult } from '@passcloud/functions/contract/questionnaires';
import { formatNumber, formatShortTime, formatTime } from '../../app/format.ts';
import { useLive } from '../../app/live/channel.ts';
import { useList } from '../../app/queries.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { ListFrame, openingRow, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { useListFilters } from '../../components/useListFilters.ts';
import { today } from '../passage/records/alerts.ts';
import { useDeviceOptions } from '../passage/records/api.ts';
import { ExportDialog } from '../passage/records/ExportDialog.tsx';
import { rangeAllowed, rangeQuery } from '../passage/records/filters.ts';
import { DeviceFilter } from '../filters.tsx';
import { EmptyRecords, RecordFilterBar } from '../passage/records/RecordFilterBar.tsx';
import { ResultBadge, StateBadge, personText } from './parts.tsx';
import { ResultDetail } from './ResultDetail.tsx';
import {
  RESOURCE,
  SETTING_SCREEN,
  allQuestionnaires,
  resultsPath,
  useQuestionnaireLabels,
  type QuestionnaireItem,
  type QuestionnaireResultItem,
  type QuestionnaireResultPage,
} from './api.ts';

/** The first page follows new answers this often while it is shown. */
const REFRESH_MS = 10_000;

interface Filters {
  range: [string | null, string | null];
  result: QuestionnaireResult | null;
  deviceKey: string | null;
}
const initial = (): Filters => ({ range: [today(), today()], result: null, deviceKey: null });

const queryOf = (filters: Filters): Record<string, string | undefined> => ({
  ...rangeQuery(filters.range),
  result: filters.result ?? undefined,
  deviceKey: filters.deviceKey ?? undefined,
});

/**
 * Survey results: one survey at a time (kept in the URL as `?questionnaire=`), its answers newest
 * first over company days (today unless chosen), by result and device; a row opens the answers
 * with the options that raised the alarm; the filtered results export as a workbook.
 */
export function QuestionnaireResultsPage() {
  const { t } = useLingui();
  const labels = useQuestionnaireLabels();
  const [params, setParams] = useSearchParams();
  const chosen = params.get('questionnaire');
  const surveys = useQuery({ queryKey: [RESOURCE, 'all'], queryFn: allQuestionnaires });
  const filterState = useListFilters(initial, { check: (draft) => rangeAllowed(draft.range) });
  const { draft, filters } = filterState;
  const [open, setOpen] = useState<QuestionnaireResultItem | null>(null);
  const [exporting, setExporting] = useState(false);

  // Without a choice in the URL, the first open survey (else the first) is shown.
  const items = surveys.data;
  useEffect(() => {
    if (chosen || !items?.length) return;
    const first = items.find((s) => s.state === 'open') ?? items[0]!;
    const next = new URLSearchParams(params);
    next.set('questionnaire', first.questionnaireKey);
    setParams(next, { replace: true });
  }, [chosen, items]);
  const choose = (key: string | null) => {
    const next = new URLSearchParams(params);
    if (key) next.set('questionnaire', key);
    else next.delete('questionnaire');
    setParams(next, { replace: true });
  };
  const survey: QuestionnaireItem | undefined = items?.find((s) => s.questionnaireKey === chosen);
  const gone = !!chosen && !!items && !survey;

  const query = useMemo(() => queryOf(filters), [filters]);
  const path = resultsPath(chosen ?? '');
  const pageSize = usePageSize('questionnaireResults');
  const list = useList<QuestionnaireResultItem, QuestionnaireResultPage>({
    resource: RESOURCE,
    path,
    query,
    pageSize: pageSize.value,
    enabled: !!survey,
    refreshMs: (_page, pageIndex) => (pageIndex === 0 && !open && !exporting ? REFRESH_MS : false),
  });
  const page = list.page;
  // An abnormal answer to this survey, announced live, shows at once.
  const refetch = useThrottledCallback(() => void list.refetch(), 1000);
  useLive('questionnaires', (results) => results.some((r) => r.questionnaireKey === chosen) && refetch(), { enabled: !!survey && list.cursors.length === 1 });

  const deviceOptions = useDeviceOptions(page?.items);

  const columns: Column<QuestionnaireResultItem>[] = [
    {
      key: 'answerTime',
      title: t`Answer time`,
      render: (result) => (
        <Tooltip label={formatTime(result.answerTime)}>
          <span>{formatShortTime(result.answerTime)}</span>
        </Tooltip>
      ),
    },
    {
      key: 'person',
      title: t`Person`,
      render: (result) =>
        result.person ? (
          <Group gap={6} wrap="nowrap">
            <Truncated text={personText(result, labels)} maw={180} />
            <Badge variant="light" size="sm" color={result.person.kind === 'employee' ? 'blue' : 'grape'}>
              {labels.kind[result.person.kind]}
            </Badge>
          </Group>
        ) : (
          <Text size="sm" c="dimmed" data-testid="result-anonymous">
            {labels.anonymous}
          </Text>
        ),
    },
    { key: 'device', title: t`Device`, render: (result) => <Truncated text={result.deviceName} maw={180} /> },
    { key: 'source', title: t({ message: 'Answered on', context: 'questionnaire answer source' }), render: (result) => labels.source[result.source] },
    { key: 'revision', title: t`Revision`, render: (result) => formatNumber(result.revision) },
    { key: 'result', title: t`Result`, render: (result) => <ResultBadge result={result.result} /> },
    {
      key: 'answers',
      sticky: 'end',
      render: (result) => (
        <Button
          size="xs"
          variant="subtle"
          onClick={(e) => {
            e.stopPropagation();
            setOpen(result);
          }}
          data-testid="result-open"
        >
          <Trans>Answers</Trans>
        </Button>
      ),
    },
  ];

  const settingLink = (
    <Button component={Link} to={SETTING_SCREEN} variant="default" leftSection={<IconSettings size={16} />} data-testid="questionnaire-setting-link">
      <Trans>Survey settings</Trans>
    </Button>
  );

  let body;
  if (surveys.isPending) {
    body = (
      <Group justify="center" py="xl">
        <Loader size="sm" />
      </Group>
    );
  } else if (surveys.isError) {
    body = (
      <Stack align="center" py="xl" gap="xs" data-testid="questionnaire-surveys-failed">
        <Text c="red">
          <Trans>The surveys could not be loaded.</Trans>
        </Text>
        <Button variant="light" onClick={() => void surveys.refetch()}>
          <Trans>Retry</Trans>
        </Button>
      </Stack>
    );
  } else if (!items?.length) {
    body = (
      <Stack align="center" py="xl" gap="xs" data-testid="questionnaire-none">
        <Text c="dimmed">
          <Trans>There are no surveys yet. Set one up, open it, and its answers appear here.</Trans>
        </Text>
        <Button component={Link} to={SETTING_SCREEN} variant="light">
          <Trans>Set up a survey</Trans>
        </Button>
      </Stack>
    );
  } else {
    body = (
      <Stack gap="md">
        <RecordFilterBar
          name="result"
          filters={filterState}
          list={list}
          onExport={() => setExporting(true)}
          canSearch={!!survey}
          canExport={!!survey && !!page && list.items.length > 0}
        >
          <Select
            label={t`Result`}
            placeholder={t`Any result`}
            data={QUESTIONNAIRE_RESULTS.map((value) => ({ value, label: labels.result[value] }))}
            clearable
            value={draft.result}
            onChange={(result) => filterState.change({ result: result as QuestionnaireResult | null })}
            w={150}
            data-testid="result-filter"
          />
          <DeviceFilter
            options={deviceOptions}
            value={draft.deviceKey}
            onChange={(deviceKey) => filterState.change({ deviceKey })}
            w={200}
            testId="result-device"
          />
        </RecordFilterBar>
        {gone ? (
          <Alert color="orange" variant="light" data-testid="questionnaire-gone">
            <Trans>This survey does not exist or was deleted. Choose another one.</Trans>
          </Alert>
        ) : (
          <ListFrame
            list={list}
            name="result"
            pageSize={pageSize}
            columns={columns}
            rowKey={(result) => result.resultKey}
            rowProps={(result) => ({
              ...openingRow(() => setOpen(result)),
              'data-testid': 'result-row',
              'data-result': result.result,
              'data-key': result.resultKey,
            })}
            empty={
              <EmptyRecords
                list={list}
                text={<Trans>Nothing matches among the answers read so far.</Trans>}
                otherwise={filters.result || filters.deviceKey ? t`No answers match these filters.` : t`No answers on these days.`}
              />
            }
          />
        )}
      </Stack>
    );
  }

  const surveyOptions = (items ?? []).map((s) => ({ value: s.questionnaireKey, label: s.title }));
  const revision = formatNumber(survey?.revision ?? 1);
  const terminals = plural(survey?.deviceCount ?? 0, { one: '# terminal', other: '# terminals' });
  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md">
        <Stack gap="md">
          <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
            <Group align="flex-end" gap="md" wrap="wrap">
              <Select
                label={t`Survey`}
                placeholder={t`Choose a survey`}
                data={surveyOptions}
                searchable
                allowDeselect={false}
                value={survey ? chosen : null}
                onChange={choose}
                nothingFoundMessage={t`No survey matches`}
                w={300}
                disabled={!items?.length}
                data-testid="result-survey"
              />
              {survey && (
                <Group gap="xs" pb={6} data-testid="result-survey-facts">
                  <StateBadge state={survey.state} />
                  <Text size="sm" c="dimmed">
                    {labels.mode[survey.mode]} · <Trans>Revision {revision}</Trans> · {terminals}
                  </Text>
                </Group>
              )}
            </Group>
            {settingLink}
          </Group>
          {body}
        </Stack>
      </Paper>
      <ResultDetail result={open} onClose={() => setOpen(null)} />
      {survey && (
        <ExportDialog
          path={resultsPath(survey.questionnaireKey)}
          title={t`Export survey results`}
          body={query}
          opened={exporting}
          onClose={() => setExporting(false)}
        />
      )}
    </ScreenPage>
  );
}
