import type { ReactNode } from 'react';
import { Anchor, Group, Paper, SimpleGrid, Skeleton, Stack, Text, Title } from '@mantine/core';
import { ResponsiveLine } from '@nivo/line';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import type { DashboardView } from '@passcloud/functions/contract/dashboard';
import { currentTag, formatDateTime, formatNumber } from '../../app/format.ts';
import { getAuthorities } from '../../app/session.ts';
import classes from './Dashboard.module.css';

/** The dashboard's tiles and panels that show what the figures answer (GET /v1/dashboard). */

const SYNC_LISTS = [
  { list: 'authority', path: '/pass-platform/passage/authority', code: 'pass:authority' },
  { list: 'blacklist', path: '/pass-platform/passage/blacklist/monitoring', code: 'pass:blacklist' },
] as const;

/**
 * Faces not yet on their terminals, per list: waiting and refused, each a link to the list
 * filtered to them when the account may open it. All clear says so.
 */
export function SyncHealth({ view }: { view: DashboardView | undefined }) {
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
export function OfflineTerminals({ view }: { view: DashboardView | undefined }) {
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

export function Panel({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
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
export function YesterdayAttendance({ attendance }: { attendance: NonNullable<DashboardView['attendance']> }) {
  const { t } = useLingui();
  const daily = (status?: string) =>
    `/pass-platform/enterprise/attendance/statistics/daily?from=${attendance.day}&to=${attendance.day}${status ? `&status=${status}` : ''}`;
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
export function Tile({
  label,
  value,
  testId,
  tone,
  children,
}: {
  label: string;
  value: string | undefined;
  testId: string;
  tone?: 'orange' | 'red';
  children?: ReactNode;
}) {
  return (
    <Paper className={classes.panel} p="md" data-testid={testId}>
      <Text size="sm" c="gray.4" truncate="end" title={label}>
        {label}
      </Text>
      <Text className={classes.figure} h={44} c={tone ? `${tone}.4` : 'gray.0'} data-testid={`${testId}-value`}>
        {value ?? (
          <Skeleton h={32} w={80} radius="sm" className={classes.skeleton} component="span" display="inline-block" style={{ verticalAlign: 'middle' }} />
        )}
      </Text>
      <Text size="xs" c="gray.5" h={18} truncate="end">
        {children}
      </Text>
    </Paper>
  );
}

/** Passes, strangers and fevers per day, the days in the reader's short date. */
export function DaysChart({ days }: { days: DashboardView['days'] }) {
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
