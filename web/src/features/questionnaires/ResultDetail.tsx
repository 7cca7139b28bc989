import { useRef } from 'react';
import { Badge, Group, Modal, Paper, Stack, Text } from '@mantine/core';
import { IconAlarm } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { formatNumber, formatTime } from '../../app/format.ts';
import { CloseFooter, FactsTable } from '../parts.tsx';
import { ResultBadge, personText } from './parts.tsx';
import { useQuestionnaireLabels, type QuestionnaireResultItem } from './api.ts';

/** One result: who answered where and when, then each question with the answer given and the options that raised the alarm. */
export function ResultDetail({ result: chosen, onClose }: { result: QuestionnaireResultItem | null; onClose: () => void }) {
  const { t } = useLingui();
  const labels = useQuestionnaireLabels();
  // The result stays on screen while the dialog closes.
  const last = useRef(chosen);
  if (chosen) last.current = chosen;
  const result = chosen ?? last.current;
  const revision = formatNumber(result?.revision ?? 1);
  return (
    <Modal
      opened={!!chosen}
      onClose={onClose}
      size={640}
      centered
      title={
        <Text fw={600} truncate="end">
          {result?.title}
        </Text>
      }
      closeButtonProps={{ 'aria-label': t`Close` }}
      data-testid="result-detail"
    >
      {result && (
        <Stack gap="md">
          <FactsTable
            labelWidth="32%"
            rows={[
              [t`Result`, <ResultBadge result={result.result} />],
              [t`Answer time`, formatTime(result.answerTime)],
              [t`Person`, result.person ? `${personText(result, labels)} · ${labels.kind[result.person.kind]}` : labels.anonymous],
              [t`Device`, result.deviceName],
              [t({ message: 'Answered on', context: 'questionnaire answer source' }), labels.source[result.source]],
              [t`Revision`, <Trans>Revision {revision}, as the questions were then</Trans>],
            ]}
          />
          <Stack gap="sm">
            {result.answers.map((answer, i) => {
              const number = formatNumber(i + 1);
              return (
                <Paper
                  key={i}
                  withBorder
                  radius="md"
                  p="sm"
                  bg={answer.alarm ? 'red.0' : undefined}
                  data-testid="result-answer"
                  data-alarm={answer.alarm || undefined}
                >
                  <Stack gap={6}>
                    <Group justify="space-between" wrap="nowrap" align="flex-start">
                      <Text size="sm" fw={600} style={{ wordBreak: 'break-word' }}>
                        {number}. {answer.question}
                      </Text>
                      {answer.alarm && (
                        <Badge color="red" leftSection={<IconAlarm size={12} />} style={{ flex: 'none' }} data-testid="result-alarm">
                          <Trans>Alarm</Trans>
                        </Badge>
                      )}
                    </Group>
                    {answer.type === 'text' ? (
                      answer.text ? (
                        <Text size="sm" style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
                          {answer.text}
                        </Text>
                      ) : (
                        <Text size="sm" c="dimmed">
                          <Trans>Not answered</Trans>
                        </Text>
                      )
                    ) : answer.choices.length ? (
                      <Group gap={6}>
                        {answer.choices.map((choice, j) => (
                          <Badge key={j} variant="light" tt="none" radius="sm">
                            {choice}
                          </Badge>
                        ))}
                      </Group>
                    ) : (
                      <Text size="sm" c="dimmed">
                        <Trans>Not answered</Trans>
                      </Text>
                    )}
                  </Stack>
                </Paper>
              );
            })}
          </Stack>
          <CloseFooter onClose={onClose} testId="result-detail-close" />
        </Stack>
      )}
    </Modal>
  );
}
