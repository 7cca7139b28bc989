import { Badge, Group, Radio, Stack, Text } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
// The date picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { useLingui } from '@lingui/react/macro';
import { formatDate, formatShortTime } from '../../../app/format.ts';
import { LIST_OF_SET_TYPE } from '@passcloud/functions/contract/authorities';
import { today, type AuthorityItem, type SetType, type SyncFailure, type SyncState, type ValidityBody, type ValidityState } from './api.ts';

export const SYNC_COLOR: Record<SyncState, string> = { pending: 'orange', synced: 'teal', failed: 'red' };
export const LIST_COLOR: Record<SetType, string> = { 0: 'blue', 1: 'red' };
export const VALIDITY_COLOR: Record<ValidityState, string> = { active: 'teal', upcoming: 'blue', expired: 'gray' };

/** The names the authorization screens give to sync states, failure reasons, validity states and lists. */
export function useAuthorityLabels() {
  const { t } = useLingui();
  return {
    sync: { pending: t`Syncing`, synced: t`Synced`, failed: t`Sync failed` } satisfies Record<SyncState, string>,
    reason: {
      noPhoto: t`No face photo`,
      photoRejected: t`The device rejected the photo`,
      capacityFull: t`The device's face library is full`,
      expired: t`The validity has expired`,
      downloadFailed: t`The device could not download the photo`,
    } satisfies Record<SyncFailure, string>,
    validity: { active: t`In effect`, upcoming: t`Not yet in effect`, expired: t`Expired` } satisfies Record<ValidityState, string>,
    kind: { employee: t`Employee`, visitor: t`Visitor` },
    list: { 0: t`Pass authority`, 1: t`Blacklist` } satisfies Record<SetType, string>,
    permanent: t`Permanent`,
  };
}
export type AuthorityLabels = ReturnType<typeof useAuthorityLabels>;

/** Which list an authorization is on: pass authority or the blacklist. */
export function ListBadge({ setType, labels }: { setType: SetType; labels: AuthorityLabels }) {
  return (
    <Badge color={LIST_COLOR[setType]} variant="outline" miw="max-content" data-testid="sync-list" data-list={LIST_OF_SET_TYPE[setType]}>
      {labels.list[setType]}
    </Badge>
  );
}

/**
 * The sync state as a badge, the reason of a failure under it and, when the device said why in
 * its own words (not translated), those words under the reason.
 */
export function SyncStateCell({ item, labels }: { item: Pick<AuthorityItem, 'syncState' | 'syncReason' | 'syncDetail'>; labels: AuthorityLabels }) {
  const { t } = useLingui();
  const failed = item.syncState === 'failed';
  const detail = failed ? item.syncDetail : null;
  return (
    <Stack gap={2} align="flex-start">
      <Badge color={SYNC_COLOR[item.syncState]} variant="light" miw="max-content" data-testid="sync-badge" data-state={item.syncState}>
        {labels.sync[item.syncState]}
      </Badge>
      {failed && item.syncReason && (
        <Text size="xs" c="red.7" data-testid="sync-reason" style={{ whiteSpace: 'normal' }} maw={220}>
          {labels.reason[item.syncReason]}
        </Text>
      )}
      {detail && (
        <Text size="xs" c="dimmed" data-testid="sync-detail" style={{ whiteSpace: 'normal', overflowWrap: 'anywhere' }} maw={220} lineClamp={3} title={detail}>
          {t`The device reports: ${detail}`}
        </Text>
      )}
    </Stack>
  );
}

/** "Permanent" or the days from and to, with whether the validity holds now. */
export function ValidityCell({ item, labels }: { item: Pick<AuthorityItem, 'start' | 'end' | 'validityState'>; labels: AuthorityLabels }) {
  return (
    <Group gap={6} wrap="nowrap" data-testid="validity">
      <Text size="sm" span>
        {item.start && item.end ? `${formatDate(item.start)} – ${formatDate(item.end)}` : labels.permanent}
      </Text>
      <Badge size="sm" variant="dot" color={VALIDITY_COLOR[item.validityState]} miw="max-content" data-validity={item.validityState}>
        {labels.validity[item.validityState]}
      </Badge>
    </Group>
  );
}

/** When the device last answered for the row: the time alone today, the day and minute before. */
export const syncTime = (item: Pick<AuthorityItem, 'syncTime'>): string => formatShortTime(item.syncTime);

/** A validity being chosen: permanent, or a range of days (either end may be missing while choosing). */
export interface ValidityDraft {
  permanent: boolean;
  range: [string | null, string | null];
}

export const draftOf = (item?: Pick<AuthorityItem, 'start' | 'end'>): ValidityDraft =>
  item?.start && item.end ? { permanent: false, range: [item.start, item.end] } : { permanent: true, range: [null, null] };

/** The body of a draft, or the problem the user must fix first. */
export function validityOf(draft: ValidityDraft, texts: { choose: string; past: string }): { body: ValidityBody } | { error: string } {
  if (draft.permanent) return { body: { permanent: true } };
  const [start, end] = draft.range;
  if (!start || !end) return { error: texts.choose };
  if (end < today()) return { error: texts.past };
  return { body: { start, end } };
}

/** Permanent or a period; the end may not be before today. */
export function ValidityFields({ value, onChange, error }: { value: ValidityDraft; onChange: (value: ValidityDraft) => void; error?: string | null }) {
  const { t } = useLingui();
  return (
    <Stack gap="sm">
      <Radio.Group value={value.permanent ? 'permanent' : 'period'} onChange={(v) => onChange({ ...value, permanent: v === 'permanent' })} label={t`Validity`} required>
        <Group mt={6} gap="lg">
          <Radio value="permanent" label={t`Permanent`} data-testid="validity-permanent" />
          <Radio value="period" label={t`For a period`} data-testid="validity-period" />
        </Group>
      </Radio.Group>
      {!value.permanent && (
        <DatePickerInput
          type="range"
          label={t`From – to`}
          placeholder={t`Choose the first and last day`}
          description={t`Both days included; the last day may not be before today.`}
          allowSingleDateInRange
          clearable
          minDate={today()}
          value={value.range}
          onChange={(range) => onChange({ ...value, range: [range[0] ?? null, range[1] ?? null] })}
          error={error}
          maw={360}
          data-testid="validity-range"
        />
      )}
      {value.permanent && error && (
        <Text size="sm" c="red" role="alert">
          {error}
        </Text>
      )}
    </Stack>
  );
}
