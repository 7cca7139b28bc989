import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Group, Progress, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { IconRefresh } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import type { RecomputeJobJson } from '@passcloud/functions/contract/attendance';
import { api, notifySuccess } from '../../app/api.ts';
import { formatDate, formatDateTime, formatNumber } from '../../app/format.ts';
import { invalidate, useWrite } from '../../app/queries.ts';
import { getAuthorities } from '../../app/session.ts';

const POLL_MS = 1000;
/** The run the reader closed the notice of, so it stays closed in this tab. */
const DISMISSED = 'attendance.recompute.dismissed';
const busy = (job: RecomputeJobJson | null | undefined): boolean => job?.state === 'queued' || job?.state === 'running';

/**
 * The company's newest recomputation (`GET /v1/attendance/recompute`), followed while it runs:
 * the statistics are read again when it ends, and a run that stopped is shown until closed.
 */
export function useRecompute() {
  const [dismissed, setDismissed] = useState(() => sessionStorage.getItem(DISMISSED));
  const query = useQuery({
    queryKey: ['attendanceRecompute'],
    queryFn: () => api.get<RecomputeJobJson | null>('/v1/attendance/recompute', { quiet: true, silent: true }),
    refetchInterval: (q) => (busy(q.state.data) ? POLL_MS : false),
  });
  const job = query.data ?? null;
  const seen = useRef<RecomputeJobJson | null>(null);
  /** The run started from this screen, until its end has been taken in. */
  const started = useRef<string | null>(null);
  const { t } = useLingui();
  useEffect(() => {
    const before = seen.current;
    seen.current = job;
    if (!job || busy(job)) return;
    const ranHere = started.current === job.jobKey;
    const watched = before?.jobKey === job.jobKey && busy(before);
    if (!ranHere && !watched) return;
    started.current = null;
    // A run just ended (started here or seen running): its figures are read again.
    void invalidate('attendanceDays', 'attendanceMonths');
    if (job.state === 'done') notifySuccess(t`Attendance computed again`);
  }, [job, t]);

  /** Days after today are cut by the server (in the company's time zone). The run is followed from its first answer. */
  const starting = useWrite(({ from, to }: { from: string; to: string }) => api.post<{ jobKey: string }>('/v1/attendance/recompute', { from, to }), {
    onSuccess: async ({ jobKey }) => {
      started.current = jobKey;
      await query.refetch();
    },
  });
  const start = (from: string, to: string) => starting.mutate({ from, to });
  const dismiss = () => {
    if (!job) return;
    sessionStorage.setItem(DISMISSED, job.jobKey);
    setDismissed(job.jobKey);
  };
  return {
    job,
    running: busy(job),
    starting: starting.isPending,
    /** Only rule keepers start runs; statistics readers see them. */
    maySettle: getAuthorities().includes('pass:attendance-settings'),
    start,
    dismiss,
    shown: !!job && job.jobKey !== dismissed && (busy(job) || job.state === 'failed'),
  };
}

type Recomputation = ReturnType<typeof useRecompute>;

/** *Compute again* for `from`..`to`, for accounts that keep the rules; idle while a run goes on. */
export function RecomputeButton({ recomputation, from, to, testId }: { recomputation: Recomputation; from: string; to: string; testId: string }) {
  if (!recomputation.maySettle) return null;
  return (
    <Button
      variant="light"
      leftSection={<IconRefresh size={16} />}
      loading={recomputation.starting}
      disabled={recomputation.running}
      onClick={() => recomputation.start(from, to)}
      data-testid={testId}
    >
      <Trans>Compute again</Trans>
    </Button>
  );
}

/** The newest run while it goes on, or when it stopped (until closed), with *Try again* for rule keepers. */
export function RecomputeStatus({ recomputation }: { recomputation: Recomputation }) {
  const { job } = recomputation;
  if (!recomputation.shown || !job) return null;
  return (
    <RecomputeNotice job={job} onRetry={recomputation.maySettle ? () => recomputation.start(job.from, job.to) : undefined} onClose={recomputation.dismiss} />
  );
}

/** A run in progress with its progress, or a run that stopped, with what that means for the figures. */
function RecomputeNotice({ job, onRetry, onClose }: { job: RecomputeJobJson; onRetry?: (() => void) | undefined; onClose: () => void }) {
  const { t } = useLingui();
  const range = job.from === job.to ? formatDate(job.from) : `${formatDate(job.from)} – ${formatDate(job.to)}`;
  if (job.state === 'failed') {
    return (
      <Alert
        color="red"
        variant="light"
        withCloseButton
        closeButtonLabel={t`Close`}
        onClose={onClose}
        title={t`The computation of ${range} stopped`}
        data-testid="recompute-failed"
      >
        <Stack gap={6}>
          {job.error && <Text size="sm">{job.error}</Text>}
          <Text size="sm">
            {plural(job.total, {
              one: `${formatNumber(job.done)} of # employee was computed again. The others keep their earlier figures; each day says when it was computed.`,
              other: `${formatNumber(job.done)} of # employees were computed again. The others keep their earlier figures; each day says when it was computed.`,
            })}
          </Text>
          {job.finishTime && (
            <Text size="xs" c="dimmed">
              <Trans>Stopped at {formatDateTime(job.finishTime)}</Trans>
            </Text>
          )}
          {onRetry && (
            <Group>
              <Button size="xs" variant="light" color="red" leftSection={<IconRefresh size={14} />} onClick={onRetry} data-testid="recompute-retry">
                <Trans>Try again</Trans>
              </Button>
            </Group>
          )}
        </Stack>
      </Alert>
    );
  }
  const percent = job.total > 0 ? Math.min(100, (job.done / job.total) * 100) : 0;
  return (
    <Alert
      color="blue"
      variant="light"
      withCloseButton
      closeButtonLabel={t`Close`}
      onClose={onClose}
      title={t`Computing ${range} again`}
      data-testid="recompute-running"
    >
      <Stack gap={6}>
        <Progress value={job.total > 0 ? percent : 100} striped animated aria-label={t`Computation progress`} />
        <Text size="sm" data-testid="recompute-progress">
          {job.total > 0
            ? plural(job.total, { one: `${formatNumber(job.done)} of # employee computed`, other: `${formatNumber(job.done)} of # employees computed` })
            : t`Starting…`}
        </Text>
        <Text size="xs" c="dimmed">
          <Trans>The figures shown stay readable meanwhile; they are refreshed when the computation ends.</Trans>
        </Text>
      </Stack>
    </Alert>
  );
}
