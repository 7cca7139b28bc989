import { useEffect, useState } from 'react';
import dayjs from 'dayjs';
import { Alert, Badge, Button, Group, Modal, SegmentedControl, Select, Stack, Text, Tooltip } from '@mantine/core';
import { DatePickerInput, type DatesRangeValue } from '@mantine/dates';
// The date picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { IconRefresh, IconRepeat } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import {
  DELIVERY_RETENTION_DAYS,
  DELIVERY_STATUSES,
  DELIVERY_TIMEOUT_MS,
  REPLAY_LIMIT,
  RETRY_WINDOW_MS,
  TEST_EVENT_TYPE,
  WEBHOOK_EVENT_TYPES,
  type AnyEventType,
  type DeliveryError,
  type DeliveryStatus,
  type ReplayAnswer,
  type WebhookDeliveryJson,
  type WebhookDeliveryPage,
  type WebhookJson,
} from '@passcloud/functions/contract/webhooks';
import { api } from '../../app/api.ts';
import { dayBound, formatNumber, formatTime } from '../../app/format.ts';
import { RequestError } from '../../app/request.ts';
import { invalidate, showFailure, useList, useUrlFilters, useWrite } from '../../app/queries.ts';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { DaysFilter } from '../filters.tsx';

const PAGE_SIZE = 20;
/** While a delivery on the page waits for an attempt, the page is read again this often. */
const WAITING_REFRESH_MS = 2000;
const STATUS_COLOR: Record<DeliveryStatus, string> = { pending: 'blue', retrying: 'orange', delivered: 'teal', dead: 'red' };
const EVENTS: AnyEventType[] = [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE];

/** The deliveries' filters as they stand in the URL: `from` and `to` are days (`YYYY-MM-DD`). */
export const DELIVERY_URL_DEFAULTS = { from: '', to: '', status: '', event: '' };

type ReplayStatus = 'dead' | 'delivered' | 'any';

/** Names of events, delivery states and delivery errors in the console's language. */
export function useWebhookLabels() {
  const { t } = useLingui();
  const seconds = DELIVERY_TIMEOUT_MS / 1000;
  const event: Record<AnyEventType, string> = {
    'pass.record': t`Pass record`,
    'blacklist.hit': t`Blacklist hit`,
    'fever.detected': t`Fever detected`,
    'stranger.detected': t`Stranger detected`,
    'device.online': t`Device online`,
    'device.offline': t`Device offline`,
    'questionnaire.abnormal': t`Abnormal questionnaire result`,
    'call.record': t`Intercom call`,
    'authorization.syncFailed': t`Face sync failed`,
    'door.mode': t`Door mode set or ended`,
    'webhook.test': t`Test event`,
  };
  const status: Record<DeliveryStatus, string> = {
    pending: t`Waiting`,
    retrying: t`Retrying`,
    delivered: t`Delivered`,
    dead: t`Failed (dead letter)`,
  };
  const error: Record<DeliveryError, string> = {
    timeout: t`No answer within ${seconds} seconds`,
    connection: t`Could not connect`,
    tls: t`Secure connection failed`,
    addressRefused: t`Address not allowed`,
    redirect: t`Answered with a redirect`,
    status: t`Answered with an error code`,
    disabled: t`The webhook was turned off`,
    gone: t`The webhook was deleted`,
    workerFailed: t`Internal error while sending`,
  };
  return { event, status, error };
}

/**
 * The delivery log of one subscription, newest first: filtered by day, state and event, read
 * again while a delivery waits for an attempt; a delivered or dead one may be sent again, and so
 * may the deliveries of a range (the dead letters by default).
 */
export function WebhookDeliveries({ webhook }: { webhook: WebhookJson }) {
  const { t } = useLingui();
  const labels = useWebhookLabels();
  const [inUrl, setInUrl] = useUrlFilters(DELIVERY_URL_DEFAULTS);
  const status = DELIVERY_STATUSES.includes(inUrl.status as DeliveryStatus) ? (inUrl.status as DeliveryStatus) : null;
  const event = EVENTS.includes(inUrl.event as AnyEventType) ? (inUrl.event as AnyEventType) : null;
  const range: DatesRangeValue<string> = [inUrl.from || null, inUrl.to || null];
  const set = (next: Partial<typeof DELIVERY_URL_DEFAULTS>) => setInUrl({ ...inUrl, ...next });
  const [rangeOpen, setRangeOpen] = useState(false);

  const days = DELIVERY_RETENTION_DAYS;
  const hours = RETRY_WINDOW_MS / 3_600_000;
  const [from, to] = range;
  const list = useList<WebhookDeliveryJson, WebhookDeliveryPage>({
    resource: 'webhookDeliveries',
    path: `/v1/webhooks/${webhook.webhookKey}/deliveries`,
    query: { from: dayBound(from), to: dayBound(to ?? from, true), status: status ?? undefined, event: event ?? undefined },
    pageSize: PAGE_SIZE,
    refreshMs: (page) => (page?.items.some((d) => d.status === 'pending' || d.status === 'retrying') ? WAITING_REFRESH_MS : false),
  });

  // Each reading of the log may follow a delivery that changed whether the webhook fails: its state is read again too.
  const readAt = list.dataUpdatedAt;
  useEffect(() => {
    if (readAt) void invalidate('webhooks');
  }, [readAt]);

  // The log is read again whether or not the delivery could be sent again.
  const replay = useWrite(
    (delivery: WebhookDeliveryJson) => api.post(`/v1/webhooks/${webhook.webhookKey}/deliveries/${delivery.deliveryKey}/replay`, undefined, { silent: true }),
    { touches: ['webhookDeliveries', 'webhooks'], refreshOnFailure: true, success: t`The delivery is queued to be sent again` },
  );
  const replaying = replay.isPending ? replay.variables.deliveryKey : null;

  const filtered = !!(from || status || event);
  const columns: Column<WebhookDeliveryJson>[] = [
    { key: 'created', title: t`Time`, sticky: 'start', render: (d) => formatTime(d.created) },
    {
      key: 'event',
      title: t`Event`,
      render: (d) => (
        <Text span size="sm" title={`${d.eventType} · ${d.eventId}`} style={{ whiteSpace: 'nowrap' }}>
          {labels.event[d.eventType]}
        </Text>
      ),
      folds: (d) => labels.event[d.eventType],
    },
    {
      key: 'status',
      title: t`Status`,
      render: (d) => (
        <Badge size="sm" variant="light" color={STATUS_COLOR[d.status]} miw="max-content" data-testid="delivery-status">
          {labels.status[d.status]}
        </Badge>
      ),
    },
    { key: 'attempts', title: t`Attempts`, render: (d) => formatNumber(d.attempts) },
    { key: 'latency', title: t`Latency (ms)`, render: (d) => (d.latencyMs === null ? '—' : formatNumber(d.latencyMs)) },
    { key: 'code', title: t`Answer code`, render: (d) => d.responseCode ?? '—' },
    { key: 'error', title: t`Error`, render: (d) => (d.error ? <Truncated text={labels.error[d.error]} maw={200} /> : '—') },
    {
      key: 'excerpt',
      title: t`Answer`,
      render: (d) =>
        d.excerpt ? (
          <Tooltip label={d.excerpt} multiline maw={420} withinPortal style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
            <Text span size="sm" ff="monospace" truncate="end" display="block" maw={200} data-testid="delivery-excerpt">
              {d.excerpt}
            </Text>
          </Tooltip>
        ) : (
          '—'
        ),
    },
    { key: 'next', title: t`Next attempt`, render: (d) => formatTime(d.nextAttemptTime), present: (d) => !!d.nextAttemptTime },
    {
      key: 'actions',
      title: t`Actions`,
      sticky: 'end',
      present: (d) => d.status === 'delivered' || d.status === 'dead',
      render: (d) =>
        (d.status === 'delivered' || d.status === 'dead') && (
          <Button
            size="compact-xs"
            variant="light"
            leftSection={<IconRepeat size={14} />}
            loading={replaying === d.deliveryKey}
            disabled={!webhook.enabled}
            onClick={() => replay.mutate(d)}
            data-testid="delivery-replay"
          >
            <Trans>Replay</Trans>
          </Button>
        ),
    },
  ];

  return (
    <Stack gap="md">
      <Text c="dimmed" size="sm">
        <Trans>
          Every event sent to this webhook in the last {days} days. A delivery that fails is tried again for up to {hours} hours; one that cannot be delivered
          becomes a dead letter, which you can replay once the receiver works.
        </Trans>
      </Text>
      {!webhook.enabled && (
        <Alert color="orange" variant="light" data-testid="deliveries-disabled">
          <Trans>This webhook is turned off: turn it on before replaying deliveries.</Trans>
        </Alert>
      )}
      <Group align="flex-end" gap="sm" wrap="wrap">
        <DaysFilter value={range} onChange={([nextFrom, nextTo]) => set({ from: nextFrom ?? '', to: nextTo ?? '' })} w={240} testId="delivery-range" />
        <Select
          label={t`Status`}
          placeholder={t`Any status`}
          data={DELIVERY_STATUSES.map((value) => ({ value, label: labels.status[value] }))}
          clearable
          value={status}
          onChange={(value) => set({ status: value ?? '' })}
          w={200}
          data-testid="delivery-status-filter"
        />
        <Select
          label={t`Event`}
          placeholder={t`Any event`}
          data={EVENTS.map((value) => ({ value, label: labels.event[value] }))}
          clearable
          value={event}
          onChange={(value) => set({ event: value ?? '' })}
          w={220}
          data-testid="delivery-event-filter"
        />
        <Button
          variant={status === 'dead' ? 'filled' : 'light'}
          color="red"
          onClick={() => set({ status: status === 'dead' ? '' : 'dead' })}
          aria-pressed={status === 'dead'}
          data-testid="delivery-dead-letters"
        >
          <Trans>Dead letters</Trans>
        </Button>
        <Group gap="xs" ms="auto">
          <Button
            variant="default"
            leftSection={<IconRefresh size={16} />}
            loading={list.isFetching && !list.isPending}
            onClick={() => void list.refetch()}
            data-testid="delivery-refresh"
          >
            <Trans>Refresh</Trans>
          </Button>
          <Button
            variant="light"
            leftSection={<IconRepeat size={16} />}
            disabled={!webhook.enabled}
            onClick={() => setRangeOpen(true)}
            data-testid="delivery-replay-range"
          >
            <Trans>Replay a range</Trans>
          </Button>
        </Group>
      </Group>

      <ListFrame
        list={list}
        name="delivery"
        columns={columns}
        rowKey={(d) => d.deliveryKey}
        rowProps={(d) => ({ 'data-testid': 'delivery-row', 'data-status': d.status, 'data-event': d.eventType })}
        filtered={filtered}
        empty={<Text c="dimmed">{t`Nothing has been sent to this webhook yet. Send a test event to see one here.`}</Text>}
      />

      {rangeOpen && <ReplayRangeModal webhook={webhook} initialRange={range} onClose={() => setRangeOpen(false)} />}
    </Stack>
  );
}

/**
 * Sends the deliveries of a range again, the dead letters by default, REPLAY_LIMIT at a time,
 * newest first; when the range holds more, it says so and offers the older rest.
 */
function ReplayRangeModal({ webhook, initialRange, onClose }: { webhook: WebhookJson; initialRange: DatesRangeValue<string>; onClose: () => void }) {
  const { t } = useLingui();
  const today = dayjs().format('YYYY-MM-DD');
  const [range, setRange] = useState<DatesRangeValue<string>>(initialRange[0] ? initialRange : [today, today]);
  const [status, setStatus] = useState<ReplayStatus>('dead');
  /** After a replay that left more: the end of the part still to replay. */
  const [continueTo, setContinueTo] = useState<string | null>(null);
  const [lastCount, setLastCount] = useState(0);
  const [rangeError, setRangeError] = useState<string | null>(null);

  const [from, to] = range;

  // The log is read again after each part, and after a refusal too.
  const replayRange = useWrite(
    (body: { from: string; to: string; status: ReplayStatus }) => api.post<ReplayAnswer>(`/v1/webhooks/${webhook.webhookKey}/replay`, body, { silent: true }),
    {
      touches: ['webhookDeliveries', 'webhooks'],
      refreshOnFailure: true,
      success: (answer) => {
        const count = answer.replayed;
        const sent = plural(count, { one: '# delivery is queued to be sent again', other: '# deliveries are queued to be sent again' });
        return answer.more && answer.continueTo ? '' : count === 0 ? t`Nothing in this range needed to be sent again` : sent;
      },
      onSuccess: (answer) => {
        if (!answer.more || !answer.continueTo) return onClose();
        setContinueTo(answer.continueTo);
        setLastCount(answer.replayed);
      },
      onError: (error) => {
        const issue = error instanceof RequestError ? error.issues[0]?.message : undefined;
        if (issue) setRangeError(issue);
        else showFailure(error);
      },
    },
  );
  const busy = replayRange.isPending;

  const send = () => {
    if (!from) {
      setRangeError(t`Choose the days to replay`);
      return;
    }
    setRangeError(null);
    replayRange.mutate({ from: dayBound(from)!, to: continueTo ?? dayBound(to ?? from, true)!, status });
  };

  const statusLabels: Record<ReplayStatus, string> = { dead: t`Dead letters`, delivered: t`Delivered`, any: t`Both` };
  const limit = formatNumber(REPLAY_LIMIT);
  const before = continueTo ? formatTime(continueTo) : '';
  return (
    <Modal opened onClose={onClose} title={t`Replay a range`} size={520} centered data-testid="replay-range-modal">
      <Stack>
        <Text size="sm">
          <Trans>
            The chosen deliveries are sent again with their original event ids, so a receiver that remembers the ids it has handled can ignore repeats. Up to{' '}
            {limit} are sent at once, newest first.
          </Trans>
        </Text>
        <DatePickerInput
          type="range"
          label={t`Days`}
          allowSingleDateInRange
          required
          value={range}
          onChange={(next) => {
            setRange(next);
            setContinueTo(null);
          }}
          maxDate={today}
          error={rangeError}
          data-testid="replay-range-dates"
        />
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            <Trans>Deliveries</Trans>
          </Text>
          <SegmentedControl
            value={status}
            onChange={(value) => {
              setStatus(value as ReplayStatus);
              setContinueTo(null);
            }}
            data={(['dead', 'delivered', 'any'] as ReplayStatus[]).map((value) => ({ value, label: statusLabels[value] }))}
            data-testid="replay-range-status"
          />
        </Stack>
        {continueTo && (
          <Alert color="blue" variant="light" data-testid="replay-range-more">
            <Text size="sm">
              {plural(lastCount, { one: '# delivery is queued to be sent again.', other: '# deliveries are queued to be sent again.' })}{' '}
              <Trans>The range holds more: replay again to send those older than {before}.</Trans>
            </Text>
          </Alert>
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose} data-testid="replay-range-cancel">
            {continueTo ? <Trans>Close</Trans> : <Trans>Cancel</Trans>}
          </Button>
          <Button leftSection={<IconRepeat size={16} />} loading={busy} onClick={send} data-testid="replay-range-submit">
            {continueTo ? <Trans>Replay the rest</Trans> : <Trans>Replay</Trans>}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
