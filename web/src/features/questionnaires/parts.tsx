import type { ReactNode } from 'react';
import { Badge, Text } from '@mantine/core';
import type { QuestionnaireResult, QuestionnaireState } from '@passcloud/functions/contract/questionnaires';
import { RESULT_COLOR, STATE_COLOR, useQuestionnaireLabels, type QuestionnaireLabels, type QuestionnaireResultItem } from './api.ts';

/** An open survey in green, a closed one in grey. */
export function StateBadge({ state }: { state: QuestionnaireState }) {
  const labels = useQuestionnaireLabels();
  return (
    <Badge color={STATE_COLOR[state]} variant={state === 'open' ? 'filled' : 'light'} w="max-content" data-testid="questionnaire-state" data-state={state}>
      {labels.state[state]}
    </Badge>
  );
}

/** An abnormal result in red, a normal one in quiet green. */
export function ResultBadge({ result }: { result: QuestionnaireResult }) {
  const labels = useQuestionnaireLabels();
  return (
    <Badge color={RESULT_COLOR[result]} variant={result === 'abnormal' ? 'filled' : 'light'} w="max-content" data-testid="result-badge" data-result={result}>
      {labels.result[result]}
    </Badge>
  );
}

/** Who answered: the person the terminal recognised, or "Anonymous" (a phone, or a stranger). */
export function personText(result: QuestionnaireResultItem, labels: QuestionnaireLabels): string {
  if (!result.person) return labels.anonymous;
  return result.person.name ?? labels.kind[result.person.kind];
}

/** A problem of the survey form shown under what it is about; the form scrolls to the first one (`data-error-text`). */
export function ErrorText({ children, testId, pl }: { children: ReactNode; testId?: string; pl?: string }) {
  return (
    <Text size="xs" c="red" pl={pl} data-error-text data-testid={testId}>
      {children}
    </Text>
  );
}
