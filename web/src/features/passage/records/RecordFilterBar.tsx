import type { ReactNode } from 'react';
import { Button, Group, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { Trans } from '@lingui/react/macro';
import type { FrameList } from '../../../app/queries.ts';
import type { ListFilters } from '../../../components/useListFilters.ts';
import { SearchButtons } from '../../filters.tsx';
import { DayRangeInput } from './DayRangeInput.tsx';
import type { RecordFilters } from './filters.ts';

/**
 * The filter bar of a record list (pass records, survey answers, intercom calls): the days, the
 * screen's own filters, then Search, Reset and Export. Test ids: `<name>-range`, `<name>-search`,
 * `<name>-reset`, `<name>-export-button`.
 */
export function RecordFilterBar<F extends { range: RecordFilters['range'] }>({
  name,
  filters,
  list,
  onExport,
  canSearch = true,
  canExport,
  children,
}: {
  name: string;
  filters: ListFilters<F>;
  list: FrameList<unknown>;
  onExport: () => void;
  canSearch?: boolean;
  canExport: boolean;
  /** The screen's own filters, between the days and the buttons. */
  children: ReactNode;
}) {
  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <DayRangeInput
        value={filters.draft.range}
        onChange={(range) => filters.change({ range } as Partial<F>, { clears: true })}
        tooLong={filters.invalid}
        testId={`${name}-range`}
      />
      {children}
      <Group gap="xs" wrap="nowrap">
        <SearchButtons name={name} onSearch={() => filters.search(list.refetch)} onReset={filters.reset} canSearch={canSearch} />
        <Button variant="default" leftSection={<IconDownload size={16} />} onClick={onExport} disabled={!canExport} data-testid={`${name}-export-button`}>
          <Trans>Export</Trans>
        </Button>
      </Group>
    </Group>
  );
}

/**
 * What an empty page of a record list says. A filtered read stops after a bounded number of
 * records: when it stopped before the end, nothing matches so far (`text`) and a button reads on
 * from there; else the screen's own words (`otherwise`).
 */
export function EmptyRecords({ list, text, testId, otherwise }: { list: FrameList<unknown>; text: ReactNode; testId?: string; otherwise: ReactNode }) {
  const next = list.page?.nextCursor;
  if (!next) return <Text c="dimmed">{otherwise}</Text>;
  return (
    <>
      <Text c="dimmed">{text}</Text>
      <Button variant="light" onClick={() => list.setCursors([...list.cursors, next])} data-testid={testId}>
        <Trans>Search further</Trans>
      </Button>
    </>
  );
}
