import { useEffect, useRef, useState } from 'react';
import { ActionIcon, Anchor, Badge, Box, Group, Paper, ScrollArea, SimpleGrid, Skeleton, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconArrowsMaximize, IconArrowsMinimize } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { queryClient } from '../../app/queries.ts';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { FEED_SIZE, type CaptureFeed, type DashboardView } from '@passcloud/functions/contract/dashboard';
import { useLive } from '../../app/live/channel.ts';
import { api } from '../../app/api.ts';
import { currentTag, formatNumber, formatShortTime } from '../../app/format.ts';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { CAPTURE_RETRIES, RecordPhoto, Temperature } from '../passage/records/parts.tsx';
import { useRecordLabels } from '../passage/records/labels.ts';
import classes from './Dashboard.module.css';
import { GettingStarted, isStarting } from './GettingStarted.tsx';
import { DaysChart, OfflineTerminals, Panel, SyncHealth, Tile, YesterdayAttendance } from './panels.tsx';

/** The figures are read again this often, and the capture feed more often while the live channel is not open. */
const FIGURES_MS = 10_000;
const FEED_MS = 3_000;
/** Figures follow new captures, read again at most this often however many arrive. */
const FIGURES_AFTER_CAPTURE_MS = 1000;
const FEED_KEY = ['dashboard', 'captures'];
const ATTENDANCE_GROUPS = '/pass-platform/enterprise/attendance/settings/group';

/**
 * The first screen after login, on a dark background: today's and the month's passes, devices and
 * people from the counters (GET /v1/dashboard), the last ten days as a chart and the newest
 * captures. Every tile keeps its size while its value arrives, so nothing moves.
 */
export function DashboardPage() {
  const { t } = useLingui();
  const frame = useRef<HTMLDivElement>(null);
  const [full, setFull] = useState(false);
  const figures = useQuery({
    queryKey: ['dashboard', 'figures'],
    // A refresh of figures already shown is silent: no toast every 10 s while the network is down.
    queryFn: () => api.get<DashboardView>('/v1/dashboard', { quiet: true, silent: !!queryClient.getQueryState(['dashboard', 'figures'])?.dataUpdatedAt }),
    refetchInterval: FIGURES_MS,
  });
  const view = figures.data;
  const n = (value: number | undefined) => (value === undefined ? undefined : formatNumber(value));

  const toggleFull = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else
      void frame.current?.requestFullscreen().then(
        () => setFull(true),
        // A browser that refuses full screen leaves the page as it is; there is nothing to tell.
        () => undefined,
      );
  };
  useEffect(() => {
    const changed = () => setFull(!!document.fullscreenElement);
    document.addEventListener('fullscreenchange', changed);
    return () => document.removeEventListener('fullscreenchange', changed);
  }, []);
  const day = view ? new Intl.DateTimeFormat(currentTag(), { dateStyle: 'full', timeZone: 'UTC' }).format(new Date(`${view.today}T00:00:00Z`)) : '';
  const dash = (value: number | undefined) => n(value) ?? '–';
  const [normal, fever, strangers, online, offline, employees, visitors] = [
    dash(view?.todayCounts.normal),
    dash(view?.todayCounts.fever),
    dash(view?.month.stranger),
    dash(view?.devices.online),
    dash(view?.devices.offline),
    dash(view?.users.employees),
    dash(view?.users.visitors),
  ];

  return (
    <ScreenPage dark>
      <Box ref={frame} className={classes.frame} data-testid="dashboard">
        <Group justify="space-between" mb="md">
          <Text c="gray.4" size="sm" data-testid="dashboard-today">
            {view ? <Trans>Today, {day}</Trans> : ' '}
          </Text>
          <Tooltip label={full ? t`Leave full screen` : t`Full screen`}>
            <ActionIcon
              variant="subtle"
              color="gray.3"
              onClick={toggleFull}
              aria-label={full ? t`Leave full screen` : t`Full screen`}
              data-testid="dashboard-fullscreen"
            >
              {full ? <IconArrowsMinimize size={18} /> : <IconArrowsMaximize size={18} />}
            </ActionIcon>
          </Tooltip>
        </Group>
        {figures.isError && !view && (
          <Text c="red.4" mb="md" data-testid="dashboard-failed">
            <Trans>The figures could not be loaded. They are tried again in a few seconds.</Trans>
          </Text>
        )}
        <SimpleGrid cols={{ base: 2, md: 4 }} spacing="md">
          <Tile label={t`Employee passes today`} value={n(view?.todayCounts.employee)} testId="tile-faces" />
          <Tile label={t`Visitor passes today`} value={n(view?.todayCounts.visitor)} testId="tile-visitors" />
          <Tile label={t`Strangers today`} value={n(view?.todayCounts.stranger)} testId="tile-strangers" tone="orange" />
          <Tile label={t`Blacklist hits today`} value={n(view?.todayCounts.blacklist)} testId="tile-blacklist" tone="red" />
          <Tile label={t`Passes today`} value={n(view?.todayCounts.total)} testId="tile-today">
            <Trans>
              {normal} normal · {fever} fever
            </Trans>
          </Tile>
          <Tile label={t`Passes this month`} value={n(view?.month.total)} testId="tile-month">
            <Trans>{strangers} strangers this month</Trans>
          </Tile>
          <Tile label={t`Devices`} value={n(view?.devices.total)} testId="tile-devices">
            <Trans>
              {online} online · {offline} offline
            </Trans>
          </Tile>
          <Tile label={t`Users`} value={n(view?.users.total)} testId="tile-users">
            <Trans>
              {employees} employees · {visitors} visitors
            </Trans>
          </Tile>
        </SimpleGrid>
        <Box className={classes.lower} mt="md">
          <Panel title={t`Passes in the last 10 days`} testId="dashboard-chart">
            <Box h={300}>{view ? <DaysChart days={view.days} /> : <Skeleton h="100%" radius="md" className={classes.skeleton} />}</Box>
          </Panel>
          <CapturePanel />
        </Box>
        {view && isStarting(view) ? (
          <Box mt="md">
            <GettingStarted view={view} />
          </Box>
        ) : (
          <Box className={classes.health} mt="md">
            <SyncHealth view={view} />
            <OfflineTerminals view={view} />
          </Box>
        )}
        <Paper className={classes.panel} p="md" mt="md" data-testid="dashboard-attendance">
          <Title order={3} size="h5" c="gray.1" mb="xs">
            <Trans>Yesterday’s attendance</Trans>
          </Title>
          {view?.attendance ? (
            <YesterdayAttendance attendance={view.attendance} />
          ) : (
            <Text c="gray.4" size="sm">
              {view && view.attendance === null ? (
                <>
                  <Trans>No attendance was counted yesterday: it is counted for employees who belong to an attendance group.</Trans>{' '}
                  <Anchor component={Link} to={ATTENDANCE_GROUPS} c="blue.3" data-testid="dashboard-attendance-setup">
                    <Trans>Attendance groups</Trans>
                  </Anchor>
                </>
              ) : (
                <Skeleton h={18} w={240} radius="sm" className={classes.skeleton} component="span" display="inline-block" />
              )}
            </Text>
          )}
        </Paper>
      </Box>
    </ScreenPage>
  );
}

/** The newest captures of the company, newest first; fevers and the blacklist marked. */
function CapturePanel() {
  const { t } = useLingui();
  const labels = useRecordLabels();
  // Captures come over the live channel as they are stored; while it is not open, the feed is polled.
  const live = useLive(
    'passes',
    (arrived) =>
      queryClient.setQueryData<CaptureFeed>(FEED_KEY, (old) => {
        const known = new Set(arrived.map((r) => r.recordKey));
        return {
          items: [...arrived]
            .reverse()
            .concat((old?.items ?? []).filter((r) => !known.has(r.recordKey)))
            .slice(0, FEED_SIZE),
        };
      }),
    { onOpen: () => void queryClient.invalidateQueries({ queryKey: FEED_KEY }) },
  );
  const feed = useQuery({
    queryKey: FEED_KEY,
    queryFn: () => api.get<CaptureFeed>('/v1/dashboard/captures', { quiet: true, silent: true }),
    refetchInterval: live ? false : FEED_MS,
  });
  const items = feed.data?.items ?? [];
  // A new capture counts too: the figures are read again with it, at most every FIGURES_AFTER_CAPTURE_MS.
  const newest = items[0]?.recordKey;
  const seen = useRef<string | undefined>(undefined);
  const figuresDue = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    if (seen.current && newest && newest !== seen.current && !figuresDue.current) {
      figuresDue.current = setTimeout(() => {
        figuresDue.current = undefined;
        void queryClient.invalidateQueries({ queryKey: ['dashboard', 'figures'] });
      }, FIGURES_AFTER_CAPTURE_MS);
    }
    seen.current = newest;
  }, [newest]);
  useEffect(() => () => clearTimeout(figuresDue.current), []);
  return (
    <Panel title={t`Real-time captures`} testId="dashboard-feed">
      <ScrollArea h={300} type="auto" offsetScrollbars>
        {feed.data && items.length === 0 && (
          <Text c="gray.5" size="sm" ta="center" py="xl" data-testid="dashboard-feed-empty">
            <Trans>No passes in the last 10 days. Captures appear here as the terminals report them.</Trans>
          </Text>
        )}
        {feed.isError && !feed.data && (
          <Text c="red.4" size="sm" ta="center" py="xl">
            <Trans>The captures could not be loaded. They are tried again in a few seconds.</Trans>
          </Text>
        )}
        <Stack gap={6}>
          {items.map((record) => (
            <Group
              key={record.recordKey}
              gap="sm"
              wrap="nowrap"
              className={classes.capture}
              data-fever={record.fever || undefined}
              data-blacklist={record.type === 'blacklist' || undefined}
              data-testid="dashboard-capture"
            >
              <RecordPhoto src={record.capture ?? record.avatar} size={44} alt={t`Capture`} retries={record.capture ? CAPTURE_RETRIES : 0} />
              <Box style={{ flex: 1, minWidth: 0 }}>
                <Group gap={6} wrap="nowrap">
                  <Text size="sm" c="gray.0" fw={500} truncate="end">
                    {record.name ?? labels.type[record.type]}
                  </Text>
                  <Badge
                    size="xs"
                    variant="light"
                    color={record.type === 'blacklist' ? 'red' : record.type === 'stranger' ? 'orange' : 'blue'}
                    miw="max-content"
                  >
                    {labels.type[record.type]}
                  </Badge>
                </Group>
                <Text size="xs" c="gray.5" truncate="end">
                  {record.deviceName} · {formatShortTime(record.verifyTime)}
                </Text>
              </Box>
              <Temperature record={record} />
            </Group>
          ))}
        </Stack>
      </ScrollArea>
    </Panel>
  );
}
