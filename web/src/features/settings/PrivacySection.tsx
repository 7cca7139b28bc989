import { useCallback, useEffect, useState } from 'react';
import { Button, Group, NumberInput, SimpleGrid, Stack, Switch, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import { StaleNotice } from '../../components/StaleNotice.tsx';
import { RETENTION_BOUNDS, type PrivacySettings, type RetentionKind } from '@passcloud/functions/contract/settings';
import { api } from '../../app/api.ts';
import { showFailure, useItem, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { TwoFactorPolicy } from './TwoFactorPolicy.tsx';

type Stored = PrivacySettings & { version: number };
type Values = Omit<PrivacySettings, 'retentionDays'> & { retentionDays: Record<RetentionKind, number | string> };

const KINDS: RetentionKind[] = ['passRecords', 'captures', 'recordings'];
const PATH = '/v1/settings/privacy';

/**
 * Privacy: what pass records keep (temperature, photos, visitors' names) and how many days pass
 * records, capture photos and call recordings are kept. Saved whole, with the version last read.
 */
export function PrivacySection() {
  const { t } = useLingui();
  const read = useItem<Stored>({ resource: 'settings', path: PATH });
  const stored = read.item;
  const [stale, setStale] = useState(false);
  const dayLabel: Record<RetentionKind, string> = {
    passRecords: t`Pass records (days)`,
    captures: t`Capture photos (days)`,
    recordings: t`Call recordings (days)`,
  };

  const inRange = (kind: RetentionKind) => (value: number | string) => {
    const { min, max } = RETENTION_BOUNDS[kind];
    if (value === '') return t`Enter the number of days`;
    return Number.isInteger(Number(value)) && Number(value) >= min && Number(value) <= max ? null : t`Enter a value from ${min} to ${max}`;
  };
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { saveTemperature: true, savePhotos: true, saveVisitorName: true, retentionDays: { passRecords: '', captures: '', recordings: '' } },
    validate: { retentionDays: { passRecords: inRange('passRecords'), captures: inRange('captures'), recordings: inRange('recordings') } },
  });

  /** Fills the form with the settings stored. */
  const show = useCallback((next: Stored) => {
    const { version: _version, ...values } = next;
    setStale(false);
    form.setInitialValues(values);
    form.setValues(values);
  }, []);
  // Each reading of the settings (the first, a reload, a save) fills the form.
  useEffect(() => {
    if (stored) show(stored);
  }, [stored, show]);
  const reload = () => void read.reload().then((next) => next && show(next));

  const saving = useWrite((body: Stored) => api.put<Stored>(PATH, body, { silent: true }), {
    onSuccess: read.put,
    success: t`Saved`,
    onError: (error) => {
      if (error instanceof RequestError && error.status === 409) setStale(true);
      else if (error instanceof RequestError && error.issues.length) for (const issue of error.issues) form.setFieldError(issue.path, issue.message);
      else showFailure(error);
    },
  });
  const submit = form.onSubmit((values) => {
    if (!stored) return;
    const retentionDays = Object.fromEntries(KINDS.map((kind) => [kind, Number(values.retentionDays[kind])])) as Record<RetentionKind, number>;
    saving.mutate({ ...values, retentionDays, version: stored.version });
  });

  return (
    <Stack gap="xl">
      {/* The owner's rule for logging in: saved on its own, at once. */}
      <TwoFactorPolicy />
      <form onSubmit={submit} noValidate>
        <Stack gap="lg" maw={760}>
          {stale && <StaleNotice onReload={reload} testId="privacy-stale" />}
          <Stack gap="sm">
            <Title order={3} size="h5">
              <Trans>What pass records keep</Trans>
            </Title>
            <Switch
              label={t`Save the measured temperature`}
              description={t`Off: a pass record keeps only whether the temperature was normal, not the reading.`}
              {...form.getInputProps('saveTemperature', { type: 'checkbox' })}
              data-testid="privacy-temperature"
            />
            <Switch
              label={t`Save the capture photo and avatar`}
              description={t`Off: a pass record keeps no photo of the person who passed.`}
              {...form.getInputProps('savePhotos', { type: 'checkbox' })}
              data-testid="privacy-photos"
            />
            <Switch
              label={t`Save visitors' names`}
              description={t`Off: pass records of visitors keep no name, only the visitor's group.`}
              {...form.getInputProps('saveVisitorName', { type: 'checkbox' })}
              data-testid="privacy-visitor-name"
            />
          </Stack>
          <Stack gap="sm">
            <Title order={3} size="h5">
              <Trans>How long records are kept</Trans>
            </Title>
            <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="md">
              {KINDS.map((kind) => (
                <NumberInput
                  key={kind}
                  label={dayLabel[kind]}
                  required
                  min={RETENTION_BOUNDS[kind].min}
                  max={RETENTION_BOUNDS[kind].max}
                  allowDecimal={false}
                  allowNegative={false}
                  clampBehavior="none"
                  {...form.getInputProps(`retentionDays.${kind}`)}
                  data-testid={`privacy-days-${kind}`}
                />
              ))}
            </SimpleGrid>
            <Text size="xs" c="dimmed">
              <Trans>Older records and files are removed every day.</Trans>
            </Text>
          </Stack>
          <Group justify="flex-end" gap="xs">
            <Button variant="default" disabled={!form.isDirty()} onClick={() => form.reset()} data-testid="privacy-cancel">
              <Trans>Cancel</Trans>
            </Button>
            <Button type="submit" loading={saving.isPending} disabled={!stored} data-testid="privacy-save">
              <Trans>Save</Trans>
            </Button>
          </Group>
        </Stack>
      </form>
    </Stack>
  );
}
