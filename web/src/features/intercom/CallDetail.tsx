import { useRef } from 'react';
import { Modal, Paper, SimpleGrid, Stack, Text } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { formatTime } from '../../app/format.ts';
import { CloseFooter, FactsTable } from '../parts.tsx';
import type { CallItem } from './api.ts';
import { StatusBadge, formatDuration, useKindLabels, useStatusLabels } from './parts.tsx';

type CallEnd = CallItem['ends'][number];

/**
 * One call: its two ends, each with its own report (what that intercom said of the call). An end
 * that did not report it (an intercom outside the company, or one whose report has not come) says so.
 */
export function CallDetail({ call: chosen, onClose }: { call: CallItem | null; onClose: () => void }) {
  const { t } = useLingui();
  const kindLabels = useKindLabels();
  const statusLabels = useStatusLabels();
  // The call stays on screen while the dialog closes.
  const last = useRef(chosen);
  if (chosen) last.current = chosen;
  const call = chosen ?? last.current;

  const recordingLabel = (state: CallEnd['recording']['state']) =>
    ({ none: t`No recording`, pending: t`Uploading`, ready: t`Uploaded`, expired: t`Expired` })[state];
  const report = (end: CallEnd | undefined, side: 'calling' | 'called') => {
    const party = call![side];
    const title = party.name ?? party.number ?? t`Unknown intercom`;
    return (
      <Paper withBorder radius="sm" p="sm" data-testid={`call-end-${side}`}>
        <Stack gap={6}>
          <Text size="sm" fw={600}>
            {side === 'calling' ? t`Calling device` : t`Called device`}: {title}
          </Text>
          {end ? (
            <FactsTable
              rows={[
                [t`Type`, end.kind ? kindLabels[end.kind] : '—'],
                [t`Direction`, end.direction === 'outgoing' ? statusLabels[2] : statusLabels[1]],
                [t`Status`, <StatusBadge status={end.status} live={end.live} />],
                [t`Call time`, formatTime(end.startTime)],
                [t`Answer time`, formatTime(end.answerTime)],
                [t`End time`, formatTime(end.endTime)],
                [t`Duration`, end.duration === null ? '—' : formatDuration(end.duration)],
                [t`Number of the other end`, end.peerNumber],
                [t`Door opened`, formatTime(end.doorOpenedAt)],
                [t`Recording`, recordingLabel(end.recording.state)],
                [t`Reported at`, formatTime(end.reportedAt)],
              ]}
            />
          ) : (
            <Text size="sm" c="dimmed" data-testid="call-end-missing">
              <Trans>This end has not reported the call.</Trans>
            </Text>
          )}
        </Stack>
      </Paper>
    );
  };
  const endOf = (side: 'calling' | 'called') => call?.ends.find((e) => (side === 'calling' ? e.direction === 'outgoing' : e.direction === 'incoming'));

  return (
    <Modal
      opened={!!chosen}
      onClose={onClose}
      size={860}
      centered
      title={<Text fw={600}>{t`Call details`}</Text>}
      closeButtonProps={{ 'aria-label': t`Close` }}
      data-testid="call-detail"
    >
      {call && (
        <Stack gap="md">
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md" style={{ alignItems: 'start' }}>
            {report(endOf('calling'), 'calling')}
            {report(endOf('called'), 'called')}
          </SimpleGrid>
          <CloseFooter onClose={onClose} testId="call-detail-close" />
        </Stack>
      )}
    </Modal>
  );
}
