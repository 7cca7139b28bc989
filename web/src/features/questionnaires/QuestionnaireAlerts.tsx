import { useRef, useState } from 'react';
import { Stack, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconAlarm } from '@tabler/icons-react';
import { t } from '@lingui/core/macro';
import { Trans } from '@lingui/react/macro';
import { useNavigate } from 'react-router-dom';
import { formatShortTime } from '../../app/format.ts';
import { alertStore } from '../../app/layout/AlertArea.tsx';
import { useLive } from '../../app/live/channel.ts';
import { getAuthorities } from '../../app/session.ts';
import { AlertLink } from '../parts.tsx';
import { resultsScreen, type QuestionnaireResultItem } from './api.ts';

/**
 * Abnormal questionnaire results while the console is open: for an account holding
 * pass:questionnaire, each one the live channel announces raises an alert that stays until it is
 * closed, naming the survey, who answered (or that it was anonymous) and the terminal, with the way
 * to the survey's results. Without the live channel there is no alert: the results screen and the
 * alert mail still tell.
 */
export function QuestionnaireAlerts() {
  const [watching] = useState(() => getAuthorities().includes('pass:questionnaire'));
  const navigate = useNavigate();
  // A route change does not start the watch over (nor lose what it has shown).
  const go = useRef(navigate);
  go.current = navigate;
  const shown = useRef(new Set<string>());

  const show = (result: QuestionnaireResultItem) => {
    if (result.result !== 'abnormal' || shown.current.has(result.resultKey)) return;
    shown.current.add(result.resultKey);
    const id = `questionnaire-${result.resultKey}`;
    const person = result.person ? (result.person.name ?? (result.person.kind === 'employee' ? t`Employee` : t`Visitor`)) : t`Anonymous`;
    notifications.show(
      {
        id,
        color: 'red',
        icon: <IconAlarm size={18} />,
        title: t`Abnormal questionnaire result`,
        autoClose: false,
        withCloseButton: true,
        closeButtonProps: { 'aria-label': t`Close` },
        'data-testid': 'questionnaire-alert',
        'data-result': result.resultKey,
        message: (
          <Stack gap={2} miw={0} mt={4}>
            <Text size="sm" fw={600} c="bright" truncate="end" title={result.title} data-testid="questionnaire-alert-title">
              {result.title}
            </Text>
            <Text size="xs" c={result.person ? undefined : 'dimmed'} truncate="end" title={person} data-testid="questionnaire-alert-person">
              {person}
            </Text>
            <Text size="xs" c="dimmed" truncate="end" title={result.deviceName}>
              {result.deviceName} · {formatShortTime(result.answerTime)}
            </Text>
            <AlertLink id={id} onOpen={() => go.current(resultsScreen(result.questionnaireKey))} testId="questionnaire-alert-open">
              <Trans>Open the survey's results</Trans>
            </AlertLink>
          </Stack>
        ),
      },
      alertStore,
    );
  };

  useLive('questionnaires', (items) => items.forEach(show), { enabled: watching });
  return null;
}
