import { useEffect, useState } from 'react';
import { Button, Group, Modal, Stack, Text } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { showFailure, useWrite } from '../../../app/queries.ts';
import { RequestError } from '../../../app/request.ts';
import { StaleNotice } from '../../../components/StaleNotice.tsx';
import { changeValidity, type AuthorityItem, type ValidityBody } from './api.ts';
import { ValidityFields, draftOf, validityOf, type ValidityDraft } from './parts.tsx';
import { ScheduleSelect } from '../schedules/ScheduleSelect.tsx';

/**
 * Changes one authorization's validity. The change goes to the device again; a 409 (someone
 * changed it since the list was read) shows the stale notice, whose reload refreshes the list.
 */
export function EditValidityModal({
  item,
  onClose,
  onSaved,
  onReload,
}: {
  item: AuthorityItem | null;
  onClose: () => void;
  onSaved: () => void;
  onReload: () => void;
}) {
  const { t } = useLingui();
  const [draft, setDraft] = useState<ValidityDraft>(() => draftOf(item ?? undefined));
  const [error, setError] = useState<string | null>(null);
  const [stale, setStale] = useState(false);
  const [scheduleKey, setScheduleKey] = useState<string | null>(item?.scheduleKey ?? null);

  useEffect(() => {
    setDraft(draftOf(item ?? undefined));
    setScheduleKey(item?.scheduleKey ?? null);
    setError(null);
    setStale(false);
  }, [item]);

  const saving = useWrite(({ item: changed, validity }: { item: AuthorityItem; validity: ValidityBody }) => changeValidity(changed, validity, scheduleKey), {
    touches: ['authorities'],
    success: t`Saved`,
    onSuccess: onSaved,
    onError: (failure) => {
      if (failure instanceof RequestError && failure.status === 409) setStale(true);
      else if (failure instanceof RequestError && failure.issues.length)
        setError(failure.issues.find((i) => i.path.startsWith('validity') || i.path === 'scheduleKey')?.message ?? failure.issues[0]!.message);
      else showFailure(failure);
    },
  });
  const save = () => {
    if (!item) return;
    const checked = validityOf(draft, { choose: t`Choose the first and last day`, past: t`The end date cannot be earlier than today` });
    if ('error' in checked) return setError(checked.error);
    setError(null);
    saving.mutate({ item, validity: checked.body });
  };

  return (
    <Modal opened={!!item} onClose={onClose} title={t`Change validity`} size="md" data-testid="validity-modal">
      {item && (
        <Stack gap="md">
          <Text size="sm" c="dimmed">
            <Trans>
              {item.name} on {item.deviceName}
            </Trans>
          </Text>
          <ValidityFields value={draft} onChange={setDraft} error={error} />
          {item.setType === 0 && <ScheduleSelect value={scheduleKey} onChange={setScheduleKey} testId="validity-schedule" />}
          {stale && (
            <StaleNotice
              testId="validity-stale"
              onReload={() => {
                onReload();
                onClose();
              }}
            />
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              <Trans>Cancel</Trans>
            </Button>
            <Button onClick={save} loading={saving.isPending} disabled={stale} data-testid="validity-save">
              <Trans>Save</Trans>
            </Button>
          </Group>
        </Stack>
      )}
    </Modal>
  );
}
