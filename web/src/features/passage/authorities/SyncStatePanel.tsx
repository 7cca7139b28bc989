import { Avatar, Badge, Button, Group, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconRefresh } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { formatNumber } from '../../../app/format.ts';
import { getAuthorities } from '../../../app/session.ts';
import { invalidate, useList, useWrite } from '../../../app/queries.ts';
import { ListFrame, type Column } from '../../../components/ListFrame.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import { AUTH_CODE, PENDING_REFRESH_MS, listSync, retryAllFailed, retrySync, type AuthorityItem, type SyncPage } from './api.ts';
import { ListBadge, SYNC_COLOR, SyncStateCell, ValidityCell, syncTime, useAuthorityLabels } from './parts.tsx';

const PAGE_SIZE = 20;
/** How many pages of a person's authorizations the both-lists marker reads at most. */
const BOTH_LISTS_PAGES = 10;

const pairOf = (item: Pick<AuthorityItem, 'personKey' | 'deviceKey'>): string => `${item.personKey}.${item.deviceKey}`;

/** Every authorization a query answers, both lists, a few pages at most. */
async function allSync(query: { personKey: string; deviceKey?: string | undefined }): Promise<AuthorityItem[]> {
  const out: AuthorityItem[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < BOTH_LISTS_PAGES; page++) {
    const answer = await listSync({ ...query, pageSize: 200, cursor }, { quiet: true, silent: true });
    out.push(...answer.items);
    cursor = answer.nextCursor ?? undefined;
    if (!cursor) break;
  }
  return out;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The (person, device) pairs of the rows on screen that are on both lists of the device, where the
 * blacklist wins. Only for an account that sees both lists; each row's other list may be on
 * another page, so it is read apart: a person's authorizations in one read, or on a device each
 * person's on screen. Read again when the rows' people change, and with every change to
 * authorizations (their query key starts with the resource's); a failed read marks nothing.
 */
function useBothLists(items: AuthorityItem[], scope: { personKey?: string | undefined; deviceKey?: string | undefined }): ReadonlySet<string> {
  const codes = getAuthorities();
  const seesBoth = codes.includes(AUTH_CODE[0]) && codes.includes(AUTH_CODE[1]);
  const people = seesBoth ? [...new Set(items.map((i) => i.personKey))].sort().join(',') : '';
  const { personKey, deviceKey } = scope;
  const both = useQuery({
    queryKey: ['authorities', 'bothLists', people, personKey ?? null, deviceKey ?? null],
    queryFn: async () => {
      const lookups = personKey ? [{ personKey }] : people.split(',').map((key) => ({ personKey: key, deviceKey }));
      const answers = await Promise.all(lookups.map(allSync));
      const lists = new Map<string, Set<number>>();
      for (const item of answers.flat()) lists.set(pairOf(item), (lists.get(pairOf(item)) ?? new Set()).add(item.setType));
      return new Set([...lists].filter(([, types]) => types.size === 2).map(([pair]) => pair)) as ReadonlySet<string>;
    },
    enabled: !!people,
    placeholderData: keepPreviousData,
  });
  return (people && both.data) || NONE;
}

/**
 * Where one person's face is (`personKey`: on which devices) or which faces one device holds
 * (`deviceKey`), with each sync state, why a sync failed and when; failed ones can be sent
 * again. Shown only to accounts that may see pass authority or the blacklist.
 */
export function SyncStatePanel(props: { personKey: string; deviceKey?: undefined } | { deviceKey: string; personKey?: undefined }) {
  const codes = getAuthorities();
  if (!codes.includes(AUTH_CODE[0]) && !codes.includes(AUTH_CODE[1])) return null;
  return <SyncStateTable {...props} />;
}

function SyncStateTable({ personKey, deviceKey }: { personKey?: string; deviceKey?: string }) {
  const { t } = useLingui();
  const labels = useAuthorityLabels();
  const list = useList<AuthorityItem, SyncPage>({
    resource: 'authorities',
    path: '/v1/authorities/sync',
    query: { personKey, deviceKey },
    pageSize: PAGE_SIZE,
    // Pending anywhere (not only on this page) keeps the counts moving.
    refreshMs: (page) => ((page?.counts.pending ?? 0) > 0 || page?.items.some((i) => i.syncState === 'pending') ? PENDING_REFRESH_MS : false),
  });
  const page = list.page;
  const items = list.items;
  const both = useBothLists(items, { personKey, deviceKey });
  const reload = () => void invalidate('authorities');

  // Sent again or not (the request client says why), the rows and their counts are read again.
  const retrying = useWrite(
    ({ keys }: { keys: string[] | 'all'; which: string }): Promise<unknown> =>
      keys === 'all' ? retryAllFailed(personKey ? { personKey } : { deviceKey: deviceKey! }) : retrySync(keys),
    { touches: ['authorities'], refreshOnFailure: true, success: t`Sent to the devices again` },
  );
  const busy = retrying.isPending ? retrying.variables.which : null;
  const retry = (keys: string[] | 'all', which: string) => retrying.mutate({ keys, which });

  const columns: Column<AuthorityItem>[] = [
    {
      key: 'who',
      title: personKey ? t`Device` : t`Name`,
      render: (item) =>
        personKey ? (
          <Truncated text={item.deviceName} maw={220} />
        ) : (
          <Group gap="xs" wrap="nowrap">
            <Avatar src={item.avatar} size={28} radius="xl" alt="">
              {item.name.slice(0, 1)}
            </Avatar>
            <Stack gap={0}>
              <Truncated text={item.name} maw={200} />
              <Text size="xs" c="dimmed">
                {item.personId}
              </Text>
            </Stack>
          </Group>
        ),
    },
    {
      key: 'list',
      title: t`List`,
      render: (item) => (
        <Group gap={6} wrap="nowrap">
          <ListBadge setType={item.setType} labels={labels} />
          {both.has(pairOf(item)) && (
            <Tooltip label={t`On both lists of this device: the blacklist wins, and the device refuses this person.`} multiline w={260} withArrow>
              <Badge color="orange" variant="light" leftSection={<IconAlertTriangle size={12} aria-hidden />} data-testid="sync-both">
                {t`On both lists`}
              </Badge>
            </Tooltip>
          )}
        </Group>
      ),
    },
    { key: 'validity', title: t`Validity`, render: (item) => <ValidityCell item={item} labels={labels} /> },
    { key: 'state', title: t`Sync state`, render: (item) => <SyncStateCell item={item} labels={labels} /> },
    { key: 'time', title: t`Sync time`, render: (item) => syncTime(item) },
    {
      key: 'retry',
      render: (item) =>
        item.syncState === 'failed' && (
          <Button
            size="compact-xs"
            variant="light"
            loading={busy === item.authorityKey}
            onClick={() => retry([item.authorityKey], item.authorityKey)}
            data-testid="sync-retry"
          >
            <Trans>Retry</Trans>
          </Button>
        ),
    },
  ];

  return (
    <Paper withBorder radius="md" p="md" data-testid="sync-panel">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap" gap="xs">
          <Group gap="sm" wrap="wrap">
            <Title order={3} size="h5">
              {personKey ? <Trans>Face sync to devices</Trans> : <Trans>Faces on this device</Trans>}
            </Title>
            {page &&
              (['synced', 'pending', 'failed'] as const).map((state) => (
                <Badge key={state} color={SYNC_COLOR[state]} variant="outline" data-testid={`sync-count-${state}`}>
                  {labels.sync[state]} {formatNumber(page.counts[state])}
                </Badge>
              ))}
          </Group>
          <Group gap="xs">
            {(page?.counts.failed ?? 0) > 0 && (
              <Button
                size="xs"
                variant="light"
                color="red"
                leftSection={<IconRefresh size={14} />}
                loading={busy === 'all'}
                onClick={() => retry('all', 'all')}
                data-testid="sync-retry-all"
              >
                <Trans>Retry all that failed</Trans>
              </Button>
            )}
            <Button size="xs" variant="default" onClick={reload} data-testid="sync-refresh">
              <Trans>Refresh</Trans>
            </Button>
          </Group>
        </Group>
        <ListFrame
          list={list}
          name="sync"
          columns={columns}
          rowKey={(item) => item.authorityKey}
          rowProps={(item) => ({ 'data-testid': 'sync-row', 'data-key': item.authorityKey, 'data-state': item.syncState })}
          empty={
            <Text c="dimmed" size="sm">
              {personKey ? t`This person is not authorized on any device.` : t`No faces are authorized on this device.`}
            </Text>
          }
          footer={null}
          paged={list.cursors.length > 1 || !!page?.nextCursor}
        />
      </Stack>
    </Paper>
  );
}
