import { useState } from 'react';
import { Anchor, Button, Group, Menu, Paper, Select, Stack, Text } from '@mantine/core';
import { IconChartBar, IconPlayerPlay, IconPlayerStop } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { QUESTIONNAIRE_STATES } from '@passcloud/functions/contract/questionnaires';
import { api } from '../../app/api.ts';
import { formatDateTime, formatNumber } from '../../app/format.ts';
import { useList, useUrlFilters, useWrite } from '../../app/queries.ts';
import { usePageSize } from '../../components/usePageSize.ts';
import { ListFrame, OpenCell, RowMenu, type Column } from '../../components/ListFrame.tsx';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { SearchBar, useConfirmDelete } from '../attendance/parts.tsx';
import { confirmAction } from '../confirm.tsx';
import { QuestionnaireDrawer } from './QuestionnaireForm.tsx';
import { StateBadge } from './parts.tsx';
import {
  QUESTIONNAIRES_PATH,
  RESOURCE,
  RESULTS_SCREEN,
  questionnairePath,
  resultsScreen,
  useQuestionnaireLabels,
  type QuestionnaireItem,
  type QuestionnairePage,
} from './api.ts';

/**
 * The company's surveys: title, how they are answered, open or closed, revision, terminals in
 * scope, questions and the last change; search by title, filter by state; add and edit in a
 * drawer; open, close (after a confirmation) and delete a closed one.
 */
export function QuestionnaireSettingPage() {
  const { t } = useLingui();
  const labels = useQuestionnaireLabels();
  const [filters, setFilters] = useUrlFilters({ keyword: '', state: '' });
  const [draft, setDraft] = useState(filters.keyword);
  const [editing, setEditing] = useState<QuestionnaireItem | 'new' | null>(null);
  const pageSize = usePageSize('questionnaires');
  const list = useList<QuestionnaireItem, QuestionnairePage>({
    resource: RESOURCE,
    path: QUESTIONNAIRES_PATH,
    query: { keyword: filters.keyword || undefined, state: filters.state || undefined },
    pageSize: pageSize.value,
  });
  const search = () => setFilters({ ...filters, keyword: draft.trim() }) || void list.refetch();

  const confirmDelete = useConfirmDelete(RESOURCE);
  const remove = (item: QuestionnaireItem) => {
    const title = item.title;
    confirmDelete({
      title: t`Delete survey`,
      text: t`Delete the survey ${title}? Its results are deleted with it.`,
      path: questionnairePath(item.questionnaireKey),
      version: item.version,
      done: t`Survey deleted`,
    });
  };

  // A refusal (no terminal in scope, too many open, changed meanwhile) shows the server's words in the toast; the list is read again either way.
  const switchState = useWrite(
    ({ item, to }: { item: QuestionnaireItem; to: 'open' | 'close' }) =>
      api.post(`${questionnairePath(item.questionnaireKey)}/${to}`, { version: item.version }),
    {
      touches: [RESOURCE],
      refreshOnFailure: true,
      success: (_, { to }) => (to === 'open' ? t`Survey opened` : t`Survey closed`),
    },
  );
  const switching = switchState.isPending ? switchState.variables.item.questionnaireKey : null;
  const setState = (item: QuestionnaireItem, to: 'open' | 'close') => switchState.mutate({ item, to });
  const close = (item: QuestionnaireItem) => {
    const title = item.title;
    confirmAction({
      title: t`Close survey`,
      text: t`Close the survey ${title}? The terminals stop showing it and its links stop working; its results stay.`,
      confirm: t`Close survey`,
      color: 'orange',
      testId: 'close',
      onConfirm: () => setState(item, 'close'),
    });
  };

  const columns: Column<QuestionnaireItem>[] = [
    {
      key: 'title',
      title: t`Title`,
      sticky: 'start',
      render: (item) => <OpenCell onOpen={() => setEditing(item)} text={item.title} maw={240} testId="questionnaire-edit" />,
    },
    { key: 'mode', title: t`Mode`, render: (item) => labels.mode[item.mode] },
    { key: 'state', title: t`State`, render: (item) => <StateBadge state={item.state} /> },
    { key: 'revision', title: t`Revision`, render: (item) => formatNumber(item.revision) },
    {
      key: 'terminals',
      title: t`Terminals`,
      render: (item) => (item.deviceCount ? formatNumber(item.deviceCount) : <Text size="sm" c="orange.8">{t`None`}</Text>),
    },
    { key: 'questions', title: t`Questions`, render: (item) => formatNumber(item.questions.length) },
    { key: 'updated', title: t`Updated`, render: (item) => formatDateTime(item.updateTime) },
    {
      key: 'actions',
      sticky: 'end',
      render: (item) => {
        // An open survey is closed (after a confirmation), a closed one opened.
        const opened = item.state === 'open';
        return (
          <Group gap={4} wrap="nowrap" justify="flex-end">
            <Button
              size="xs"
              variant="light"
              color={opened ? 'orange' : 'teal'}
              leftSection={opened ? <IconPlayerStop size={14} /> : <IconPlayerPlay size={14} />}
              loading={switching === item.questionnaireKey}
              onClick={() => (opened ? close(item) : setState(item, 'open'))}
              data-testid={opened ? 'questionnaire-close' : 'questionnaire-open'}
            >
              {opened ? t({ message: 'Close', context: 'questionnaire action' }) : t({ message: 'Open', context: 'questionnaire action' })}
            </Button>
            <RowMenu testId="questionnaire-actions">
              <Menu.Item onClick={() => setEditing(item)} data-testid="questionnaire-menu-edit">
                <Trans>Edit</Trans>
              </Menu.Item>
              <Menu.Item component={Link} to={resultsScreen(item.questionnaireKey)} data-testid="questionnaire-menu-results">
                <Trans>Results</Trans>
              </Menu.Item>
              {/* Only a closed survey can be deleted: the terminals may be showing an open one. */}
              <Menu.Item color="red" disabled={item.state !== 'closed'} onClick={() => remove(item)} data-testid="questionnaire-delete">
                {item.state === 'closed' ? <Trans>Delete</Trans> : <Trans>Close it to delete it</Trans>}
              </Menu.Item>
            </RowMenu>
          </Group>
        );
      },
    },
  ];

  return (
    <ScreenPage>
      <Paper withBorder p="lg" radius="md">
        <Stack gap="md">
          <SearchBar name="questionnaire" hint={t`Title`} keyword={draft} onKeyword={setDraft} onSearch={search} add={() => setEditing('new')}>
            <Select
              label={t`State`}
              placeholder={t`Any state`}
              data={QUESTIONNAIRE_STATES.map((value) => ({ value, label: labels.state[value] }))}
              clearable
              value={filters.state || null}
              onChange={(state) => setFilters({ keyword: draft.trim(), state: state ?? '' })}
              w={150}
              data-testid="questionnaire-state-filter"
            />
          </SearchBar>
          <Group justify="flex-end" mt={-8}>
            <Anchor component={Link} to={RESULTS_SCREEN} size="sm" data-testid="questionnaire-results-link">
              <Group gap={4} wrap="nowrap">
                <IconChartBar size={16} />
                <Trans>Survey results</Trans>
              </Group>
            </Anchor>
          </Group>
          <ListFrame
            list={list}
            name="questionnaire"
            pageSize={pageSize}
            columns={columns}
            rowKey={(item) => item.questionnaireKey}
            rowProps={(item) => ({ 'data-testid': 'questionnaire-row', 'data-key': item.questionnaireKey, 'data-state': item.state })}
            filtered={!!(filters.keyword || filters.state)}
            empty={
              <>
                <Text c="dimmed">{t`No surveys yet. Add one to ask people questions at the face terminals.`}</Text>
                <Button variant="light" onClick={() => setEditing('new')}>
                  <Trans>Add a survey</Trans>
                </Button>
              </>
            }
            showTotal
          />
        </Stack>
      </Paper>
      <QuestionnaireDrawer editing={editing} onClose={() => setEditing(null)} />
    </ScreenPage>
  );
}
