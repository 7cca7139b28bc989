import { Stack, Text } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { formatDateTime, formatTemperature } from '../../../app/format.ts';
import { FactsTable } from '../../parts.tsx';
import type { PassRecordItem } from './api.ts';
import type { RecordLabels } from './labels.ts';

type Decision = NonNullable<PassRecordItem['decision']>;

/**
 * Why the terminal decided a pass as it did, as it reported it with the record: the list that
 * matched and its validity, the schedule in force at that moment (in the terminal's own time
 * zone), the door mode, and the temperature and mask rules; the reason of a refusal first.
 */
export function DecisionTrace({ record, labels }: { record: PassRecordItem; labels: RecordLabels }) {
  const { t } = useLingui();
  const decision = record.decision;
  const refused = record.refusedFor ? [[t`Refused for`, labels.refusedFor[record.refusedFor]] as const] : [];
  if (!decision && refused.length === 0) return null;
  const because: Record<NonNullable<Decision['schedule']>['because'], string> = {
    weekly: t`weekly hours`,
    exception: t`exception date`,
    holiday: t`holiday`,
  };
  const doorModes: Record<string, string> = { normal: t`Normal`, lockdown: t`Lockdown`, open: t`Held open` };
  const list = (d: Decision) => (d.list === 'pass' ? t`Pass list` : d.list === 'blacklist' ? t`Blacklist` : t`No face matched`);
  const validity = (d: Decision) => {
    if (!d.validFrom && !d.validTo) return t`At any time`;
    const from = d.validFrom ? formatDateTime(d.validFrom) : '…';
    const to = d.validTo ? formatDateTime(d.validTo) : '…';
    return `${from} – ${to}`;
  };
  const schedule = (s: Decision['schedule']) => {
    if (!s) return t`None: at any time`;
    const time = `${s.localTime.replace('T', ' ')} (${s.timezone})`;
    const why = because[s.because];
    if (s.open && s.period) {
      const period = `${s.period.from}–${s.period.to}`;
      return t`Open ${period} at ${time}, ${why}`;
    }
    return t`Closed at ${time}, ${why}`;
  };
  const rows = decision
    ? [
        [t`Matched list`, list(decision)] as const,
        ...(decision.list ? [[t`Validity`, validity(decision)] as const] : []),
        ...(decision.list === 'pass' ? [[t`Schedule`, <span data-testid="decision-schedule">{schedule(decision.schedule)}</span>] as const] : []),
        [t`Door mode`, decision.doorMode ? (doorModes[decision.doorMode] ?? decision.doorMode) : '—'] as const,
        [
          t`Temperature rule`,
          decision.temperature.alarm ? t`Fever alarm from ${formatTemperature(decision.temperature.threshold)}` : t`No fever alarm`,
        ] as const,
        [t`Mask rule`, decision.maskRequired ? t`Mask required` : t`Mask not required`] as const,
      ]
    : [];
  return (
    <Stack gap={6} data-testid="decision-trace">
      <Text size="sm" fw={500} c="dimmed">
        <Trans>How the terminal decided</Trans>
      </Text>
      <FactsTable rows={[...refused, ...rows]} labelWidth="30%" />
      {!decision && (
        <Text size="sm" c="dimmed">
          <Trans>The terminal did not report how it decided.</Trans>
        </Text>
      )}
    </Stack>
  );
}
