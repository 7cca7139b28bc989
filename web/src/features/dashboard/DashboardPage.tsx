import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ActionIcon, Anchor, Badge, Box, Group, Paper, ScrollArea, SimpleGrid, Skeleton, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconArrowsMaximize, IconArrowsMinimize } from '@tabler/icons-react';
import { useQuery } from '@tanstack/react-query';
import { queryClient } from '../../app/queries.ts';
import { ResponsiveLine } from '@nivo/line';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { FEED_SIZE, type CaptureFeed, type DashboardView } from '@passcloud/functions/contract/dashboard';
import { useLive } from '../../app/live/channel.ts';
import { api } from '../../app/api.ts';
import { currentTag, formatDateTime, formatNumber, formatShortTime } from '../../app/format.ts';
import { getAuthorities } from '../../app/session.ts';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { CAPTURE_RETRIES, RecordPhoto, Temperature } from '../passage/records/parts.tsx';
import { useRecordLabels } from '../passage/records/labels.ts';
import classes from './Dashboard.module.css';

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
            <ActionIcon variant="subtle" color="gray.3" onClick={toggleFull} aria-label={full ? t`Leave full screen` : t`Full screen`} data-testid="dashboard-fullscreen">
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
          <Tile label={t`Face verifications today`} value={n(view?.todayCounts.employee)} testId="tile-faces" />
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
        <Box className={classes.health} mt="md">
          <SyncHealth view={view} />
          <OfflineTerminals view={view} />
        </Box>
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

const SYNC_LISTS = [
  { list: 'authority', path: '/pass-platform/passage/authority', code: 'pass:authority' },
  { list: 'blacklist', path: '/pass-platform/passage/blacklist/monitoring', code: 'pass:blacklist' },
] as const;

/**
 * Faces not yet on their terminals, per list: waiting and refused, each a link to the list
 * filtered to them when the account may open it. All clear says so.
 */
function SyncHealth({ view }: { view: DashboardView | undefined }) {
  const { t } = useLingui();
  const held = getAuthorities();
  const names = { authority: t`Pass authority`, blacklist: t`Blacklist` };
  const clear = view && SYNC_LISTS.every(({ list }) => view.sync[list].pending + view.sync[list].failed === 0);
  return (
    <Panel title={t`Face sync`} testId="dashboard-sync">
      <Stack gap={6} mih={52}>
        {!view && <Skeleton h={44} radius="sm" className={classes.skeleton} />}
        {clear && (
          <Text size="sm" c="teal.3" data-testid="dashboard-sync-clear">
            <Trans>Every face is on its terminals.</Trans>
          </Text>
        )}
        {view &&
          !clear &&
          SYNC_LISTS.map(({ list, path, code }) => {
            const counts = view.sync[list];
            const link = (state: 'pending' | 'failed', text: string) => {
              const testId = `dashboard-sync-${list}-${state}`;
              return held.includes(code) && counts[state] > 0 ? (
                <Anchor component={Link} to={`${path}?state=${state}`} size="sm" c={state === 'failed' ? 'red.3' : 'blue.3'} data-testid={testId}>
                  {text}
                </Anchor>
              ) : (
                <Text span size="sm" c={state === 'failed' && counts.failed > 0 ? 'red.3' : 'gray.4'} data-testid={testId}>
                  {text}
                </Text>
              );
            };
            const pending = formatNumber(counts.pending);
            const failed = formatNumber(counts.failed);
            return (
              <Group key={list} gap="xs" wrap="nowrap" justify="space-between">
                <Text size="sm" c="gray.2" truncate="end">
                  {names[list]}
                </Text>
                <Group gap={6} wrap="nowrap">
                  {link('pending', t`${pending} waiting`)}
                  <Text span size="sm" c="gray.6">
                    ·
                  </Text>
                  {link('failed', t`${failed} failed`)}
                </Group>
              </Group>
            );
          })}
      </Stack>
    </Panel>
  );
}

/** Terminals offline for more than an hour, longest first, with since when. */
function OfflineTerminals({ view }: { view: DashboardView | undefined }) {
  const { t } = useLingui();
  const { count, devices } = view?.offline ?? { count: 0, devices: [] };
  const more = count - devices.length;
  return (
    <Panel title={t`Offline for over an hour`} testId="dashboard-offline">
      <Stack gap={4} mih={52}>
        {!view && <Skeleton h={44} radius="sm" className={classes.skeleton} />}
        {view && count === 0 && (
          <Text size="sm" c="teal.3" data-testid="dashboard-offline-none">
            <Trans>Every terminal has been online within the hour.</Trans>
          </Text>
        )}
        {devices.map((device) => {
          const since = device.since ? formatDateTime(device.since) : '';
          return (
            <Group key={device.deviceKey} gap="xs" wrap="nowrap" justify="space-between" data-testid="dashboard-offline-device">
              <Text size="sm" c="gray.1" truncate="end" title={device.name}>
                {device.name}
              </Text>
              <Text size="xs" c="orange.3" miw="max-content">
                {device.since ? t`since ${since}` : t`never connected`}
              </Text>
            </Group>
          );
        })}
        {more > 0 && (
          <Text size="xs" c="gray.5">
            <Trans>and {more} more</Trans>
          </Text>
        )}
      </Stack>
    </Panel>
  );
}

function Panel({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  return (
    <Paper className={classes.panel} p="md" data-testid={testId}>
      <Title order={3} size="h5" c="gray.1" mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/** Yesterday's employee-days by status, each opening the daily statistics of yesterday with that status. */
function YesterdayAttendance({ attendance }: { attendance: NonNullable<DashboardView['attendance']> }) {
  const { t } = useLingui();
  const daily = (status?: string) => `/pass-platform/enterprise/attendance/statistics/daily?from=${attendance.day}&to=${attendance.day}${status ? `&status=${status}` : ''}`;
  const figures = [
    { key: 'total', label: t`Counted`, value: attendance.total, status: undefined, tone: 'gray.0' },
    { key: 'normal', label: t({ message: 'Normal', context: 'attendance status' }), value: attendance.normal, status: 'normal', tone: 'teal.3' },
    { key: 'late', label: t`Late`, value: attendance.late, status: 'late', tone: 'orange.4' },
    { key: 'earlyLeave', label: t`Left early`, value: attendance.earlyLeave, status: 'earlyLeave', tone: 'yellow.4' },
    { key: 'missing', label: t`Missing punches`, value: attendance.missing, status: undefined, tone: 'grape.3' },
    { key: 'absence', label: t`Absent`, value: attendance.absence, status: 'absence', tone: 'red.4' },
  ];
  const linked = getAuthorities().includes('pass:attendance-statistics');
  return (
    <SimpleGrid cols={{ base: 3, md: 6 }} spacing="sm">
      {figures.map((f) => (
        <Stack key={f.key} gap={0} data-testid={`attendance-${f.key}`}>
          <Text size="xs" c="gray.4" truncate="end" title={f.label}>
            {f.label}
          </Text>
          {linked ? (
            <Anchor component={Link} to={daily(f.status)} c={f.tone} fz={24} fw={600} data-testid={`attendance-${f.key}-value`}>
              {formatNumber(f.value)}
            </Anchor>
          ) : (
            <Text c={f.tone} fz={24} fw={600} data-testid={`attendance-${f.key}-value`}>
              {formatNumber(f.value)}
            </Text>
          )}
        </Stack>
      ))}
    </SimpleGrid>
  );
}

/** One figure with its label; while it loads a block of the same size stands in its place. */
function Tile({ label, value, testId, tone, children }: { label: string; value: string | undefined; testId: string; tone?: 'orange' | 'red'; children?: ReactNode }) {
  return (
    <Paper className={classes.panel} p="md" data-testid={testId}>
      <Text size="sm" c="gray.4" truncate="end" title={label}>
        {label}
      </Text>
      <Text className={classes.figure} h={44} c={tone ? `${tone}.4` : 'gray.0'} data-testid={`${testId}-value`}>
        {value ?? <Skeleton h={32} w={80} radius="sm" className={classes.skeleton} component="span" display="inline-block" style={{ verticalAlign: 'middle' }} />}
      </Text>
      <Text size="xs" c="gray.5" h={18} truncate="end">
        {children}
      </Text>
    </Paper>
  );
}

/** Passes, strangers and fevers per day, the days in the reader's short date. */
function DaysChart({ days }: { days: DashboardView['days'] }) {
  const { t } = useLingui();
  const short = new Intl.DateTimeFormat(currentTag(), { month: 'numeric', day: 'numeric', timeZone: 'UTC' });
  const label = (day: string) => short.format(new Date(`${day}T00:00:00Z`));
  const series = [
    { id: t`Passes`, color: '#4dabf7', data: days.map((d) => ({ x: label(d.day), y: d.total })) },
    { id: t`Strangers`, color: '#ffa94d', data: days.map((d) => ({ x: label(d.day), y: d.stranger })) },
    { id: t`Fever`, color: '#ff6b6b', data: days.map((d) => ({ x: label(d.day), y: d.fever })) },
  ];
  return (
    <ResponsiveLine
      data={series}
      colors={(s) => (s as { color: string }).color}
      margin={{ top: 10, right: 16, bottom: 56, left: 48 }}
      yScale={{ type: 'linear', min: 0, max: 'auto' }}
      axisLeft={{ tickSize: 0, tickPadding: 8, format: (v: number) => (Number.isInteger(v) ? formatNumber(v) : '') }}
      axisBottom={{ tickSize: 0, tickPadding: 8 }}
      enableGridX={false}
      pointSize={6}
      useMesh
      animate={false}
      yFormat={(v) => formatNumber(Number(v))}
      legends={[{ anchor: 'bottom', direction: 'row', translateY: 52, itemWidth: 110, itemHeight: 16, symbolSize: 10, itemTextColor: '#ced4da' }]}
      theme={{
        text: { fill: '#ced4da', fontSize: 12 },
        grid: { line: { stroke: 'rgba(255,255,255,0.08)' } },
        tooltip: { container: { background: '#1b2b41', color: '#e9ecef', fontSize: 12 } },
        crosshair: { line: { stroke: '#adb5bd' } },
      }}
    />
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
        return { items: [...arrived].reverse().concat((old?.items ?? []).filter((r) => !known.has(r.recordKey))).slice(0, FEED_SIZE) };
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
                  <Badge size="xs" variant="light" color={record.type === 'blacklist' ? 'red' : record.type === 'stranger' ? 'orange' : 'blue'} miw="max-content">
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
