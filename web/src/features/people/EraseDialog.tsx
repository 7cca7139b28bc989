import { useState } from 'react';
import { Alert, Button, Checkbox, Group, Loader, Modal, Stack, Table, Text, TextInput } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import type { ErasureCounts, ErasureReceipt } from '@passcloud/functions/contract/erasures';
import { api } from '../../app/api.ts';
import { formatDateTime } from '../../app/format.ts';
import { listKey, showFailure, useWrite } from '../../app/queries.ts';
import { basePath, keyOf, type Kind, type Person } from './api.ts';

/** How many more requests an erasure that ran out of time is given before the dialog stops asking. */
const MAX_ROUNDS = 200;

/**
 * Erasing a person: a confirmation that names them and asks for their name typed and a box
 * ticked, then the erasure (asked again while it answers 202, with its progress), then the
 * receipt, downloadable as JSON or text.
 */
export function EraseDialog({ kind, person, onClose, onErased }: { kind: Kind; person: Person; onClose: () => void; onErased?: () => void }) {
  const { t } = useLingui();
  const [typed, setTyped] = useState('');
  const [understood, setUnderstood] = useState(false);
  const [receipt, setReceipt] = useState<ErasureReceipt | null>(null);
  const [failed, setFailed] = useState(false);
  const matches = typed.trim() === person.name.trim();

  const labels: Record<keyof ErasureCounts, string> = {
    personRecords: t`Person records`,
    photoObjects: t`Photos`,
    captureObjects: t`Captured photos`,
    uploadsClosed: t`Capture uploads closed`,
    passRecordsChanged: t`Pass records made anonymous`,
    punchesRemoved: t`Attendance punches`,
    authorizationsRevoked: t`Authorizations revoked`,
    blacklistEntries: t`Blacklist entries`,
    terminalsTold: t`Terminals told to delete the face`,
    questionnaireAnswers: t`Questionnaire answers`,
    attendanceItems: t`Attendance days and months`,
    webhookDeliveries: t`Webhook deliveries`,
    mailRecords: t`Alert mails scrubbed`,
    exportsWithdrawn: t`Exports withdrawn`,
  };

  // The lists the person was on are read again; the person's own screen stays until the dialog closes.
  const erasure = useWrite(
    async () => {
      let answer = await api.post<ErasureReceipt>(`${basePath(kind)}/${keyOf(person)}/erase`);
      setReceipt(answer);
      for (let round = 0; answer.state !== 'done' && round < MAX_ROUNDS; round++) {
        answer = await api.post<ErasureReceipt>(`${basePath(kind)}/${keyOf(person)}/erase`);
        setReceipt(answer);
      }
    },
    {
      touches: [listKey('people'), 'authorities'],
      onSuccess: () => onErased?.(),
      // Asking again goes on where it stopped.
      onError: (error) => {
        setFailed(true);
        showFailure(error);
      },
    },
  );
  const running = erasure.isPending;
  const erase = () => {
    setFailed(false);
    erasure.mutate();
  };

  const asText = (r: ErasureReceipt) =>
    [
      t`Erasure receipt`,
      `${t`Person key`}: ${r.personKey} (${r.personKind})`,
      `${t`Erased by`}: ${r.erasedBy}`,
      `${t`Started`}: ${r.startedAt}`,
      `${t`Finished`}: ${r.finishedAt ?? '-'}`,
      `${t`Receipt kept until`}: ${r.keptUntil}`,
      '',
      ...(Object.keys(labels) as (keyof ErasureCounts)[]).map((k) => `${labels[k]}: ${r.counts[k]}`),
      '',
    ].join('\n');
  const download = (r: ErasureReceipt, type: 'json' | 'txt') => {
    const body = type === 'json' ? `${JSON.stringify(r, null, 2)}\n` : asText(r);
    const url = URL.createObjectURL(new Blob([body], { type: type === 'json' ? 'application/json' : 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = `erasure-${r.personKey}.${type}`;
    link.click();
    URL.revokeObjectURL(url);
  };

  const done = receipt?.state === 'done';
  return (
    <Modal
      opened
      onClose={running ? () => undefined : onClose}
      title={done ? t`Erasure receipt` : t`Erase ${person.name}`}
      size="lg"
      closeOnClickOutside={!running}
    >
      {!receipt && (
        <Stack gap="md">
          <Alert color="red" variant="light">
            <Text size="sm">
              <Trans>
                Erase {person.name} for good? Their record, every photo of them, the captured photos, names and temperatures of their pass records, their
                questionnaire answers and attendance are removed, and every terminal is told to delete their face. The pass records stay without the person.
                Alert mails about them are scrubbed, and exports made before now are withdrawn. This cannot be undone.
              </Trans>
            </Text>
          </Alert>
          <TextInput
            label={t`Type the person's name to confirm`}
            placeholder={person.name}
            value={typed}
            onChange={(e) => setTyped(e.currentTarget.value)}
            data-testid="erase-name"
          />
          <Checkbox
            label={t`I understand this cannot be undone`}
            checked={understood}
            onChange={(e) => setUnderstood(e.currentTarget.checked)}
            data-testid="erase-understood"
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={running}>
              <Trans>Cancel</Trans>
            </Button>
            <Button color="red" disabled={!matches || !understood} loading={running} onClick={erase} data-testid="erase-confirm">
              <Trans>Erase</Trans>
            </Button>
          </Group>
        </Stack>
      )}
      {receipt && (
        <Stack gap="md" data-testid="erasure-receipt">
          {done ? (
            <Alert color="green" variant="light">
              <Trans>Erased. This receipt is kept until {formatDateTime(receipt.keptUntil)} and the audit log has the entry.</Trans>
            </Alert>
          ) : (
            <Group gap="sm">
              {running && <Loader size="sm" />}
              <Text size="sm">
                {failed ? (
                  <Trans>The erasure stopped before the end. Try again to go on where it stopped.</Trans>
                ) : (
                  <Trans>Erasing… the counts grow as it goes.</Trans>
                )}
              </Text>
            </Group>
          )}
          <Table withTableBorder>
            <Table.Tbody>
              {(Object.keys(labels) as (keyof ErasureCounts)[]).map((k) => (
                <Table.Tr key={k}>
                  <Table.Td>{labels[k]}</Table.Td>
                  <Table.Td ta="right" data-testid={`count-${k}`}>
                    {receipt.counts[k]}
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Group justify="flex-end">
            {!done && failed && (
              <Button color="red" loading={running} onClick={erase}>
                <Trans>Try again</Trans>
              </Button>
            )}
            <Button variant="light" leftSection={<IconDownload size={16} />} disabled={!done} onClick={() => download(receipt, 'json')}>
              <Trans>Download JSON</Trans>
            </Button>
            <Button variant="light" leftSection={<IconDownload size={16} />} disabled={!done} onClick={() => download(receipt, 'txt')}>
              <Trans>Download text</Trans>
            </Button>
            <Button variant="default" disabled={running} onClick={onClose}>
              <Trans>Close</Trans>
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
