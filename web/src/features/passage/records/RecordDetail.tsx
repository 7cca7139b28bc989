import { useRef } from 'react';
import { Modal, SimpleGrid, Stack, Text } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { formatTime } from '../../../app/format.ts';
import type { PassRecordItem } from './api.ts';
import { CloseFooter, FactsTable } from '../../parts.tsx';
import { useRecordLabels } from './labels.ts';
import { RecordPhoto, StateBadge, Temperature, TypeBadge, personName } from './parts.tsx';
import { DecisionTrace } from './DecisionTrace.tsx';

const PHOTO_HEIGHT = 360;

/** One pass: what the terminal captured next to the photo the person is enrolled with, then the facts. */
export function RecordDetail({ record: chosen, onClose }: { record: PassRecordItem | null; onClose: () => void }) {
  const { t } = useLingui();
  const labels = useRecordLabels();
  // The record stays on screen while the dialog closes.
  const last = useRef(chosen);
  if (chosen) last.current = chosen;
  const record = chosen ?? last.current;
  return (
    <Modal
      opened={!!chosen}
      onClose={onClose}
      size={820}
      centered
      title={<Text fw={600}>{record ? personName(record, labels) : ''}</Text>}
      closeButtonProps={{ 'aria-label': t`Close` }}
      data-testid="record-detail"
    >
      {record && (
        <Stack gap="md">
          <SimpleGrid cols={2} spacing="md">
            <Stack gap={6} align="stretch">
              <Text size="sm" fw={500} c="dimmed">
                <Trans>Capture</Trans>
              </Text>
              <RecordPhoto src={record.capture} size={{ w: '100%', h: PHOTO_HEIGHT }} alt={t`Capture`} empty={t`No capture`} testId="detail-capture" />
            </Stack>
            <Stack gap={6} align="stretch">
              <Text size="sm" fw={500} c="dimmed">
                <Trans>Enrolled photo</Trans>
              </Text>
              <RecordPhoto
                src={record.avatar}
                size={{ w: '100%', h: PHOTO_HEIGHT }}
                alt={t`Enrolled photo`}
                empty={t`No enrolled photo`}
                testId="detail-avatar"
              />
            </Stack>
          </SimpleGrid>
          <SimpleGrid cols={2} spacing="md" style={{ alignItems: 'start' }}>
            <FactsTable
              rows={[
                [t`Type`, <TypeBadge record={record} labels={labels} />],
                [t`Group`, record.groupName ?? '—'],
                [t`Temperature`, <Temperature record={record} />],
                [t`Mask`, record.mask === null ? '—' : record.mask ? t`Worn` : t`Not worn`],
                [t`Pass state`, <StateBadge record={record} labels={labels} />],
              ]}
            />
            <FactsTable
              rows={[
                [t`Device`, record.deviceName],
                [t`Source`, labels.source[record.source]],
                [t`Verify time`, formatTime(record.verifyTime)],
                [t`Time`, formatTime(record.time)],
              ]}
            />
          </SimpleGrid>
          <DecisionTrace record={record} labels={labels} />
          <CloseFooter onClose={onClose} testId="record-detail-close" />
        </Stack>
      )}
    </Modal>
  );
}
